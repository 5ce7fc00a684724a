#include "predict/residual_kernel.h"

#include <algorithm>
#include <cmath>

#include "predict/pair_features.h"

namespace colo::predict {
namespace {

// Standardized features of a base-feature vector.
Eigen::VectorXd Standardize(const ResidualKernel& k,
                            const std::vector<double>& x) {
  Eigen::VectorXd z(k.features.size());
  for (size_t j = 0; j < k.features.size(); ++j)
    z(j) = (x[k.features[j]] - k.mean(j)) / k.scale(j);
  return z;
}

// k_w(z, landmark l) for every landmark.
Eigen::VectorXd Similarities(const ResidualKernel& k,
                             const Eigen::VectorXd& z) {
  Eigen::VectorXd s(k.landmarks.rows());
  for (Eigen::Index l = 0; l < s.size(); ++l) {
    s(l) = std::exp(-(k.landmarks.row(l).transpose() - z).squaredNorm() /
                    (2 * k.bandwidth));
  }
  return s;
}

// The median of the squared distances between distinct rows of `z` (1 if
// there are none or it is 0); *d2 gets all squared distances.
double MedianHeuristic(const Eigen::MatrixXd& z, Eigen::MatrixXd* d2) {
  const Eigen::Index n = z.rows();
  d2->resize(n, n);
  std::vector<double> upper;
  for (Eigen::Index a = 0; a < n; ++a) {
    for (Eigen::Index b = 0; b < n; ++b) {
      (*d2)(a, b) = (z.row(a) - z.row(b)).squaredNorm();
      if (b > a) upper.push_back((*d2)(a, b));
    }
  }
  if (upper.empty()) return 1;
  std::nth_element(upper.begin(), upper.begin() + upper.size() / 2,
                   upper.end());
  const double median = upper[upper.size() / 2];
  return median > 0 ? median : 1;
}

}  // namespace

Status ResidualOptions::Validate() const {
  if (noises.empty())
    return InvalidArgumentError("give at least one residual noise ratio");
  for (double n : noises) {
    if (!(n > 0) || !std::isfinite(n))
      return InvalidArgumentError(
          "residual noise ratios must be finite and > 0");
  }
  if (!(interaction >= 0) || !std::isfinite(interaction))
    return InvalidArgumentError("residual interaction weight must be >= 0");
  return OkStatus();
}

double ResidualKernel::Predict(const std::vector<double>& own,
                               const std::vector<double>& partner) const {
  if (empty()) return 0;
  const Eigen::VectorXd ko = Similarities(*this, Standardize(*this, own));
  const Eigen::VectorXd kp = Similarities(*this, Standardize(*this, partner));
  return ko.dot(own_weights) + kp.dot(partner_weights) +
         interaction * ko.dot(pair_weights * kp);
}

Result<ResidualKernel> FitResidualKernel(
    const std::vector<std::vector<double>>& landmarks,
    const std::vector<std::string>& names, const std::vector<int>& features,
    const std::vector<ResidualPair>& pairs, const ResidualOptions& options,
    ResidualReport* report) {
  COLO_RETURN_IF_ERROR(options.Validate());
  const int n_base = static_cast<int>(BaseFeatureNames().size());
  const int n_l = static_cast<int>(landmarks.size());
  if (static_cast<int>(names.size()) != n_l) {
    return InvalidArgumentError("residual kernel: " + std::to_string(n_l) +
                                " landmarks but " +
                                std::to_string(names.size()) + " names");
  }
  for (const auto& v : landmarks) {
    if (static_cast<int>(v.size()) != n_base)
      return InvalidArgumentError("residual kernel: a landmark vector has " +
                                  std::to_string(v.size()) + " features, not " +
                                  std::to_string(n_base));
  }
  for (int f : features) {
    if (f < 0 || f >= n_base)
      return InvalidArgumentError("residual kernel: no base feature " +
                                  std::to_string(f));
  }
  for (const ResidualPair& p : pairs) {
    if (p.a < 0 || p.a >= n_l || p.b < 0 || p.b >= n_l)
      return InvalidArgumentError("residual kernel: a pair names no landmark");
    if (!std::isfinite(p.residual_a) || !std::isfinite(p.residual_b))
      return InvalidArgumentError("residual kernel: a residual is not finite");
  }

  ResidualKernel k;
  k.interaction = options.interaction;
  k.landmark_names = names;
  // Features that vary over the landmarks, standardized.
  std::vector<double> mean, scale;
  for (int f : features) {
    double m = 0, s = 0;
    for (const auto& v : landmarks) m += v[f];
    m /= std::max(1, n_l);
    for (const auto& v : landmarks) s += (v[f] - m) * (v[f] - m);
    s = std::sqrt(s / std::max(1, n_l));
    if (!std::isfinite(m) || !std::isfinite(s))
      return InvalidArgumentError("residual kernel: feature '" +
                                  BaseFeatureNames()[f] + "' is not finite");
    if (!(s > 1e-12 * std::max(1.0, std::fabs(m)))) continue;
    k.features.push_back(f);
    mean.push_back(m);
    scale.push_back(s);
  }
  if (k.features.empty()) {
    return FailedPreconditionError(
        "residual kernel: no base feature varies over the " +
        std::to_string(n_l) + " training workloads");
  }
  const int p = static_cast<int>(k.features.size());
  k.mean = Eigen::Map<Eigen::VectorXd>(mean.data(), p);
  k.scale = Eigen::Map<Eigen::VectorXd>(scale.data(), p);
  k.landmarks.resize(n_l, p);
  for (int l = 0; l < n_l; ++l)
    k.landmarks.row(l) = Standardize(k, landmarks[l]).transpose();

  Eigen::MatrixXd d2;
  k.bandwidth = MedianHeuristic(k.landmarks, &d2);
  const Eigen::MatrixXd kw = (-d2.array() / (2 * k.bandwidth)).exp().matrix();

  // The row kernel in the (pair-symmetric, antisymmetric) basis: for pairs
  // i, j with rows x_i = (a_i, b_i) and swapped S x_j = (b_j, a_j),
  // K_sym(i, j) = k(x_i, x_j) + k(x_i, S x_j), K_anti = k(x_i, x_j) -
  // k(x_i, S x_j); residuals r_sym = (r_a + r_b) / sqrt 2, r_anti likewise.
  auto k_row = [&](int own, int partner, int own2, int partner2) {
    const double ko = kw(own, own2), kp = kw(partner, partner2);
    return ko + kp + k.interaction * ko * kp;
  };
  const Eigen::Index n = static_cast<Eigen::Index>(pairs.size());
  Eigen::MatrixXd k_sym(n, n), k_anti(n, n);
  Eigen::VectorXd r_sym(n), r_anti(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const ResidualPair& pi = pairs[i];
    r_sym(i) = (pi.residual_a + pi.residual_b) / std::sqrt(2.0);
    r_anti(i) = (pi.residual_a - pi.residual_b) / std::sqrt(2.0);
    for (Eigen::Index j = 0; j < n; ++j) {
      const ResidualPair& pj = pairs[j];
      const double same = k_row(pi.a, pi.b, pj.a, pj.b);
      const double swapped = k_row(pi.a, pi.b, pj.b, pj.a);
      k_sym(i, j) = same + swapped;
      k_anti(i, j) = same - swapped;
    }
  }

  // Noise by the profile marginal likelihood of the 2n residuals (the basis
  // change is orthogonal: quadratic form and determinant add over blocks).
  Eigen::VectorXd alpha_sym = Eigen::VectorXd::Zero(n),
                  alpha_anti = Eigen::VectorXd::Zero(n);
  double best = INFINITY;
  k.noise = options.noises.front();
  const double rows = 2.0 * static_cast<double>(n);
  if (n > 0 && r_sym.squaredNorm() + r_anti.squaredNorm() > 1e-30 * rows) {
    for (double eta : options.noises) {
      double quad = 0, log_det = 0;
      Eigen::VectorXd al[2];
      for (int part = 0; part < 2; ++part) {
        Eigen::MatrixXd a = part == 0 ? k_sym : k_anti;
        a.diagonal().array() += eta;
        const Eigen::LLT<Eigen::MatrixXd> llt(a);
        if (llt.info() != Eigen::Success)
          return InternalError("residual kernel: Cholesky failed");
        const Eigen::VectorXd& r = part == 0 ? r_sym : r_anti;
        al[part] = llt.solve(r);
        quad += r.dot(al[part]);
        for (Eigen::Index i = 0; i < n; ++i)
          log_det += 2 * std::log(llt.matrixLLT()(i, i));
      }
      const double nll = 0.5 * rows * std::log(quad / rows) + 0.5 * log_det;
      if (nll < best) {
        best = nll;
        alpha_sym = al[0];
        alpha_anti = al[1];
        k.noise = eta;
      }
    }
  }
  if (!alpha_sym.allFinite() || !alpha_anti.allFinite())
    return InternalError("residual kernel: non-finite weights");

  // Back to rows, aggregated per landmark.
  k.own_weights = Eigen::VectorXd::Zero(n_l);
  k.partner_weights = Eigen::VectorXd::Zero(n_l);
  k.pair_weights = Eigen::MatrixXd::Zero(n_l, n_l);
  for (Eigen::Index i = 0; i < n; ++i) {
    const ResidualPair& p = pairs[i];
    const double w_ab = (alpha_sym(i) + alpha_anti(i)) / std::sqrt(2.0);
    const double w_ba = (alpha_sym(i) - alpha_anti(i)) / std::sqrt(2.0);
    k.own_weights(p.a) += w_ab;
    k.partner_weights(p.b) += w_ab;
    k.pair_weights(p.a, p.b) += w_ab;
    k.own_weights(p.b) += w_ba;
    k.partner_weights(p.a) += w_ba;
    k.pair_weights(p.b, p.a) += w_ba;
  }
  if (report) {
    report->landmarks = n_l;
    report->rows = static_cast<int>(2 * n);
    report->features = p;
    report->bandwidth = k.bandwidth;
    report->noise = k.noise;
    report->neg_log_lik = std::isfinite(best) ? best : 0.0;
  }
  return k;
}

nlohmann::ordered_json ResidualKernelToJson(const ResidualKernel& k) {
  nlohmann::ordered_json j;
  j["kind"] = "gp_residual";
  nlohmann::ordered_json f = nlohmann::ordered_json::array();
  for (int i : k.features) f.push_back(BaseFeatureNames()[i]);
  j["features"] = f;
  j["mean"] = std::vector<double>(k.mean.data(), k.mean.data() + k.mean.size());
  j["scale"] =
      std::vector<double>(k.scale.data(), k.scale.data() + k.scale.size());
  j["bandwidth"] = k.bandwidth;
  j["interaction"] = k.interaction;
  j["noise"] = k.noise;
  nlohmann::ordered_json lm = nlohmann::ordered_json::array();
  for (Eigen::Index l = 0; l < k.landmarks.rows(); ++l) {
    std::vector<double> z(k.landmarks.cols());
    for (Eigen::Index c = 0; c < k.landmarks.cols(); ++c)
      z[c] = k.landmarks(l, c);
    lm.push_back({{"name", k.landmark_names[l]},
                  {"z", z},
                  {"own_weight", k.own_weights(l)},
                  {"partner_weight", k.partner_weights(l)}});
  }
  j["landmarks"] = lm;
  nlohmann::ordered_json pw = nlohmann::ordered_json::array();
  for (Eigen::Index l = 0; l < k.pair_weights.rows(); ++l) {
    std::vector<double> row(k.pair_weights.cols());
    for (Eigen::Index c = 0; c < k.pair_weights.cols(); ++c)
      row[c] = k.pair_weights(l, c);
    pw.push_back(row);
  }
  j["pair_weights"] = pw;
  return j;
}

Result<ResidualKernel> ParseResidualKernelJson(const nlohmann::ordered_json& j,
                                               const std::string& where) {
  auto bad = [&](const std::string& what) {
    return InvalidArgumentError(where + ": " + what);
  };
  if (!j.is_object() || j.value("kind", "") != "gp_residual")
    return bad("expected an object with \"kind\": \"gp_residual\"");
  auto numbers = [&](const nlohmann::ordered_json& a, size_t n,
                     const std::string& name) -> Result<Eigen::VectorXd> {
    if (!a.is_array() || a.size() != n)
      return bad("'" + name + "' must be an array of " + std::to_string(n) +
                 " numbers");
    Eigen::VectorXd v(n);
    for (size_t i = 0; i < n; ++i) {
      if (!a[i].is_number() || !std::isfinite(a[i].get<double>()))
        return bad("'" + name + "' holds a non-finite or non-number value");
      v(i) = a[i].get<double>();
    }
    return v;
  };
  ResidualKernel k;
  if (!j.contains("features") || !j["features"].is_array() ||
      j["features"].empty())
    return bad("'features' must be a non-empty array of base feature names");
  for (const auto& f : j["features"]) {
    if (!f.is_string()) return bad("'features' must hold names");
    Result<int> i = BaseFeatureIndex(f.get<std::string>());
    if (!i.ok()) return i.status().WithContext(where);
    k.features.push_back(*i);
  }
  const size_t p = k.features.size();
  COLO_ASSIGN_OR_RETURN(
      k.mean, numbers(j.value("mean", nlohmann::ordered_json()), p, "mean"));
  COLO_ASSIGN_OR_RETURN(
      k.scale, numbers(j.value("scale", nlohmann::ordered_json()), p, "scale"));
  if (!(k.scale.array() > 0).all()) return bad("'scale' values must be > 0");
  for (const char* key : {"bandwidth", "interaction", "noise"}) {
    if (!j.contains(key) || !j[key].is_number() ||
        !std::isfinite(j[key].get<double>()))
      return bad(std::string("'") + key + "' must be a finite number");
  }
  k.bandwidth = j["bandwidth"].get<double>();
  k.interaction = j["interaction"].get<double>();
  k.noise = j["noise"].get<double>();
  if (!(k.bandwidth > 0)) return bad("'bandwidth' must be > 0");
  if (!(k.interaction >= 0)) return bad("'interaction' must be >= 0");
  if (!j.contains("landmarks") || !j["landmarks"].is_array() ||
      j["landmarks"].empty())
    return bad("'landmarks' must be a non-empty array");
  const size_t n_l = j["landmarks"].size();
  k.landmarks.resize(n_l, p);
  k.own_weights.resize(n_l);
  k.partner_weights.resize(n_l);
  for (size_t l = 0; l < n_l; ++l) {
    const auto& e = j["landmarks"][l];
    const std::string at = "landmarks[" + std::to_string(l) + "]";
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string())
      return bad(at + ": expected an object with a 'name'");
    k.landmark_names.push_back(e["name"].get<std::string>());
    COLO_ASSIGN_OR_RETURN(
        Eigen::VectorXd z,
        numbers(e.value("z", nlohmann::ordered_json()), p, at + ".z"));
    k.landmarks.row(l) = z.transpose();
    for (const char* key : {"own_weight", "partner_weight"}) {
      if (!e.contains(key) || !e[key].is_number() ||
          !std::isfinite(e[key].get<double>()))
        return bad(at + ": '" + key + "' must be a finite number");
    }
    k.own_weights(l) = e["own_weight"].get<double>();
    k.partner_weights(l) = e["partner_weight"].get<double>();
  }
  if (!j.contains("pair_weights") || !j["pair_weights"].is_array() ||
      j["pair_weights"].size() != n_l)
    return bad("'pair_weights' must be a " + std::to_string(n_l) + " x " +
               std::to_string(n_l) + " array");
  k.pair_weights.resize(n_l, n_l);
  for (size_t l = 0; l < n_l; ++l) {
    COLO_ASSIGN_OR_RETURN(Eigen::VectorXd row,
                          numbers(j["pair_weights"][l], n_l,
                                  "pair_weights[" + std::to_string(l) + "]"));
    k.pair_weights.row(l) = row.transpose();
  }
  return k;
}

}  // namespace colo::predict
