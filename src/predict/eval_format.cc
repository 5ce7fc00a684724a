// FormatEvalReport and FormatPredictionsCsv (model_eval.h): the per-workload
// table of ratios to oracle, one column per method; the per-pair predictions.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "predict/model_eval.h"

namespace colo::predict {

std::string FormatEvalReport(const EvalReport& r) {
  std::vector<const MethodResult*> cols = {&r.kfold};
  if (!r.lowo.name.empty()) cols.push_back(&r.lowo);
  for (const auto& m : r.ablations) cols.push_back(&m);
  for (const auto& m : r.extras) cols.push_back(&m);
  for (const auto& m : r.baselines) cols.push_back(&m);
  std::vector<size_t> width;
  for (const MethodResult* m : cols)
    width.push_back(std::max<size_t>(14, m->name.size()));
  std::string out = fmt::format("{:<34} {:>4}", "anchor workload", "cand");
  for (size_t c = 0; c < cols.size(); ++c)
    out += fmt::format(" {:>{}}", cols[c]->name, width[c]);
  out += "\n";
  for (size_t w = 0; w < r.workloads.size(); ++w) {
    out += fmt::format("{:<34} {:>4}", r.workloads[w], r.candidates[w]);
    for (size_t c = 0; c < cols.size(); ++c) {
      const double v = cols[c]->ratio[w];
      out += std::isnan(v) ? fmt::format(" {:>{}}", "-", width[c])
                           : fmt::format(" {:>{}.3f}", v, width[c]);
    }
    out += "\n";
  }
  out += fmt::format("{:<34} {:>4}", "MEAN ratio to oracle", "");
  for (size_t c = 0; c < cols.size(); ++c)
    out += fmt::format(" {:>{}.3f}", cols[c]->mean, width[c]);
  out += "\n";
  out += fmt::format("{:<34} {:>4}", "k-fold repeats: min..max", "");
  for (size_t c = 0; c < cols.size(); ++c) {
    const MethodResult* m = cols[c];
    const bool kfold = m->name.size() > 6 &&
                       m->name.compare(m->name.size() - 6, 6, "k-fold") == 0;
    out += kfold ? fmt::format(" {:>{}}",
                               fmt::format("{:.3f}..{:.3f}", m->min_repeat,
                                           m->max_repeat),
                               width[c])
                 : fmt::format(" {:>{}}", "", width[c]);
  }
  out += "\n";
  out += fmt::format("{:<34} {:>4}", "k-fold: std. error over repeats", "");
  for (size_t c = 0; c < cols.size(); ++c) {
    out += cols[c]->repeat_se >= 0
               ? fmt::format(" {:>{}.4f}", cols[c]->repeat_se, width[c])
               : fmt::format(" {:>{}}", "", width[c]);
  }
  out += "\n";
  out += fmt::format("{:<34} {:>4}", "MAE normalized tput", "");
  for (size_t c = 0; c < cols.size(); ++c) {
    out += cols[c]->mae >= 0 ? fmt::format(" {:>{}.3f}", cols[c]->mae, width[c])
                             : fmt::format(" {:>{}}", "", width[c]);
  }
  out += "\n";
  return out;
}

std::string FormatPredictionsCsv(const EvalReport& r, const PairDataset& d) {
  // RFC 4180: a field with a comma, quote or line break is quoted.
  auto quoted = [](const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  std::string out =
      "method,left_out,workload_a,workload_b,measured_a,measured_b,"
      "predicted_a,predicted_b,source\n";
  for (const PredictionRecord& rec : r.predictions) {
    const PairSample& p = d.pairs.at(rec.pair);
    const std::string left_out =
        rec.left_out < 0 ? "" : quoted(d.profiles.at(rec.left_out).name);
    out += fmt::format(
        "{},{},{},{},{:.6g},{:.6g},{:.6g},{:.6g},{}\n", quoted(rec.method),
        left_out, quoted(d.profiles.at(p.a).name),
        quoted(d.profiles.at(p.b).name), p.norm_a, p.norm_b,
        rec.predicted.norm_a, rec.predicted.norm_b, quoted(p.where));
  }
  return out;
}

}  // namespace colo::predict
