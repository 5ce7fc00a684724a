// Sizes: a number and a binary unit. Parsed by hand (no locale: strtod
// would read "1,5" in some locales, and colod and the interposer must agree).
#include "ipc/byte_size.h"

#include <cmath>

namespace colo::ipc {

Result<int64_t> ParseByteSize(std::string_view text) {
  const auto bad = [&text] {
    return InvalidArgumentError(
        "expected a size such as 2GiB, 512MiB or 4096 (bytes), got '" +
        std::string(text) + "'");
  };
  size_t i = 0;
  double whole = 0;
  int digits = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    whole = whole * 10 + (text[i] - '0');
    ++digits;
    ++i;
  }
  double fraction = 0;
  bool has_fraction = false;
  if (i < text.size() && text[i] == '.') {
    has_fraction = true;
    ++i;
    double scale = 0.1;
    int fraction_digits = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      fraction += (text[i] - '0') * scale;
      scale /= 10;
      ++fraction_digits;
      ++i;
    }
    if (fraction_digits == 0) return bad();
  }
  if (digits == 0 || digits > 16) return bad();
  while (i < text.size() && text[i] == ' ') ++i;
  const std::string_view unit = text.substr(i);
  double multiplier = 0;
  if (unit.empty() || unit == "B") {
    multiplier = 1;
  } else if (unit == "KiB") {
    multiplier = 1024.0;
  } else if (unit == "MiB") {
    multiplier = 1024.0 * 1024;
  } else if (unit == "GiB") {
    multiplier = 1024.0 * 1024 * 1024;
  } else if (unit == "TiB") {
    multiplier = 1024.0 * 1024 * 1024 * 1024;
  } else {
    return bad();
  }
  if (has_fraction && multiplier == 1) return bad();  // no fractional bytes
  const double bytes = std::floor((whole + fraction) * multiplier);
  if (bytes > static_cast<double>(kMaxByteSize)) {
    return InvalidArgumentError("size '" + std::string(text) +
                                "' is above the largest accepted, 1 PiB");
  }
  return static_cast<int64_t>(bytes);
}

}  // namespace colo::ipc
