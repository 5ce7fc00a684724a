// runtime/prometheus_text.h — Prometheus's text exposition format 0.0.4,
// written by hand (Debian 12 packages no client library): each metric family
// opens with its `# HELP` and `# TYPE` lines, then one line per sample,
//
//   # HELP colo_client_kernels_launched_total Kernels a client launched.
//   # TYPE colo_client_kernels_launched_total counter
//   colo_client_kernels_launched_total{client="3",program="infer"} 120
//
// Label values escape backslash, double quote and newline; HELP text escapes
// backslash and newline; values are written so that Prometheus reads back
// the same double (integers exactly, NaN and infinities by name). Names are
// checked against the format's grammar (a bug if they fail: asserted), and a
// counter's name ends in `_total`.
//
// Thread safety: a writer is a value; thread-compatible.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace colo::runtime {

using MetricLabels = std::vector<std::pair<std::string, std::string>>;

enum class MetricType { kCounter, kGauge };

class PrometheusText {
 public:
  // Starts a family: its HELP and TYPE lines. Samples that follow belong to
  // it. REQUIRES: `name` matches [a-zA-Z_:][a-zA-Z0-9_:]*, a counter's ends
  // in "_total", and no family of that name was started before.
  void Family(std::string_view name, MetricType type, std::string_view help);
  // One sample of the current family. REQUIRES: Family was called; label
  // names match [a-zA-Z_][a-zA-Z0-9_]* and do not start with "__".
  void Sample(const MetricLabels& labels, double value);

  // The text so far (ends with a newline when not empty).
  const std::string& text() const { return out_; }

 private:
  std::string out_;
  std::string family_;
  std::vector<std::string> families_;
};

// `v` as a label value between double quotes: \ -> \\, " -> \", newline ->
// \n.
std::string EscapeLabelValue(std::string_view v);
// `v` as HELP text: \ -> \\, newline -> \n.
std::string EscapeHelp(std::string_view v);
// `v` as the format writes a sample value: "NaN", "+Inf", "-Inf", an
// integral value below 2^53 without a fraction, otherwise the shortest
// decimal that reads back as the same double.
std::string FormatMetricValue(double v);
// Whether `name` is a valid metric name ([a-zA-Z_:][a-zA-Z0-9_:]*).
bool IsMetricName(std::string_view name);
// Whether `name` is a valid label name ([a-zA-Z_][a-zA-Z0-9_]*, not "__...").
bool IsLabelName(std::string_view name);

}  // namespace colo::runtime
