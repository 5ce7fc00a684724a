// The time to rewrite one kernel as the interposer does: read the PTX
// module it lives in, build its sliced and persistent forms
// (ptx/kernel_forms.h) and print the module with them back as PTX text.
// For every kernel of every .ptx in a directory (by default the build's
// PTX of tests/ptx/kernels and tests/cuda_programs), prints the best of 50
// runs in microseconds, of each phase (read, forms, print) and of the
// whole, then the maximum whole against the goal of 1 ms per kernel; and
// per module, read + AddKernelForms + print once for all its kernels (what
// the interposer does), divided by its kernels. One process, one core,
// measured in this run; on a loaded machine the phases' bests are the
// steadier figures.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "ptx/kernel_forms.h"
#include "ptx/ptx_printer.h"
#include "ptx/ptx_reader.h"

namespace {

namespace fs = std::filesystem;
using colo::ptx::Function;
using colo::ptx::Module;

constexpr const char* kUsage =
    "usage: ptx_rewrite_bench [PTX_DIR]\n"
    "  Times read + sliced and persistent forms + print for every kernel of\n"
    "  every .ptx in PTX_DIR (default: " COLO_PTX_KERNEL_DIR ").\n";
constexpr int kRepetitions = 50;
constexpr double kGoalUs = 1000.0;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Phases {
  double read_us = 1e300;   // ReadPtx of the kernel's module
  double forms_us = 1e300;  // MakeSliceForm + MakePersistentForm
  double print_us = 1e300;  // PrintPtx of the module with the forms
  double total_us = 1e300;  // all three in one run
  long printed_bytes = 0;
};

// Best of kRepetitions rewrites of kernel `name` from the module's text,
// each phase and the whole; false on a read error. The forms a kernel
// cannot have are skipped, as the interposer skips them.
bool TimeRewrite(const std::string& text, const std::string& source,
                 const std::string& name, Phases* best) {
  using Clock = std::chrono::steady_clock;  // a benchmark times itself
  auto us = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::micro>(b - a).count();
  };
  for (int rep = 0; rep < kRepetitions; ++rep) {
    const auto t0 = Clock::now();
    colo::Result<Module> module = colo::ptx::ReadPtx(text, source);
    if (!module.ok()) return false;
    const auto t1 = Clock::now();
    colo::Result<Function> slice = colo::ptx::MakeSliceForm(*module, name);
    colo::Result<Function> persistent =
        colo::ptx::MakePersistentForm(*module, name);
    if (slice.ok()) {
      module->items.emplace_back(std::in_place_type<Function>,
                                 std::move(slice).value());
    }
    if (persistent.ok()) {
      module->items.emplace_back(std::in_place_type<Function>,
                                 std::move(persistent).value());
    }
    const auto t2 = Clock::now();
    const std::string printed = colo::ptx::PrintPtx(*module);
    const auto t3 = Clock::now();
    best->read_us = std::min(best->read_us, us(t0, t1));
    best->forms_us = std::min(best->forms_us, us(t1, t2));
    best->print_us = std::min(best->print_us, us(t2, t3));
    best->total_us = std::min(best->total_us, us(t0, t3));
    best->printed_bytes = static_cast<long>(printed.size());
  }
  return true;
}

// Best of kRepetitions rewrites of a whole module as the interposer does
// it once per module: read, AddKernelForms, print.
bool TimeModule(const std::string& text, const std::string& source,
                Phases* best) {
  using Clock = std::chrono::steady_clock;  // a benchmark times itself
  auto us = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::micro>(b - a).count();
  };
  for (int rep = 0; rep < kRepetitions; ++rep) {
    const auto t0 = Clock::now();
    colo::Result<Module> module = colo::ptx::ReadPtx(text, source);
    if (!module.ok()) return false;
    const auto t1 = Clock::now();
    const Module formed = colo::ptx::AddKernelForms(*module);
    const auto t2 = Clock::now();
    const std::string printed = colo::ptx::PrintPtx(formed);
    const auto t3 = Clock::now();
    best->read_us = std::min(best->read_us, us(t0, t1));
    best->forms_us = std::min(best->forms_us, us(t1, t2));
    best->print_us = std::min(best->print_us, us(t2, t3));
    best->total_us = std::min(best->total_us, us(t0, t3));
    best->printed_bytes = static_cast<long>(printed.size());
  }
  return true;
}

std::string Shorten(const std::string& s, size_t width) {
  return s.size() > width ? s.substr(0, width - 3) + "..." : s;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = COLO_PTX_KERNEL_DIR;
  if (argc > 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  if (argc == 2) {
    const std::string a = argv[1];
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "unknown option '%s'\n%s", a.c_str(), kUsage);
      return 2;
    }
    dir = a;
  }
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".ptx") files.push_back(e.path());
  }
  if (ec || files.empty()) {
    std::fprintf(stderr, "no .ptx files in %s\n", dir.c_str());
    return 1;
  }
  std::sort(files.begin(), files.end());

  double max_us = 0;
  double max_phases_us = 0;
  std::string max_kernel;
  int kernels = 0;
  std::printf("%-34s %-40s %8s %8s %8s %9s %8s\n", "file", "kernel", "read us",
              "forms us", "print us", "total us", "out KiB");
  for (const fs::path& file : files) {
    const std::string text = ReadFile(file);
    const std::string source = file.filename().string();
    colo::Result<Module> module = colo::ptx::ReadPtx(text, source);
    if (!module.ok()) {
      std::fprintf(stderr, "%s\n", module.status().ToString().c_str());
      return 1;
    }
    for (const auto& item : module->items) {
      const auto* f = std::get_if<Function>(&item);
      if (f == nullptr || !f->is_entry || !f->has_body) continue;
      Phases best;
      if (!TimeRewrite(text, source, f->name, &best)) return 1;
      ++kernels;
      if (best.total_us > max_us) {
        max_us = best.total_us;
        max_kernel = f->name;
      }
      max_phases_us =
          std::max(max_phases_us, best.read_us + best.forms_us + best.print_us);
      std::printf("%-34s %-40s %8.1f %8.1f %8.1f %9.1f %8.1f\n",
                  Shorten(source, 34).c_str(), Shorten(f->name, 40).c_str(),
                  best.read_us, best.forms_us, best.print_us, best.total_us,
                  static_cast<double>(best.printed_bytes) / 1024.0);
    }
  }
  // Per module, once for all its kernels: what a kernel costs when the
  // interposer rewrites its module in one go.
  std::printf("\n%-34s %7s %8s %8s %8s %9s %10s\n", "file (whole module)",
              "kernels", "read us", "forms us", "print us", "total us",
              "us/kernel");
  double max_per_kernel_us = 0;
  for (const fs::path& file : files) {
    const std::string text = ReadFile(file);
    const std::string source = file.filename().string();
    colo::Result<Module> module = colo::ptx::ReadPtx(text, source);
    if (!module.ok()) return 1;
    int entries = 0;
    for (const auto& item : module->items) {
      const auto* f = std::get_if<Function>(&item);
      entries += f != nullptr && f->is_entry && f->has_body;
    }
    if (entries == 0) continue;
    Phases best;
    if (!TimeModule(text, source, &best)) return 1;
    const double per_kernel = best.total_us / entries;
    max_per_kernel_us = std::max(max_per_kernel_us, per_kernel);
    std::printf("%-34s %7d %8.1f %8.1f %8.1f %9.1f %10.1f\n",
                Shorten(source, 34).c_str(), entries, best.read_us,
                best.forms_us, best.print_us, best.total_us, per_kernel);
  }
  std::printf("max per kernel, whole modules: %.1f us\n", max_per_kernel_us);
  std::printf(
      "%d kernels; max total %.1f us (%s), max sum of the phases' bests "
      "%.1f us; goal < %.0f us per kernel: %s\n",
      kernels, max_us, max_kernel.c_str(), max_phases_us, kGoalUs,
      max_us < kGoalUs ? "met" : "NOT met");
  return 0;
}
