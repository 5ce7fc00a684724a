// webreport/html_page.h — a ReportPage as one self-contained HTML file:
// Chart.js (chartjs.h) and the page's own script are embedded, the plots'
// data is a JSON block in the page, tables and pictures are static HTML, so
// the file opens with no network and reads as text where scripts are off.
//
// The page checks itself (page_script.h): every error and console warning
// goes into #colo-errors (its data-count attribute counts them), and once
// the plots are drawn #colo-selfcheck lists each plot's id and the number
// of points Chart.js drew for it ("ID N" a line; pictures too: "ID BOXES"),
// with data-status="done". tests/webreport/ reads both in headless Chromium.
//
// Thread-compatible.
#pragma once

#include <string>

#include "colo/status.h"
#include "webreport/report_model.h"

namespace colo::webreport {

// The HTML text. FailedPrecondition naming the Debian package when Chart.js
// was not embedded at build time.
Result<std::string> RenderHtml(const ReportPage& page);

// The plots of `page` as the JSON the page script reads: {"plots": [{"id",
// "title", "kind", "x_label", "y_label", "y2_label", "x_category",
// "labels" (a category axis's labels, in order), "series": [{"label",
// "dashed", "stepped", "right_axis", "points": [[x, y], ...]}]}]}, with '<'
// written as \u003c so that it cannot end the <script> element it sits in.
std::string PlotsJson(const ReportPage& page);

}  // namespace colo::webreport
