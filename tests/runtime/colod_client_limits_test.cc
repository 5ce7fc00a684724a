// colod against clients that would take more of it than their share, run
// as a real colod process: one that sends a byte at a time, one that
// launches and never synchronizes, connections that never speak, colod's
// file descriptors running out, allocations of one byte. Each keeps
// whatever colod's limits (runtime/client_limits.h) give it, and every other
// client is served on time.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "colod_harness.h"
#include "ipc/launch_ring.h"
#include "ipc/runtime_client.h"
#include "ipc/wire.h"

namespace colo::testing {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// A connected, silent socket to `path` (-1 if the connection failed).
int ConnectRaw(const std::string& path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// The descriptors process `pid` has open.
int OpenDescriptors(pid_t pid) {
  DIR* d = opendir(("/proc/" + std::to_string(pid) + "/fd").c_str());
  if (d == nullptr) return -1;
  int n = 0;
  while (readdir(d) != nullptr) ++n;
  closedir(d);
  return n - 2;  // . and ..
}

// CPU time (user + system) process `pid` has used.
milliseconds CpuTime(pid_t pid) {
  std::istringstream in(ReadFile("/proc/" + std::to_string(pid) + "/stat"));
  std::string field;
  for (int i = 0; i < 13; ++i) in >> field;  // up to the comm's end: no spaces
  long utime = 0, stime = 0;
  in >> utime >> stime;
  return milliseconds((utime + stime) * 1000 / sysconf(_SC_CLK_TCK));
}

// The longest a well-behaved client waits for colod over `span`: it
// registers, synchronizes and leaves, again and again.
milliseconds WorstRoundTrip(const Colod& colod, milliseconds span) {
  milliseconds worst{0};
  const auto end = Clock::now() + span;
  while (Clock::now() < end) {
    const auto start = Clock::now();
    ipc::ClientOptions o = AppOptions(colod, "bystander");
    o.reply_timeout = std::chrono::seconds(20);
    auto c = ipc::RuntimeClient::Connect(o);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    if (c.ok()) {
      EXPECT_TRUE((*c)->Sync(0).ok());
    }
    worst = std::max(
        worst, std::chrono::duration_cast<milliseconds>(Clock::now() - start));
    std::this_thread::sleep_for(milliseconds(20));
  }
  return worst;
}

// A client that sends its hello, or a message, one byte every 150 ms holds
// nobody up: colod reads what has arrived and goes on. The dripping
// connection is closed at its hello deadline, the registered client that
// drips a message at its message deadline.
TEST(ColodClientLimitsTest, ASlowDripDoesNotHoldColodUp) {
  TempDir dir;
  Colod colod(dir,
              "limits: {hello_timeout_ms: 1500, message_timeout_ms: 1500}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  const int drip = ConnectRaw(colod.socket());
  ASSERT_GE(drip, 0);
  auto registered = ipc::RuntimeClient::Connect(AppOptions(colod, "dripper"));
  ASSERT_TRUE(registered.ok());
  std::atomic<bool> stop{false};
  std::thread dripper([&] {
    ipc::HelloMsg hello;
    ipc::MsgHeader h;
    h.type = static_cast<uint32_t>(ipc::MsgType::kHello);
    h.length = sizeof(hello);
    ipc::MsgHeader stats;
    stats.type = static_cast<uint32_t>(ipc::MsgType::kStats);
    const char* a = reinterpret_cast<const char*>(&h);
    const char* b = reinterpret_cast<const char*>(&stats);
    for (size_t i = 0; i < sizeof(h) && !stop; ++i) {
      (void)send(drip, a + i, 1, MSG_NOSIGNAL);
      (void)(*registered)->SendRawForTest(b + i, 1);
      std::this_thread::sleep_for(milliseconds(150));
    }
  });
  const milliseconds worst = WorstRoundTrip(colod, milliseconds(2000));
  stop = true;
  dripper.join();
  EXPECT_LT(worst, milliseconds(500)) << colod.Log();
  EXPECT_TRUE(colod.LogHas(
      "dropped: protocol error: a message took over 1500 ms to arrive"))
      << colod.Log();
  EXPECT_TRUE(colod.LogHas("closed 1 connection(s) that did not register"))
      << colod.Log();
  EXPECT_EQ((*registered)->Sync(0).status().code(), StatusCode::kUnavailable);
  close(drip);
}

// A client that launches and never synchronizes gets up to
// limits.queued_launches of its launches queued in colod; the rest wait in
// its ring, which fills, and its pushes fail until the queue drains. Its
// queue goes with it.
TEST(ColodClientLimitsTest, ALauncherThatNeverSynchronizesIsHeldAtItsLimit) {
  TempDir dir;
  Colod colod(dir, "limits: {queued_launches: 1000}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto flood = ipc::RuntimeClient::Connect(AppOptions(colod, "flood"));
  ASSERT_TRUE(flood.ok());
  ipc::LaunchRing* ring = (*flood)->ring();
  ipc::RingEntry def;
  def.type = static_cast<uint32_t>(ipc::EntryType::kDefineKernel);
  def.func_id = 1;
  ipc::CopyString(def.name, "long_kernel");
  ASSERT_TRUE(ring->Push(def).ok());
  // Each launch: 2^20 blocks of 1024 threads, modelled at ~54 ms: few of
  // them end while the test runs.
  uint64_t pushed = 0;
  const auto end = Clock::now() + std::chrono::seconds(3);
  while (pushed < 20000 && Clock::now() < end) {
    ipc::RingEntry e;
    e.type = static_cast<uint32_t>(ipc::EntryType::kLaunch);
    e.seq = pushed + 1;
    e.func_id = 1;
    e.grid[0] = 65536;
    e.grid[1] = 16;
    e.block[0] = 1024;
    if (ring->Push(e).ok()) {
      ++pushed;
    } else {
      std::this_thread::sleep_for(milliseconds(1));
    }
  }
  EXPECT_LE(pushed, 1000 + ipc::kRingCapacity + 100) << colod.Log();
  nlohmann::json stats = colod.Stats();
  ASSERT_TRUE(stats.is_object());
  long in_flight = -1;
  for (const auto& c : stats["clients"]) {
    if (c["program"] == "flood") in_flight = c["in_flight"].get<long>();
  }
  EXPECT_GT(in_flight, 0);
  EXPECT_LE(in_flight, 1000) << stats.dump();
  // Others are served; the flood's queue goes with it when it goes.
  EXPECT_LT(WorstRoundTrip(colod, milliseconds(300)), milliseconds(500));
  flood->reset();
  ASSERT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
    return j["clients"].empty();
  })) << colod.Log();
  EXPECT_LT(WorstRoundTrip(colod, milliseconds(300)), milliseconds(500));
}

// Held at its limit, a client's sync on a launch still in its ring waits
// for it instead of being taken for a sync beyond its launches.
TEST(ColodClientLimitsTest, ASyncBeyondTheQueueLimitWaitsForItsLaunches) {
  TempDir dir;
  Colod colod(dir, "limits: {queued_launches: 8}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto client = ipc::RuntimeClient::Connect(AppOptions(colod, "burst"));
  ASSERT_TRUE(client.ok());
  ipc::LaunchRing* ring = (*client)->ring();
  ipc::RingEntry def;
  def.type = static_cast<uint32_t>(ipc::EntryType::kDefineKernel);
  def.func_id = 1;
  ipc::CopyString(def.name, "short_kernel");
  ASSERT_TRUE(ring->Push(def).ok());
  constexpr uint64_t kLaunches = 200;
  for (uint64_t seq = 1; seq <= kLaunches; ++seq) {
    ipc::RingEntry e;
    e.type = static_cast<uint32_t>(ipc::EntryType::kLaunch);
    e.seq = seq;
    e.func_id = 1;
    e.grid[0] = 1;
    e.block[0] = 32;
    ASSERT_TRUE(ring->Push(e).ok()) << seq;
  }
  Result<ipc::SyncReplyMsg> r = (*client)->Sync(kLaunches);
  ASSERT_TRUE(r.ok()) << r.status().ToString() << colod.Log();
  EXPECT_EQ(r->completed, kLaunches);
  EXPECT_EQ(r->cuda_error, 0);
}

// Connections that never speak: at most limits.pending_connections wait
// unregistered (the oldest goes). Out of descriptors, colod closes an
// unregistered one or pauses listening, and neither spins nor keeps a new
// client out once a descriptor is free.
TEST(ColodClientLimitsTest, SilentConnectionsCannotExhaustColod) {
  TempDir dir;
  Colod colod(dir, "limits: {pending_connections: 16}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  const int before = OpenDescriptors(colod.process().pid());
  std::vector<int> silent;
  for (int i = 0; i < 200; ++i) {
    const int fd = ConnectRaw(colod.socket());
    if (fd >= 0) silent.push_back(fd);
  }
  EXPECT_LT(WorstRoundTrip(colod, milliseconds(300)), milliseconds(500));
  EXPECT_TRUE(WaitFor(
      [&] { return OpenDescriptors(colod.process().pid()) <= before + 16; },
      std::chrono::seconds(5)))
      << OpenDescriptors(colod.process().pid()) << " open, " << before
      << " before";
  for (int fd : silent) close(fd);
}

TEST(ColodClientLimitsTest, RunningOutOfDescriptorsNeitherSpinsNorShutsOut) {
  TempDir dir;
  const std::string cfg = dir.path() + "/colod.yaml";
  const std::string sock = dir.path() + "/colod.sock";
  std::ofstream(cfg) << "socket: " << sock << "\n";
  // colod with room for a handful of clients (each holds 3 descriptors).
  Process colod({"/usr/bin/prlimit", "--nofile=40:40", kColod, "--config", cfg},
                {}, dir.path() + "/out", dir.path() + "/err");
  ASSERT_TRUE(WaitFor([&] { return access(sock.c_str(), F_OK) == 0; },
                      std::chrono::seconds(10)))
      << ReadFile(dir.path() + "/err");
  ipc::ClientOptions o;
  o.socket_path = sock;
  o.reply_timeout = milliseconds(300);
  std::vector<std::unique_ptr<ipc::RuntimeClient>> clients;
  for (int i = 0; i < 30; ++i) {
    auto c = ipc::RuntimeClient::Connect(o);
    if (!c.ok()) break;
    clients.push_back(std::move(*c));
  }
  ASSERT_GT(clients.size(), 3u);
  ASSERT_LT(clients.size(), 30u) << "colod never ran out of descriptors";
  // Silent connections wait in the backlog; colod must not spin on them.
  std::vector<int> silent;
  for (int i = 0; i < 20; ++i) {
    const int fd = ConnectRaw(sock);
    if (fd >= 0) silent.push_back(fd);
  }
  const milliseconds cpu0 = CpuTime(colod.pid());
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const milliseconds cpu = CpuTime(colod.pid()) - cpu0;
  EXPECT_LT(cpu, milliseconds(400))
      << "colod used " << cpu.count() << " ms of CPU in 2 s while out of fds";
  // One leaves: a new client gets its place promptly.
  clients.pop_back();
  for (int fd : silent) close(fd);
  o.reply_timeout = std::chrono::seconds(2);
  const auto start = Clock::now();
  Result<std::unique_ptr<ipc::RuntimeClient>> next = UnavailableError("");
  for (int i = 0; i < 20 && !next.ok(); ++i)
    next = ipc::RuntimeClient::Connect(o);
  ASSERT_TRUE(next.ok()) << next.status().ToString()
                         << ReadFile(dir.path() + "/err");
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(2));
  EXPECT_TRUE((*next)->Sync(0).ok());
  EXPECT_FALSE(colod.Ended());
}

// A program that launches on ever new streams: colod forgets each stream
// once nothing of it is left, so its state of the client stays bounded.
TEST(ColodClientLimitsTest, StreamsWithNothingLeftAreForgotten) {
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto c = ipc::RuntimeClient::Connect(AppOptions(colod, "many-streams"));
  ASSERT_TRUE(c.ok());
  ipc::LaunchRing* ring = (*c)->ring();
  ipc::RingEntry def;
  def.type = static_cast<uint32_t>(ipc::EntryType::kDefineKernel);
  def.func_id = 1;
  ipc::CopyString(def.name, "short_kernel");
  ASSERT_TRUE(ring->Push(def).ok());
  constexpr uint64_t kLaunches = 3000;
  for (uint64_t seq = 1; seq <= kLaunches; ++seq) {
    ipc::RingEntry e;
    e.type = static_cast<uint32_t>(ipc::EntryType::kLaunch);
    e.seq = seq;
    e.func_id = 1;
    e.stream_id = static_cast<uint32_t>(seq);
    e.grid[0] = 1;
    e.block[0] = 32;
    while (!ring->Push(e).ok()) std::this_thread::sleep_for(milliseconds(1));
  }
  Result<ipc::SyncReplyMsg> r = (*c)->Sync(kLaunches);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->completed, kLaunches);
  nlohmann::json j = colod.Stats();
  ASSERT_EQ(j["clients"].size(), 1u) << j.dump();
  EXPECT_EQ(j["clients"][0]["streams"], 0) << j.dump();
}

// 1-byte allocations: each is charged 256 bytes (CUDA's allocation
// alignment), and a client holds at most limits.allocations, so colod's
// bookkeeping of it is bounded.
TEST(ColodClientLimitsTest, TinyAllocationsAreChargedAndCapped) {
  TempDir dir;
  Colod colod(dir, "limits: {allocations: 1000}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto c = ipc::RuntimeClient::Connect(AppOptions(colod, "tiny"));
  ASSERT_TRUE(c.ok());
  for (uint64_t i = 0; i < 1000; ++i) {
    Result<int> r = (*c)->Alloc(0x10000 + i * 512, 1);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(*r, 0) << "allocation " << i;
  }
  Result<int> over = (*c)->Alloc(0x10000 + 1000 * 512, 1);
  ASSERT_TRUE(over.ok());
  EXPECT_EQ(*over, 2);  // cudaErrorMemoryAllocation
  EXPECT_TRUE(colod.LogHas("holds 1000 allocations, its limit"));
  nlohmann::json j = colod.Stats();
  EXPECT_EQ(j["memory_used"], 1000 * 256) << j.dump();
  // A free makes room again.
  Result<int> freed = (*c)->Free(0x10000);
  ASSERT_TRUE(freed.ok());
  EXPECT_EQ(*freed, 0);
  Result<int> again = (*c)->Alloc(0x10000 + 1000 * 512, 1);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 0);
}

}  // namespace
}  // namespace colo::testing
