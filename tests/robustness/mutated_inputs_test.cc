// Every reader of a user's file, fed damaged copies of a real-format input
// (tests/robustness/mutate.h): it must either accept the copy with finite
// values or refuse it with an error that names the file. Never a crash (the
// sanitizer build turns memory errors into failures), never a silent NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>

#include "mutate.h"
#include "place/jobs_file.h"
#include "predict/interference_model.h"
#include "predict/pair_data.h"
#include "profile/dcgm_log.h"
#include "profile/kace_data.h"
#include "profile/ncu_csv.h"
#include "profile/orion_table.h"
#include "profile/smi_log.h"
#include "profile/workload_profile.h"
#include "scenario/scenario_loader.h"
#include "temp_dir.h"

namespace colo {
namespace {

constexpr int kMutants = 300;
const std::string kSource = COLO_SOURCE_DIR;
const std::string kTestdata = kSource + "/tests/profile/testdata";
const std::string kPlan = kSource + "/examples/plan";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool Finite(double x) { return std::isfinite(x); }
bool Finite(const std::optional<double>& x) { return !x || std::isfinite(*x); }

// What a reader made of one mutant: OK with all its numbers finite, or the
// error. `name` is what the error must mention.
struct Outcome {
  Status status;
  bool finite = true;
};

// Feeds kMutants damaged copies of `original` to `read` and checks each
// outcome. Also requires that some copies are refused: a reader that accepts
// everything has not been tested.
void Sweep(const std::string& original, const std::string& name, uint64_t seed,
           const std::function<Outcome(const std::string&)>& read) {
  ASSERT_FALSE(original.empty()) << name;
  const Outcome clean = read(original);
  ASSERT_TRUE(clean.status.ok()) << clean.status.ToString();
  testing::Mutator mutator(seed);
  int refused = 0;
  for (int i = 0; i < kMutants; ++i) {
    const testing::Mutant m = mutator.Next(original);
    const Outcome o = read(m.text);
    if (o.status.ok()) {
      EXPECT_TRUE(o.finite)
          << name << " (" << m.what << "): accepted with a non-finite value";
      continue;
    }
    ++refused;
    EXPECT_NE(o.status.message().find(name), std::string::npos)
        << "(" << m.what << ") the error does not name " << name << ": "
        << o.status.ToString();
  }
  EXPECT_GT(refused, 0) << name;
}

TEST(MutatedInputsTest, NsightComputeExports) {
  for (const char* file : {"ncu_details.csv", "ncu_raw.csv"}) {
    const std::string path = kTestdata + "/" + file;
    Sweep(Slurp(path), path, 1, [&](const std::string& text) -> Outcome {
      auto k = profile::ParseNcuCsv(text, path);
      if (!k.ok()) return {k.status()};
      bool finite = true;
      for (const auto& x : *k) {
        finite = finite && Finite(x.sm_throughput_pct) &&
                 Finite(x.dram_throughput_pct) &&
                 Finite(x.memory_throughput_pct) && x.duration.count() >= 0;
      }
      auto s = profile::SummarizeKernels(*k);
      if (!s.ok()) return {s.status().WithContext(path)};
      finite = finite && Finite(s->threads) && Finite(s->registers) &&
               Finite(s->static_shared_memory) &&
               Finite(s->sm_throughput_pct) && Finite(s->dram_throughput_pct) &&
               Finite(s->memory_throughput_pct);
      return {OkStatus(), finite};
    });
  }
}

TEST(MutatedInputsTest, NvidiaSmiAndDcgmLogs) {
  struct Log {
    const char* file;
    profile::SmiLogOptions options;
  };
  profile::SmiLogOptions query;
  query.devices_per_sample = 5;
  query.skip_idle = true;
  profile::SmiLogOptions pmon;
  pmon.pid = 4242;
  for (const Log& log : {Log{"smi_dmon.txt", {}}, Log{"smi_pmon.txt", pmon},
                         Log{"pmdlt_128x1024.nvsm.txt", query}}) {
    const std::string path = kTestdata + "/" + log.file;
    Sweep(Slurp(path), path, 2, [&](const std::string& text) -> Outcome {
      auto s = profile::ParseSmiLog(text, path, log.options);
      if (!s.ok()) return {s.status()};
      return {OkStatus(), Finite(s->sm_util_pct) && Finite(s->mem_util_pct) &&
                              Finite(s->memory_used_mib)};
    });
  }
  const std::string dcgm = kTestdata + "/pmdlt_128x1024.dcgmi.txt";
  Sweep(Slurp(dcgm), dcgm, 3, [&](const std::string& text) -> Outcome {
    auto s = profile::ParseDcgmLog(text, dcgm);
    if (!s.ok()) return {s.status()};
    return {OkStatus(), Finite(s->gpu_util_pct) && Finite(s->sm_active_pct) &&
                            Finite(s->sm_occupancy_pct) &&
                            Finite(s->dram_active_pct)};
  });
}

bool Finite(const profile::WorkloadProfile& p) {
  bool ok = Finite(p.solo_throughput) && Finite(p.system.sm_util_pct) &&
            Finite(p.system.mem_util_pct) && Finite(p.system.memory_used_gib) &&
            Finite(p.system.sm_active_pct) &&
            Finite(p.system.sm_occupancy_pct) &&
            Finite(p.system.dram_active_pct);
  if (p.kernels) {
    const auto& k = *p.kernels;
    ok = ok && Finite(k.threads) && Finite(k.registers) &&
         Finite(k.static_shared_memory) && Finite(k.sm_throughput_pct) &&
         Finite(k.dram_throughput_pct) && Finite(k.memory_throughput_pct);
  }
  for (const auto& m : p.mps_scaling)
    ok = ok && Finite(m.active_thread_pct) && Finite(m.throughput);
  return ok;
}

TEST(MutatedInputsTest, ProfilesAndModels) {
  const std::string bert = kPlan + "/profiles/bert-base-cased_batch8-inf.json";
  const std::string vit =
      kPlan + "/profiles/vit-base-patch16-224_batch16-inf.json";
  Sweep(Slurp(bert), bert, 4, [&](const std::string& text) -> Outcome {
    auto p = profile::ParseProfileJson(text, bert);
    if (!p.ok()) return {p.status()};
    return {OkStatus(), Finite(*p)};
  });
  // A model that loads must predict finite throughputs (or say which input
  // it lacks): a damaged coefficient must not reach `colo plan` as NaN.
  auto a = profile::LoadProfile(bert);
  auto b = profile::LoadProfile(vit);
  ASSERT_TRUE(a.ok() && b.ok());
  const std::string model = kPlan + "/model.json";
  Sweep(Slurp(model), model, 5, [&](const std::string& text) -> Outcome {
    auto m = predict::ParseModelJson(text, model);
    if (!m.ok()) return {m.status()};
    auto p = m->PredictPair(*a, *b);
    if (!p.ok()) return {p.status().WithContext(model)};
    return {OkStatus(), Finite(p->norm_a) && Finite(p->norm_b)};
  });
}

TEST(MutatedInputsTest, KaceTables) {
  profile::testing::TempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string kace = std::string(COLO_DATA_DIR) + "/kace";
  Sweep(Slurp(kace + "/workload_kernel_features.csv"), "k.csv", 6,
        [&](const std::string& text) -> Outcome {
          auto t = profile::ReadKaceKernelTable(dir.Write("k.csv", text));
          if (!t.ok()) return {t.status()};
          bool ok = true;
          for (const auto& [name, k] : *t) {
            profile::WorkloadProfile p;
            p.name = name;
            p.kernels = k;
            ok = ok && Finite(p);
          }
          return {OkStatus(), ok};
        });
  // The whole artifact with one table damaged: the error names that table,
  // not the one its rows are merged into.
  for (const char* table :
       {"baseline_labels.csv", "workload_kernel_features.csv",
        "baseline_steps_stage2.csv"}) {
    for (const char* f : {"baseline_labels.csv", "workload_kernel_features.csv",
                          "baseline_steps_stage2.csv"})
      dir.Write(std::string("artifact/") + f, Slurp(kace + "/" + f));
    Sweep(Slurp(kace + "/" + table), table, 13,
          [&](const std::string& text) -> Outcome {
            dir.Write(std::string("artifact/") + table, text);
            auto all = profile::LoadKaceProfiles(dir.path() + "/artifact");
            if (!all.ok()) return {all.status()};
            bool ok = true;
            for (const auto& p : *all) ok = ok && Finite(p);
            return {OkStatus(), ok};
          });
  }
  Sweep(Slurp(kace + "/baseline_labels.csv"), "b.csv", 7,
        [&](const std::string& text) -> Outcome {
          auto t = profile::ReadKaceBaselineLabels(dir.Write("b.csv", text));
          if (!t.ok()) return {t.status()};
          bool ok = true;
          for (const auto& x : *t) {
            ok = ok && Finite(x.solo_throughput) && Finite(x.sm_util_pct) &&
                 Finite(x.mem_util_pct) && Finite(x.memory_used_gib);
          }
          return {OkStatus(), ok};
        });
  Sweep(Slurp(kace + "/baseline_steps_stage2.csv"), "s.csv", 8,
        [&](const std::string& text) -> Outcome {
          auto t = profile::ReadKaceMpsScaling(dir.Write("s.csv", text));
          if (!t.ok()) return {t.status()};
          bool ok = true;
          for (const auto& [name, points] : *t) {
            for (const auto& m : points)
              ok = ok && Finite(m.active_thread_pct) && Finite(m.throughput);
          }
          return {OkStatus(), ok};
        });
  Sweep(Slurp(kace + "/pairs_training.csv"), "p.csv", 9,
        [&](const std::string& text) -> Outcome {
          auto t = predict::ReadPairMeasurements(dir.Write("p.csv", text));
          if (!t.ok()) return {t.status()};
          bool ok = true;
          for (const auto& x : *t)
            ok = ok && Finite(x.shared_a) && Finite(x.shared_b);
          return {OkStatus(), ok};
        });
}

TEST(MutatedInputsTest, JobsScenariosAndKernelTables) {
  const std::string jobs = kPlan + "/jobs.yaml";
  Sweep(Slurp(jobs), "jobs.yaml", 10, [&](const std::string& text) -> Outcome {
    auto f = place::ParseJobsYaml(text, "jobs.yaml", kPlan);
    if (!f.ok()) return {f.status()};
    return {OkStatus(), Finite(f->high_priority_floor)};
  });
  const std::string dir = kSource + "/examples/inference-vs-training";
  Sweep(Slurp(dir + "/mps.yaml"), "mps.yaml", 11,
        [&](const std::string& text) -> Outcome {
          auto s = scenario::LoadScenarioString(text, "mps.yaml", dir);
          // LoadScenarioString promises a spec that passes Validate().
          if (s.ok()) return {s->Validate()};
          return {s.status()};
        });
  profile::testing::TempDir tmp;
  ASSERT_TRUE(tmp.ok());
  const std::string orion = std::string(COLO_DATA_DIR) + "/orion/bert_2_fwd";
  Sweep(Slurp(orion), "bert_2_fwd", 12,
        [&](const std::string& text) -> Outcome {
          auto w = profile::LoadOrionKernelTable(tmp.Write("bert_2_fwd", text));
          if (!w.ok()) return {w.status()};
          // The table gives kernels; arrivals and the rest come from the
          // scenario.
          for (const auto& k : w->kernels) {
            if (Status v = k.Validate(); !v.ok())
              return {v.WithContext("bert_2_fwd")};
          }
          return {OkStatus()};
        });
}

}  // namespace
}  // namespace colo
