// webreport/chartjs.h — Chart.js, the plotting library that colo report's
// pages embed: the text of Debian's libjs-chart.js (chart.min.js, MIT,
// header comment included), compiled in at build time by this module's
// CMakeLists.txt. Empty when the package was missing at configure time.
//
// Thread safety: both functions may be called from any thread.
#pragma once

#include <string>
#include <string_view>

namespace colo::webreport {

// The Debian package that provides Chart.js.
inline constexpr char kChartJsPackage[] = "libjs-chart.js";

// Chart.js's text as it was at configure time; empty if it was missing.
const std::string& ChartJsText();

// The file the text came from (or was looked for).
std::string_view ChartJsFile();

}  // namespace colo::webreport
