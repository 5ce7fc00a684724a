#include "webreport/plan_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace colo::webreport {

using Json = nlohmann::json;

std::string EscapeHtml(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace {

constexpr int kColumn = 190;  // px per GPU column, gap included.
constexpr int kBoxWidth = 176;
constexpr int kHeader = 44;  // the GPU's title box.
constexpr int kJobBox = 30;  // px per job box, gap included.
constexpr int kMargin = 8;

std::string Number(const Json& j, const char* key) {
  return j.contains(key) && j[key].is_number()
             ? fmt::format("{:.2f}", j[key].get<double>())
             : "-";
}

}  // namespace

Result<Picture> PlanPicture(const std::string& id, const Json& plan) {
  if (!plan.contains("gpus") || !plan["gpus"].is_array() ||
      !plan.contains("jobs") || !plan["jobs"].is_array()) {
    return InvalidArgumentError(
        "the recorded plan has no \"gpus\" and \"jobs\" arrays");
  }
  // Jobs by name, for their priority and prediction.
  auto job_named = [&](const std::string& name) -> const Json* {
    for (const Json& j : plan["jobs"])
      if (j.value("name", "") == name) return &j;
    return nullptr;
  };
  const Json& gpus = plan["gpus"];
  size_t tallest = 0;
  for (const Json& g : gpus)
    if (g.contains("jobs") && g["jobs"].is_array())
      tallest = std::max(tallest, g["jobs"].size());
  std::vector<const Json*> waiting;
  for (const Json& j : plan["jobs"])
    if (!j.contains("gpu") || !j["gpu"].is_number()) waiting.push_back(&j);

  Picture pic;
  pic.id = id;
  const int columns = std::max<int>(1, static_cast<int>(gpus.size()));
  const int width = 2 * kMargin + columns * kColumn;
  const int waiting_y =
      kMargin + kHeader + static_cast<int>(tallest) * kJobBox + 16;
  const int height = waiting_y + (waiting.empty() ? 0 : 24 + kJobBox) + kMargin;
  std::string& svg = pic.svg;
  svg += fmt::format(
      "<svg id=\"{}\" class=\"plan\" xmlns=\"http://www.w3.org/2000/svg\" "
      "width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\">\n",
      EscapeHtml(id), width, height, width, height);
  int x = kMargin;
  for (const Json& g : gpus) {
    const std::string index =
        g.contains("index") ? g["index"].dump() : std::string("?");
    svg += fmt::format(
        "<g class=\"gpu\" data-gpu=\"{}\"><rect class=\"gpu-box\" x=\"{}\" "
        "y=\"{}\" width=\"{}\" height=\"{}\" rx=\"4\"/>"
        "<text x=\"{}\" y=\"{}\" class=\"gpu-title\">GPU {} · {}</text>"
        "<text x=\"{}\" y=\"{}\" class=\"gpu-sub\">{} GiB · predicted {}</text>"
        "</g>\n",
        EscapeHtml(index), x, kMargin, kBoxWidth, kHeader - 6, x + 6,
        kMargin + 16, EscapeHtml(index), EscapeHtml(g.value("mode", "")), x + 6,
        kMargin + 31, Number(g, "memory_gib"), Number(g, "predicted_total"));
    ++pic.boxes;
    int y = kMargin + kHeader;
    if (g.contains("jobs") && g["jobs"].is_array()) {
      for (const Json& name_json : g["jobs"]) {
        const std::string name =
            name_json.is_string() ? name_json.get<std::string>() : "?";
        const Json* job = job_named(name);
        const bool high = job && job->value("priority", "") == "high";
        svg += fmt::format(
            "<g class=\"job{}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" "
            "height=\"{}\" rx=\"3\"/><text x=\"{}\" y=\"{}\">{}</text>"
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text></g>\n",
            high ? " high" : "", x, y, kBoxWidth, kJobBox - 4, x + 6, y + 17,
            EscapeHtml(name), x + kBoxWidth - 6, y + 17,
            job ? Number(*job, "predicted_normalized_throughput") : "-");
        ++pic.boxes;
        y += kJobBox;
      }
    }
    x += kColumn;
  }
  if (!waiting.empty()) {
    svg += fmt::format(
        "<text x=\"{}\" y=\"{}\" class=\"gpu-title\">waiting "
        "(no GPU)</text>\n",
        kMargin, waiting_y + 14);
    int wx = kMargin;
    for (const Json* j : waiting) {
      svg += fmt::format(
          "<g class=\"waiting\"><rect x=\"{}\" y=\"{}\" width=\"{}\" "
          "height=\"{}\" rx=\"3\"/><text x=\"{}\" y=\"{}\">{}</text></g>\n",
          wx, waiting_y + 22, kBoxWidth, kJobBox - 4, wx + 6, waiting_y + 39,
          EscapeHtml(j->value("name", "")));
      wx += kColumn;
    }
  }
  svg += "</svg>";
  return pic;
}

}  // namespace colo::webreport
