// The added cost of an asynchronous kernel launch through the interposer and
// the launch ring, against a direct no-op call.
//
// Part 1 (in process): the producer's cost of LaunchRing::Push, with colod
// polling (no doorbell) and with colod asleep (one eventfd write per push).
// Part 2 (end to end): starts colod (SimGpu, wall clock) and runs the
// nvcc-built tests/cuda_programs/launch_bench unmodified under
// libcolo_preload.so, which times `empty_kernel<<<1, 32>>>()` against a call
// through a function pointer to a no-op; colod sleeping (default) and
// polling (ring_spin_us: 50).
// Prints ns per operation and the ratio to the no-op call.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "runtime/launch_ring.h"

namespace {

using Clock = std::chrono::steady_clock;
const std::string kBin = COLO_BINARY_DIR;

__attribute__((noinline)) int Noop(int x) {
  asm volatile("" ::: "memory");
  return x;
}

double NoopNs() {
  int (*volatile fn)(int) = Noop;
  const int n = 10000000;
  int acc = 0;
  auto t0 = Clock::now();
  for (int i = 0; i < n; ++i) acc += fn(i);
  auto t1 = Clock::now();
  if (acc == 42) std::printf(" ");
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / n;
}

// Producer cost only, with colod caught up before every push (the common
// case: each push then finds head == its tail). Each push is timed alone and
// the entry drained afterwards, untimed, by the same thread; the figures
// include one steady_clock read (~20 ns).
double PushNs(bool doorbell) {
  using colo::runtime::LaunchRing;
  using colo::runtime::RingEntry;
  std::unique_ptr<LaunchRing> producer(*LaunchRing::Create());
  std::unique_ptr<LaunchRing> consumer(
      *LaunchRing::Attach(dup(producer->memfd()), dup(producer->eventfd())));
  consumer->SetConsumerAwake(!doorbell);
  const int n = 100000;
  RingEntry e;
  e.type = static_cast<uint32_t>(colo::runtime::EntryType::kLaunch);
  Clock::duration total{0};
  for (int i = 0; i < n; ++i) {
    e.seq = i + 1;
    auto t0 = Clock::now();
    if (!producer->Push(e).ok()) std::abort();
    total += Clock::now() - t0;
    RingEntry got;
    while (*consumer->Pop(&got)) {
    }
    consumer->PublishHeadAndCheckMore();
    uint64_t count;
    if (read(consumer->eventfd(), &count, sizeof(count)) < 0) {
      // EAGAIN without a doorbell: nothing to reset.
    }
  }
  return std::chrono::duration<double, std::nano>(total).count() / n;
}

// Runs launch_bench against a fresh colod with `extra_config`; returns its
// output.
std::string EndToEnd(const std::string& extra_config) {
  char tmpl[] = "/tmp/colo-bench-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string sock = dir + "/colod.sock";
  std::ofstream(dir + "/c.yaml") << "socket: " << sock << "\n" << extra_config;
  pid_t colod = fork();
  if (colod == 0) {
    if (freopen("/dev/null", "w", stderr) == nullptr) _exit(126);
    execl((kBin + "/colod").c_str(), "colod", "--config",
          (dir + "/c.yaml").c_str(), nullptr);
    _exit(127);
  }
  for (int i = 0; i < 500 && access(sock.c_str(), F_OK) != 0; ++i)
    usleep(10000);
  const std::string cmd = "COLO_SOCKET=" + sock + " LD_PRELOAD=" + kBin +
                          "/libcolo_preload.so timeout 120 " + kBin +
                          "/tests/cuda_programs/launch_bench 200 512";
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof(buf), p)) out += buf;
    pclose(p);
  }
  kill(colod, SIGTERM);
  int st;
  waitpid(colod, &st, 0);
  std::string rm = "rm -rf " + dir;
  if (std::system(rm.c_str()) != 0)
    std::fprintf(stderr, "could not remove %s\n", dir.c_str());
  return out;
}

double Field(const std::string& out, const std::string& key) {
  size_t p = out.find(key + "=");
  return p == std::string::npos ? -1
                                : std::atof(out.c_str() + p + key.size() + 1);
}

}  // namespace

int main() {
  const double noop = NoopNs();
  std::printf("no-op call through a function pointer: %.1f ns\n", noop);
  const double quiet = PushNs(false);
  const double bell = PushNs(true);
  std::printf(
      "ring push, colod polling (no doorbell):  %.1f ns (%.0fx a no-op)\n",
      quiet, quiet / noop);
  std::printf(
      "ring push, colod asleep (doorbell write): %.1f ns (%.0fx a no-op)\n",
      bell, bell / noop);
  if (access((kBin + "/tests/cuda_programs/launch_bench").c_str(), X_OK) != 0) {
    std::printf(
        "end to end: skipped (tests/cuda_programs/launch_bench not built: no "
        "nvcc)\n");
    return 0;
  }
  for (const char* cfg : {"", "ring_spin_us: 50\n"}) {
    const std::string out = EndToEnd(cfg);
    const double l = Field(out, "launch_ns_median"),
                 n = Field(out, "noop_ns_median");
    std::printf(
        "end to end, colod %s: launch %.1f ns, no-op %.1f ns, added %.1f ns "
        "(%.0fx)\n",
        *cfg ? "polling (ring_spin_us 50)" : "sleeping (default)", l, n, l - n,
        n > 0 ? l / n : 0);
  }
  return 0;
}
