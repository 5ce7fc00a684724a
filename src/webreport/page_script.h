// webreport/page_script.h — the fixed parts of a colo report page: its style
// sheet, the error capture that runs before anything else, and the script
// that draws the plots with Chart.js and writes the self-check (see
// html_page.h for what the page exposes). Thread-safe (constants).
#pragma once

#include <string_view>

namespace colo::webreport {

// CSS for the page.
std::string_view PageStyle();

// Runs first, in <head>: window.onerror, unhandled rejections and
// console.error / console.warn are collected into #colo-errors.
std::string_view ErrorCaptureScript();

// Runs last: reads #colo-data, draws each plot into its canvas, and fills
// #colo-selfcheck.
std::string_view PlotScript();

}  // namespace colo::webreport
