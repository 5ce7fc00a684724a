// `colo profile import ...`: builds a workload profile (JSON) from profiler
// output — an Nsight Compute CSV export, nvidia-smi dmon/pmon/--query-gpu
// logs, dcgmi dmon logs, a solo throughput — or converts the KACE artifact's
// files into one profile per workload.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "colo/gpu_spec.h"
#include "io/csv.h"
#include "profile/dcgm_log.h"
#include "profile/kace_data.h"
#include "profile/ncu_csv.h"
#include "profile/peace_data.h"
#include "profile/smi_log.h"
#include "profile/workload_profile.h"
#include "tools/cli_status.h"
#include "tools/commands.h"

namespace colo::tools {
namespace {

struct ImportFlags {
  std::string name;
  std::string gpu = "V100-SXM2-32GB";
  std::string ncu;
  std::string nvtx;
  std::string smi;
  profile::SmiLogOptions smi_options;
  std::string dcgm;
  profile::DcgmLogOptions dcgm_options;
  bool skip_idle = false;
  double solo_throughput = 0;
  bool solo_throughput_given = false;
  bool nvtx_given = false;
  std::string unit = "samples/s";
  std::string mps;  // "10:1.2,20:2.3,...,100:9.5"
  std::string out;
  std::string kace;
  std::string peace_metrics;
  std::string out_dir;
};

// "10:1.2,20:2.3" -> points. InvalidArgument names the bad item.
Result<std::vector<profile::MpsPoint>> ParseMps(const std::string& s) {
  std::vector<profile::MpsPoint> out;
  size_t pos = 0;
  while (pos < s.size()) {
    const size_t comma = std::min(s.find(',', pos), s.size());
    const std::string item = s.substr(pos, comma - pos);
    const size_t colon = item.find(':');
    profile::MpsPoint p;
    if (colon == std::string::npos ||
        !io::ParseFiniteDouble(item.substr(0, colon), &p.active_thread_pct) ||
        !io::ParseFiniteDouble(item.substr(colon + 1), &p.throughput)) {
      return InvalidArgumentError(
          "--mps: '" + item + "': expected PERCENT:THROUGHPUT, e.g. 50:12.5");
    }
    // CUDA_MPS_ACTIVE_THREAD_PERCENTAGE is a percentage: 0.5 reads as a
    // fraction someone meant as 50 %.
    if (!(p.active_thread_pct >= 1 && p.active_thread_pct <= 100)) {
      return InvalidArgumentError("--mps: '" + item +
                                  "': expected an MPS active-thread percentage "
                                  "in [1, 100] (50, not 0.5)");
    }
    if (!out.empty() && !(p.active_thread_pct > out.back().active_thread_pct)) {
      return InvalidArgumentError(
          "--mps: '" + item + "': percentages must ascend (after " +
          fmt::format("{:g}", out.back().active_thread_pct) +
          "), e.g. 50:17.8,100:29.2");
    }
    if (!(p.throughput > 0)) {
      return InvalidArgumentError("--mps: '" + item +
                                  "': expected a throughput > 0");
    }
    out.push_back(p);
    pos = comma + 1;
  }
  // The curve is relative to its 100 % point; without it nothing reads it.
  if (!out.empty() && out.back().active_thread_pct != 100) {
    return InvalidArgumentError(
        "--mps: the last point must be 100 % (the throughput with every SM, "
        "e.g. ...,100:29.2); the curve is read relative to it");
  }
  return out;
}

// The nvidia-smi / DCGM options as flags: a bad one is named as the user
// wrote it, before the readers' own checks (which name their fields).
Status CheckLogFlags(const ImportFlags& f) {
  auto at_least_0 = [](const char* flag, int64_t v) -> Status {
    if (v >= 0) return OkStatus();
    return InvalidArgumentError(std::string(flag) + " must be >= 0 (got " +
                                std::to_string(v) + ")");
  };
  const profile::SmiLogOptions& smi = f.smi_options;
  COLO_RETURN_IF_ERROR(at_least_0("--smi-gpu", smi.gpu));
  COLO_RETURN_IF_ERROR(at_least_0("--smi-skip", smi.skip_first));
  COLO_RETURN_IF_ERROR(at_least_0("--smi-devices", smi.devices_per_sample));
  COLO_RETURN_IF_ERROR(at_least_0("--pid", smi.pid));
  if (smi.devices_per_sample > 0 && smi.gpu >= smi.devices_per_sample) {
    return InvalidArgumentError(
        "--smi-gpu " + std::to_string(smi.gpu) +
        " must be below --smi-devices " +
        std::to_string(smi.devices_per_sample) + " (GPUs 0.." +
        std::to_string(smi.devices_per_sample - 1) + " per sample)");
  }
  COLO_RETURN_IF_ERROR(at_least_0("--dcgm-gpu", f.dcgm_options.gpu));
  COLO_RETURN_IF_ERROR(at_least_0("--dcgm-skip", f.dcgm_options.skip_first));
  return OkStatus();
}

Status WriteText(const std::string& text, const std::string& path) {
  if (path.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return OkStatus();
  }
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return InvalidArgumentError(path + ": cannot open for writing");
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok)
    return UnavailableError(path + ": write failed");
  return OkStatus();
}

Status RunKace(const ImportFlags& f) {
  if (f.out_dir.empty())
    return InvalidArgumentError(
        "--kace needs --out-dir (one JSON per workload)");
  COLO_ASSIGN_OR_RETURN(std::vector<profile::WorkloadProfile> profiles,
                        profile::LoadKaceProfiles(f.kace));
  if (!f.peace_metrics.empty()) {
    COLO_ASSIGN_OR_RETURN(std::vector<std::string> merged,
                          profile::MergePeaceDcgm(profiles, f.peace_metrics));
    std::fprintf(stderr, "DCGM metrics from %s for %zu profiles\n",
                 f.peace_metrics.c_str(), merged.size());
  }
  std::error_code ec;
  std::filesystem::create_directories(f.out_dir, ec);
  if (ec)
    return InvalidArgumentError(f.out_dir + ": cannot create (" + ec.message() +
                                ")");
  for (const auto& p : profiles) {
    COLO_RETURN_IF_ERROR(
        profile::SaveProfile(p, f.out_dir + "/" + p.name + ".json"));
  }
  std::fprintf(stderr, "wrote %zu profiles to %s\n", profiles.size(),
               f.out_dir.c_str());
  return OkStatus();
}

Status RunImport(const ImportFlags& f) {
  const bool single_inputs = !f.ncu.empty() || !f.smi.empty() ||
                             !f.dcgm.empty() || f.solo_throughput_given ||
                             !f.mps.empty() || !f.name.empty() ||
                             !f.out.empty();
  if (!f.kace.empty()) {
    if (single_inputs) {
      return InvalidArgumentError(
          "--kace converts the KACE artifact into --out-dir; it does not "
          "combine with --name, --ncu, --smi, --dcgm, --solo-throughput, "
          "--mps or --out (import one workload without --kace)");
    }
    return RunKace(f);
  }
  if (!f.peace_metrics.empty())
    return InvalidArgumentError("--peace-metrics goes with --kace");
  if (!f.out_dir.empty())
    return InvalidArgumentError("--out-dir goes with --kace (use --out)");
  if (f.name.empty())
    return InvalidArgumentError("--name is required (the workload's id)");
  if (f.solo_throughput_given &&
      !(std::isfinite(f.solo_throughput) && f.solo_throughput > 0)) {
    return InvalidArgumentError(
        "--solo-throughput: expected a finite number > 0, got " +
        std::to_string(f.solo_throughput));
  }
  if (f.nvtx_given && f.nvtx.empty())
    return InvalidArgumentError("--nvtx: expected a range name, got ''");
  if (f.nvtx_given && f.ncu.empty())
    return InvalidArgumentError("--nvtx filters an --ncu export; give --ncu");
  if (f.ncu.empty() && f.smi.empty() && f.dcgm.empty() &&
      !f.solo_throughput_given) {
    return InvalidArgumentError(
        "nothing to import: give --ncu, --smi, --dcgm and/or "
        "--solo-throughput");
  }
  COLO_RETURN_IF_ERROR(CheckLogFlags(f));
  profile::WorkloadProfile p;
  p.name = f.name;
  // A preset's alias ("V100") is stored under the preset's full name, which
  // is what colo plan compares with; other GPUs are kept as written.
  const Result<GpuSpec> preset = GpuPreset(f.gpu);
  p.gpu = preset.ok() ? preset->name : f.gpu;
  p.throughput_unit = f.unit;
  if (!f.ncu.empty()) {
    profile::NcuImportOptions o;
    o.nvtx_range = f.nvtx;
    COLO_ASSIGN_OR_RETURN(std::vector<profile::NcuKernel> kernels,
                          profile::ReadNcuCsv(f.ncu, o));
    Result<profile::KernelSummary> s = profile::SummarizeKernels(kernels);
    if (!s.ok()) return s.status().WithContext(f.ncu);
    p.kernels = *s;
    std::fprintf(stderr, "%s: %zu kernels, %s of kernel time\n", f.ncu.c_str(),
                 kernels.size(), FormatDuration(s->total_duration).c_str());
  }
  if (!f.smi.empty()) {
    profile::SmiLogOptions o = f.smi_options;
    o.skip_idle = f.skip_idle;
    COLO_ASSIGN_OR_RETURN(profile::SmiSummary s, profile::ReadSmiLog(f.smi, o));
    profile::ApplySmiSummary(s, &p.system);
    std::fprintf(stderr, "%s: nvidia-smi %s, %lld samples\n", f.smi.c_str(),
                 s.format.c_str(), static_cast<long long>(s.samples));
    if (s.assumed_one_gpu) {
      std::fprintf(stderr,
                   "note: %s has no index column: each line is taken as a "
                   "sample of one GPU (with N GPUs per sample, give "
                   "--smi-devices N)\n",
                   f.smi.c_str());
    }
  }
  if (!f.dcgm.empty()) {
    profile::DcgmLogOptions o = f.dcgm_options;
    o.skip_idle = f.skip_idle;
    COLO_ASSIGN_OR_RETURN(profile::DcgmSummary s,
                          profile::ReadDcgmLog(f.dcgm, o));
    profile::ApplyDcgmSummary(s, &p.system);
    std::fprintf(stderr, "%s: dcgmi dmon, %lld samples\n", f.dcgm.c_str(),
                 static_cast<long long>(s.samples));
  }
  if (f.solo_throughput_given) p.solo_throughput = f.solo_throughput;
  if (!f.mps.empty()) {
    COLO_ASSIGN_OR_RETURN(p.mps_scaling, ParseMps(f.mps));
  }
  COLO_RETURN_IF_ERROR(p.Validate());
  return WriteText(profile::ProfileToJson(p), f.out);
}

}  // namespace

void RegisterProfileCommand(CLI::App& app, int* exit_code) {
  CLI::App* profile =
      app.add_subcommand("profile", "workload profiles from profiler output");
  profile->require_subcommand(1);
  auto f = std::make_shared<ImportFlags>();
  CLI::App* imp = profile->add_subcommand(
      "import", "build a workload profile (JSON) from profiler output");
  imp->add_option("--name", f->name, "workload id");
  imp->add_option("--gpu", f->gpu,
                  "GPU the measurements come from (default V100-SXM2-32GB)");
  imp->add_option(
      "--ncu", f->ncu,
      "Nsight Compute CSV export (--csv --page details or --page raw)");
  CLI::Option* nvtx =
      imp->add_option("--nvtx", f->nvtx,
                      "keep only kernels inside this NVTX range (ncu --nvtx)");
  imp->add_option("--smi", f->smi,
                  "nvidia-smi dmon / pmon log or --query-gpu CSV");
  imp->add_option("--smi-gpu", f->smi_options.gpu,
                  "GPU index in the nvidia-smi log (default 0)");
  imp->add_option("--smi-skip", f->smi_options.skip_first,
                  "warm-up samples to drop (default 0)");
  imp->add_option("--smi-devices", f->smi_options.devices_per_sample,
                  "query CSV without an index column: lines per sample");
  imp->add_option("--pid", f->smi_options.pid, "pmon: the job's process id");
  imp->add_option("--dcgm", f->dcgm, "dcgmi dmon log (SMACT, SMOCC, DRAMA)");
  imp->add_option("--dcgm-gpu", f->dcgm_options.gpu,
                  "GPU index in the DCGM log (default 0)");
  imp->add_option("--dcgm-skip", f->dcgm_options.skip_first,
                  "warm-up samples to drop (default 0)");
  imp->add_flag("--skip-idle", f->skip_idle,
                "drop samples where the GPU was idle");
  CLI::Option* solo =
      imp->add_option("--solo-throughput", f->solo_throughput,
                      "throughput alone (work items per second)");
  imp->add_option("--unit", f->unit,
                  "unit of the throughput (default samples/s)");
  imp->add_option(
      "--mps", f->mps,
      "solo throughput vs MPS active-thread %, e.g. 50:12.5,100:20");
  imp->add_option("-o,--out", f->out,
                  "write the profile here (default: stdout)");
  imp->add_option(
      "--kace", f->kace,
      "convert the KACE artifact directory instead (with --out-dir)");
  imp->add_option("--peace-metrics", f->peace_metrics,
                  "--kace: add DCGM SMACT, SMOCC, DRAMA (MPS 100 %) from "
                  "PEACE's baseline-metrics CSV");
  imp->add_option("--out-dir", f->out_dir,
                  "--kace: directory for one profile per workload");
  imp->callback([=] {
    f->solo_throughput_given = solo->count() > 0;
    f->nvtx_given = nvtx->count() > 0;
    *exit_code = ReportStatus(RunImport(*f));
  });
}

}  // namespace colo::tools
