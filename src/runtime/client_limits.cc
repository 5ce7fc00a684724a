#include "runtime/client_limits.h"

#include <cstdint>
#include <functional>

namespace colo::runtime {
namespace {

using io::YamlMap;
using io::YamlValue;

constexpr int64_t kMaxTimeoutMs = 60'000;
constexpr int64_t kMaxPendingConnections = 65'536;
constexpr int64_t kMaxQueuedLaunches = 1 << 24;
constexpr int64_t kMaxAllocations = int64_t{1} << 26;

Result<int64_t> Within(const YamlValue& v, const std::string& what,
                       int64_t max) {
  return v.Integer(
      "a whole number of " + what + " in [1, " + std::to_string(max) + "]",
      [max](int64_t x) { return x >= 1 && x <= max; });
}

}  // namespace

Status ClientLimits::Validate(const std::string& source) const {
  auto ms = [](Duration d) { return d.count() / 1'000'000; };
  if (ms(hello_timeout) < 1 || ms(hello_timeout) > kMaxTimeoutMs ||
      ms(message_timeout) < 1 || ms(message_timeout) > kMaxTimeoutMs) {
    return InvalidArgumentError(source +
                                ": limits: timeouts must be in [1, 60000] ms");
  }
  if (pending_connections < 1 ||
      pending_connections > static_cast<size_t>(kMaxPendingConnections) ||
      queued_launches < 1 ||
      queued_launches > static_cast<size_t>(kMaxQueuedLaunches) ||
      allocations < 1 || allocations > static_cast<size_t>(kMaxAllocations)) {
    return InvalidArgumentError(source + ": limits: a count is out of range");
  }
  return OkStatus();
}

Status ParseClientLimits(const YamlValue& v, ClientLimits* limits) {
  COLO_ASSIGN_OR_RETURN(
      YamlMap m,
      v.Map("a mapping of client limits",
            {"hello_timeout_ms", "message_timeout_ms", "pending_connections",
             "queued_launches", "allocations"}));
  struct Count {
    const char* key;
    const char* what;
    int64_t max;
    std::function<void(int64_t)> set;
  };
  const Count counts[] = {
      {"hello_timeout_ms", "milliseconds", kMaxTimeoutMs,
       [&](int64_t x) { limits->hello_timeout = Milliseconds(x); }},
      {"message_timeout_ms", "milliseconds", kMaxTimeoutMs,
       [&](int64_t x) { limits->message_timeout = Milliseconds(x); }},
      {"pending_connections", "connections", kMaxPendingConnections,
       [&](int64_t x) {
         limits->pending_connections = static_cast<size_t>(x);
       }},
      {"queued_launches", "launches", kMaxQueuedLaunches,
       [&](int64_t x) { limits->queued_launches = static_cast<size_t>(x); }},
      {"allocations", "allocations", kMaxAllocations,
       [&](int64_t x) { limits->allocations = static_cast<size_t>(x); }},
  };
  for (const Count& c : counts) {
    if (auto x = m.Get(c.key)) {
      COLO_ASSIGN_OR_RETURN(int64_t n, Within(*x, c.what, c.max));
      c.set(n);
    }
  }
  return OkStatus();
}

}  // namespace colo::runtime
