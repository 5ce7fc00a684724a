// fuzz/colod_protocol_fuzzer.cc — colod's socket and launch ring, from a
// hostile client. One colod (runtime::Daemon, device: sim, its socket in the
// fuzzer's temporary folder) serves on a thread for the whole process; each
// input is one client that connects, says what the input says on the socket
// and in its ring, and closes. Then a well-behaved client must register and
// have a Sync answered within kLivenessTimeout, or the fuzzer aborts: a
// crash, a sanitizer report, a leak, a hang (libFuzzer's -timeout) or a
// colod that stopped serving is a finding.
//
// Input layout (all optional; what is missing counts as empty):
//   byte 0   flags:
//     bit 0  first register as an application: a valid Hello with a real
//            ring (ipc::LaunchRing::Create), doorbell and gate channel;
//     bit 1  (without bit 0) first register as a monitor;
//     bit 2  fill in each ring entry's checksum (else the bytes as given);
//     bit 3  number kLaunch/kWait/kCopy entries 1, 2, 3, ... (else as given);
//     bit 4  the socket part is framed messages (below; else raw bytes);
//     bit 5  write the ring part before the socket part (else after);
//     bit 6  the ring part starts with 8 bytes stored as the ring's tail
//            (else the tail counts the entries written);
//     bit 7  after writing the ring part, wait until colod has read it
//            (or dropped the client, or 20 ms passed).
//   bytes 1-2  the socket part's length (little-endian, cut to what is left);
//   then the socket part, then the ring part: 256-byte ipc::RingEntry
//   images (a short last one padded with zeros), at most the ring's
//   capacity, written at the ring's tail and rung on its doorbell.
// A frame of the framed socket part: a type byte, a length byte n, n bytes.
// Type bit 7 set: a message of type (bits 0-6) with exactly those n bytes
// as payload. Clear: the message type's well-formed payload (a Hello of this
// wire version from an application, an AllocMsg, FreeMsg, SyncMsg; empty
// for others) with the n bytes laid over its start. A Hello frame carries a
// fresh ring's descriptors, and that ring gets the ring part.
//
// colod's log (stderr) is silenced: `stderr` points at /dev/null for this
// process, while libFuzzer and the sanitizers keep writing to descriptor 2.
// COLO_FUZZ_COLOD_LOG=1 keeps the log. `--write-seeds=DIR` (ignored by
// libFuzzer, which skips flags that start with "--") writes a few inputs
// of the layout above to DIR and exits.
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "fuzz_util.h"
#include "ipc/launch_ring.h"
#include "ipc/runtime_client.h"
#include "ipc/wire.h"
#include "runtime/daemon.h"
#include "runtime/daemon_config.h"

namespace {

using namespace colo;
using Clock = std::chrono::steady_clock;

// How long the well-behaved client may wait for each reply.
constexpr auto kLivenessTimeout = std::chrono::seconds(5);
// How long an input's client waits for colod to read its ring (bit 7).
constexpr auto kRingWait = std::chrono::milliseconds(20);

enum Flags : uint8_t {
  kHelloApp = 1,
  kHelloMonitor = 2,
  kFixChecksums = 4,
  kNumberLaunches = 8,
  kFramed = 16,
  kRingFirst = 32,
  kRawTail = 64,
  kWaitForRing = 128,
};

runtime::Daemon* colod = nullptr;
std::thread* colod_thread = nullptr;
std::string socket_path;

void StopColod() {
  if (colod == nullptr) return;
  colod->RequestStop();
  colod_thread->join();
  delete colod_thread;
  delete colod;
  colod = nullptr;
}

void StartColod() {
  const std::string dir = fuzz::TempDir();
  socket_path = dir + "/colod.sock";
  const std::string yaml = "socket: " + socket_path +
                           "\n"
                           "device: sim\n"
                           "gpu: A100\n"
                           "policy: priority\n"
                           "memory_limit_mib: 4096\n"
                           "grants:\n"
                           "  - {token: fuzz-token, class: high}\n"
                           "kernels:\n"
                           "  - {name: sgemm, duration_us: 250, "
                           "sm_throughput: 0.9, dram_throughput: 0.2}\n"
                           "ring_spin_us: 0\n"
                           "sync_spin_us: 0\n";
  auto config =
      runtime::LoadDaemonConfig(fuzz::WriteTempFile("colod.yaml", yaml));
  fuzz::Check(config.ok(), "colod's config: " + config.status().ToString());
  auto daemon = runtime::Daemon::Create(*config);
  fuzz::Check(daemon.ok(), "colod: " + daemon.status().ToString());
  colod = daemon->release();
  colod_thread = new std::thread([] {
    Status s = colod->Run();
    fuzz::Check(s.ok(), "colod stopped: " + s.ToString());
  });
  // Daemon::Create blocked the stop signals on this thread for its signalfd;
  // colod's thread keeps them blocked, this one takes them back so that
  // libFuzzer still hears ^C.
  sigset_t stop;
  sigemptyset(&stop);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&stop, sig);
  pthread_sigmask(SIG_UNBLOCK, &stop, nullptr);
  std::atexit(StopColod);
}

// The input, read front to back; past its end, zeros.
class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  size_t left() const { return size_ - pos_; }
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  // The next min(n, left()) bytes, as (start, count).
  std::pair<const uint8_t*, size_t> Take(size_t n) {
    const uint8_t* p = data_ + pos_;
    n = std::min(n, left());
    pos_ += n;
    return {p, n};
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

int ConnectRaw() {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  fuzz::Check(fd >= 0, "socket");
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, socket_path.data(), socket_path.size());
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    fuzz::Fail("cannot connect to colod: " + std::string(strerror(errno)));
  }
  // A send colod does not read (it dropped us) must not block the fuzzer.
  timeval tv{0, 100'000};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  return fd;
}

// A client of one input: its socket, and the rings its Hellos handed over
// (the last gets the ring part).
struct HostileClient {
  int fd = -1;
  std::vector<std::unique_ptr<ipc::LaunchRing>> rings;
  std::vector<int> gate_fds;
  ~HostileClient() {
    if (fd >= 0) close(fd);
    for (int g : gate_fds) close(g);
  }

  // Sends a Hello with a fresh ring, its doorbell and a gate channel.
  void SendAppHello(const void* hello, size_t length) {
    auto ring = ipc::LaunchRing::Create();
    fuzz::Check(ring.ok(), "LaunchRing::Create: " + ring.status().ToString());
    rings.emplace_back(*ring);
    int pair[2];
    fuzz::Check(
        socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) == 0,
        "socketpair");
    gate_fds.push_back(pair[0]);
    (void)ipc::SendMessage(
        fd, ipc::MsgType::kHello, hello, length,
        {rings.back()->memfd(), rings.back()->eventfd(), pair[1]});
    close(pair[1]);
  }
};

ipc::HelloMsg WellFormedHello(ipc::ClientRole role) {
  ipc::HelloMsg h;
  h.role = static_cast<uint32_t>(role);
  h.pid = getpid();
  ipc::CopyString(h.program, "fuzz-hostile");
  return h;
}

// The well-formed payload of `type`, for a frame to lay its bytes over.
std::vector<uint8_t> DefaultPayload(uint32_t type) {
  auto bytes = [](const auto& msg) {
    const auto* p = reinterpret_cast<const uint8_t*>(&msg);
    return std::vector<uint8_t>(p, p + sizeof(msg));
  };
  switch (static_cast<ipc::MsgType>(type)) {
    case ipc::MsgType::kHello:
      return bytes(WellFormedHello(ipc::ClientRole::kApp));
    case ipc::MsgType::kAlloc: {
      ipc::AllocMsg m;
      m.address = 0x7f0000000000;
      m.bytes = 1 << 20;
      return bytes(m);
    }
    case ipc::MsgType::kFree: {
      ipc::FreeMsg m;
      m.address = 0x7f0000000000;
      return bytes(m);
    }
    case ipc::MsgType::kSync:
      return bytes(ipc::SyncMsg{});
    default:
      return {};
  }
}

void SendRaw(int fd, const uint8_t* p, size_t n) {
  while (n > 0) {
    const ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w <= 0) return;  // colod dropped us, or stopped reading.
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void SendSocketPart(HostileClient& c, uint8_t flags, const uint8_t* p,
                    size_t n) {
  if ((flags & kFramed) == 0) return SendRaw(c.fd, p, n);
  Input in(p, n);
  while (in.left() >= 2) {
    const uint8_t type_byte = in.Byte();
    const auto [body, got] = in.Take(in.Byte());
    const uint32_t type = type_byte & 0x7f;
    std::vector<uint8_t> payload;
    if ((type_byte & 0x80) != 0) {
      payload.assign(body, body + got);
    } else {
      payload = DefaultPayload(type);
      if (!payload.empty())
        std::memcpy(payload.data(), body, std::min(payload.size(), got));
    }
    if (type == static_cast<uint32_t>(ipc::MsgType::kHello)) {
      c.SendAppHello(payload.data(), payload.size());
    } else {
      (void)ipc::SendMessage(c.fd, static_cast<ipc::MsgType>(type),
                             payload.data(), payload.size());
    }
  }
}

// Waits (bounded) until colod has consumed `ring` up to `tail`, or dropped
// the client (its socket closed).
void WaitForRing(const HostileClient& c, ipc::LaunchRing& ring, uint64_t tail) {
  const auto deadline = Clock::now() + kRingWait;
  while (Clock::now() < deadline) {
    if (ring.control().head.load(std::memory_order_acquire) == tail) return;
    pollfd pfd{c.fd, POLLRDHUP, 0};
    if (poll(&pfd, 1, 1) > 0 &&
        (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0)
      return;
  }
}

void WriteRingPart(HostileClient& c, uint8_t flags, const uint8_t* p,
                   size_t n) {
  if (c.rings.empty() || n == 0) return;
  ipc::LaunchRing& ring = *c.rings.back();
  ipc::RingControl& control = ring.control();
  Input in(p, n);
  uint64_t raw_tail = 0;
  if ((flags & kRawTail) != 0) {
    uint8_t b[8] = {};
    for (uint8_t& x : b) x = in.Byte();
    std::memcpy(&raw_tail, b, sizeof(b));
  }
  auto* entries = reinterpret_cast<ipc::RingEntry*>(
      reinterpret_cast<char*>(&control) + sizeof(ipc::RingControl));
  const uint64_t start = control.tail.load(std::memory_order_relaxed);
  uint64_t tail = start;
  uint64_t seq = 0;
  while (in.left() > 0 && tail - start < ipc::kRingCapacity) {
    ipc::RingEntry e;
    std::memset(&e, 0, sizeof(e));
    const auto [bytes, got] = in.Take(sizeof(e));
    std::memcpy(&e, bytes, got);
    const auto type = static_cast<ipc::EntryType>(e.type);
    if ((flags & kNumberLaunches) != 0 &&
        (type == ipc::EntryType::kLaunch || type == ipc::EntryType::kWait ||
         type == ipc::EntryType::kCopy)) {
      e.seq = ++seq;
    }
    if ((flags & kFixChecksums) != 0) e.checksum = ipc::EntryChecksum(e);
    std::memcpy(&entries[tail % ipc::kRingCapacity], &e, sizeof(e));
    ++tail;
  }
  control.tail.store((flags & kRawTail) != 0 ? raw_tail : tail,
                     std::memory_order_seq_cst);
  const uint64_t one = 1;
  ssize_t w = write(ring.eventfd(), &one, sizeof(one));
  (void)w;
  if ((flags & kWaitForRing) != 0) WaitForRing(c, ring, tail);
}

// A well-behaved application registers and has a Sync answered, each within
// kLivenessTimeout; otherwise colod stopped serving: abort.
void CheckColodServes() {
  ipc::ClientOptions o;
  o.socket_path = socket_path;
  o.program = "fuzz-liveness";
  o.sync_spin = Duration(0);
  o.reply_timeout = std::chrono::duration_cast<Duration>(kLivenessTimeout);
  auto client = ipc::RuntimeClient::Connect(o);
  fuzz::Check(client.ok(), "a well-behaved client cannot register: " +
                               client.status().ToString());
  auto sync = (*client)->Sync(0);
  fuzz::Check(sync.ok(), "a well-behaved client's Sync is not answered: " +
                             sync.status().ToString());
}

void RunInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  const uint8_t flags = in.Byte();
  size_t socket_length = in.Byte();
  socket_length |= static_cast<size_t>(in.Byte()) << 8;
  const auto [socket_part, socket_got] = in.Take(socket_length);
  const auto [ring_part, ring_length] = in.Take(in.left());

  HostileClient c;
  c.fd = ConnectRaw();
  if ((flags & kHelloApp) != 0) {
    const ipc::HelloMsg h = WellFormedHello(ipc::ClientRole::kApp);
    c.SendAppHello(&h, sizeof(h));
  } else if ((flags & kHelloMonitor) != 0) {
    (void)ipc::SendStruct(c.fd, ipc::MsgType::kHello,
                          WellFormedHello(ipc::ClientRole::kMonitor));
  }
  if ((flags & kRingFirst) != 0) {
    WriteRingPart(c, flags, ring_part, ring_length);
    SendSocketPart(c, flags, socket_part, socket_got);
  } else {
    SendSocketPart(c, flags, socket_part, socket_got);
    WriteRingPart(c, flags, ring_part, ring_length);
  }
}

// --write-seeds=DIR: a few inputs that reach deep (valid hellos, kernel
// definitions and launches, framed calls).
void WriteSeeds(const std::string& dir) {
  auto entry_bytes = [](const ipc::RingEntry& e) {
    const auto* p = reinterpret_cast<const uint8_t*>(&e);
    return std::vector<uint8_t>(p, p + sizeof(e));
  };
  ipc::RingEntry define;
  define.type = static_cast<uint32_t>(ipc::EntryType::kDefineKernel);
  define.func_id = 1;
  ipc::CopyString(define.name, "_Z11sgemm_kernelPfS_S_i");
  define.registers_per_thread = 32;
  ipc::RingEntry launch;
  launch.type = static_cast<uint32_t>(ipc::EntryType::kLaunch);
  launch.func_id = 1;
  launch.grid[0] = 80;
  launch.block[0] = 256;
  const ipc::RingEntry wait =
      ipc::WaitEntry(0, 2, ipc::WaitTarget{1, ipc::SyncScope::kLaunch});
  const ipc::RingEntry copy = ipc::CopyEntry(
      0, 0, ipc::HostCopy{ipc::CopyDirection::kHostToDevice, 1 << 20});
  auto write = [&](const std::string& name, uint8_t flags,
                   const std::vector<uint8_t>& socket_part,
                   const std::vector<ipc::RingEntry>& ring) {
    std::vector<uint8_t> out = {flags, static_cast<uint8_t>(socket_part.size()),
                                static_cast<uint8_t>(socket_part.size() >> 8)};
    out.insert(out.end(), socket_part.begin(), socket_part.end());
    for (const ipc::RingEntry& e : ring) {
      const std::vector<uint8_t> b = entry_bytes(e);
      out.insert(out.end(), b.begin(), b.end());
    }
    std::ofstream(dir + "/" + name, std::ios::binary)
        .write(reinterpret_cast<const char*>(out.data()),
               static_cast<std::streamsize>(out.size()));
  };
  const uint8_t app = kHelloApp | kFixChecksums | kNumberLaunches;
  write("launches", app | kWaitForRing, {}, {define, launch, launch});
  write("launch-wait-copy", app | kRingFirst | kWaitForRing, {},
        {define, launch, wait, copy});
  // Alloc, Free, Sync(1) after the launches.
  write("calls", app | kFramed | kRingFirst, {4, 0, 5, 0, 6, 1, 1},
        {define, launch});
  // A Hello frame, then an Alloc of 4 GiB + 1 (over the limit).
  write("hello-alloc", kFramed,
        {1, 0, 4, 16, 0, 0x10, 0, 0, 0, 0x7f, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0},
        {});
  write("monitor-stats", kHelloMonitor | kFramed, {8, 0}, {});
  // A header claiming more payload than follows.
  write("raw-short", 0, {0x4f, 0x4c, 0x4f, 0x43, 1, 0, 0, 0, 0x50, 1, 0, 0},
        {});
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  for (int i = 1; i < *argc; ++i) {
    const std::string arg = (*argv)[i];
    if (arg.rfind("--write-seeds=", 0) == 0) {
      WriteSeeds(arg.substr(std::strlen("--write-seeds=")));
      std::exit(0);
    }
  }
  signal(SIGPIPE, SIG_IGN);
  const char* keep_log = std::getenv("COLO_FUZZ_COLOD_LOG");
  if (keep_log == nullptr || std::strcmp(keep_log, "1") != 0) {
    // libFuzzer keeps its own copy of the old `stderr`; the sanitizers write
    // to descriptor 2. Only what prints through `stderr` (colod's log) goes.
    FILE* null = std::fopen("/dev/null", "w");
    if (null != nullptr) stderr = null;
  }
  StartColod();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  RunInput(data, size);  // its client closes at the end
  CheckColodServes();
  return 0;
}
