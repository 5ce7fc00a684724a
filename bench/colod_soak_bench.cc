// colod under a long load and under attack. colod (sim mode, A100 preset,
// policy priority) serves 16 clients for --minutes (default 10): one
// high-priority client running steps of 4 short kernels and a sync, and 15
// best-effort clients running bursts of 32 kernels, a sync, and an
// allocation and its free. The run cycles through four phases of 15 s:
// quiet, then an attacker of each kind the clients must be protected from:
//   ring flood   a client that launches as fast as its ring takes them and
//                never synchronizes (one wave of 108 blocks a kernel, or
//                --flood-blocks)
//   slow drip    one connection dripping its hello and a registered client
//                dripping a message, one byte every 150 ms, again and again
//   conn flood   silent connections opened as fast as colod takes them
// so that the first minute has seen every attack once, and what colod
// keeps after it (its RSS) can only grow by what it fails to release.
// Prints, per kind of phase over the whole run, the high-priority step time
// (p50, p99) and its ratio to the quiet phases', the best-effort launches
// completed per second, the CPU colod used; the noise (the p99 of the
// quiet phases of odd cycles against that of even ones); colod's RSS after the
// first minute and at the end; and whether anything was lost: every launch of
// the 16 clients completed and acknowledged by their syncs, no client dropped
// but the attackers.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "colod_process.h"
#include "ipc/runtime_client.h"

namespace {

using Clock = std::chrono::steady_clock;
using colo::ipc::RingEntry;
using colo::ipc::RuntimeClient;

constexpr const char* kPhases[] = {"quiet", "ring flood", "slow drip",
                                   "conn flood"};
constexpr int kPhaseCount = 4;
constexpr std::chrono::seconds kPhaseLength{15};

std::atomic<bool> g_stop{false};
std::atomic<int> g_phase{0};  // in [0, kPhaseCount)
std::atomic<int> g_cycle{0};
std::atomic<bool> g_attack_over{false};  // the phase's attacker stops
// The ring flood's kernel: blocks of 1024 threads (--flood-blocks).
uint32_t g_flood_blocks = 108;

long RssKib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  while (in >> key) {
    if (key == "VmRSS:") {
      long kib = 0;
      in >> kib;
      return kib;
    }
    in.ignore(1 << 20, '\n');
  }
  return -1;
}

// CPU seconds (user + system) process `pid` has used.
double CpuSeconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string field;
  for (int i = 0; i < 13; ++i) in >> field;  // colod's comm has no spaces
  long utime = 0, stime = 0;
  in >> utime >> stime;
  return static_cast<double>(utime + stime) / sysconf(_SC_CLK_TCK);
}

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

std::unique_ptr<RuntimeClient> Connect(const std::string& socket,
                                       const std::string& program,
                                       bool high = false) {
  colo::ipc::ClientOptions o;
  o.socket_path = socket;
  o.program = program;
  if (high) {
    o.requested_class = colo::ipc::WireClass::kHigh;
    o.token = "soak-high";
  }
  auto c = RuntimeClient::Connect(o);
  if (!c.ok()) {
    std::fprintf(stderr, "%s: %s\n", program.c_str(),
                 c.status().ToString().c_str());
    return nullptr;
  }
  return std::move(*c);
}

// Defines kernel 1 of `threads` threads a block, `blocks` blocks.
struct Launcher {
  RuntimeClient& c;
  uint64_t seq = 0;
  uint32_t blocks, threads;
  Launcher(RuntimeClient& client, uint32_t b, uint32_t t)
      : c(client), blocks(b), threads(t) {
    RingEntry d;
    d.type = static_cast<uint32_t>(colo::ipc::EntryType::kDefineKernel);
    d.func_id = 1;
    colo::ipc::CopyString(d.name, "soak_kernel");
    Push(d);
  }
  bool Push(const RingEntry& e) {
    for (int i = 0; !g_stop || i < 1; ++i) {
      if (c.ring()->Push(e).ok()) return true;
      usleep(50);
    }
    return false;
  }
  bool Launch() {
    RingEntry e;
    e.type = static_cast<uint32_t>(colo::ipc::EntryType::kLaunch);
    e.seq = seq + 1;
    e.func_id = 1;
    e.grid[0] = blocks;
    e.block[0] = threads;
    if (!Push(e)) return false;
    ++seq;
    return true;
  }
};

struct ClientTotals {
  std::atomic<uint64_t> launched{0}, acknowledged{0}, errors{0};
  std::atomic<uint64_t> per_phase[kPhaseCount] = {};
};

void BestEffort(const std::string& socket, int index, ClientTotals* t) {
  auto c = Connect(socket, "soak-be-" + std::to_string(index));
  if (!c) return void(++t->errors);
  Launcher l(*c, 432, 256);  // 432 blocks x 256 threads: ~10 us modelled
  uint64_t address = 0x100000000ull * (index + 1);
  while (!g_stop) {
    for (int k = 0; k < 32; ++k) {
      if (!l.Launch()) return void(++t->errors);
      ++t->launched;
      ++t->per_phase[g_phase];
    }
    auto r = c->Sync(l.seq);
    if (!r.ok() || r->cuda_error != 0 || r->completed != l.seq)
      return void(++t->errors);
    t->acknowledged += 32;
    auto a = c->Alloc(address, 1 << 20);
    auto f = c->Free(address);
    if (!a.ok() || *a != 0 || !f.ok() || *f != 0) return void(++t->errors);
    address += 4096;
  }
}

struct Step {
  int phase;
  int cycle;  // which pass through the four phases
  double us;
};

void HighPriority(const std::string& socket, std::vector<Step>* steps,
                  ClientTotals* t) {
  auto c = Connect(socket, "soak-high", true);
  if (!c) return void(++t->errors);
  if (c->welcome().granted_class !=
      static_cast<uint32_t>(colo::ipc::WireClass::kHigh)) {
    std::fprintf(stderr, "the high-priority client was not granted high\n");
    ++t->errors;
  }
  Launcher l(*c, 108, 256);
  while (!g_stop) {
    const int phase = g_phase, cycle = g_cycle;
    const auto start = Clock::now();
    for (int k = 0; k < 4; ++k) {
      if (!l.Launch()) return void(++t->errors);
      ++t->launched;
    }
    auto r = c->Sync(l.seq);
    if (!r.ok() || r->completed != l.seq) return void(++t->errors);
    t->acknowledged += 4;
    steps->push_back(
        {phase, cycle,
         std::chrono::duration<double, std::micro>(Clock::now() - start)
             .count()});
    usleep(2000);  // a service at a steady request rate
  }
}

// The attacker of `phase` until the phase ends.
void Attack(const std::string& socket, int phase) {
  if (phase == 1) {  // ring flood: launches as fast as the ring takes them
    auto c = Connect(socket, "attacker-flood");
    if (!c) return;
    Launcher l(*c, g_flood_blocks, 1024);
    while (!g_attack_over) {
      RingEntry e;
      e.type = static_cast<uint32_t>(colo::ipc::EntryType::kLaunch);
      e.seq = l.seq + 1;
      e.func_id = 1;
      e.grid[0] = l.blocks;
      e.block[0] = 1024;
      if (c->ring()->Push(e).ok()) {
        ++l.seq;
      } else {
        usleep(1000);
      }
    }
  } else if (phase == 2) {  // slow drip, reconnecting when cut off
    while (!g_attack_over) {
      const int fd = ConnectRaw(socket);
      auto reg = Connect(socket, "attacker-drip");
      colo::ipc::MsgHeader h;
      h.type = static_cast<uint32_t>(colo::ipc::MsgType::kHello);
      h.length = sizeof(colo::ipc::HelloMsg);
      const char* b = reinterpret_cast<const char*>(&h);
      for (size_t i = 0; i < sizeof(h) && !g_attack_over; ++i) {
        if (fd >= 0) (void)send(fd, b + i, 1, MSG_NOSIGNAL);
        if (reg) (void)reg->SendRawForTest(b + i, 1);
        usleep(150000);
      }
      if (fd >= 0) close(fd);
    }
  } else if (phase == 3) {  // connection flood
    std::vector<int> fds;
    while (!g_attack_over) {
      const int fd = ConnectRaw(socket);
      if (fd >= 0) fds.push_back(fd);
      if (fds.size() >= 900) {
        for (int f : fds) close(f);
        fds.clear();
      }
      usleep(200);
    }
    for (int f : fds) close(f);
  }
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

}  // namespace

int main(int argc, char** argv) {
  double minutes = 10;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--minutes" && i + 1 < argc) {
      minutes = std::atof(argv[++i]);
    } else if (a == "--flood-blocks" && i + 1 < argc) {
      g_flood_blocks = static_cast<uint32_t>(std::atol(argv[++i]));
    } else {
      std::fprintf(a == "-h" || a == "--help" ? stdout : stderr,
                   "usage: colod_soak_bench [--minutes M] [--flood-blocks B]\n"
                   "  M: minutes, default 10; B: blocks of 1024 threads in\n"
                   "  the ring flood's kernel, default 108 (one wave)\n"
                   "16 clients against colod for M minutes, attacked in "
                   "three of every four 15 s phases; see the file's header.\n");
      return a == "-h" || a == "--help" ? 0 : 2;
    }
  }
  if (!(minutes > 0 && minutes <= 600) || g_flood_blocks < 1) {
    std::fprintf(stderr,
                 "--minutes must be in (0, 600], --flood-blocks >= 1\n");
    return 2;
  }
  colo::bench::ColodProcess colod(
      "policy: priority\n"
      "grants:\n  - {token: soak-high, class: high}\n");
  const std::string socket = colod.socket();
  ClientTotals t;
  std::vector<Step> steps;
  std::vector<std::thread> threads;
  threads.emplace_back(HighPriority, socket, &steps, &t);
  for (int i = 0; i < 15; ++i) threads.emplace_back(BestEffort, socket, i, &t);
  const auto start = Clock::now();
  const auto run_end = start + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(minutes * 60));
  long rss_first_minute = -1, rss_peak = 0;
  double phase_seconds[kPhaseCount] = {};
  double phase_cpu[kPhaseCount] = {};  // colod's CPU seconds
  for (int n = 0; Clock::now() < run_end; ++n) {
    const int phase = n % kPhaseCount;
    g_phase = phase;
    g_cycle = n / kPhaseCount;
    g_attack_over = false;
    std::thread attacker(Attack, socket, phase);
    const auto phase_start = Clock::now();
    const double cpu_start = CpuSeconds(colod.pid());
    const auto end = std::min(run_end, phase_start + kPhaseLength);
    while (Clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      const long rss = RssKib(colod.pid());
      rss_peak = std::max(rss_peak, rss);
      if (rss_first_minute < 0 &&
          Clock::now() - start >= std::chrono::seconds(60)) {
        rss_first_minute = rss;
      }
    }
    g_attack_over = true;
    attacker.join();
    phase_seconds[phase] +=
        std::chrono::duration<double>(Clock::now() - phase_start).count();
    phase_cpu[phase] += CpuSeconds(colod.pid()) - cpu_start;
  }
  const long rss_end = RssKib(colod.pid());
  g_stop = true;
  for (std::thread& th : threads) th.join();
  const double wall =
      std::chrono::duration<double>(Clock::now() - start).count();

  colo::ipc::ClientOptions mo;
  mo.socket_path = socket;
  mo.role = colo::ipc::ClientRole::kMonitor;
  mo.reply_timeout = colo::Milliseconds(5000);
  nlohmann::json stats;
  if (auto m = RuntimeClient::Connect(mo); m.ok()) {
    if (auto s = (*m)->Stats(); s.ok())
      stats = nlohmann::json::parse(*s, nullptr, false);
  }

  std::printf("colod soak: 16 clients, %.1f min (%.0f s), phases of 15 s\n",
              minutes, wall);
  double base_p99 = 0;
  for (int phase = 0; phase < kPhaseCount; ++phase) {
    std::vector<double> us;
    for (const Step& s : steps) {
      if (s.phase == phase) us.push_back(s.us);
    }
    const double p50 = Percentile(us, 0.50), p99 = Percentile(us, 0.99);
    if (phase == 0) base_p99 = p99;
    std::printf(
        "  %-12s high-priority step: %6zu steps, p50 %7.0f us, p99 %7.0f us "
        "(x%.2f of quiet); best effort %.0f launches/s; colod %.0f%% of a "
        "core\n",
        kPhases[phase], us.size(), p50, p99, base_p99 > 0 ? p99 / base_p99 : 0,
        phase_seconds[phase] > 0 ? t.per_phase[phase] / phase_seconds[phase]
                                 : 0.0,
        phase_seconds[phase] > 0 ? 100 * phase_cpu[phase] / phase_seconds[phase]
                                 : 0.0);
  }
  // The noise: the quiet phases of even cycles against those of odd ones,
  // no attacker in either.
  std::vector<double> even, odd;
  for (const Step& s : steps) {
    if (s.phase == 0) (s.cycle % 2 == 0 ? even : odd).push_back(s.us);
  }
  const double even_p99 = Percentile(even, 0.99),
               odd_p99 = Percentile(odd, 0.99);
  std::printf(
      "  noise: quiet phases of odd cycles against even ones: p99 x%.2f\n",
      even_p99 > 0 ? odd_p99 / even_p99 : 0.0);
  std::printf(
      "  colod RSS: %ld KiB after 1 min, %ld KiB at the end (x%.3f), peak "
      "%ld KiB\n",
      rss_first_minute, rss_end,
      rss_first_minute > 0 ? static_cast<double>(rss_end) / rss_first_minute
                           : 0.0,
      rss_peak);
  const bool lost = t.launched != t.acknowledged || t.errors > 0;
  std::printf(
      "  16 clients: %llu launches, %llu acknowledged by their syncs, %llu "
      "client errors: %s\n",
      static_cast<unsigned long long>(t.launched.load()),
      static_cast<unsigned long long>(t.acknowledged.load()),
      static_cast<unsigned long long>(t.errors.load()),
      lost ? "SOMETHING LOST" : "nothing lost");
  if (stats.is_object()) {
    std::printf(
        "  colod: %lld kernels launched, %lld completed, %lld clients served, "
        "%lld dropped (attackers)\n",
        stats.value("kernels_launched", 0LL),
        stats.value("kernels_completed", 0LL),
        stats.value("clients_served", 0LL),
        stats.value("clients_dropped", 0LL));
  } else {
    std::printf("  colod: no stats (did it die?)\n");
  }
  return lost ? 1 : 0;
}
