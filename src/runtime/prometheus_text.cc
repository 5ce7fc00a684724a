#include "runtime/prometheus_text.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace colo::runtime {

namespace {

bool IsNameStart(char ch, bool colon_ok) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' ||
         (colon_ok && ch == ':');
}

bool IsNameChar(char ch, bool colon_ok) {
  return IsNameStart(ch, colon_ok) || (ch >= '0' && ch <= '9');
}

bool IsName(std::string_view name, bool colon_ok) {
  if (name.empty() || !IsNameStart(name[0], colon_ok)) return false;
  return std::all_of(name.begin(), name.end(),
                     [&](char ch) { return IsNameChar(ch, colon_ok); });
}

const char* TypeName(MetricType t) {
  return t == MetricType::kCounter ? "counter" : "gauge";
}

}  // namespace

bool IsMetricName(std::string_view name) { return IsName(name, true); }

bool IsLabelName(std::string_view name) {
  return IsName(name, false) && name.substr(0, 2) != "__";
}

std::string EscapeLabelValue(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char ch : v) {
    if (ch == '\\') {
      out += "\\\\";
    } else if (ch == '"') {
      out += "\\\"";
    } else if (ch == '\n') {
      out += "\\n";
    } else {
      out += ch;
    }
  }
  return out;
}

std::string EscapeHelp(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char ch : v) {
    if (ch == '\\') {
      out += "\\\\";
    } else if (ch == '\n') {
      out += "\\n";
    } else {
      out += ch;
    }
  }
  return out;
}

std::string FormatMetricValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  // Counters and byte counts are integers: written whole, as a reader
  // expects them (and exactly: every integer below 2^53 is a double).
  constexpr double kExact = 9007199254740992.0;  // 2^53
  if (v == std::trunc(v) && std::fabs(v) < kExact) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    return buf;
  }
  // The shortest text that reads back as `v` (Go's ParseFloat, in
  // Prometheus, rounds correctly, as std::to_chars assumes).
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  assert(ec == std::errc());
  return std::string(buf, end);
}

void PrometheusText::Family(std::string_view name, MetricType type,
                            std::string_view help) {
  assert(IsMetricName(name));
  assert(type != MetricType::kCounter ||
         (name.size() > 6 && name.substr(name.size() - 6) == "_total"));
  assert(std::find(families_.begin(), families_.end(), name) ==
         families_.end());
  family_ = std::string(name);
  families_.push_back(family_);
  out_ += "# HELP " + family_ + " " + EscapeHelp(help) + "\n";
  out_ += "# TYPE " + family_ + " " + TypeName(type) + "\n";
}

void PrometheusText::Sample(const MetricLabels& labels, double value) {
  assert(!family_.empty());
  out_ += family_;
  if (!labels.empty()) {
    out_ += '{';
    for (size_t i = 0; i < labels.size(); ++i) {
      assert(IsLabelName(labels[i].first));
      if (i > 0) out_ += ',';
      out_ +=
          labels[i].first + "=\"" + EscapeLabelValue(labels[i].second) + "\"";
    }
    out_ += '}';
  }
  out_ += ' ' + FormatMetricValue(value) + '\n';
}

}  // namespace colo::runtime
