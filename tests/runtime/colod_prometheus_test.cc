// colod's metrics endpoint as an operator uses it: colod (sim mode) runs
// with `metrics:` on a free loopback port; clients launch kernels through
// it (a CUDA program under the interposer where the test programs are
// built, and two clients of the test's own that stay connected); a real
// Prometheus server (Debian's /usr/bin/prometheus) scrapes colod every
// second; the test reads the values back through Prometheus's HTTP API and
// checks them against `colo top --json` at the same quiet moment. And
// colod keeps serving its clients and scrapes while metrics clients
// misbehave (stalled, oversized, garbage).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "colod_harness.h"
#include "ipc/launch_ring.h"

namespace colo::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const std::string kPrometheus = "/usr/bin/prometheus";
const std::string kColo = kBin + "/colo";

// A loopback TCP port nobody listens on now.
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

int ConnectTo(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  timeval tv{10, 0};  // every read bounded.
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

// GET `target` from 127.0.0.1:`port` (HTTP/1.0: the answer ends at the
// close); the body, or "" on failure.
std::string HttpGet(int port, const std::string& target) {
  const int fd = ConnectTo(port);
  if (fd < 0) return "";
  const std::string req =
      "GET " + target + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
  if (send(fd, req.data(), req.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(req.size())) {
    close(fd);
    return "";
  }
  std::string out;
  char buf[8192];
  for (ssize_t r; (r = recv(fd, buf, sizeof buf, 0)) > 0;)
    out.append(buf, static_cast<size_t>(r));
  close(fd);
  const size_t body = out.find("\r\n\r\n");
  if (out.compare(0, 12, "HTTP/1.1 200") != 0 &&
      out.compare(0, 12, "HTTP/1.0 200") != 0)
    return "";
  return body == std::string::npos ? "" : out.substr(body + 4);
}

// The port colod's log names for its metrics ("metrics on
// http://127.0.0.1:PORT/metrics"), or 0.
int MetricsPort(const Colod& colod) {
  if (!colod.LogHas("metrics on http://127.0.0.1:")) return 0;
  const std::string log = colod.Log();
  const size_t p = log.find("metrics on http://127.0.0.1:");
  return std::atoi(log.c_str() + p +
                   std::strlen("metrics on http://127.0.0.1:"));
}

// One client of the test's own: registers, holds `bytes` of memory
// (allocated before its first launch: persistent), launches `launches`
// kernels of `blocks` blocks on stream 0, and waits for them.
std::unique_ptr<ipc::RuntimeClient> LaunchAndWait(
    const Colod& colod, const std::string& program, bool ask_high,
    const std::string& token, int launches, uint32_t blocks, uint64_t bytes) {
  ipc::ClientOptions o = AppOptions(colod, program);
  if (ask_high) o.requested_class = ipc::WireClass::kHigh;
  o.token = token;
  auto c = ipc::RuntimeClient::Connect(o);
  EXPECT_TRUE(c.ok()) << c.status().message();
  if (!c.ok()) return nullptr;
  EXPECT_TRUE((*c)->Alloc(0x10000, bytes).ok());
  ipc::RingEntry d;
  d.type = static_cast<uint32_t>(ipc::EntryType::kDefineKernel);
  d.func_id = 1;
  ipc::CopyString(d.name, "_Z4stepPf");
  EXPECT_TRUE((*c)->ring()->Push(d).ok());
  for (int i = 1; i <= launches; ++i) {
    ipc::RingEntry l;
    l.type = static_cast<uint32_t>(ipc::EntryType::kLaunch);
    l.seq = static_cast<uint64_t>(i);
    l.func_id = 1;
    l.grid[0] = blocks;
    l.block[0] = 256;
    EXPECT_TRUE((*c)->ring()->Push(l).ok());
  }
  auto s = (*c)->Sync(static_cast<uint64_t>(launches));
  EXPECT_TRUE(s.ok()) << s.status().message();
  return std::move(*c);
}

// Prometheus's instant query of `metric`: each series's labels and value.
struct Series {
  std::map<std::string, std::string> labels;
  double value = 0;
};
std::vector<Series> Query(int port, const std::string& metric) {
  const std::string body = HttpGet(port, "/api/v1/query?query=" + metric);
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  std::vector<Series> out;
  if (j.is_discarded() || j.value("status", "") != "success") return out;
  for (const auto& r : j["data"]["result"]) {
    Series s;
    for (const auto& [k, v] : r["metric"].items())
      s.labels[k] = v.get<std::string>();
    // [unix time, "value"]: Go writes the shortest text of the double.
    s.value = std::stod(r["value"][1].get<std::string>());
    out.push_back(s);
  }
  return out;
}

// The value of `metric`'s series whose label `key` is `value` (or the only
// series with key ""); NaN if Prometheus has none.
double Value(int port, const std::string& metric, const std::string& key = "",
             const std::string& value = "") {
  for (const Series& s : Query(port, metric)) {
    if (key.empty() || (s.labels.count(key) && s.labels.at(key) == value))
      return s.value;
  }
  return std::nan("");
}

TEST(ColodPrometheusTest, PrometheusReadsBackWhatColoTopShows) {
  if (access(kPrometheus.c_str(), X_OK) != 0) {
    GTEST_SKIP() << kPrometheus
                 << " is missing: apt-get install prometheus (CI has it)";
  }
  TempDir dir;
  Colod colod(dir,
              "metrics: {listen: 127.0.0.1:0}\n"
              "grants:\n  - {token: s3cret, class: high}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  const int metrics_port = MetricsPort(colod);
  ASSERT_GT(metrics_port, 0) << colod.Log();
  // A real CUDA program under the interposer first (it ends; its launches
  // stay in colod's totals and its class's).
  if (ProgramsBuilt()) {
    auto p = colod.Run(dir, "infer", {Program("infer_loop"), "3", "2", "10"});
    ASSERT_EQ(p->Wait(seconds(60)), 0) << p->Errors() << colod.Log();
  }
  // Two clients that stay connected: one granted high priority by its
  // token, one that asks for it without a grant (runs best-effort).
  auto high = LaunchAndWait(colod, "serve", true, "s3cret", 40, 54, 3 << 20);
  auto denied = LaunchAndWait(colod, "train", true, "", 25, 216, 5 << 20);
  ASSERT_TRUE(high && denied) << colod.Log();
  // Quiet: every launch ended; nothing changes colod's figures from here.
  ASSERT_TRUE(colod.StatsReach([](const nlohmann::json& j) {
    return j["kernels_completed"] == j["kernels_launched"] &&
           j["clients"].size() == 2;
  })) << colod.Stats().dump();

  // Prometheus, scraping colod every second, on a port of its own.
  const int prom_port = FreePort();
  const std::string cfg = dir.path() + "/prometheus.yml";
  std::ofstream(cfg) << "global:\n  scrape_interval: 1s\n"
                     << "scrape_configs:\n  - job_name: colod\n"
                     << "    static_configs:\n      - targets: ['127.0.0.1:"
                     << metrics_port << "']\n";
  Process prom({kPrometheus, "--config.file=" + cfg,
                "--storage.tsdb.path=" + dir.path() + "/tsdb",
                "--web.listen-address=127.0.0.1:" + std::to_string(prom_port)},
               {}, dir.path() + "/prom.out", dir.path() + "/prom.err");

  // colo top --json now (quiet: the same figures as every scrape since).
  ASSERT_EQ(access(kColo.c_str(), X_OK), 0) << kColo;
  Process top({kColo, "top", "--once", "--json", "--socket", colod.socket()},
              {}, dir.path() + "/top.out", dir.path() + "/top.err");
  ASSERT_EQ(top.Wait(seconds(30)), 0) << top.Errors();
  const nlohmann::json j = nlohmann::json::parse(
      top.Output().substr(0, top.Output().find('\n')), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << top.Output();

  // Until a scrape is stored: at most 90 s (Prometheus opens its database
  // first), every 200 ms.
  const double launched = j["kernels_launched"].get<double>();
  ASSERT_TRUE(WaitFor(
      [&] {
        return Value(prom_port, "colo_kernels_launched_total") == launched;
      },
      milliseconds(90'000)))
      << "Prometheus never stored colod's series\n"
      << prom.Errors() << colod.Log();

  // Totals. The expected values are computed from colo top's JSON by the
  // rule each metric documents (ms -> s: / 1000); every value passes
  // through two shortest round-trip texts, so they are equal as doubles.
  EXPECT_EQ(Value(prom_port, "colo_kernels_completed_total"),
            j["kernels_completed"].get<double>());
  EXPECT_EQ(Value(prom_port, "colo_high_denied_total"),
            j["high_denied"].get<double>());
  EXPECT_EQ(j["high_denied"], 1);  // "train"'s request.
  EXPECT_EQ(Value(prom_port, "colo_clients_served_total"),
            j["clients_served"].get<double>());
  EXPECT_EQ(Value(prom_port, "colo_gpu_memory_used_bytes"),
            j["memory_used"].get<double>());
  EXPECT_EQ(Value(prom_port, "colo_gpu_memory_used_bytes"),
            double{(3 << 20) + (5 << 20)});
  EXPECT_EQ(Value(prom_port, "colo_gpu_sm_active_ratio"),
            j["gpu_activity"]["sm_active"].get<double>());
  EXPECT_EQ(Value(prom_port, "colo_info", "policy", "priority"), 1);
  // Per class.
  for (const char* cls : {"high", "best-effort"}) {
    const nlohmann::json& c = j["classes"][cls];
    SCOPED_TRACE(cls);
    EXPECT_EQ(
        Value(prom_port, "colo_class_kernels_launched_total", "class", cls),
        c["kernels_launched"].get<double>());
    EXPECT_EQ(
        Value(prom_port, "colo_class_kernels_completed_total", "class", cls),
        c["kernels_completed"].get<double>());
    EXPECT_DOUBLE_EQ(
        Value(prom_port, "colo_class_device_seconds_total", "class", cls),
        c["device_ms"].get<double>() / 1000);
    EXPECT_DOUBLE_EQ(
        Value(prom_port, "colo_class_solo_seconds_total", "class", cls),
        c["solo_ms"].get<double>() / 1000);
    ASSERT_TRUE(c["stretch"].is_number());
    EXPECT_DOUBLE_EQ(Value(prom_port, "colo_class_stretch_ratio", "class", cls),
                     c["stretch"].get<double>());
    EXPECT_EQ(Value(prom_port, "colo_class_clients", "class", cls), 1);
  }
  EXPECT_EQ(j["classes"]["high"]["kernels_launched"], 40);
  // Per client, by its id.
  for (const nlohmann::json& c : j["clients"]) {
    const std::string id = std::to_string(c["id"].get<int>());
    SCOPED_TRACE(c["program"].get<std::string>());
    EXPECT_EQ(
        Value(prom_port, "colo_client_kernels_launched_total", "client", id),
        c["kernels_launched"].get<double>());
    EXPECT_EQ(
        Value(prom_port, "colo_client_kernels_completed_total", "client", id),
        c["kernels_completed"].get<double>());
    EXPECT_EQ(
        Value(prom_port, "colo_client_memory_persistent_bytes", "client", id),
        c["memory_persistent"].get<double>());
    EXPECT_EQ(Value(prom_port, "colo_client_memory_limit_bytes", "client", id),
              c["memory_limit"].get<double>());
    EXPECT_DOUBLE_EQ(
        Value(prom_port, "colo_client_device_seconds_total", "client", id),
        c["device_time"]["device_ms"].get<double>() / 1000);
    EXPECT_DOUBLE_EQ(
        Value(prom_port, "colo_client_stretch_ratio", "client", id),
        c["device_time"]["stretch"].get<double>());
    EXPECT_EQ(
        Value(prom_port, "colo_client_syncs_answered_total", "client", id),
        c["sync_latency"]["answered"].get<double>());
    EXPECT_DOUBLE_EQ(
        Value(prom_port, "colo_client_sync_wait_seconds_total", "client", id),
        c["sync_latency"]["total_ms"].get<double>() / 1000);
    const bool denied_high =
        c["requested_class"] == "high" && c["class"] == "best-effort";
    EXPECT_EQ(Value(prom_port, "colo_client_high_denied", "client", id),
              denied_high ? 1 : 0);
    EXPECT_EQ(denied_high, c["program"] == "train");
  }
  prom.Signal(SIGTERM);
  EXPECT_EQ(prom.Wait(seconds(30)), 0) << prom.Errors();
}

TEST(ColodPrometheusTest, MisbehavingScrapersNeverStallColod) {
  // While 20 connections sit on colod's metrics port mid-request (more
  // than it keeps: it closes the oldest), one sends 64 KiB of header and
  // one sends garbage, a client's launches are served and a well-formed
  // scrape is answered with colod's figures.
  TempDir dir;
  Colod colod(dir, "metrics: {listen: 127.0.0.1:0}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  const int port = MetricsPort(colod);
  ASSERT_GT(port, 0) << colod.Log();
  std::vector<int> bad;
  for (int i = 0; i < 20; ++i) {
    const int fd = ConnectTo(port);
    ASSERT_GE(fd, 0);
    send(fd, "GET /metrics HTTP/1.1\r\nHo", 25, MSG_NOSIGNAL);
    bad.push_back(fd);
  }
  const int big = ConnectTo(port);
  const std::string huge =
      "GET /metrics HTTP/1.1\r\nX: " + std::string(64 << 10, 'a');
  send(big, huge.data(), huge.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  bad.push_back(big);
  const int junk = ConnectTo(port);
  send(junk, "\x01\x02\x03\r\n\r\n", 7, MSG_NOSIGNAL);
  bad.push_back(junk);

  auto c = LaunchAndWait(colod, "work", false, "", 50, 108, 1 << 20);
  ASSERT_TRUE(c) << colod.Log();
  const std::string text = HttpGet(port, "/metrics");
  EXPECT_NE(text.find("colo_client_kernels_completed_total{client=\""),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("program=\"work\",class=\"best-effort\"} 50\n"),
            std::string::npos)
      << text;
  for (int fd : bad) close(fd);
  EXPECT_FALSE(colod.process().Ended()) << colod.Log();
}

}  // namespace
}  // namespace colo::testing
