// `colo predict train|eval|pair`: trains the pairwise interference model,
// evaluates partner choice against the oracle and the baselines, predicts a
// pair. Flags -> predict::DatasetSource / TrainOptions / EvalOptions.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "colo/clock.h"
#include "predict/dataset_source.h"
#include "predict/model_eval.h"
#include "predict/model_training.h"
#include "predict/sim_scorer.h"
#include "runs/run_context.h"
#include "runs/run_record.h"
#include "tools/cli_flags.h"
#include "tools/cli_status.h"
#include "tools/commands.h"
#include "tools/run_recording.h"

namespace colo::tools {
namespace {

struct DataFlags {
  predict::DatasetSource source;
  double max_solo_ratio = 1.5;
  bool max_solo_ratio_given = false;
};

struct TrainFlags {
  std::string pool = "diag";
  std::string search = "filter";
  std::string loss = "mse";
  std::vector<double> correlations;
  std::vector<double> lambdas;
  int max_terms = 8;
  int inner_folds = 5;
  std::vector<std::string> terms;
  bool no_residual = false;
};

// In the CLI every input is the user's (files, flags): a training failure
// such as a singular design is bad input (exit status 2), not a bug.
Status AsInputError(const Status& s) {
  if (s.code() == StatusCode::kFailedPrecondition)
    return InvalidArgumentError(s.message());
  return s;
}

std::string PairsPath(const DataFlags& f) {
  return f.source.pairs_csv.empty() ? f.source.kace_dir + "/pairs_training.csv"
                                    : f.source.pairs_csv;
}

void AddDataFlags(CLI::App* cmd, DataFlags* f) {
  cmd->add_option("--kace", f->source.kace_dir,
                  "KACE data directory (profiles and pairs_training.csv)");
  cmd->add_option("--profiles", f->source.profiles_dir,
                  "directory of workload profile JSON files");
  cmd->add_option(
      "--pairs", f->source.pairs_csv,
      "pair CSV (workload1, workload2, w1throughput, w2throughput)");
  cmd->add_flag(
      "--keep-suspect", f->source.keep_suspect,
      "KACE: keep the two solo baselines its README flags as under-measured");
  cmd->add_option("--exclude", f->source.exclude,
                  "drop this workload and its pairs (repeatable)");
  cmd->add_option("--cross-check-solo", f->source.solo_reference_csv,
                  "CSV of reference solo throughputs (Type, Exclusive100), "
                  "e.g. PEACE's; drops disagreeing workloads");
  cmd->add_option("--peace-metrics", f->source.peace_metrics_csv,
                  "PEACE baseline-metrics CSV: adds its DCGM SMACT, SMOCC, "
                  "DRAMA (MPS 100 %) to the profiles it names");
  // One DataFlags serves several subcommands: record "given" as it is parsed.
  cmd->add_option("--max-solo-ratio", f->max_solo_ratio,
                  "disagreement factor for --cross-check-solo (default 1.5)")
      ->each([f](const std::string&) { f->max_solo_ratio_given = true; });
}

void AddTrainFlags(CLI::App* cmd, TrainFlags* f) {
  cmd->add_option(
      "--pool", f->pool,
      "term pool: diag (own, partner, own*partner same feature) or full");
  cmd->add_option(
      "--search", f->search,
      "filter (keep every term passing the correlation filter) or forward");
  cmd->add_option("--loss", f->loss, "inner-CV loss: mse or oracle");
  cmd->add_option("--corr", f->correlations,
                  "correlation-filter thresholds to choose from (default 0.2)");
  cmd->add_option(
      "--lambda", f->lambdas,
      "ridge penalties to choose from (default 1e-4 1e-3 1e-2 1e-1)");
  cmd->add_option("--max-terms", f->max_terms,
                  "forward selection: most terms (default 8)");
  cmd->add_option("--inner-folds", f->inner_folds,
                  "inner cross-validation folds (default 5)");
  cmd->add_option("--terms", f->terms,
                  "use exactly these terms (e.g. partner.sm_util "
                  "own.sm_util*partner.sm_util)")
      ->delimiter(',');
  cmd->add_flag("--no-residual", f->no_residual,
                "the linear model alone, without the residual correction "
                "(Gaussian process over workload pairs)");
}

Result<predict::TrainOptions> ToTrainOptions(const TrainFlags& f) {
  predict::TrainOptions o;
  if (f.pool == "diag") {
    o.pool_shape = predict::PoolShape::kDiagonal;
  } else if (f.pool == "full") {
    o.pool_shape = predict::PoolShape::kFull;
  } else {
    return InvalidArgumentError("--pool " + f.pool + ": expected diag or full");
  }
  COLO_ASSIGN_OR_RETURN(o.search, predict::ParseTermSearch(f.search));
  COLO_ASSIGN_OR_RETURN(o.selection_loss, predict::ParseSelectionLoss(f.loss));
  if (!f.correlations.empty()) o.correlation_thresholds = f.correlations;
  if (!f.lambdas.empty()) o.lambdas = f.lambdas;
  if (!f.terms.empty() && f.lambdas.size() > 1) {
    return InvalidArgumentError(
        "--terms fixes the model, so no inner cross-validation chooses among "
        "several --lambda values: give one (default " +
        fmt::format("{:g}", o.lambdas.front()) + ")");
  }
  o.max_terms = f.max_terms;
  o.selection_folds = f.inner_folds;
  o.fixed_terms = f.terms;
  o.residual = !f.no_residual;
  COLO_RETURN_IF_ERROR(o.Validate());
  return o;
}

Result<predict::LoadedDataset> Load(DataFlags f) {
  if (f.max_solo_ratio_given && f.source.solo_reference_csv.empty()) {
    return InvalidArgumentError(
        "--max-solo-ratio sets the tolerance of --cross-check-solo; give "
        "--cross-check-solo");
  }
  f.source.cross_check.max_ratio = f.max_solo_ratio;
  COLO_ASSIGN_OR_RETURN(predict::LoadedDataset d,
                        predict::LoadDataset(f.source));
  std::printf("data: %zu pairs of %zu workloads", d.data.pairs.size(),
              d.data.profiles.size());
  if (d.data.dropped_pairs > 0)
    std::printf(" (%d pairs dropped with excluded workloads)",
                d.data.dropped_pairs);
  std::printf("\n");
  for (const std::string& n : d.exclusion_notes)
    std::printf("  excluded %s\n", n.c_str());
  if (!f.source.peace_metrics_csv.empty()) {
    int in_pairs = 0;
    for (const auto& p : d.data.profiles) {
      in_pairs += std::binary_search(d.dcgm_merged.begin(), d.dcgm_merged.end(),
                                     p.name);
    }
    std::printf("  DCGM metrics from %s for %d of the %zu workloads\n",
                f.source.peace_metrics_csv.c_str(), in_pairs,
                d.data.profiles.size());
  }
  return d;
}

Status RunTrain(const DataFlags& df, const TrainFlags& tf,
                const std::string& out, int repeat) {
  COLO_ASSIGN_OR_RETURN(predict::TrainOptions options, ToTrainOptions(tf));
  COLO_ASSIGN_OR_RETURN(predict::LoadedDataset d, Load(df));
  if (repeat < 1) return InvalidArgumentError("--repeat must be >= 1");
  const std::vector<int> all = predict::AllPairIds(d.data);
  RealClock clock;
  predict::TrainReport report;
  Result<predict::InterferenceModel> model =
      predict::TrainInterferenceModel(d.data, all, options, &report);
  if (!model.ok())
    return AsInputError(
        model.status().WithContext("training on " + PairsPath(df)));
  // Time the whole training (filter, inner-CV choice of threshold and
  // lambda, final fit, residual correction) over `repeat` runs.
  std::vector<double> ms;
  for (int i = 0; i < repeat; ++i) {
    const TimePoint t0 = clock.Now();
    Result<predict::InterferenceModel> again =
        predict::TrainInterferenceModel(d.data, all, options);
    ms.push_back(ToMillis(clock.Now() - t0));
    if (!again.ok()) return again.status();
  }
  std::sort(ms.begin(), ms.end());
  double in_sample = 0;
  for (const predict::PairSample& p : d.data.pairs) {
    COLO_ASSIGN_OR_RETURN(
        predict::PairPrediction pr,
        model->PredictPair(d.data.profiles[p.a], d.data.profiles[p.b]));
    in_sample +=
        std::fabs(pr.norm_a - p.norm_a) + std::fabs(pr.norm_b - p.norm_b);
  }
  for (const std::string& d : report.dropped_features)
    std::printf("feature left out: %s\n", d.c_str());
  if (options.fixed_terms.empty()) {
    std::printf(
        "pool: %d terms over %zu base features; chose %zu terms (|r| >= %.2f, "
        "ridge lambda %g, inner-CV %s %.4f)\n",
        report.pool_terms, report.features.size(), report.selected.size(),
        report.correlation_threshold, report.lambda,
        predict::SelectionLossName(options.selection_loss),
        report.selection_loss);
  } else {
    std::printf("terms fixed by --terms: %zu (ridge lambda %g, no selection)\n",
                options.fixed_terms.size(), report.lambda);
  }
  for (size_t i = 0; i < model->terms.size(); ++i) {
    std::printf("  %-58s weight %+.4f\n", model->terms[i].Name().c_str(),
                model->linear.weights(i));
  }
  if (report.residual_fitted) {
    const predict::ResidualReport& rr = report.residual;
    std::printf(
        "residual correction: Gaussian process over %d training workloads "
        "(%d base features, bandwidth %.3g by the median heuristic), %d "
        "rows; noise %g chosen by marginal likelihood\n",
        rr.landmarks, rr.features, rr.bandwidth, rr.rows, rr.noise);
  } else {
    std::printf("residual correction: none (--no-residual)\n");
  }
  std::printf("in-sample MAE of normalized throughput: %.3f\n",
              in_sample / (2.0 * d.data.pairs.size()));
  std::printf(
      "training time: median %.3f ms, min %.3f ms over %d runs (%zu pairs)\n",
      ms[ms.size() / 2], ms[0], repeat, d.data.pairs.size());
  if (!out.empty()) {
    COLO_RETURN_IF_ERROR(predict::SaveModel(*model, out));
    std::printf("model written to %s\n", out.c_str());
  }
  return OkStatus();
}

struct EvalFlags {
  int folds = 5;
  int repeats = 5;
  std::string seed = "1";  // checked by ParseSeedFlag
  bool no_lowo = false;
  bool sim_gpu_given = false;
  bool predictions_given = false;
  bool sim = false;
  std::string sim_gpu = "V100";
  std::string sim_reference;  // --sim-reference: solo reference CSV for --sim.
  std::string predictions;    // CSV of every method's per-pair predictions.
  RecordingFlags recording;   // --runs-db, --no-record.
};

Status RunEval(const DataFlags& df, const TrainFlags& tf, const EvalFlags& ef) {
  predict::EvalOptions eo;
  COLO_ASSIGN_OR_RETURN(eo.train, ToTrainOptions(tf));
  eo.folds = ef.folds;
  eo.repeats = ef.repeats;
  COLO_ASSIGN_OR_RETURN(
      eo.seed,
      ParseSeedFlag("--seed", ef.seed,
                    static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) -
                        static_cast<uint64_t>(std::max(ef.repeats, 0))));
  if (ef.sim_gpu_given && !ef.sim)
    return InvalidArgumentError("--sim-gpu sets the GPU of --sim; give --sim");
  if (!ef.sim_reference.empty() && !ef.sim)
    return InvalidArgumentError("--sim-reference calibrates --sim; give --sim");
  if (ef.predictions_given && ef.predictions.empty())
    return InvalidArgumentError("--predictions: expected a file path, got ''");
  eo.lowo = !ef.no_lowo;
  COLO_RETURN_IF_ERROR(eo.Validate());
  if (!ef.predictions.empty() &&
      !std::ofstream(ef.predictions, std::ios::binary | std::ios::app)) {
    // Checked before the evaluation's seconds are spent; nothing truncated.
    return InvalidArgumentError(ef.predictions +
                                ": cannot open for writing the predictions");
  }
  COLO_ASSIGN_OR_RETURN(RunRecorder recorder, RunRecorder::Start(ef.recording));
  COLO_ASSIGN_OR_RETURN(predict::LoadedDataset d, Load(df));
  std::vector<predict::ExtraScorer> extras;
  if (ef.sim) {
    predict::SimScorerOptions so;
    so.pair.gpu = ef.sim_gpu;
    so.solo_reference_csv = ef.sim_reference;
    Result<std::vector<predict::ExtraScorer>> sim =
        predict::SimulatorScorers(d.data, so);
    if (!sim.ok()) return AsInputError(sim.status());
    extras = *sim;
  }
  RealClock clock;
  const TimePoint t0 = clock.Now();
  Result<predict::EvalReport> evaluated =
      predict::EvaluatePartnerChoice(d.data, eo, extras);
  if (!evaluated.ok())
    return AsInputError(
        evaluated.status().WithContext("evaluating on " + PairsPath(df)));
  const predict::EvalReport& r = *evaluated;
  const double seconds = ToSeconds(clock.Now() - t0);
  std::string text;
  Appendf(
      &text,
      "ratio to oracle per anchor workload (chosen partner's actual summed "
      "normalized throughput /\n"
      "best actual among its measured partners); k-fold: %d folds x %d repeats "
      "(seeds %llu..%llu),\n"
      "out-of-fold predictions; LOWO: the anchor's pairs never seen in "
      "training.\n"
      "lin+GP: the linear model plus its residual correction (Gaussian "
      "process over workload pairs);\n"
      "linear: the linear model alone; X+simulator: equal-weight mean with "
      "the simulator's prediction.\n\n",
      eo.folds, eo.repeats, static_cast<unsigned long long>(eo.seed),
      static_cast<unsigned long long>(eo.seed + eo.repeats - 1));
  Appendf(&text, "%s", predict::FormatEvalReport(r).c_str());
  Appendf(&text, "\nterms chosen on all pairs:");
  for (const std::string& t : r.full_model_terms)
    Appendf(&text, " %s", t.c_str());
  Appendf(&text, "\nevaluation took %.2f s\n", seconds);
  if (!ef.predictions.empty()) {
    std::ofstream out(ef.predictions, std::ios::binary | std::ios::trunc);
    if (out) out << predict::FormatPredictionsCsv(r, d.data);
    out.close();
    if (!out) {
      PrintText(text);
      return InvalidArgumentError(ef.predictions +
                                  ": cannot write the predictions");
    }
    Appendf(&text, "per-pair predictions (%zu rows) written to %s\n",
            r.predictions.size(), ef.predictions.c_str());
  }
  PrintText(text);
  runs::RunRecord record;
  record.kind = runs::kKindPredictEval;
  record.input = PairsPath(df);
  record.input_text = ReadInputFile(record.input);
  // A dataset directory has no text of its own: its path stands in.
  record.input_hash = runs::ContentHash(
      record.input_text.empty() ? record.input : record.input_text);
  record.seed = static_cast<int64_t>(eo.seed);
  record.options_json =
      nlohmann::json{{"args", CommandLineWithoutSeed()}}.dump();
  record.result_json = EvalReportJson(r);
  return recorder.Record({std::move(record)}, text);
}

Status RunPair(const DataFlags& df, const std::string& model_path,
               const std::string& a, const std::string& b) {
  COLO_ASSIGN_OR_RETURN(predict::InterferenceModel model,
                        predict::LoadModel(model_path));
  // A pair needs profiles only; measurements, if given, are shown beside.
  predict::LoadedDataset d;
  if (!df.source.profiles_dir.empty() && df.source.pairs_csv.empty()) {
    COLO_ASSIGN_OR_RETURN(d.all_profiles,
                          profile::LoadProfileDir(df.source.profiles_dir));
  } else {
    COLO_ASSIGN_OR_RETURN(d, predict::LoadDataset(df.source));
  }
  auto find =
      [&](const std::string& n) -> Result<const profile::WorkloadProfile*> {
    for (const auto& p : d.all_profiles) {
      if (p.name == n) return &p;
    }
    return NotFoundError("no profile named '" + n + "'");
  };
  COLO_ASSIGN_OR_RETURN(const profile::WorkloadProfile* pa, find(a));
  COLO_ASSIGN_OR_RETURN(const profile::WorkloadProfile* pb, find(b));
  Result<predict::PairPrediction> pr = model.PredictPair(*pa, *pb);
  if (!pr.ok()) return AsInputError(pr.status());
  std::optional<predict::PairPrediction> measured;
  for (const predict::PairSample& p : d.data.pairs) {
    const std::string& na = d.data.profiles[p.a].name;
    const std::string& nb = d.data.profiles[p.b].name;
    if (na == a && nb == b)
      measured = predict::PairPrediction{p.norm_a, p.norm_b};
    if (na == b && nb == a)
      measured = predict::PairPrediction{p.norm_b, p.norm_a};
  }
  // Clamped to [0, 1] as colo plan uses them; the model's own value is
  // shown when it lies outside (an extrapolation).
  auto line = [](const std::string& name, double raw, std::optional<double> m) {
    const double y = std::clamp(raw, 0.0, 1.0);
    std::string out = fmt::format("{}: {:.3f}", name, y);
    if (y != raw) out += fmt::format(" (model {:.3f}, clamped to [0, 1])", raw);
    if (m) out += fmt::format(" (measured {:.3f})", *m);
    return out + "\n";
  };
  std::string text =
      line(a, pr->norm_a,
           measured ? std::optional(measured->norm_a) : std::nullopt) +
      line(b, pr->norm_b,
           measured ? std::optional(measured->norm_b) : std::nullopt);
  text += fmt::format("sum: {:.3f}", std::clamp(pr->norm_a, 0.0, 1.0) +
                                         std::clamp(pr->norm_b, 0.0, 1.0));
  if (measured) text += fmt::format(" (measured {:.3f})", measured->Sum());
  std::printf("%s\n", text.c_str());
  return OkStatus();
}

}  // namespace

void RegisterPredictCommand(CLI::App& app, int* exit_code) {
  CLI::App* predict = app.add_subcommand(
      "predict", "pairwise interference model: train, evaluate, predict");
  predict->require_subcommand(1);

  auto data = std::make_shared<DataFlags>();
  auto train_flags = std::make_shared<TrainFlags>();

  CLI::App* train = predict->add_subcommand(
      "train", "train the linear model on measured pairs");
  AddDataFlags(train, data.get());
  AddTrainFlags(train, train_flags.get());
  auto out = std::make_shared<std::string>();
  auto repeat = std::make_shared<int>(20);
  train->add_option("-o,--out", *out, "write the model (JSON) here");
  train->add_option("--repeat", *repeat, "training runs to time (default 20)");
  train->callback([=] {
    *exit_code = ReportStatus(RunTrain(*data, *train_flags, *out, *repeat));
  });

  auto eval_flags = std::make_shared<EvalFlags>();
  CLI::App* eval = predict->add_subcommand(
      "eval", "ratio to oracle: k-fold, leave-one-workload-out, baselines");
  AddDataFlags(eval, data.get());
  AddTrainFlags(eval, train_flags.get());
  eval->add_option("--folds", eval_flags->folds, "k of k-fold (default 5)");
  eval->add_option("--repeats", eval_flags->repeats,
                   "k-fold repetitions with consecutive seeds (default 5)");
  eval->add_option("--seed", eval_flags->seed, "first seed (default 1)");
  eval->add_flag("--no-lowo", eval_flags->no_lowo,
                 "skip leave-one-workload-out");
  eval->add_flag(
      "--sim", eval_flags->sim,
      "also score pairs on the simulated GPU (no pair measurements needed)");
  CLI::Option* sim_gpu = eval->add_option(
      "--sim-gpu", eval_flags->sim_gpu, "GPU preset for --sim (default V100)");
  eval->add_option("--sim-reference", eval_flags->sim_reference,
                   "a second solo measurement for --sim (PEACE's baseline "
                   "metrics CSV: Type, sm%100, Exclusive100)");
  CLI::Option* predictions = eval->add_option(
      "--predictions", eval_flags->predictions,
      "write every method's per-pair predictions (out-of-fold, LOWO, "
      "simulator) to this CSV");
  AddRecordingFlags(eval, &eval_flags->recording);
  eval->callback([=] {
    eval_flags->sim_gpu_given = sim_gpu->count() > 0;
    eval_flags->predictions_given = predictions->count() > 0;
    *exit_code = ReportStatus(RunEval(*data, *train_flags, *eval_flags));
  });

  auto model = std::make_shared<std::string>();
  auto names = std::make_shared<std::vector<std::string>>();
  CLI::App* pair = predict->add_subcommand(
      "pair", "predict two workloads' normalized throughput together");
  AddDataFlags(pair, data.get());
  pair->add_option("--model", *model, "model JSON (colo predict train -o)")
      ->required();
  pair->add_option("workloads", *names, "two workload names")
      ->expected(2)
      ->required();
  pair->callback([=] {
    *exit_code = ReportStatus(RunPair(*data, *model, (*names)[0], (*names)[1]));
  });
}

}  // namespace colo::tools
