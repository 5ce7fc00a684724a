// `colo profile import`, `colo predict`, `colo plan` as a user runs them:
// exit status 0 on success, 2 on bad input with a message naming the file
// and line. Runs the built binary.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "cli/colo_process.h"

namespace colo::test {
namespace {

const std::string kData = COLO_DATA_DIR;
const std::string kSrc = COLO_SOURCE_DIR;

class CliPredictTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("colo_cli_predict_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    const std::filesystem::path p = dir_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  static std::string ReadFile(const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)),
                       std::istreambuf_iterator<char>());
  }
  ProcessResult Run(const std::vector<std::string>& args) {
    return RunColo(args, dir_);
  }
  std::filesystem::path dir_;
};

TEST_F(CliPredictTest, EvalPrintsTheTableAndBaselines) {
  ProcessResult r =
      Run({"predict", "eval", "--kace", kData + "/kace", "--repeats", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s :
       {"MEAN ratio to oracle", "lin+GP k-fold", "lin+GP LOWO", "linear k-fold",
        "linear LOWO", "random", "least memory", "least SM%", "least mem%",
        "most solo tput", "whisper-large-v2_batch16-inf",
        "excluded wav2vec2-base-960h_batch2-inf"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
  }
}

TEST_F(CliPredictTest, EvalWritesPerPairPredictionsWithTheSimulator) {
  const std::string csv = (dir_ / "pred.csv").string();
  ProcessResult r = Run({"predict", "eval", "--kace", kData + "/kace",
                         "--repeats", "1", "--sim", "--predictions", csv});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(csv);
  std::string header, line;
  ASSERT_TRUE(std::getline(in, header));
  EXPECT_EQ(header,
            "method,left_out,workload_a,workload_b,measured_a,measured_b,"
            "predicted_a,predicted_b,source");
  std::map<std::string, int> rows;  // per method
  while (std::getline(in, line)) ++rows[line.substr(0, line.find(','))];
  // 100 pairs: k-fold methods and the simulator once each, LOWO twice.
  EXPECT_EQ(rows["simulator"], 100);
  EXPECT_EQ(rows["lin+GP k-fold"], 100);
  EXPECT_EQ(rows["lin+GP LOWO"], 200);
  EXPECT_EQ(rows["linear k-fold"], 100);
  EXPECT_EQ(rows["lin+GP+simulator LOWO"], 200);
  EXPECT_NE(r.out.find("written to " + csv), std::string::npos) << r.out;

  // A path that cannot be written: exit 2 before any evaluation.
  r = Run({"predict", "eval", "--kace", kData + "/kace", "--predictions",
           (dir_ / "no-such-dir" / "p.csv").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no-such-dir/p.csv: cannot open for writing"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("MEAN ratio to oracle"), std::string::npos);
}

TEST_F(CliPredictTest, PeaceMetricsAddDcgmFeaturesToTheModel) {
  const std::string peace = kData + "/peace/0206_FREQ1530_baseline_metrics.csv";
  ProcessResult r = Run({"predict", "train", "--kace", kData + "/kace"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("over 13 base features"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("sm_active"), std::string::npos) << r.out;
  r = Run({"predict", "train", "--kace", kData + "/kace", "--peace-metrics",
           peace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.out.find("DCGM metrics from " + peace + " for 19 of the 19 workloads"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("over 16 base features"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("partner.sm_active"), std::string::npos) << r.out;
  // The same option on the KACE import writes them into the profiles.
  const std::string out_dir = (dir_ / "profiles").string();
  r = Run({"profile", "import", "--kace", kData + "/kace", "--peace-metrics",
           peace, "--out-dir", out_dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string json =
      ReadWholeFile(out_dir + "/bert-base-cased_batch8-inf.json");
  EXPECT_NE(json.find("\"sm_active_pct\": 91.94"), std::string::npos) << json;
  // A bad file is bad input, named; and the option needs --kace.
  const std::string bad =
      Write("bad.csv", "Type,SMACT%100,SMOCC%100,DRAMA%100\nx,50,,20\n");
  r = Run(
      {"predict", "eval", "--kace", kData + "/kace", "--peace-metrics", bad});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(bad + ":2: column 'SMOCC%100'"), std::string::npos)
      << r.err;
  r = Run({"profile", "import", "--name", "x", "--peace-metrics", peace});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--peace-metrics goes with --kace"), std::string::npos)
      << r.err;
}

TEST_F(CliPredictTest, TrainWritesAModelThatPlanLoads) {
  const std::string model = (dir_ / "model.json").string();
  ProcessResult r = Run({"predict", "train", "--kace", kData + "/kace", "-o",
                         model, "--repeat", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("training time: median"), std::string::npos);
  // The example's model is the one this command writes (its header says
  // so); a stale copy would plan with an older model without a word.
  EXPECT_EQ(ReadFile(model), ReadFile(kSrc + "/examples/plan/model.json"))
      << "regenerate it: colo predict train --kace data/kace -o "
         "examples/plan/model.json";
  EXPECT_NE(r.out.find("residual correction: Gaussian process over 19 "
                       "training workloads"),
            std::string::npos)
      << r.out;
  r = Run({"plan", kSrc + "/examples/plan/jobs.yaml", "--gpus", "5", "--model",
           model});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("predicted total normalized throughput"),
            std::string::npos)
      << r.out;
  r = Run({"plan", kSrc + "/examples/plan/jobs.yaml", "--gpus", "5", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"predicted_normalized_throughput\""),
            std::string::npos);
}

TEST_F(CliPredictTest, PairsNamingAnUnknownWorkloadExit2WithFileAndLine) {
  const std::string pairs = Write(
      "pairs.csv",
      "workload1,workload2,w1throughput,w2throughput\n"
      "bert-base-cased_batch8-train,vit-base-patch16-224_batch8-inf,20,50\n"
      "bert-base-cased_batch8-train,no-such-workload,20,50\n");
  ProcessResult r =
      Run({"predict", "train", "--kace", kData + "/kace", "--pairs", pairs});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(
      r.err.find(pairs + ":3: workload 'no-such-workload' has no profile"),
      std::string::npos)
      << r.err;
}

TEST_F(CliPredictTest, MissingColumnAndNanCellExit2) {
  std::string pairs =
      Write("p1.csv", "workload1,workload2,w1throughput\na,b,1\n");
  ProcessResult r =
      Run({"predict", "eval", "--kace", kData + "/kace", "--pairs", pairs});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(pairs + ": missing column 'w2throughput'"),
            std::string::npos)
      << r.err;
  pairs = Write("p2.csv",
                "workload1,workload2,w1throughput,w2throughput\na,b,nan,1\n");
  r = Run({"predict", "eval", "--kace", kData + "/kace", "--pairs", pairs});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(
      r.err.find(
          pairs +
          ":2: column 'w1throughput': expected a finite number, got 'nan'"),
      std::string::npos)
      << r.err;
}

TEST_F(CliPredictTest, SingularDesignExit2NamingTheColumns) {
  // log_regs_per_thread = log_registers - log_threads: X'X is singular.
  ProcessResult r =
      Run({"predict", "train", "--kace", kData + "/kace", "--terms",
           "own.log_threads,own.log_registers,own.log_regs_per_thread"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("pairs_training.csv"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("X'X is singular"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("own.log_regs_per_thread"), std::string::npos) << r.err;
}

TEST_F(CliPredictTest, ProfileImportFromNcuAndSmi) {
  const std::string out = (dir_ / "p.json").string();
  ProcessResult r =
      Run({"profile", "import", "--name", "demo", "--ncu",
           kSrc + "/tests/profile/testdata/ncu_details.csv", "--nvtx",
           "train_step", "--smi", kSrc + "/tests/profile/testdata/smi_dmon.txt",
           "--dcgm", kSrc + "/tests/profile/testdata/pmdlt_128x1024.dcgmi.txt",
           "--solo-throughput", "12.5", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(out);
  const std::string json((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  EXPECT_NE(json.find("\"kernel_count\": 2"), std::string::npos) << json;
  EXPECT_NE(json.find("\"sm_util_pct\": 95"), std::string::npos) << json;
  EXPECT_NE(json.find("\"sm_active_pct\""), std::string::npos) << json;
}

TEST_F(CliPredictTest, ProfileImportBadNcuCellExit2) {
  std::ifstream in(kSrc + "/tests/profile/testdata/ncu_raw.csv");
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  text.replace(text.find("\"78.50\""), 7, "\"\"");
  const std::string bad = Write("bad.csv", text);
  ProcessResult r = Run({"profile", "import", "--name", "x", "--ncu", bad});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(bad + ":4: kernel ID 0"), std::string::npos) << r.err;
}

TEST_F(CliPredictTest, PlanBadYamlExit2WithLine) {
  const std::string jobs =
      Write("jobs.yaml", "profiles: " + kSrc +
                             "/examples/plan/profiles\n"
                             "jobs:\n"
                             "  - name: a\n"
                             "    profile: bert-base-cased_batch8-train\n"
                             "    priority: sometimes\n");
  ProcessResult r =
      Run({"plan", jobs, "--gpus", "2", "--kace", kData + "/kace"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(jobs + ":5:"), std::string::npos) << r.err;
  r = Run({"plan", jobs, "--gpus", "2", "--mig"});
  EXPECT_EQ(r.exit_code, 2);
}

// Names end up in JSON, which holds UTF-8 only: a name that is not UTF-8
// is refused where it was read (exit 2, naming the input), never thrown as
// an exception where the JSON is written.
TEST_F(CliPredictTest, NamesThatAreNotUtf8Exit2NamingTheInput) {
  const std::string jobs =
      Write("jobs.yaml", "profiles: " + kSrc +
                             "/examples/plan/profiles\n"
                             "jobs:\n"
                             "  - name: caf\xE9\n"
                             "    profile: bert-base-cased_batch8-train\n");
  ProcessResult r =
      Run({"plan", jobs, "--gpus", "1", "--json", "--kace", kData + "/kace"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(jobs + ":3:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("UTF-8"), std::string::npos) << r.err;

  const std::string out = (dir_ / "p.json").string();
  r = Run({"profile", "import", "--name", "caf\xE9", "--ncu",
           kSrc + "/tests/profile/testdata/ncu_details.csv", "--nvtx",
           "train_step", "-o", out});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("UTF-8"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));

  // The same name in UTF-8 (U+00E9) is a name like any other.
  r = Run({"profile", "import", "--name", "caf\xC3\xA9", "--ncu",
           kSrc + "/tests/profile/testdata/ncu_details.csv", "--nvtx",
           "train_step", "-o", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(CliPredictTest, ATruncatedPairsFileExit2AtItsLastLine) {
  // Cut inside the last row's w2throughput: the row is short, not a number
  // cut in half that happens to parse.
  const std::string full = ReadFile(kData + "/kace/pairs_training.csv");
  const size_t last = full.rfind('\n', full.size() - 2) + 1;
  const std::string cut = full.substr(0, last + (full.size() - last) / 2);
  const std::string pairs = Write("cut.csv", cut);
  ProcessResult r = Run({"predict", "train", "--kace", kData + "/kace",
                         "--pairs", pairs, "--repeat", "1"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  const int lines =
      static_cast<int>(std::count(cut.begin(), cut.end(), '\n')) + 1;
  EXPECT_NE(r.err.find(pairs + ":" + std::to_string(lines) + ": expected "),
            std::string::npos)
      << r.err;
}

TEST_F(CliPredictTest, AnExcludedWorkloadThatDoesNotExistExit2) {
  ProcessResult r = Run({"predict", "train", "--kace", kData + "/kace",
                         "--exclude", "bert-base-cased_batch8-trian"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--exclude 'bert-base-cased_batch8-trian': no "
                       "workload of that name"),
            std::string::npos)
      << r.err;
}

TEST_F(CliPredictTest, FixedTermsTakeOneLambda) {
  ProcessResult r =
      Run({"predict", "train", "--kace", kData + "/kace", "--terms",
           "partner.sm_util", "--lambda", "0.1", "0.0001"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("give one"), std::string::npos) << r.err;
  r = Run({"predict", "train", "--kace", kData + "/kace", "--terms",
           "partner.sm_util", "--lambda", "0.1", "--repeat", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("terms fixed by --terms: 1 (ridge lambda 0.1"),
            std::string::npos)
      << r.out;
}

TEST_F(CliPredictTest, ProfileImportRefusesValuesItWouldOtherwiseDrop) {
  const std::string ncu = kSrc + "/tests/profile/testdata/ncu_raw.csv";
  for (const char* v : {"nan", "inf", "0", "-5"}) {
    ProcessResult r = Run({"profile", "import", "--name", "x",
                           std::string("--solo-throughput=") + v});
    EXPECT_EQ(r.exit_code, 2) << v;
    EXPECT_NE(r.err.find("--solo-throughput: expected a finite number > 0"),
              std::string::npos)
        << v << ": " << r.err;
  }
  ProcessResult r =
      Run({"profile", "import", "--name", "x", "--ncu", ncu, "--nvtx", ""});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--nvtx: expected a range name"), std::string::npos)
      << r.err;
  r = Run({"profile", "import", "--kace", kData + "/kace", "--out-dir",
           (dir_ / "k").string(), "--ncu", ncu});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("does not combine with"), std::string::npos) << r.err;
  r = Run({"profile", "import", "--name", "x", "--smi", dir_.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
}

TEST_F(CliPredictTest, EvalRefusesOptionsItWouldIgnoreOrWrap) {
  const std::string kace = kData + "/kace";
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--seed", "-1"}, "--seed: expected an integer in 0.."},
      {{"--seed", "99999999999999999999999"}, "--seed: expected an integer"},
      {{"--sim-gpu", "A100"}, "--sim-gpu sets the GPU of --sim"},
      {{"--predictions", ""}, "--predictions: expected a file path"},
      {{"--max-solo-ratio", "2"}, "give --cross-check-solo"},
      {{"--terms", "partner.sm_util,partner.sm_util"},
       "term 'partner.sm_util' is given twice"}};
  for (const auto& [args, message] : cases) {
    std::vector<std::string> argv = {"predict",   "eval",      "--kace", kace,
                                     "--no-lowo", "--repeats", "1"};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessResult r = Run(argv);
    EXPECT_EQ(r.exit_code, 2) << args[0];
    EXPECT_NE(r.err.find(message), std::string::npos)
        << args[0] << ": " << r.err;
  }
}

TEST_F(CliPredictTest, ProfileImportRefusesAnMpsCurveNothingCouldRead) {
  for (const char* curve : {"0.5:52,1:91", "25:27,50:52,75:74"}) {
    ProcessResult r = Run({"profile", "import", "--name", "x",
                           "--solo-throughput", "91", "--mps", curve});
    EXPECT_EQ(r.exit_code, 2) << curve;
    EXPECT_NE(r.err.find("--mps: "), std::string::npos)
        << curve << ": " << r.err;
  }
}

TEST_F(CliPredictTest, APairLabelFarAboveItsSoloThroughputExit2) {
  // A unit slip: shared throughput 1e6 against the job's solo throughput.
  const std::string pairs = Write(
      "pairs.csv",
      "workload1,workload2,w1throughput,w2throughput\n"
      "bert-base-cased_batch8-train,vit-base-patch16-224_batch8-inf,1e6,50\n");
  ProcessResult r =
      Run({"predict", "train", "--kace", kData + "/kace", "--pairs", pairs});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(pairs + ":2: 'bert-base-cased_batch8-train' shared "
                               "throughput 1e+06 is"),
            std::string::npos)
      << r.err;
}

TEST_F(CliPredictTest, PairNeedsOnlyProfilesAndClampsLikePlan) {
  const std::string model = (dir_ / "model.json").string();
  ASSERT_EQ(Run({"predict", "train", "--kace", kData + "/kace", "-o", model,
                 "--repeat", "1"})
                .exit_code,
            0);
  ProcessResult r =
      Run({"predict", "pair", "--profiles", kSrc + "/examples/plan/profiles",
           "--model", model, "bert-base-cased_batch8-inf",
           "vit-base-patch16-224_batch16-inf"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("bert-base-cased_batch8-inf: 0.876\n"),
            std::string::npos)
      << r.out;
  // With the measurements at hand, they are printed beside.
  r = Run({"predict", "pair", "--kace", kData + "/kace", "--model", model,
           "bert-base-cased_batch8-inf", "vit-base-patch16-224_batch16-inf"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("bert-base-cased_batch8-inf: 0.876 (measured "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("sum: 1.661 (measured "), std::string::npos) << r.out;
}

TEST_F(CliPredictTest, PlanOptionsOutOfRangeExit2) {
  const std::string jobs = kSrc + "/examples/plan/jobs.yaml";
  const std::map<std::string, std::string> cases = {
      {"--floor=0", "floor"},          {"--floor=-1", "floor"},
      {"--floor=nan", "floor"},        {"--max-per-gpu=0", "most jobs per GPU"},
      {"--reserve-gib=-5", "reserve"}, {"--reserve-gib=nan", "reserve"}};
  for (const auto& [flag, what] : cases) {
    ProcessResult r = Run({"plan", jobs, "--gpus", "2", flag});
    EXPECT_EQ(r.exit_code, 2) << flag << ": " << r.out;
    EXPECT_NE(r.err.find(what), std::string::npos) << flag << ": " << r.err;
  }
}

TEST_F(CliPredictTest, PlanNamesTheJobWhoseProfileTheModelCannotRead) {
  // A profile with system metrics only: the model needs kernel features.
  const std::string prof =
      Write("profiles/bare.json",
            "{\"format\": \"colo.workload_profile/1\", \"name\": \"bare\", "
            "\"system\": {\"sm_util_pct\": 50}, \"solo_throughput\": 10}\n");
  Write("profiles/bert-base-cased_batch8-train.json",
        ReadFile(kSrc +
                 "/examples/plan/profiles/bert-base-cased_batch8-train.json"));
  const std::string jobs =
      Write("jobs.yaml", "model: " + kSrc +
                             "/examples/plan/model.json\n"
                             "profiles: profiles\n"
                             "jobs:\n"
                             "  - name: first\n"
                             "    profile: bert-base-cased_batch8-train\n"
                             "  - name: second\n"
                             "    profile: bare\n"
                             "    memory_gib: 4\n");
  ProcessResult r = Run({"plan", jobs, "--gpus", "2"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find(jobs + ":6: job 'second': "), std::string::npos)
      << r.err;
}

TEST_F(CliPredictTest, ProfileImportNamesTheFlagOfABadLogOption) {
  // Checked before any file is read, and named as the user wrote them.
  const std::string smi = kSrc + "/tests/profile/testdata/smi_dmon.txt";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--smi-devices", "-3"}, "--smi-devices must be >= 0 (got -3)"},
      {{"--smi-devices", "5", "--smi-gpu", "5"},
       "--smi-gpu 5 must be below --smi-devices 5"},
      {{"--smi-gpu", "-1"}, "--smi-gpu must be >= 0 (got -1)"},
      {{"--smi-skip", "-2"}, "--smi-skip must be >= 0 (got -2)"},
      {{"--dcgm-gpu", "-1"}, "--dcgm-gpu must be >= 0 (got -1)"},
      {{"--dcgm-skip", "-4"}, "--dcgm-skip must be >= 0 (got -4)"},
      // Not "workload 'x': mps_scaling must have ascending ...".
      {{"--solo-throughput", "29.2", "--mps", "50:17.8,50:20,100:29.2"},
       "--mps: '50:20': percentages must ascend (after 50)"},
      {{"--solo-throughput", "29.2", "--mps", "50:0,100:29.2"},
       "--mps: '50:0': expected a throughput > 0"},
  };
  for (const auto& [flags, message] : cases) {
    std::vector<std::string> argv = {"profile", "import", "--name",
                                     "x",       "--smi",  smi};
    argv.insert(argv.end(), flags.begin(), flags.end());
    ProcessResult r = Run(argv);
    EXPECT_EQ(r.exit_code, 2) << flags[0];
    EXPECT_NE(r.err.find("colo: error: " + message), std::string::npos)
        << flags[0] << ": " << r.err;
  }
}

}  // namespace
}  // namespace colo::test
