#include "predict/model_eval.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "predict/folds.h"

namespace colo::predict {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double MeanOf(const std::vector<double>& v) {
  double s = 0;
  int n = 0;
  for (double x : v) {
    if (!std::isnan(x)) {
      s += x;
      ++n;
    }
  }
  return n ? s / n : kNaN;
}

// Ratio to oracle of every anchor, with a score that may depend on the anchor.
std::vector<double> PerAnchorRatios(
    const PairDataset& d,
    const std::function<double(int pair, int anchor)>& score) {
  const std::vector<int> ids = AllPairIds(d);
  std::vector<double> out(d.profiles.size(), kNaN);
  std::vector<double> s(ids.size());
  for (int w = 0; w < static_cast<int>(d.profiles.size()); ++w) {
    for (size_t i = 0; i < ids.size(); ++i) {
      const PairSample& p = d.pairs[i];
      s[i] = (p.a == w || p.b == w) ? score(static_cast<int>(i), w) : 0.0;
    }
    const AnchorResult r = AnchorRatio(d.pairs, ids, s, w);
    if (r.candidates >= 2) out[w] = r.ratio;
  }
  return out;
}

// A rule-based baseline: prefer the partner with the smallest (sign = -1) or
// largest (sign = +1) value of `field`; skipped if some profile lacks it.
void AddRuleBaseline(
    const PairDataset& d, const std::string& name, double sign,
    const std::function<std::optional<double>(const profile::WorkloadProfile&)>&
        field,
    std::vector<MethodResult>* out) {
  for (const auto& p : d.profiles) {
    if (!field(p)) return;
  }
  MethodResult m;
  m.name = name;
  m.ratio = PerAnchorRatios(d, [&](int i, int w) {
    const PairSample& p = d.pairs[i];
    const int partner = p.a == w ? p.b : p.a;
    return sign * *field(d.profiles[partner]);
  });
  m.mean = MeanOf(m.ratio);
  m.min_repeat = m.max_repeat = m.mean;
  out->push_back(std::move(m));
}

// Per-anchor ratios averaged over repeats, plus the range of repeat means
// and the mean absolute error of the per-job predictions.
class MethodAccumulator {
 public:
  MethodAccumulator(std::string name, int n_workloads)
      : sum_(n_workloads, 0.0), n_(n_workloads, 0) {
    result_.name = std::move(name);
    result_.min_repeat = INFINITY;
    result_.max_repeat = -INFINITY;
  }
  void AddRepeat(const std::vector<double>& ratios) {
    const double mean = MeanOf(ratios);
    repeat_means_.push_back(mean);
    result_.min_repeat = std::min(result_.min_repeat, mean);
    result_.max_repeat = std::max(result_.max_repeat, mean);
    for (size_t w = 0; w < ratios.size(); ++w) {
      if (!std::isnan(ratios[w])) {
        sum_[w] += ratios[w];
        ++n_[w];
      }
    }
  }
  void AddError(const PairPrediction& pr, const PairSample& p) {
    abs_err_ +=
        std::fabs(pr.norm_a - p.norm_a) + std::fabs(pr.norm_b - p.norm_b);
    n_err_ += 2;
  }
  MethodResult Finish() {
    result_.ratio.assign(sum_.size(), kNaN);
    for (size_t w = 0; w < sum_.size(); ++w) {
      if (n_[w]) result_.ratio[w] = sum_[w] / n_[w];
    }
    result_.mean = MeanOf(result_.ratio);
    result_.mae = n_err_ ? abs_err_ / n_err_ : -1;
    const size_t n = repeat_means_.size();
    if (n >= 2) {
      double m = 0, ss = 0;
      for (double x : repeat_means_) m += x / n;
      for (double x : repeat_means_) ss += (x - m) * (x - m);
      result_.repeat_se = std::sqrt(ss / (n - 1) / n);
    }
    return result_;
  }

 private:
  MethodResult result_;
  std::vector<double> sum_;
  std::vector<int> n_;
  std::vector<double> repeat_means_;
  double abs_err_ = 0;
  int n_err_ = 0;
};

// Predictions of the extra scorers for every pair, and their names.
struct ExtraSums {
  std::vector<std::string> names;
  std::vector<std::vector<double>> sum;           // [extra][pair]
  std::vector<std::vector<PairPrediction>> pred;  // [extra][pair]
};

struct CvResult {
  MethodResult kfold, lowo;
  std::vector<MethodResult> combos;       // per extra: k-fold, then LOWO.
  std::vector<PredictionRecord> records;  // per pair, of all the above.
};

// Per-pair sums of predictions over the k-fold repeats.
struct PredictionSums {
  std::vector<PairPrediction> sum;
  explicit PredictionSums(int n_pairs) : sum(n_pairs) {}
  void Add(int i, const PairPrediction& p) {
    sum[i].norm_a += p.norm_a;
    sum[i].norm_b += p.norm_b;
  }
  void AppendMeans(const std::string& method, int repeats,
                   std::vector<PredictionRecord>* out) const {
    for (size_t i = 0; i < sum.size(); ++i) {
      out->push_back(
          {method, static_cast<int>(i), -1,
           PairPrediction{sum[i].norm_a / repeats, sum[i].norm_b / repeats}});
    }
  }
};

std::string ModelLabel(const TrainOptions& t) {
  return t.residual ? "lin+GP" : "linear";
}

// k-fold (repeated) and LOWO of the model trained with `train`, plus its
// equal-weight mean with each extra scorer (nothing fitted).
Result<CvResult> CrossValidate(const PairDataset& d, const EvalOptions& options,
                               const TrainOptions& train_options,
                               const std::string& label, const ExtraSums& ex) {
  const int n_pairs = static_cast<int>(d.pairs.size());
  const int n_w = static_cast<int>(d.profiles.size());
  const size_t n_ex = ex.names.size();
  auto combined = [&](size_t e, double model, int i) {
    return 0.5 * model + 0.5 * ex.sum[e][i];
  };
  auto combined_pred = [&](size_t e, const PairPrediction& model, int i) {
    return PairPrediction{0.5 * model.norm_a + 0.5 * ex.pred[e][i].norm_a,
                          0.5 * model.norm_b + 0.5 * ex.pred[e][i].norm_b};
  };
  CvResult out;

  // k-fold, repeated: out-of-fold predictions of every pair.
  MethodAccumulator kfold(label + " k-fold", n_w);
  PredictionSums kfold_pred(n_pairs);
  std::vector<MethodAccumulator> kfold_combo;
  std::vector<PredictionSums> kfold_combo_pred(n_ex, PredictionSums(n_pairs));
  for (const std::string& n : ex.names)
    kfold_combo.emplace_back(label + "+" + n + " k-fold", n_w);
  for (int r = 0; r < options.repeats; ++r) {
    const std::vector<int> fold =
        AssignFolds(n_pairs, options.folds, options.seed + r);
    std::vector<double> score(n_pairs, 0.0);
    for (int f = 0; f < options.folds; ++f) {
      std::vector<int> train, test;
      for (int i = 0; i < n_pairs; ++i)
        (fold[i] == f ? test : train).push_back(i);
      Result<InterferenceModel> m =
          TrainInterferenceModel(d, train, train_options);
      if (!m.ok()) {
        return m.status().WithContext("k-fold repeat " + std::to_string(r + 1) +
                                      ", fold " + std::to_string(f + 1));
      }
      for (int i : test) {
        const PairSample& p = d.pairs[i];
        COLO_ASSIGN_OR_RETURN(PairPrediction pr,
                              m->PredictPair(d.profiles[p.a], d.profiles[p.b]));
        score[i] = pr.Sum();
        kfold.AddError(pr, p);
        kfold_pred.Add(i, pr);
        for (size_t e = 0; e < n_ex; ++e) {
          const PairPrediction c = combined_pred(e, pr, i);
          kfold_combo[e].AddError(c, p);
          kfold_combo_pred[e].Add(i, c);
        }
      }
    }
    kfold.AddRepeat(PerAnchorRatios(d, [&](int i, int) { return score[i]; }));
    for (size_t e = 0; e < n_ex; ++e) {
      kfold_combo[e].AddRepeat(PerAnchorRatios(
          d, [&](int i, int) { return combined(e, score[i], i); }));
    }
  }
  out.kfold = kfold.Finish();
  kfold_pred.AppendMeans(out.kfold.name, options.repeats, &out.records);
  for (size_t e = 0; e < n_ex; ++e) {
    kfold_combo_pred[e].AppendMeans(label + "+" + ex.names[e] + " k-fold",
                                    options.repeats, &out.records);
  }
  if (!options.lowo) {
    for (auto& c : kfold_combo) out.combos.push_back(c.Finish());
    return out;
  }

  // Leave one workload out: the anchor's pairs are never seen in training.
  std::vector<double> lowo(n_w, kNaN);
  std::vector<std::vector<double>> lowo_combo(n_ex,
                                              std::vector<double>(n_w, kNaN));
  MethodAccumulator lowo_acc(label + " LOWO", n_w);
  std::vector<MethodAccumulator> lowo_combo_acc;
  for (const std::string& n : ex.names)
    lowo_combo_acc.emplace_back(label + "+" + n + " LOWO", n_w);
  for (int w = 0; w < n_w; ++w) {
    std::vector<int> train, test;
    for (int i = 0; i < n_pairs; ++i) {
      const PairSample& p = d.pairs[i];
      (p.a == w || p.b == w ? test : train).push_back(i);
    }
    if (test.size() < 2) continue;
    Result<InterferenceModel> m =
        TrainInterferenceModel(d, train, train_options);
    if (!m.ok())
      return m.status().WithContext("leave-one-workload-out, leaving out '" +
                                    d.profiles[w].name +
                                    "' (--no-lowo skips it)");
    std::vector<double> score;
    for (int i : test) {
      const PairSample& p = d.pairs[i];
      COLO_ASSIGN_OR_RETURN(PairPrediction pr,
                            m->PredictPair(d.profiles[p.a], d.profiles[p.b]));
      score.push_back(pr.Sum());
      lowo_acc.AddError(pr, p);
      out.records.push_back({label + " LOWO", i, w, pr});
      for (size_t e = 0; e < n_ex; ++e) {
        const PairPrediction c = combined_pred(e, pr, i);
        lowo_combo_acc[e].AddError(c, p);
        out.records.push_back({label + "+" + ex.names[e] + " LOWO", i, w, c});
      }
    }
    lowo[w] = AnchorRatio(d.pairs, test, score, w).ratio;
    for (size_t e = 0; e < n_ex; ++e) {
      std::vector<double> c(test.size());
      for (size_t t = 0; t < test.size(); ++t)
        c[t] = combined(e, score[t], test[t]);
      lowo_combo[e][w] = AnchorRatio(d.pairs, test, c, w).ratio;
    }
  }
  lowo_acc.AddRepeat(lowo);
  out.lowo = lowo_acc.Finish();
  for (size_t e = 0; e < n_ex; ++e) {
    lowo_combo_acc[e].AddRepeat(lowo_combo[e]);
    out.combos.push_back(kfold_combo[e].Finish());
    out.combos.push_back(lowo_combo_acc[e].Finish());
  }
  return out;
}

}  // namespace

Status EvalOptions::Validate() const {
  COLO_RETURN_IF_ERROR(train.Validate());
  if (folds < 2) return InvalidArgumentError("folds must be >= 2");
  if (repeats < 1) return InvalidArgumentError("repeats must be >= 1");
  return OkStatus();
}

Result<EvalReport> EvaluatePartnerChoice(
    const PairDataset& d, const EvalOptions& options,
    const std::vector<ExtraScorer>& extras) {
  COLO_RETURN_IF_ERROR(options.Validate());
  const int n_pairs = static_cast<int>(d.pairs.size());
  const int n_w = static_cast<int>(d.profiles.size());
  // Each k-fold training set (all but the largest fold, ceil(n / k) pairs)
  // must be big enough for the inner cross-validation.
  int needed = options.folds;
  while (needed - (needed + options.folds - 1) / options.folds <
         options.train.selection_folds) {
    ++needed;
  }
  if (n_pairs < needed) {
    return InvalidArgumentError(
        "evaluation with " + std::to_string(options.folds) + " folds (and " +
        std::to_string(options.train.selection_folds) +
        " inner folds) needs at least " + std::to_string(needed) +
        " pairs, got " + std::to_string(n_pairs));
  }
  EvalReport rep;
  rep.pairs = n_pairs;
  rep.excluded = d.excluded;
  for (const auto& p : d.profiles) rep.workloads.push_back(p.name);
  rep.candidates.assign(n_w, 0);
  for (const PairSample& p : d.pairs) {
    ++rep.candidates[p.a];
    ++rep.candidates[p.b];
  }

  // Extra scorers need no training: score every pair once.
  ExtraSums extras_in;
  extras_in.names.resize(extras.size());
  std::vector<std::vector<double>>& extra_sum = extras_in.sum;
  std::vector<std::vector<PairPrediction>>& extra_pred = extras_in.pred;
  extra_sum.assign(extras.size(), std::vector<double>(n_pairs));
  extra_pred.assign(extras.size(), std::vector<PairPrediction>(n_pairs));
  for (size_t e = 0; e < extras.size(); ++e) {
    extras_in.names[e] = extras[e].name;
    MethodAccumulator acc(extras[e].name, n_w);
    for (int i = 0; i < n_pairs; ++i) {
      Result<PairPrediction> pr = extras[e].predict(d.pairs[i]);
      if (!pr.ok())
        return pr.status().WithContext(extras[e].name + ", pair at " +
                                       d.pairs[i].where);
      extra_sum[e][i] = pr->Sum();
      extra_pred[e][i] = *pr;
      rep.predictions.push_back({extras[e].name, i, -1, *pr});
      acc.AddError(*pr, d.pairs[i]);
    }
    acc.AddRepeat(
        PerAnchorRatios(d, [&](int i, int) { return extra_sum[e][i]; }));
    rep.extras.push_back(acc.Finish());
  }
  COLO_ASSIGN_OR_RETURN(CvResult main,
                        CrossValidate(d, options, options.train,
                                      ModelLabel(options.train), extras_in));
  rep.kfold = std::move(main.kfold);
  rep.lowo = std::move(main.lowo);
  for (auto& c : main.combos) rep.extras.push_back(std::move(c));
  for (auto& p : main.records) rep.predictions.push_back(std::move(p));
  if (options.compare_linear_only && options.train.residual) {
    TrainOptions linear_only = options.train;
    linear_only.residual = false;
    COLO_ASSIGN_OR_RETURN(CvResult lin,
                          CrossValidate(d, options, linear_only,
                                        ModelLabel(linear_only), ExtraSums{}));
    rep.ablations.push_back(std::move(lin.kfold));
    if (options.lowo) rep.ablations.push_back(std::move(lin.lowo));
    for (auto& p : lin.records) rep.predictions.push_back(std::move(p));
  }

  // Baselines.
  MethodResult random;
  random.name = "random";
  random.ratio = PerAnchorRatios(d, [](int, int) { return 0.0; });
  random.mean = random.min_repeat = random.max_repeat = MeanOf(random.ratio);
  rep.baselines.push_back(random);
  AddRuleBaseline(
      d, "least memory", -1,
      [](const profile::WorkloadProfile& p) {
        return p.system.memory_used_gib;
      },
      &rep.baselines);
  AddRuleBaseline(
      d, "least SM%", -1,
      [](const profile::WorkloadProfile& p) { return p.system.sm_util_pct; },
      &rep.baselines);
  AddRuleBaseline(
      d, "least mem%", -1,
      [](const profile::WorkloadProfile& p) { return p.system.mem_util_pct; },
      &rep.baselines);
  AddRuleBaseline(
      d, "most solo tput", +1,
      [](const profile::WorkloadProfile& p) { return p.solo_throughput; },
      &rep.baselines);

  Result<InterferenceModel> full =
      TrainInterferenceModel(d, AllPairIds(d), options.train);
  if (!full.ok()) return full.status().WithContext("training on every pair");
  for (const PairTerm& t : full->terms)
    rep.full_model_terms.push_back(t.Name());
  return rep;
}

}  // namespace colo::predict
