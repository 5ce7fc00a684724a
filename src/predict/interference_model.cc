#include "predict/interference_model.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "io/csv.h"

namespace colo::predict {

std::vector<int> InterferenceModel::NeededFeatures() const {
  std::set<int> s;
  for (const PairTerm& t : terms) {
    for (int f : t.Needs()) s.insert(f);
  }
  for (int f : residual.features) s.insert(f);
  return {s.begin(), s.end()};
}

Result<std::vector<double>> InterferenceModel::Inputs(
    const profile::WorkloadProfile& p) const {
  const std::vector<std::optional<double>> all = BaseFeatureValues(p);
  std::vector<double> out(all.size(), 0.0);
  for (int f : NeededFeatures()) {
    if (!all[f]) {
      return FailedPreconditionError("workload '" + p.name +
                                     "': the model needs feature '" +
                                     BaseFeatureNames()[f] + "', which needs " +
                                     BaseFeatureSource(f) + " in its profile");
    }
    out[f] = *all[f];
  }
  return out;
}

double InterferenceModel::PredictNormalized(
    const std::vector<double>& own, const std::vector<double>& partner) const {
  double y = linear.intercept;
  for (size_t j = 0; j < terms.size(); ++j) {
    y += linear.weights(j) * (terms[j].Value(own, partner) - linear.mean(j)) /
         linear.scale(j);
  }
  return y + residual.Predict(own, partner);
}

Result<PairPrediction> InterferenceModel::PredictPair(
    const profile::WorkloadProfile& a,
    const profile::WorkloadProfile& b) const {
  COLO_ASSIGN_OR_RETURN(std::vector<double> xa, Inputs(a));
  COLO_ASSIGN_OR_RETURN(std::vector<double> xb, Inputs(b));
  return PairPrediction{PredictNormalized(xa, xb), PredictNormalized(xb, xa)};
}

std::string ModelToJson(const InterferenceModel& m) {
  nlohmann::ordered_json j;
  j["kind"] = "colo.interference_model";
  j["version"] = m.residual.empty() ? 1 : 2;
  j["description"] = m.description;
  j["target"] = "normalized throughput of own next to partner (shared / solo)";
  j["intercept"] = m.linear.intercept;
  nlohmann::ordered_json terms = nlohmann::ordered_json::array();
  for (size_t i = 0; i < m.terms.size(); ++i) {
    terms.push_back({{"term", m.terms[i].Name()},
                     {"mean", m.linear.mean(i)},
                     {"scale", m.linear.scale(i)},
                     {"weight", m.linear.weights(i)}});
  }
  j["terms"] = terms;
  if (!m.residual.empty()) j["residual"] = ResidualKernelToJson(m.residual);
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Result<InterferenceModel> ParseModelJson(std::string_view text,
                                         const std::string& source) {
  const auto j = nlohmann::ordered_json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("terms") ||
      !j["terms"].is_array() || !j.contains("intercept") ||
      !j["intercept"].is_number()) {
    return InvalidArgumentError(
        source +
        ": not an interference model (expected a JSON object with "
        "'intercept' and a 'terms' array; write one with `colo predict "
        "train`)");
  }
  // Versions this build writes: 1 (linear), 2 (with the residual).
  if (j.contains("version") && !(j["version"].is_number_integer() &&
                                 (j["version"].get<int64_t>() == 1 ||
                                  j["version"].get<int64_t>() == 2))) {
    return InvalidArgumentError(
        source + ": model version " + j["version"].dump() +
        " is not one this colo reads (1 or 2); write it again with this "
        "colo's `colo predict train`");
  }
  InterferenceModel m;
  if (j.contains("description") && j["description"].is_string())
    m.description = j["description"];
  m.linear.intercept = j["intercept"].get<double>();
  const size_t n = j["terms"].size();
  m.linear.mean.resize(n);
  m.linear.scale.resize(n);
  m.linear.weights.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const auto& t = j["terms"][i];
    const std::string at = source + ": terms[" + std::to_string(i) + "]";
    if (!t.is_object() || !t.contains("term") || !t["term"].is_string()) {
      return InvalidArgumentError(at +
                                  ": expected an object with a 'term' name");
    }
    Result<PairTerm> term = ParsePairTerm(t["term"].get<std::string>());
    if (!term.ok()) return term.status().WithContext(at);
    if (std::find(m.linear.names.begin(), m.linear.names.end(), term->Name()) !=
        m.linear.names.end()) {
      return InvalidArgumentError(at + ": term '" + term->Name() +
                                  "' is already in the model");
    }
    m.terms.push_back(*term);
    m.linear.names.push_back(term->Name());
    for (const char* key : {"mean", "scale", "weight"}) {
      if (!t.contains(key) || !t[key].is_number() ||
          !std::isfinite(t[key].get<double>())) {
        return InvalidArgumentError(at + ": '" + key +
                                    "' must be a finite number");
      }
    }
    m.linear.mean(i) = t["mean"].get<double>();
    m.linear.scale(i) = t["scale"].get<double>();
    m.linear.weights(i) = t["weight"].get<double>();
    if (!(m.linear.scale(i) > 0))
      return InvalidArgumentError(at + ": 'scale' must be > 0");
  }
  if (!std::isfinite(m.linear.intercept))
    return InvalidArgumentError(source + ": 'intercept' is not finite");
  if (j.contains("residual")) {
    COLO_ASSIGN_OR_RETURN(
        m.residual,
        ParseResidualKernelJson(j["residual"], source + ": residual"));
  }
  return m;
}

Result<InterferenceModel> LoadModel(const std::string& path) {
  COLO_ASSIGN_OR_RETURN(std::string text, io::ReadTextFile(path));
  return ParseModelJson(text, path);
}

Status SaveModel(const InterferenceModel& m, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return NotFoundError(path + ": cannot open for writing");
  out << ModelToJson(m);
  out.close();
  if (!out) return InternalError(path + ": write failed");
  return OkStatus();
}

}  // namespace colo::predict
