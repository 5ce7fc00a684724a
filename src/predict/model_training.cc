#include "predict/model_training.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>

#include "predict/folds.h"
#include "predict/inner_cv.h"
#include "predict/oracle_ratio.h"

namespace colo::predict {
namespace {

// The training rows: two per pair, with the value of every pool term.
struct Rows {
  Eigen::MatrixXd terms;   // rows x pool terms
  Eigen::VectorXd target;  // normalized throughput of `own`
};

Rows BuildRows(const PairDataset& data, const std::vector<int>& train_pairs,
               const std::vector<std::vector<std::optional<double>>>& base,
               const std::vector<PairTerm>& pool) {
  const Eigen::Index n = 2 * static_cast<Eigen::Index>(train_pairs.size());
  Rows rows;
  rows.terms.resize(n, static_cast<Eigen::Index>(pool.size()));
  rows.target.resize(n);
  const size_t n_base = BaseFeatureNames().size();
  std::vector<double> va(n_base), vb(n_base);
  for (size_t i = 0; i < train_pairs.size(); ++i) {
    const PairSample& p = data.pairs[train_pairs[i]];
    for (size_t f = 0; f < n_base; ++f) {
      va[f] = base[p.a][f].value_or(0.0);
      vb[f] = base[p.b][f].value_or(0.0);
    }
    for (size_t t = 0; t < pool.size(); ++t) {
      rows.terms(2 * i, t) = pool[t].Value(va, vb);
      rows.terms(2 * i + 1, t) = pool[t].Value(vb, va);
    }
    rows.target(2 * i) = p.norm_a;
    rows.target(2 * i + 1) = p.norm_b;
  }
  return rows;
}

double StdDev(const Eigen::VectorXd& x) {
  return std::sqrt((x.array() - x.mean()).square().mean());
}

double Correlation(const Eigen::VectorXd& x, const Eigen::VectorXd& y) {
  const Eigen::ArrayXd dx = x.array() - x.mean(), dy = y.array() - y.mean();
  const double den = std::sqrt((dx * dx).sum() * (dy * dy).sum());
  return den > 0 ? (dx * dy).sum() / den : 0.0;
}

// Term choice by inner cross-validation over the training pairs.
class TermChooser {
 public:
  TermChooser(const PairDataset& data, const std::vector<int>& train_pairs,
              const Rows& rows, const TrainOptions& o)
      : data_(data), rows_(rows), o_(o) {
    // Candidates: non-constant terms, with their |r| against the target.
    for (Eigen::Index t = 0; t < rows.terms.cols(); ++t) {
      const Eigen::VectorXd col = rows.terms.col(t);
      if (!(StdDev(col) > 1e-12 * std::max(1.0, std::fabs(col.mean()))))
        continue;
      cand_.push_back(static_cast<int>(t));
      corr_.push_back(std::fabs(Correlation(col, rows.target)));
    }
    Eigen::MatrixXd z(rows.terms.rows(), cand_.size());
    for (size_t k = 0; k < cand_.size(); ++k) {
      const Eigen::VectorXd col = rows.terms.col(cand_[k]);
      z.col(k) = (col.array() - col.mean()) / StdDev(col);
    }
    const std::vector<int> pair_fold = AssignFolds(
        static_cast<int>(train_pairs.size()), o.selection_folds, o.seed);
    std::vector<int> row_fold(rows.terms.rows());
    for (Eigen::Index r = 0; r < rows.terms.rows(); ++r)
      row_fold[r] = pair_fold[r / 2];
    cv_ =
        std::make_unique<InnerCv>(z, rows.target, row_fold, o.selection_folds);
    for (int id : train_pairs) pairs_.push_back(data.pairs[id]);
    for (size_t i = 0; i < pairs_.size(); ++i)
      pair_ids_.push_back(static_cast<int>(i));
  }

  // Chooses (threshold, lambda, terms) with the lowest inner-CV loss. Returns
  // pool indices; fills the report's choice fields.
  std::vector<int> Choose(TrainReport* rep) {
    double best = INFINITY;
    std::vector<int> best_cols;
    for (double threshold : o_.correlation_thresholds) {
      const std::vector<int> filtered = Filter(threshold);
      for (double lambda : o_.lambdas) {
        std::vector<int> cols = filtered;
        double loss = Loss(cols, lambda);
        if (o_.search == TermSearch::kForward)
          loss = Forward(filtered, lambda, &cols);
        if (loss < best) {
          best = loss;
          best_cols = cols;
          rep->correlation_threshold = threshold;
          rep->lambda = lambda;
        }
      }
    }
    rep->selection_loss = best;
    std::vector<int> out;
    for (size_t i = 1; i < best_cols.size(); ++i)
      out.push_back(cand_[best_cols[i] - 1]);
    return out;
  }

 private:
  // Columns of A (0 = intercept) passing the filter, minus those collinear
  // with columns kept before them.
  std::vector<int> Filter(double threshold) const {
    std::vector<int> cols = {0};
    for (size_t k = 0; k < cand_.size(); ++k) {
      if (corr_[k] < threshold) continue;
      cols.push_back(static_cast<int>(k) + 1);
      // 10x the fit's tolerance: a set accepted here is never refused by
      // FitLinearModel.
      if (!cv_->Independent(cols, 10 * o_.collinearity_tolerance))
        cols.pop_back();
    }
    return cols;
  }

  double Loss(const std::vector<int>& cols, double lambda) const {
    const Eigen::VectorXd oof = cv_->OutOfFold(cols, lambda);
    if (o_.selection_loss == SelectionLoss::kMse) {
      return (oof - rows_.target).squaredNorm() /
             static_cast<double>(oof.size());
    }
    std::vector<double> score(pairs_.size());
    for (size_t i = 0; i < score.size(); ++i)
      score[i] = oof(2 * i) + oof(2 * i + 1);
    return 1.0 -
           MeanRatio(AllAnchorRatios(pairs_, pair_ids_, score,
                                     static_cast<int>(data_.profiles.size())));
  }

  // Greedy forward selection among `filtered`; the chosen columns go to *out.
  double Forward(const std::vector<int>& filtered, double lambda,
                 std::vector<int>* out) const {
    std::vector<int> cols = {0};
    double best = Loss(cols, lambda);
    std::vector<bool> used(filtered.size(), false);
    while (static_cast<int>(cols.size()) - 1 < o_.max_terms) {
      int best_k = -1;
      double best_loss = best;
      for (size_t k = 1; k < filtered.size(); ++k) {
        if (used[k]) continue;
        cols.push_back(filtered[k]);
        if (cv_->Independent(cols, 10 * o_.collinearity_tolerance)) {
          const double l = Loss(cols, lambda);
          if (l < best_loss) {
            best_loss = l;
            best_k = static_cast<int>(k);
          }
        }
        cols.pop_back();
      }
      if (best_k < 0 || !(best_loss < best * (1.0 - o_.min_improvement))) break;
      used[best_k] = true;
      cols.push_back(filtered[best_k]);
      best = best_loss;
    }
    *out = cols;
    return best;
  }

  const PairDataset& data_;
  const Rows& rows_;
  const TrainOptions& o_;
  std::vector<int> cand_;     // pool index per candidate (column k + 1 of A)
  std::vector<double> corr_;  // |r| per candidate
  std::unique_ptr<InnerCv> cv_;
  std::vector<PairSample> pairs_;
  std::vector<int> pair_ids_;
};

}  // namespace

const char* SelectionLossName(SelectionLoss l) {
  return l == SelectionLoss::kMse ? "mse" : "oracle";
}

Result<SelectionLoss> ParseSelectionLoss(std::string_view name) {
  if (name == "mse") return SelectionLoss::kMse;
  if (name == "oracle") return SelectionLoss::kOracleRatio;
  return InvalidArgumentError("unknown selection loss '" + std::string(name) +
                              "' (expected mse or oracle)");
}

const char* TermSearchName(TermSearch s) {
  return s == TermSearch::kFilter ? "filter" : "forward";
}

Result<TermSearch> ParseTermSearch(std::string_view name) {
  if (name == "filter") return TermSearch::kFilter;
  if (name == "forward") return TermSearch::kForward;
  return InvalidArgumentError("unknown term search '" + std::string(name) +
                              "' (expected filter or forward)");
}

Status TrainOptions::Validate() const {
  if (correlation_thresholds.empty() || lambdas.empty()) {
    return InvalidArgumentError(
        "give at least one correlation threshold and one ridge lambda");
  }
  for (double c : correlation_thresholds) {
    if (!(c >= 0 && c < 1))
      return InvalidArgumentError("correlation thresholds must be in [0, 1)");
  }
  for (double l : lambdas) {
    RidgeOptions r;
    r.lambda = l;
    r.collinearity_tolerance = collinearity_tolerance;
    COLO_RETURN_IF_ERROR(r.Validate());
  }
  if (max_terms < 1) return InvalidArgumentError("max_terms must be >= 1");
  if (selection_folds < 2)
    return InvalidArgumentError("selection_folds must be >= 2");
  if (!(min_improvement >= 0 && min_improvement < 1)) {
    return InvalidArgumentError("min_improvement must be in [0, 1)");
  }
  for (const std::string& f : features)
    COLO_RETURN_IF_ERROR(BaseFeatureIndex(f).status());
  for (size_t i = 0; i < fixed_terms.size(); ++i) {
    COLO_ASSIGN_OR_RETURN(PairTerm t, ParsePairTerm(fixed_terms[i]));
    for (size_t k = 0; k < i; ++k) {
      if (ParsePairTerm(fixed_terms[k])->Name() == t.Name()) {
        return InvalidArgumentError("term '" + t.Name() + "' is given twice");
      }
    }
  }
  if (residual) COLO_RETURN_IF_ERROR(residual_options.Validate());
  return OkStatus();
}

std::vector<int> AllPairIds(const PairDataset& data) {
  std::vector<int> ids(data.pairs.size());
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int>(i);
  return ids;
}

Result<InterferenceModel> TrainInterferenceModel(
    const PairDataset& data, const std::vector<int>& train_pairs,
    const TrainOptions& options, TrainReport* report) {
  COLO_RETURN_IF_ERROR(options.Validate());
  TrainReport local;
  TrainReport& rep = report ? *report : local;
  rep = TrainReport{};
  if (static_cast<int>(train_pairs.size()) < options.selection_folds) {
    return InvalidArgumentError(
        "training needs at least " + std::to_string(options.selection_folds) +
        " pairs, got " + std::to_string(train_pairs.size()));
  }

  // Base features every workload of the dataset has: the training ones, and
  // those an evaluation holds out, which a fold's model must predict.
  std::vector<std::vector<std::optional<double>>> base(data.profiles.size());
  std::set<int> workloads, in_dataset;
  for (int id : train_pairs) {
    workloads.insert(data.pairs[id].a);
    workloads.insert(data.pairs[id].b);
  }
  for (const PairSample& p : data.pairs) {
    in_dataset.insert(p.a);
    in_dataset.insert(p.b);
  }
  for (int w : in_dataset) base[w] = BaseFeatureValues(data.profiles[w]);
  std::vector<int> features;
  for (int f = 0; f < static_cast<int>(BaseFeatureNames().size()); ++f) {
    const std::string& name = BaseFeatureNames()[f];
    if (!options.features.empty() && !IsCurveSampleFeature(f) &&
        std::find(options.features.begin(), options.features.end(), name) ==
            options.features.end()) {
      continue;
    }
    int lacking = -1;
    bool some_have = false;
    for (int w : in_dataset) {
      if (!base[w][f].has_value()) {
        if (lacking < 0) lacking = w;
      } else {
        some_have = true;
      }
    }
    if (lacking < 0) {
      features.push_back(f);
    } else if (some_have && !IsCurveSampleFeature(f)) {
      // Only a feature some workloads have is news when it is left out.
      rep.dropped_features.push_back(name + " (workload '" +
                                     data.profiles[lacking].name + "' lacks " +
                                     BaseFeatureSource(f) + ")");
    }
  }

  std::vector<PairTerm> pool;
  if (!options.fixed_terms.empty()) {
    for (const std::string& name : options.fixed_terms) {
      const PairTerm t = *ParsePairTerm(name);
      for (int f : t.Needs()) {
        for (int w : in_dataset) {
          if (!base[w][f]) {
            return FailedPreconditionError(
                "term '" + t.Name() + "' needs feature '" +
                BaseFeatureNames()[f] + "', which workload '" +
                data.profiles[w].name + "' lacks (" + BaseFeatureSource(f) +
                ")");
          }
        }
      }
      pool.push_back(t);
    }
  } else {
    pool = PairTermPool(features, options.pool_shape);
    if (pool.empty()) {
      return FailedPreconditionError(
          "no base feature is available in the profiles of all " +
          std::to_string(workloads.size()) + " training workloads");
    }
  }
  for (int f : features) {
    if (!IsCurveSampleFeature(f)) rep.features.push_back(BaseFeatureNames()[f]);
  }
  rep.pool_terms = static_cast<int>(pool.size());
  const Rows rows = BuildRows(data, train_pairs, base, pool);

  std::vector<int> chosen;  // pool indices
  if (!options.fixed_terms.empty()) {
    for (size_t t = 0; t < pool.size(); ++t)
      chosen.push_back(static_cast<int>(t));
    rep.lambda = options.lambdas.front();
  } else {
    TermChooser chooser(data, train_pairs, rows, options);
    chosen = chooser.Choose(&rep);
  }

  // Final fit on all training rows.
  InterferenceModel model;
  Eigen::MatrixXd x(rows.terms.rows(), chosen.size());
  std::vector<std::string> names;
  for (size_t k = 0; k < chosen.size(); ++k) {
    x.col(k) = rows.terms.col(chosen[k]);
    names.push_back(pool[chosen[k]].Name());
    model.terms.push_back(pool[chosen[k]]);
  }
  RidgeOptions ridge;
  ridge.lambda = rep.lambda;
  ridge.collinearity_tolerance = options.collinearity_tolerance;
  COLO_ASSIGN_OR_RETURN(model.linear,
                        FitLinearModel(x, rows.target, names, ridge));
  rep.selected = names;
  model.description = std::to_string(train_pairs.size()) + " pairs of " +
                      std::to_string(workloads.size()) + " workloads; " +
                      std::to_string(chosen.size()) + " terms (" +
                      TermSearchName(options.search) +
                      ", |r| >= " + std::to_string(rep.correlation_threshold) +
                      "), ridge lambda " + std::to_string(rep.lambda);

  if (options.residual) {
    // Landmarks: the training workloads; rows: the training rows with the
    // ridge fit's residuals; compared on the pool's (non-curve) features.
    std::vector<std::vector<double>> landmarks;
    std::vector<std::string> landmark_names;
    std::vector<int> landmark_of(data.profiles.size(), -1);
    for (int w : workloads) {
      landmark_of[w] = static_cast<int>(landmarks.size());
      std::vector<double> v(base[w].size());
      for (size_t f = 0; f < v.size(); ++f) v[f] = base[w][f].value_or(0.0);
      landmarks.push_back(std::move(v));
      landmark_names.push_back(data.profiles[w].name);
    }
    std::vector<int> kernel_features;
    for (int f : features) {
      if (!IsCurveSampleFeature(f)) kernel_features.push_back(f);
    }
    std::vector<ResidualPair> rpairs;
    for (size_t i = 0; i < train_pairs.size(); ++i) {
      const PairSample& p = data.pairs[train_pairs[i]];
      const Eigen::Index r = 2 * static_cast<Eigen::Index>(i);
      rpairs.push_back(
          {landmark_of[p.a], landmark_of[p.b],
           rows.target(r) - model.linear.Predict(x.row(r).transpose()),
           rows.target(r + 1) -
               model.linear.Predict(x.row(r + 1).transpose())});
    }
    COLO_ASSIGN_OR_RETURN(
        model.residual,
        FitResidualKernel(landmarks, landmark_names, kernel_features, rpairs,
                          options.residual_options, &rep.residual));
    rep.residual_fitted = true;
    model.description +=
        "; residual correction over " + std::to_string(landmarks.size()) +
        " workloads (noise " + std::to_string(model.residual.noise) + ")";
  }
  return model;
}

}  // namespace colo::predict
