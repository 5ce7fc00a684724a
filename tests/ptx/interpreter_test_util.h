// Helpers for the interpreter's tests: a PTX body wrapped into a kernel
// k(.param .u64 k_out, .param .u64 k_in) with registers declared
// (%r<64> .b32, %rd<64> .b64, %f<32> .f32, %fd<32> .f64, %p<16> .pred,
// %rs<16> .b16; %rd60 = k_out, %rd61 = k_in, %r60 = %tid.x), run on the
// interpreter over an input array of 64-bit words, returning the output
// array's words.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "colo/status.h"
#include "ptx/ptx_interpreter.h"
#include "ptx/ptx_reader.h"

namespace colo::ptx::testing {

inline std::string WrapKernel(std::string_view body,
                              std::string_view module_scope = "") {
  return std::string(".version 8.0\n.target sm_80\n.address_size 64\n") +
         std::string(module_scope) +
         "\n.visible .entry k(\n\t.param .u64 k_out,\n\t.param .u64 "
         "k_in\n)\n{\n"
         "\t.reg .b32 %r<64>;\n\t.reg .b64 %rd<64>;\n\t.reg .f32 %f<32>;\n"
         "\t.reg .f64 %fd<32>;\n\t.reg .pred %p<16>;\n\t.reg .b16 %rs<16>;\n"
         "\tld.param.u64 %rd60, [k_out];\n\tld.param.u64 %rd61, [k_in];\n"
         "\tmov.u32 %r60, %tid.x;\n" +
         std::string(body) + "\n\tret;\n}\n";
}

inline std::vector<uint8_t> PointerArg(uint64_t address) {
  std::vector<uint8_t> bytes(8);
  std::memcpy(bytes.data(), &address, 8);
  return bytes;
}

struct BodyRun {
  Dim3 grid;
  Dim3 block;
  std::vector<uint64_t> inputs;
  size_t outputs = 64;
  std::string module_scope;
  InterpreterOptions options;
};

// The output words of `body` run as described in the file comment, or the
// reader's or interpreter's error.
inline Result<std::vector<uint64_t>> RunBody(std::string_view body,
                                             const BodyRun& run = {}) {
  COLO_ASSIGN_OR_RETURN(
      Module module, ReadPtx(WrapKernel(body, run.module_scope), "test.ptx"));
  DeviceMemory memory;
  uint64_t out = memory.Allocate(run.outputs * 8);
  uint64_t in = memory.Allocate(std::max<size_t>(run.inputs.size(), 1) * 8);
  COLO_RETURN_IF_ERROR(
      memory.Write(in, run.inputs.data(), run.inputs.size() * 8));
  LaunchConfig launch;
  launch.grid = run.grid;
  launch.block = run.block;
  launch.args = {PointerArg(out), PointerArg(in)};
  COLO_RETURN_IF_ERROR(
      RunKernel(module, "k", launch, memory, run.options).status());
  std::vector<uint64_t> words(run.outputs);
  COLO_RETURN_IF_ERROR(memory.Read(out, words.data(), words.size() * 8));
  return words;
}

inline uint64_t F32(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline uint64_t F64(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}
inline float AsFloat(uint64_t bits) {
  uint32_t b = static_cast<uint32_t>(bits);
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

}  // namespace colo::ptx::testing
