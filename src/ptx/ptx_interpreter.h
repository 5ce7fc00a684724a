// ptx/ptx_interpreter.h — runs a PTX kernel on the CPU, exactly: every
// thread of every block, warps of 32 lanes executed together with correct
// reconvergence (the lanes of a warp at the lowest program counter run
// first, so a divergent branch reconverges where its paths meet), barriers
// per block, shuffles and votes per warp, atomics, and the global, shared,
// local, constant and parameter state spaces. Slow is fine; a wrong result
// is not: an instruction, modifier or special register it does not
// implement is Unimplemented-style error naming it (InvalidArgument
// "<kernel>: line N: ... not implemented"), never a guess. Floating point
// follows PTX: .rn/.rz/.rm/.rp rounding, .ftz flushes subnormals, .sat
// clamps; the .approx instructions are computed as the CPU's correctly
// rounded result (a GPU's approximations differ from it in the last bits,
// so compare such results to a GPU's with a tolerance).
//
// What it is for: checking the transformed forms of ptx/kernel_forms.h
// against the original kernel bit for bit on a machine without a GPU, and
// running kernels whose outputs a test states.
//
// Scheduling: blocks run interleaved, one warp step at a time, in an order
// drawn from `seed` (the same seed gives the same run), so that kernels whose
// blocks communicate through global memory (the persistent form's counter)
// meet many interleavings. A hook runs between steps (to set the persistent
// form's retreat flag at a chosen moment). A run that has made no progress
// (every live thread waits at a barrier that cannot complete, or a step
// budget is spent) ends with an error saying so.
//
// Where PTX leaves a result open or a program breaks a rule, the
// interpreter stops with an error rather than pick a value: integer
// division by zero; a shfl.sync / vote.sync / match.sync / redux.sync whose
// membermask names a live lane that is not executing it with the others,
// or a shuffle that reads such a lane; an access outside every allocation
// (or the block's shared memory, the thread's local memory) or not
// naturally aligned; a call of a function with no body other than the
// device runtime's printf (vprintf, formatted to InterpreterOptions::print),
// assert (__assertfail: the error carries the assertion's message),
// cudaGraphSetConditional (InterpreterOptions::set_conditional), and
// malloc / free (the memory's device heap, DeviceMemory::HeapAllocate;
// freeing what malloc did not give is an error); a kernel that only may
// call one still runs. Function pointers work within a module: `mov.u64
// %rd, f;` and tables initialized with function names hold f's address
// (interp::FunctionAddresses), and an indirect call (`call (r), %rd,
// (a), prototype;`) runs the function at the address it reads, an error
// if none is there or its parameters differ from the call's. Barriers count
// threads: one completes when every thread of the block that has not exited has
// arrived at it (at any instruction naming that barrier; .aligned is not
// required), or its thread count has. Results a GPU makes from operations
// that give a NaN are its canonical NaN (f32 0x7FFFFFFF). %clock,
// %clock64 and %globaltimer count the run's warp-instructions; %smid is
// the block's resident slot, %nsmid the resident block count; %nwarpid 64.
// The decoder reads the kernel and every function it may call before the
// run starts: anything it does not implement there fails the whole run.
//
// Thread safety: one RunKernel call uses its DeviceMemory alone.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "colo/status.h"
#include "ptx/ptx_module.h"

namespace colo::ptx {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
};

// Device memory as the interpreter sees it: allocations at 256-byte aligned
// addresses of a 64-bit space (never 0), read and written by the host and
// by kernels. An access outside every allocation is an error naming the
// address and the instruction, never a host crash.
//
// Besides its own allocations it may run over memory its caller owns
// (Adopt): a region of host memory seen at an address of the caller's
// choosing (colo's interposer adopts each of a program's device
// allocations at the address the program holds, which is where the bytes
// are). Adopted regions must not overlap each other or an allocation;
// the caller keeps them alive and unmoved until it forgets them.
class DeviceMemory {
 public:
  // One allocation or adopted region: where it starts and its bytes.
  struct Region {
    uint64_t start = 0;
    uint8_t* data = nullptr;
    uint64_t size = 0;
  };

  // A new zeroed allocation of `bytes`; its device address.
  uint64_t Allocate(uint64_t bytes);
  // Runs over [data, data + bytes) at device address `address` (> 0).
  // InvalidArgument if it would overlap a region already there.
  Status Adopt(uint64_t address, uint8_t* data, uint64_t bytes);
  // Forgets every adopted region (allocations and symbols stay).
  void ForgetAdopted();
  // Copies between host and device; InvalidArgument if [address, address +
  // bytes) is not inside one allocation.
  Status Write(uint64_t address, const void* data, uint64_t bytes);
  Status Read(uint64_t address, void* data, uint64_t bytes) const;
  // The bytes of the allocation that starts at `address` (for comparing
  // whole outputs), or nullptr (also for an adopted region).
  const std::vector<uint8_t>* Allocation(uint64_t address) const;

  // For the interpreter: the host pointer for [address, address + bytes)
  // inside one region, or nullptr.
  uint8_t* Resolve(uint64_t address, uint64_t bytes);
  // For the interpreter: the region holding `address`, or a region of size
  // 0 if none does. Regions never move or shrink while a kernel runs.
  Region RegionAt(uint64_t address);

  // Module-scope .global / .const variables the interpreter created here,
  // by name (so a test can read a __device__ variable as
  // cudaMemcpyFromSymbol would): the variable's address, or 0 if none.
  uint64_t SymbolAddress(std::string_view name) const;
  void SetSymbolAddress(std::string_view name, uint64_t address);
  // A variable whose storage the caller owns (an adopted region at
  // `address`): the interpreter uses it for `name` and, the first time a
  // module naming it runs, writes the variable's initializer into it
  // (TakeUninitialized) — once per storage, however often it is bound.
  void BindSymbol(std::string_view name, uint64_t address);
  // True once for a variable bound with BindSymbol: its initializer is
  // still to be written.
  bool TakeUninitialized(std::string_view name);

  // The device heap that kernels' malloc and free use (device_heap.cc):
  // one allocation made at the first HeapAllocate, `HeapLimit()` bytes
  // (CUDA's cudaLimitMallocHeapSize, 8 MiB unless set), living as long as
  // this memory, as a context's heap does. SetHeapLimit sizes it before it
  // exists; FailedPrecondition once it does (its size stays).
  Status SetHeapLimit(uint64_t bytes);
  uint64_t HeapLimit() const { return heap_limit_; }
  // `bytes` (0 counts as 1) from the heap, 16-byte aligned, first fit: the
  // block's address, or 0 when no free run is large enough (malloc's NULL).
  uint64_t HeapAllocate(uint64_t bytes);
  // Returns a block HeapAllocate gave; 0 is a no-op. InvalidArgument for
  // any other address (a double free, or a pointer malloc did not return).
  Status HeapFree(uint64_t address);
  // Bytes of the heap's blocks not yet freed.
  uint64_t HeapInUse() const;

 private:
  std::map<uint64_t, std::vector<uint8_t>> allocations_;  // by address
  std::map<uint64_t, Region> adopted_;                    // by address
  std::map<std::string, uint64_t, std::less<>> symbols_;
  std::map<std::string, bool, std::less<>> uninitialized_;
  std::set<uint64_t> initialized_;  // bound storage already initialized
  uint64_t heap_limit_ = 8ull << 20;
  uint64_t heap_start_ = 0;                 // 0: not made yet
  std::map<uint64_t, uint64_t> heap_free_;  // free runs: offset -> bytes
  std::map<uint64_t, uint64_t> heap_used_;  // blocks given: offset -> bytes
  uint64_t next_ = 1ull << 40;
};

struct LaunchConfig {
  Dim3 grid;
  Dim3 block;
  uint32_t dynamic_shared_bytes = 0;
  // Each parameter's bytes, in order, as cudaLaunchKernel's args point to
  // them (a pointer parameter: the 8 bytes of a DeviceMemory address).
  std::vector<std::vector<uint8_t>> args;
};

struct InterpreterOptions {
  uint64_t seed = 1;  // the interleaving of blocks and warps. Default: 1
  // Steps (one warp executing one instruction) before the run is stopped
  // as runaway. Default: 2^32
  uint64_t max_steps = 1ull << 32;
  // Blocks resident at once, interleaved (as a GPU runs several per SM);
  // later blocks start as earlier ones finish. Default: 8
  uint32_t resident_blocks = 8;
  // Called every `hook_every` steps with the step count, between steps
  // (never inside a warp's instruction); may write `memory`. Default: none
  std::function<void(uint64_t step, DeviceMemory& memory)> hook;
  uint64_t hook_every = 0;
  // Where device printf's text goes, one call's at a time. Default: stdout
  std::function<void(const std::string&)> print;
  // Static plus dynamic shared memory a block may use, when the kernel
  // declares less (a device's opt-in maximum, as cudaFuncSetAttribute
  // allows). Default: 48 KiB
  uint32_t max_shared_bytes = 48 * 1024;
  // What a kernel's cudaGraphSetConditional(handle, value) does (the
  // caller's graphs own the handles); an error it returns stops the run.
  // Default: none (a call of it is an error)
  std::function<Status(uint64_t handle, uint32_t value)> set_conditional;
};

struct RunStats {
  uint64_t steps = 0;         // warp-instructions executed
  uint64_t instructions = 0;  // thread-instructions executed
};

// Runs kernel `name` of `module` (its .func callees too) over `memory`.
// Module-scope .global and .const variables live in `memory` too (created
// and initialized the first time a module is run on it, keyed by name).
// InvalidArgument: no such kernel, argument count or sizes that do not
// match its parameters, a launch beyond the limits (1024 threads per block,
// 48 KiB of static plus dynamic shared memory unless the kernel declares
// more), an unimplemented instruction, a bad memory access, a barrier or
// shuffle that cannot complete, the step budget spent.
// The byte size of each parameter of kernel `name` of `module`, in order:
// what LaunchConfig::args must hold. InvalidArgument: no such kernel, or a
// parameter of a type the interpreter does not implement.
Result<std::vector<uint64_t>> KernelParamBytes(const Module& module,
                                               std::string_view name);

Result<RunStats> RunKernel(const Module& module, std::string_view name,
                           const LaunchConfig& launch, DeviceMemory& memory,
                           const InterpreterOptions& options = {});

}  // namespace colo::ptx
