// tools/cmd_gres_conf.cc — `colo gres-conf [--shards-per-gpu N] [--node NAME]
// [--fake N] [--dev-dir DIR] [--typed]`: writes the gres.conf lines for this
// node's GPUs. Debian's Slurm has no NVML plug-in, so `AutoDetect=nvml` is
// not there and every GPU must be listed by its device file.
//
// --typed gives each GPU its own Type, g<i> for the node's i-th GPU (in
// device order, from 0: colo serve's local GPU index), on its gpu and its
// shard line alike: then a job asking for gres:shard:g2:1 gets
// shards of GPU 2 and no other. That is how colo serve's choice of GPU
// reaches a stock Slurm (job_submit.lua rewrites the request; Slurm 22.05's
// job_submit can set the node list but not the GPU). Untyped requests
// (--gres=gpu:1) still take any GPU of the node.
//
// Where the GPUs come from, first that answers: --fake N (N GPUs
// /dev/nvidia0..N-1, for tests and for writing a config on a machine without
// the GPUs); the character devices DIR/nvidia<N> (DIR = --dev-dir, default
// /dev); `nvidia-smi -L` (one "GPU <i>: ..." line per GPU, read as
// /dev/nvidia<i>). No GPU at all is an error (exit 1): an empty gres.conf
// would make slurmd start with no GPUs and say nothing.
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "colo/status.h"
#include "tools/cli_status.h"
#include "tools/commands.h"

namespace colo::tools {
namespace {

struct GresFlags {
  int shards_per_gpu = 0;  // 0: no shard lines
  std::string node;        // NodeName= prefix; "" none
  int fake = -1;           // >= 0 when given
  std::string dev_dir = "/dev";
  bool typed = false;  // Type=g<N> on each GPU's lines
};

struct GpuList {
  std::vector<int> indices;  // sorted
  std::string source;        // for the header comment
};

// nvidia<N> files in `dir` (character devices, or any file when `dir` is
// not /dev: a test directory).
std::vector<int> DeviceFiles(const std::string& dir) {
  std::vector<int> out;
  std::error_code ec;
  static const std::regex kName("nvidia([0-9]{1,4})");
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    std::smatch m;
    const std::string name = e.path().filename().string();
    if (!std::regex_match(name, m, kName)) continue;
    struct stat st {};
    if (stat(e.path().c_str(), &st) != 0) continue;
    if (dir == "/dev" && !S_ISCHR(st.st_mode)) continue;
    out.push_back(std::stoi(m[1].str()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The GPU indices `nvidia-smi -L` lists; empty if it is absent or fails.
std::vector<int> NvidiaSmiGpus() {
  std::vector<int> out;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(
      popen("nvidia-smi -L 2>/dev/null", "r"), pclose);
  if (!pipe) return out;
  static const std::regex kLine("^GPU ([0-9]{1,4}):.*");
  char line[512];
  while (std::fgets(line, sizeof line, pipe.get()) != nullptr) {
    std::cmatch m;
    if (std::regex_match(line, m, kLine)) out.push_back(std::stoi(m[1].str()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<GpuList> FindGpus(const GresFlags& f) {
  GpuList list;
  if (f.fake >= 0) {
    for (int i = 0; i < f.fake; ++i) list.indices.push_back(i);
    list.source = "--fake " + std::to_string(f.fake);
  } else if (list.indices = DeviceFiles(f.dev_dir); !list.indices.empty()) {
    list.source = f.dev_dir + "/nvidia[0-9]*";
  } else if (list.indices = NvidiaSmiGpus(); !list.indices.empty()) {
    list.source = "nvidia-smi -L";
  }
  if (list.indices.empty()) {
    return UnavailableError(
        "no GPUs: no " + f.dev_dir +
        "/nvidia<N> devices and no answer from nvidia-smi -L (give --fake N "
        "to write the lines for N GPUs anyway)");
  }
  return list;
}

Status WriteGresConf(const GresFlags& f) {
  if (f.fake > 1024) {
    return InvalidArgumentError("--fake: expected 0..1024 GPUs, got " +
                                std::to_string(f.fake));
  }
  if (f.shards_per_gpu < 0 || f.shards_per_gpu > 1024) {
    return InvalidArgumentError("--shards-per-gpu: expected 0..1024, got " +
                                std::to_string(f.shards_per_gpu));
  }
  if (f.node.find_first_of(" \t\n=#") != std::string::npos) {
    return InvalidArgumentError(
        "--node: a node name without spaces, '=' or "
        "'#', got '" +
        f.node + "'");
  }
  COLO_ASSIGN_OR_RETURN(GpuList gpus, FindGpus(f));
  const std::string prefix = f.node.empty() ? "" : "NodeName=" + f.node + " ";
  const int n = static_cast<int>(gpus.indices.size());
  std::string out =
      "# gres.conf written by colo gres-conf: " + std::to_string(n) + " GPU" +
      (n == 1 ? "" : "s") + " from " + gpus.source + "\n";
  // slurm.conf's Gres= for the node: totals, or one item per type.
  std::string gres = "gpu:" + std::to_string(n);
  if (f.shards_per_gpu > 0)
    gres += ",shard:" + std::to_string(n * f.shards_per_gpu);
  if (f.typed) {
    gres.clear();
    for (const char* name : {"gpu", "shard"}) {
      const int count = std::string(name) == "gpu" ? 1 : f.shards_per_gpu;
      if (count == 0) continue;
      for (int i = 0; i < n; ++i) {
        gres += (gres.empty() ? "" : ",") + std::string(name) + ":g" +
                std::to_string(i) + ":" + std::to_string(count);
      }
    }
  }
  // Type=g<i> (the i-th GPU) right after the name, as in Slurm's examples.
  const auto type = [&](int device) {
    const auto at = std::find(gpus.indices.begin(), gpus.indices.end(), device);
    return f.typed ? " Type=g" + std::to_string(at - gpus.indices.begin())
                   : std::string();
  };
  out += "# slurm.conf: GresTypes=gpu" +
         std::string(f.shards_per_gpu > 0 ? ",shard" : "") +
         " and NodeName=" + (f.node.empty() ? "<node>" : f.node) +
         " ... Gres=" + gres + "\n";
  out += "AutoDetect=off\n";
  for (int i : gpus.indices)
    out += prefix + "Name=gpu" + type(i) + " File=/dev/nvidia" +
           std::to_string(i) + "\n";
  if (f.shards_per_gpu > 0) {
    for (int i : gpus.indices) {
      out += prefix + "Name=shard" + type(i) +
             " Count=" + std::to_string(f.shards_per_gpu) +
             " File=/dev/nvidia" + std::to_string(i) + "\n";
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return std::fflush(stdout) == 0 ? OkStatus()
                                  : UnavailableError("cannot write stdout");
}

}  // namespace

void RegisterGresConfCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<GresFlags>();
  CLI::App* cmd = app.add_subcommand(
      "gres-conf",
      "Print gres.conf lines (Name=gpu File=/dev/nvidiaN, and shards) for "
      "this node's GPUs; Debian's Slurm cannot detect NVIDIA GPUs itself");
  cmd->add_option("--shards-per-gpu", flags->shards_per_gpu,
                  "Also list N shards per GPU (gres/shard: Name=shard "
                  "Count=N per GPU; 0 = none, the default)");
  cmd->add_option("--node", flags->node,
                  "Prefix every line with NodeName=NAME (one gres.conf for "
                  "several nodes); default: none (the node reading it)");
  cmd->add_option("--fake", flags->fake,
                  "Write the lines for N GPUs /dev/nvidia0..N-1 without "
                  "looking for them (tests; configuring ahead of the GPUs)");
  cmd->add_option("--dev-dir", flags->dev_dir,
                  "Look for nvidia<N> device files here (default /dev)");
  cmd->add_flag("--typed", flags->typed,
                "Give the i-th GPU its own Type g<i> (gpu and shard lines), so "
                "that colo serve's choice of GPU reaches Slurm (colo serve's "
                "gres_types: true; docs/slurm.md)");
  cmd->callback(
      [flags, exit_code] { *exit_code = ReportStatus(WriteGresConf(*flags)); });
}

}  // namespace colo::tools
