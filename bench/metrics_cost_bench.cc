// What colod's metrics endpoint costs colod: launch throughput through
// colod (sim mode) with no scraper, with a scraper every second (as
// Prometheus with scrape_interval 1s), and with one every 10 ms (100x that,
// to make the cost visible), in interleaved rounds of one run, as ratios.
// 32 idle clients stay connected so that each scrape renders ~600 series.
// Also the time a scrape takes as the scraper sees it, and its size.
//
// Usage: metrics_cost_bench [ROUNDS] (default 5; each round ~2 s a mode).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "colod_process.h"
#include "ipc/launch_ring.h"
#include "ipc/runtime_client.h"

namespace colo::bench {
namespace {

using Clock = std::chrono::steady_clock;

int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

// GET /metrics; the bytes of the answer (0 on failure).
size_t Scrape(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  size_t got = 0;
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
    if (send(fd, req, sizeof req - 1, MSG_NOSIGNAL) > 0) {
      char buf[16384];
      for (ssize_t r; (r = recv(fd, buf, sizeof buf, 0)) > 0;)
        got += static_cast<size_t>(r);
    }
  }
  close(fd);
  return got;
}

// Scrapes every `period` until stopped, recording each scrape's time.
class Scraper {
 public:
  Scraper(int port, std::chrono::milliseconds period) {
    thread_ = std::thread([this, port, period] {
      while (!stop_) {
        const auto t0 = Clock::now();
        bytes_ = Scrape(port);
        times_us_.push_back(
            std::chrono::duration<double, std::micro>(Clock::now() - t0)
                .count());
        const auto next = t0 + period;
        while (!stop_ && Clock::now() < next)
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
  }
  ~Scraper() {
    stop_ = true;
    thread_.join();
  }
  std::vector<double> times_us() const { return times_us_; }
  size_t bytes() const { return bytes_; }

 private:
  std::atomic<bool> stop_{false};
  std::vector<double> times_us_;
  size_t bytes_ = 0;
  std::thread thread_;
};

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Launches `n` one-block kernels on `c`'s ring after `*seq`, waits for
// them; launches per second.
double LaunchRound(ipc::RuntimeClient& c, uint64_t* seq, int n) {
  const auto t0 = Clock::now();
  for (int i = 0; i < n; ++i) {
    ipc::RingEntry l;
    l.type = static_cast<uint32_t>(ipc::EntryType::kLaunch);
    l.seq = ++*seq;
    l.func_id = 1;
    l.grid[0] = 1;
    l.block[0] = 32;
    while (!c.ring()->Push(l).ok()) std::this_thread::yield();  // full.
  }
  if (!c.Sync(*seq).ok()) return 0;
  return n / std::chrono::duration<double>(Clock::now() - t0).count();
}

int Main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  const int port = FreePort();
  ColodProcess colod("metrics: {listen: 127.0.0.1:" + std::to_string(port) +
                     "}\n");
  std::vector<std::unique_ptr<ipc::RuntimeClient>> idle;
  for (int i = 0; i < 32; ++i) {
    ipc::ClientOptions o;
    o.socket_path = colod.socket();
    o.program = "idle" + std::to_string(i);
    auto c = ipc::RuntimeClient::Connect(o);
    if (!c.ok()) {
      std::fprintf(stderr, "connect: %s\n", c.status().message().c_str());
      return 1;
    }
    idle.push_back(std::move(*c));
  }
  ipc::ClientOptions o;
  o.socket_path = colod.socket();
  o.program = "launcher";
  auto c = ipc::RuntimeClient::Connect(o);
  if (!c.ok()) return 1;
  ipc::RingEntry d;
  d.type = static_cast<uint32_t>(ipc::EntryType::kDefineKernel);
  d.func_id = 1;
  ipc::CopyString(d.name, "_Z5emptyv");
  (void)(*c)->ring()->Push(d);
  uint64_t seq = 0;
  // Calibrate a round to about 2 s without a scraper.
  int n = 2000;
  const double warm = LaunchRound(**c, &seq, n);
  n = std::max(2000, static_cast<int>(warm * 2.0));
  std::vector<double> none, every_s, every_10ms, scrape_us;
  size_t bytes = 0;
  int scrapes_1s = 0;
  for (int r = 0; r < rounds; ++r) {
    none.push_back(LaunchRound(**c, &seq, n));
    {
      Scraper s(port, std::chrono::milliseconds(1000));
      every_s.push_back(LaunchRound(**c, &seq, n));
      scrapes_1s += static_cast<int>(s.times_us().size());
    }
    {
      Scraper s(port, std::chrono::milliseconds(10));
      every_10ms.push_back(LaunchRound(**c, &seq, n));
      for (double t : s.times_us()) scrape_us.push_back(t);
      bytes = s.bytes();
    }
  }
  const double base = Median(none);
  std::printf("rounds=%d launches_per_round=%d idle_clients=32\n", rounds, n);
  std::printf("scrape_bytes=%zu scrape_median_us=%.0f scrapes_1s=%d\n", bytes,
              Median(scrape_us), scrapes_1s);
  std::printf("launches_per_s none=%.0f every_1s=%.0f every_10ms=%.0f\n", base,
              Median(every_s), Median(every_10ms));
  std::printf("ratio every_1s/none=%.3f every_10ms/none=%.3f\n",
              Median(every_s) / base, Median(every_10ms) / base);
  return 0;
}

}  // namespace
}  // namespace colo::bench

int main(int argc, char** argv) { return colo::bench::Main(argc, argv); }
