// The Prometheus text writer, RenderMetrics over a stats snapshot, and the
// `metrics:` section of colod's config.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "runtime/daemon_config.h"
#include "runtime/daemon_metrics.h"
#include "runtime/prometheus_text.h"

namespace colo::runtime {
namespace {

TEST(PrometheusTextTest, FamilyHasHelpTypeAndEscapedSamples) {
  // Label values escape \, " and newline (in that spelling); HELP escapes
  // \ and newline only (a quote stays as it is).
  PrometheusText t;
  t.Family("x_total", MetricType::kCounter, "a \"b\" c\\d\ne");
  t.Sample({{"program", "we\"ird\\na\nme"}, {"class", "high"}}, 3);
  t.Sample({}, 0.5);
  EXPECT_EQ(t.text(),
            "# HELP x_total a \"b\" c\\\\d\\ne\n"
            "# TYPE x_total counter\n"
            "x_total{program=\"we\\\"ird\\\\na\\nme\",class=\"high\"} 3\n"
            "x_total 0.5\n");
}

TEST(PrometheusTextTest, ValuesReadBackAsTheSameDouble) {
  // Integers below 2^53 are written whole; others as the shortest decimal
  // that strtod reads back to the same double; NaN and infinities by name.
  EXPECT_EQ(FormatMetricValue(0), "0");
  EXPECT_EQ(FormatMetricValue(-7), "-7");
  EXPECT_EQ(FormatMetricValue(81920000), "81920000");
  EXPECT_EQ(FormatMetricValue(std::nan("")), "NaN");
  EXPECT_EQ(FormatMetricValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatMetricValue(-std::numeric_limits<double>::infinity()),
            "-Inf");
  for (double v : {0.1, 1.0 / 3, 1e-12, 123456.789e10, 2.5e300, 0.0012345}) {
    const std::string s = FormatMetricValue(v);
    EXPECT_EQ(std::strtod(s.c_str(), nullptr), v) << s;
  }
}

TEST(PrometheusTextTest, NamesFollowTheGrammar) {
  EXPECT_TRUE(IsMetricName("colo_kernels_launched_total"));
  EXPECT_TRUE(IsMetricName("a:b_c"));
  EXPECT_FALSE(IsMetricName("1abc"));
  EXPECT_FALSE(IsMetricName("a-b"));
  EXPECT_FALSE(IsMetricName(""));
  EXPECT_TRUE(IsLabelName("class"));
  EXPECT_FALSE(IsLabelName("__name__"));
  EXPECT_FALSE(IsLabelName("a:b"));
}

// A snapshot shaped as Daemon::StatsSnapshot writes it.
nlohmann::json Snapshot() {
  return nlohmann::json::parse(R"({
    "gpu": "A100", "device": "sim", "policy": "priority",
    "kernels_launched": 30, "kernels_completed": 28, "stream_waits": 2,
    "clients_served": 2, "clients_dropped": 0, "high_denied": 1,
    "refused_calls": 0, "connections_rejected": 0,
    "memory_used": 3145728, "memory_bytes": 42949672960,
    "copies": {"host_to_device": {"count": 1, "bytes": 4096},
               "device_to_host": {"count": 0, "bytes": 0}},
    "gpu_activity": {"source": "sim", "sm_active": 0.25, "occupancy": 0.125,
                     "dram": 0},
    "classes": {
      "high": {"launches_timed": 10, "device_ms": 1.5, "solo_ms": 1.0,
               "stretch": 1.5, "grants": 0, "issued_at_once": 0, "syncs": 3,
               "retreats": 0, "kernels_launched": 10,
               "kernels_completed": 10, "clients": 1, "in_flight": 0},
      "best-effort": {"launches_timed": 0, "device_ms": 0, "solo_ms": 0,
               "stretch": null, "grants": 0, "issued_at_once": 0,
               "syncs": 1, "retreats": 0, "kernels_launched": 20,
               "kernels_completed": 18, "clients": 1, "in_flight": 2}},
    "clients": [
      {"id": 4, "program": "in\"fer", "class": "best-effort",
       "requested_class": "high", "kernels_launched": 20,
       "kernels_completed": 18, "in_flight": 2, "memory_persistent": 1048576,
       "memory_ephemeral": 0, "memory_limit": 42949672960, "grants": 0,
       "syncs": 1,
       "device_time": {"launches_timed": 0, "device_ms": 0, "solo_ms": 0,
                       "stretch": null},
       "sync_latency": {"answered": 1, "total_ms": 2.5, "max_ms": 2.5,
                        "mean_ms": 2.5}}]})");
}

// The sample line `name{labels} value` of `text`, or "" when there is none.
std::string Line(const std::string& text, const std::string& prefix) {
  size_t p = text.find("\n" + prefix + " ");
  if (p == std::string::npos) return "";
  return text.substr(p + 1, text.find('\n', p + 1) - p - 1);
}

TEST(RenderMetricsTest, EverySampleComesFromTheSnapshot) {
  const std::string t = RenderMetrics(Snapshot());
  EXPECT_EQ(Line(t, "colo_kernels_launched_total"),
            "colo_kernels_launched_total 30");
  EXPECT_EQ(
      Line(t, "colo_class_kernels_completed_total{class=\"best-effort\"}"),
      "colo_class_kernels_completed_total{class=\"best-effort\"} 18");
  // device_ms 1.5 -> 0.0015 s.
  EXPECT_EQ(Line(t, "colo_class_device_seconds_total{class=\"high\"}"),
            "colo_class_device_seconds_total{class=\"high\"} 0.0015");
  // A null stretch is left out, never written as 0.
  EXPECT_NE(t.find("colo_class_stretch_ratio{class=\"high\"} 1.5"),
            std::string::npos);
  EXPECT_EQ(t.find("colo_class_stretch_ratio{class=\"best-effort\"}"),
            std::string::npos);
  EXPECT_EQ(t.find("colo_client_stretch_ratio"), std::string::npos);
  // The client's labels, its program escaped; asked high, got best effort.
  const std::string labels =
      "{client=\"4\",program=\"in\\\"fer\",class=\"best-effort\"}";
  EXPECT_EQ(Line(t, "colo_client_high_denied" + labels),
            "colo_client_high_denied" + labels + " 1");
  EXPECT_EQ(Line(t, "colo_client_memory_persistent_bytes" + labels),
            "colo_client_memory_persistent_bytes" + labels + " 1048576");
  EXPECT_EQ(Line(t, "colo_client_sync_wait_seconds_total" + labels),
            "colo_client_sync_wait_seconds_total" + labels + " 0.0025");
  EXPECT_EQ(Line(t, "colo_gpu_sm_active_ratio{gpu=\"0\"}"),
            "colo_gpu_sm_active_ratio{gpu=\"0\"} 0.25");
  // No NVML figures in the snapshot: no NVML family at all.
  EXPECT_EQ(t.find("nvml"), std::string::npos);
  // Every family has HELP then TYPE, and every counter ends in _total.
  size_t types = 0;
  for (size_t p = t.find("# TYPE "); p != std::string::npos;
       p = t.find("# TYPE ", p + 1)) {
    ++types;
    const std::string line = t.substr(p, t.find('\n', p) - p);
    if (line.size() > 8 && line.substr(line.size() - 8) == " counter") {
      EXPECT_NE(line.find("_total counter"), std::string::npos) << line;
    }
  }
  size_t helps = 0;
  for (size_t p = t.find("# HELP "); p != std::string::npos;
       p = t.find("# HELP ", p + 1)) {
    ++helps;
  }
  EXPECT_EQ(helps, types);
  EXPECT_GT(types, 30u);
}

// A client that names its Slurm job (COLO_JOB_ID) carries it as the label
// `job`, between program and class; one that names none has no `job` label
// (an empty label is the same as none to Prometheus).
TEST(RenderMetricsTest, AClientsSlurmJobIsALabel) {
  nlohmann::json s = Snapshot();
  nlohmann::json second = s["clients"][0];
  second["id"] = 5;
  second["program"] = "train";
  second["job"] = "123";
  second["step"] = "0";
  s["clients"].push_back(second);
  const std::string t = RenderMetrics(s);
  const std::string with_job =
      "{client=\"5\",program=\"train\",job=\"123\",class=\"best-effort\"}";
  EXPECT_EQ(Line(t, "colo_client_kernels_launched_total" + with_job),
            "colo_client_kernels_launched_total" + with_job + " 20")
      << t;
  EXPECT_NE(t.find("colo_client_kernels_launched_total{client=\"4\",program="
                   "\"in\\\"fer\","
                   "class=\"best-effort\"} 20"),
            std::string::npos)
      << t;
  // Exactly the second client's samples carry a job label.
  size_t job_labels = 0, client5 = 0;
  for (size_t p = t.find("job=\""); p != std::string::npos;
       p = t.find("job=\"", p + 1))
    ++job_labels;
  for (size_t p = t.find("{client=\"5\""); p != std::string::npos;
       p = t.find("{client=\"5\"", p + 1))
    ++client5;
  EXPECT_GT(client5, 0u);
  EXPECT_EQ(job_labels, client5);
}

TEST(RenderMetricsTest, NvmlFiguresAppearOnlyWhenTheSnapshotHasThem) {
  nlohmann::json s = Snapshot();
  s["gpu_activity"] = {{"source", "nvml"},
                       {"nvml_kernel_busy", 0.88},
                       {"nvml_memory_busy", 0.1},
                       {"nvml_memory_used", 1024}};
  const std::string t = RenderMetrics(s);
  EXPECT_NE(t.find("colo_gpu_nvml_kernel_busy_ratio{gpu=\"0\"} 0.88"),
            std::string::npos);
  EXPECT_EQ(t.find("colo_gpu_sm_active_ratio"), std::string::npos);
  s["gpu_activity"] = nullptr;  // gate mode without NVML.
  EXPECT_EQ(RenderMetrics(s).find("colo_gpu_nvml"), std::string::npos);
}

// colod's config with `body` after a socket line; the load's status text.
class MetricsConfigTest : public ::testing::Test {
 protected:
  MetricsConfigTest() {
    char tmpl[] = "/tmp/colo-metrics-cfg-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  ~MetricsConfigTest() override { std::filesystem::remove_all(dir_); }
  Result<DaemonConfig> Load(const std::string& body) {
    const std::string path = dir_ + "/c.yaml";
    std::ofstream(path) << "socket: " << dir_ << "/s.sock\n" << body;
    return LoadDaemonConfig(path);
  }
  std::string dir_;
};

TEST_F(MetricsConfigTest, LoopbackAddressesAndSocketsAreAccepted) {
  Result<DaemonConfig> c = Load("");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_FALSE(c->metrics.enabled);  // off by default.
  c = Load("metrics: {listen: 127.0.0.1:9464}\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_TRUE(c->metrics.enabled);
  EXPECT_EQ(c->metrics.host, "127.0.0.1");
  EXPECT_EQ(c->metrics.port, 9464);
  c = Load("metrics: {listen: \"[::1]:0\"}\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->metrics.host, "::1");
  c = Load("metrics: {listen: localhost:80}\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->metrics.host, "127.0.0.1");
  c = Load("metrics: {socket: /run/colo/m.sock}\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->metrics.socket_path, "/run/colo/m.sock");
}

TEST_F(MetricsConfigTest, OtherAddressesAreErrorsWithFileAndLine) {
  // Line 2: the socket line is line 1.
  for (const char* bad :
       {"metrics: {listen: 0.0.0.0:9464}", "metrics: {listen: 10.1.2.3:9464}",
        "metrics: {listen: \"[::]:9464\"}", "metrics: {listen: example.com:1}",
        "metrics: {listen: 127.0.0.1:65536}", "metrics: {listen: 127.0.0.1}",
        "metrics: {listen: \"::1:9464\"}"}) {
    Result<DaemonConfig> c = Load(std::string(bad) + "\n");
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_NE(c.status().message().find("c.yaml:2"), std::string::npos)
        << c.status().message();
    EXPECT_NE(c.status().message().find("loopback"), std::string::npos)
        << c.status().message();
  }
  Result<DaemonConfig> c = Load("metrics: {}\n");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("one of listen"), std::string::npos)
      << c.status().message();
  c = Load("metrics: {listen: 127.0.0.1:1, socket: /tmp/x}\n");
  ASSERT_FALSE(c.ok());
  c = Load("metrics: {port: 9464}\n");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("port"), std::string::npos)
      << c.status().message();
}

}  // namespace
}  // namespace colo::runtime
