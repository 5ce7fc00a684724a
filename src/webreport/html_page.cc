#include "webreport/html_page.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "webreport/chartjs.h"
#include "webreport/page_script.h"
#include "webreport/plan_svg.h"

namespace colo::webreport {
namespace {

using Json = nlohmann::ordered_json;

constexpr int kCanvasWidth = 640;
constexpr int kCanvasHeight = 380;

void AppendTable(const Table& t, std::string* out) {
  *out += "<div class=\"table-box\"><table>";
  if (!t.caption.empty())
    *out += "<caption>" + EscapeHtml(t.caption) + "</caption>";
  *out += "<thead><tr>";
  for (const std::string& c : t.columns)
    *out += "<th>" + EscapeHtml(c) + "</th>";
  *out += "</tr></thead><tbody>\n";
  for (const auto& row : t.rows) {
    *out += "<tr>";
    for (const std::string& cell : row)
      *out += "<td>" + EscapeHtml(cell) + "</td>";
    *out += "</tr>\n";
  }
  *out += "</tbody></table></div>";
}

void AppendSection(const Section& s, std::string* out) {
  // "section-" keeps section ids apart from the plots' (canvas) ids.
  *out += fmt::format("<section id=\"section-{}\">\n<h2>{}</h2>\n",
                      EscapeHtml(s.id), EscapeHtml(s.title));
  if (!s.note.empty())
    *out += "<p class=\"note\">" + EscapeHtml(s.note) + "</p>\n";
  for (size_t i = 0; i < s.plots.size(); ++i) {
    *out += fmt::format(
        "<div class=\"figure\"><canvas id=\"{}\" width=\"{}\" height=\"{}\" "
        "aria-label=\"{}\"></canvas>",
        EscapeHtml(s.plots[i].id), kCanvasWidth, kCanvasHeight,
        EscapeHtml(s.plots[i].title));
    if (i < s.tables.size()) AppendTable(s.tables[i], out);
    *out += "</div>\n";
  }
  // Pictures next, each with the next table beside it; the rest after.
  size_t table = s.plots.size();
  for (const Picture& p : s.pictures) {
    *out += "<div class=\"figure\">" + p.svg;
    if (table < s.tables.size()) AppendTable(s.tables[table++], out);
    *out += "</div>\n";
  }
  for (; table < s.tables.size(); ++table) {
    *out += "<div class=\"figure\">";
    AppendTable(s.tables[table], out);
    *out += "</div>\n";
  }
  *out += "</section>\n";
}

// '<' as \u003c: the JSON sits in a <script> element, which "</script>"
// inside a string would end.
std::string ScriptSafe(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string PlotsJson(const ReportPage& page) {
  Json plots = Json::array();
  for (const Section& s : page.sections) {
    for (const Plot& p : s.plots) {
      Json j;
      j["id"] = p.id;
      j["title"] = p.title;
      j["kind"] = p.kind;
      j["x_label"] = p.x_label;
      j["y_label"] = p.y_label;
      j["y2_label"] = p.y2_label;
      j["x_category"] = p.x_category;
      j["y_log"] = p.y_log;
      Json labels = Json::array();
      std::vector<std::string> seen;
      Json series = Json::array();
      for (const PlotSeries& ps : p.series) {
        Json points = Json::array();
        for (const PlotPoint& pt : ps.points) {
          if (p.x_category) {
            points.push_back(Json::array({pt.category, pt.y}));
            if (std::find(seen.begin(), seen.end(), pt.category) ==
                seen.end()) {
              seen.push_back(pt.category);
              labels.push_back(pt.category);
            }
          } else {
            points.push_back(Json::array({pt.x, pt.y}));
          }
        }
        series.push_back({{"label", ps.label},
                          {"dashed", ps.dashed},
                          {"stepped", ps.stepped},
                          {"right_axis", ps.right_axis},
                          {"points", std::move(points)}});
      }
      j["labels"] = std::move(labels);
      j["series"] = std::move(series);
      plots.push_back(std::move(j));
    }
  }
  Json model;
  model["plots"] = std::move(plots);
  return ScriptSafe(
      model.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

Result<std::string> RenderHtml(const ReportPage& page) {
  const std::string& chartjs = ChartJsText();
  if (chartjs.empty()) {
    return FailedPreconditionError(fmt::format(
        "colo report needs Chart.js, which was not found at build time ({}): "
        "install Debian's {} package (scripts/setup.sh does) and rebuild colo",
        ChartJsFile(), kChartJsPackage));
  }
  std::string html;
  html.reserve(chartjs.size() + 65536);
  html +=
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<title>" + EscapeHtml(page.title) + "</title>\n";
  html += "<style>";
  html += PageStyle();
  html += "</style>\n<script>";
  html += ErrorCaptureScript();
  html += "</script>\n";
  html += "<!-- Chart.js from Debian's " + std::string(kChartJsPackage) +
          " (MIT License; its header below) -->\n<script>\n";
  html += chartjs;
  html += "\n</script>\n</head>\n<body>\n";
  html += "<h1>" + EscapeHtml(page.title) + "</h1>\n";
  if (!page.generated.empty())
    html += "<p class=\"note\">" + EscapeHtml(page.generated) + "</p>\n";
  html += "<nav>";
  for (const Section& s : page.sections)
    html += fmt::format("<a href=\"#section-{}\">{}</a>", EscapeHtml(s.id),
                        EscapeHtml(s.title));
  html += "</nav>\n";
  for (const Section& s : page.sections) AppendSection(s, &html);
  html +=
      "<section id=\"colo-checks\">\n<h2>Page checks</h2>\n"
      "<p class=\"note\">Errors and console warnings while the page ran, and "
      "each plot's id with the number of points drawn (pictures: boxes "
      "drawn).</p>\n"
      "<div id=\"colo-errors\" data-count=\"0\">no errors</div>\n"
      "<pre id=\"colo-selfcheck\" data-status=\"pending\"></pre>\n</section>\n";
  html += "<script type=\"application/json\" id=\"colo-data\">";
  html += PlotsJson(page);
  html += "</script>\n<script>";
  html += PlotScript();
  html += "</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace colo::webreport
