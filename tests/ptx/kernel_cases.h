// tests/ptx/kernel_cases.h — a catalog of kernel launches for checking the
// kernel forms (ptx/kernel_forms.h) on the CPU interpreter
// (ptx/ptx_interpreter.h): every kernel of tests/ptx/kernels/forms_*.cu and
// every kernel of tests/cuda_programs/*.cu, each with a small launch (a few
// thousand threads at most) and the arguments to give it.
//
// A case names its PTX file by stem (COLO_PTX_KERNEL_DIR/<stem>.ptx), its
// kernel by mangled name, the launch shape, the buffers it allocates (their
// size and initial content, drawn from a generator seeded by the case name,
// so every run of a case starts from the same bytes) and its parameters
// (bytes, with buffer addresses patched in). It says which forms
// AnalyzeKernel must accept, and why a form is refused when it must be.
// Kernels that cannot run on the interpreter in reasonable time, or at all,
// are cases that are not run, with the reason; their forms are still
// analyzed and built.
//
// Thread safety: the catalog is built once, on first use, and then read
// only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ptx/ptx_interpreter.h"

namespace colo::ptx::cases {

enum class Element { kU8, kI8, kU16, kI32, kU32, kI64, kU64, kF32, kF64 };

enum class Fill {
  kZero,     // every byte 0
  kInteger,  // integers uniform in [lo, hi] (cast to the element type)
  kReal,     // reals uniform in [lo, hi], rounded to the element type
  kQuarter,  // multiples of 1/4 in [lo, hi]: sums of few of them are exact
};

struct BufferSpec {
  std::string name;  // as the kernel's parameter calls it
  Element element = Element::kI32;
  uint64_t count = 0;  // elements
  Fill fill = Fill::kZero;
  double lo = 0, hi = 0;
  // Whether the forms' final content must equal the original's; if not,
  // `not_compared` says why (e.g. it holds %globaltimer readings).
  bool compared = true;
  std::string not_compared;
};

// One kernel parameter: its bytes as cudaLaunchKernel's args point to them,
// with the device address of buffer `patches[k].buffer` written as 8 bytes
// at `patches[k].offset` (a pointer parameter is 8 bytes with one patch at
// 0; a struct passed by value holds its pointers the same way).
struct ParamSpec {
  struct Patch {
    uint32_t offset = 0;
    uint32_t buffer = 0;
  };
  std::vector<uint8_t> bytes;
  std::vector<Patch> patches;
};

struct KernelCase {
  std::string label;   // unique: "<stem>/<short name>"
  std::string file;    // PTX stem: "forms_grid", "cuda_programs_gate_smoke"
  std::string kernel;  // mangled .entry name
  Dim3 grid, block;
  uint32_t dynamic_shared_bytes = 0;
  std::vector<BufferSpec> buffers;
  std::vector<ParamSpec> params;
  // Which forms AnalyzeKernel accepts; for a refused form, a word its
  // reason must contain ("envreg", "ctaid", "bar").
  bool slice = true;
  bool persistent = true;
  std::string refusal_mentions;
  // The buffer (u32 per logical block, zero at the start) the kernel adds 1
  // to once per run of a block, or -1: the test checks each count is 1 in
  // the original and, after every launch of the persistent form, that
  // exactly the blocks [0, min(next_block, n)) have run, once each.
  int run_counter = -1;
  // False for a kernel the interpreter cannot run in reasonable time or at
  // all (`why_not_run` says why, e.g. a grid-wide barrier): only its forms
  // are analyzed and built.
  bool run = true;
  std::string why_not_run;
};

// Every case; labels are unique. Each case's original gives the same output
// under any interleaving (the test checks two), so a form's output must
// equal it bit for bit.
const std::vector<KernelCase>& KernelCases();

// The initial bytes of `buffer` of a case: element-wise from a generator
// seeded by `seed` (the test passes a hash of the case label and the
// buffer's index).
std::vector<uint8_t> InitialBytes(const BufferSpec& buffer, uint64_t seed);
uint64_t ElementBytes(Element element);

// A stable 64-bit hash (FNV-1a) of `text`, for seeds.
uint64_t HashSeed(const std::string& text);

// A case's buffers after a run, in the order of `KernelCase::buffers`.
using Outputs = std::vector<std::vector<uint8_t>>;

// The logical blocks of the case's original launch: gx * gy * gz.
uint32_t BlockCount(const KernelCase& c);

// "" if every compared buffer of `got` equals `want`, else where the first
// difference is: the buffer, the element and both values.
std::string Difference(const KernelCase& c, const Outputs& want,
                       const Outputs& got);

// "" if `counts` (u32 per logical block) are 1 for blocks [0, done) and 0
// for [done, n), else the first block that is not.
std::string CountsDifference(const std::vector<uint8_t>& counts, uint32_t done,
                             uint32_t n);

// A kernel parameter's bytes for a 32- / 64-bit value.
std::vector<uint8_t> U32Bytes(uint32_t v);
std::vector<uint8_t> U64Bytes(uint64_t v);

}  // namespace colo::ptx::cases
