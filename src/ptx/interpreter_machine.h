// ptx/interpreter_machine.h — the interpreter's running state: threads with
// their call frames, register files and local memory; warps of up to 32
// lanes; blocks with shared memory and 16 named barriers; and the launch
// they belong to. Also the address windows of generic addressing and the
// executors of each instruction family, which ptx_interpreter.cc's
// scheduler calls one warp-instruction at a time.
//
// Address spaces as this interpreter numbers them:
//   global / const: DeviceMemory addresses (module .const variables live
//     there too), identical in the generic space;
//   shared: a byte offset in the block's shared memory; generic
//     kGenericShared + offset;
//   local: a byte offset in the thread's local memory (its frames' .local
//     variables, stacked); generic kGenericLocal + offset;
//   param: below kFrameParamBase a byte offset in the kernel's parameter
//     buffer, above it the thread's call-argument area (each frame's
//     .param variables); generic kGenericParam + address.
//
// Thread safety: owned by one RunKernel call.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "colo/status.h"
#include "ptx/interpreter_program.h"
#include "ptx/ptx_interpreter.h"

namespace colo::ptx::interp {

inline constexpr uint64_t kFrameParamBase = 1ull << 32;
inline constexpr uint64_t kGenericParam = 0xFFFC000000000000ull;
inline constexpr uint64_t kGenericLocal = 0xFFFD000000000000ull;
inline constexpr uint64_t kGenericShared = 0xFFFE000000000000ull;
inline constexpr uint64_t kWindowBytes = 1ull << 40;
inline constexpr uint32_t kWarpSize = 32;
inline constexpr int kBarrierCount = 16;

inline uint64_t MaskOf(int bits) {
  return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}
inline int64_t SignExtend(uint64_t v, int bits) {
  return bits >= 64 ? static_cast<int64_t>(v)
                    : static_cast<int64_t>(v << (64 - bits)) >> (64 - bits);
}

struct Frame {
  uint32_t function = 0;
  uint32_t pc = 0;  // below the top frame: the call it is in (Thread::pc)
  uint32_t reg_base = 0;
  uint32_t local_base = 0;  // local-space address of this frame's variables
  uint32_t param_base = 0;  // offset of its .param variables in Thread::params
  std::vector<uint64_t> args;  // param-space addresses of its parameters
};

struct Thread {
  enum class State : uint8_t { kRunnable, kBarrier, kWarpSync, kExited };
  State state = State::kRunnable;
  bool carry = false;   // the .cc carry flag
  uint32_t pc = 0;      // the next instruction of the top frame
  uint8_t barrier = 0;  // the barrier it waits at (kBarrier)
  uint32_t lane = 0;    // in its warp
  uint32_t linear = 0;  // in its block
  uint32_t tid[3] = {0, 0, 0};
  Value barrier_dst;  // bar.red's destination, written on release
  std::vector<Frame> frames;
  std::vector<uint64_t> regs;
  std::vector<uint8_t> local;
  std::vector<uint8_t> params;
};

struct Block;

struct Warp {
  Block* block = nullptr;
  uint32_t index = 0;         // in its block
  uint32_t first = 0;         // its first thread's linear index
  uint32_t lanes = 0;         // threads in it (the last warp may be partial)
  uint32_t sync_arrived = 0;  // lanes waiting at bar.warp.sync
  uint32_t sync_mask = 0;     // the union of their masks
  uint32_t runnable = 0;      // lanes whose thread is kRunnable
  int ready_slot = -1;        // position in the scheduler's ready list
};

struct BarrierState {
  uint32_t arrived = 0;        // threads arrived since the last completion
  uint32_t expected = 0;       // thread count given by the arrivals; 0: all
  uint32_t popc = 0;           // bar.red: arrivals with a true predicate
  BoolOp red = BoolOp::kNone;  // bar.red's operation, kNone for sync
};

struct Block {
  uint32_t linear = 0;
  uint32_t ctaid[3] = {0, 0, 0};
  uint32_t slot = 0;         // which resident slot it occupies (%smid)
  uint32_t live = 0;         // threads not exited
  uint32_t ready_warps = 0;  // warps with a runnable thread
  std::vector<uint8_t> shared;
  std::vector<Thread> threads;
  std::vector<Warp> warps;
  std::array<BarrierState, kBarrierCount> barriers{};
};

// What every thread of a run shares.
struct Launch {
  std::string kernel;
  const DecodedProgram* program = nullptr;
  DeviceMemory* memory = nullptr;
  Dim3 grid, block;
  std::vector<uint8_t> params;  // the kernel's parameter buffer
  uint32_t dynamic_shared = 0;
  uint32_t total_shared = 0;
  uint32_t resident_blocks = 1;
  uint64_t steps = 0;  // warp-instructions so far (%clock)
  // The region of the last global access (DeviceMemory never moves or
  // frees one while a kernel runs).
  DeviceMemory::Region cached;
};

// One lane about to execute one instruction.
struct Lane {
  Launch* launch;
  Block* block;
  Thread* thread;
  Frame* frame;
  uint64_t* regs;

  uint64_t Read(const Value& v) const {
    switch (v.from) {
      case Value::From::kReg:
        return v.negated ? (regs[v.index] == 0) : regs[v.index];
      case Value::From::kImm:
        return v.imm;
      case Value::From::kSpecial:
        return ReadSpecial(v.special);
      case Value::From::kLocal:
        return frame->local_base + v.imm;
      case Value::From::kParam:
        return kFrameParamBase + frame->param_base + v.imm;
      case Value::From::kArg:
        return frame->args[v.index] + v.imm;
      default:
        return 0;
    }
  }
  void Write(const Value& v, uint64_t x) const {
    if (v.from == Value::From::kReg) regs[v.index] = x & MaskOf(v.reg_bits);
  }
  // An integer destination narrower than its register is extended to the
  // register's width, by sign when the type is signed.
  void WriteTyped(const Value& v, uint64_t x, Type t) const {
    if (t.bits < 64 && t.kind == Kind::kS) {
      x = static_cast<uint64_t>(SignExtend(x, t.bits));
    } else {
      x &= MaskOf(t.bits);
    }
    Write(v, x);
  }
  uint64_t ReadSpecial(Special s) const;
};

// Allocates and initializes in `memory` the module's .global / .const
// variables not there yet (by name) and lists all of them in `symbols`.
Status PrepareModuleVariables(const Module& module, DeviceMemory& memory,
                              SymbolAddresses& symbols);

// Executors: each runs `in` for one lane (guard already true) and leaves
// the program counter alone. Errors are sentences; the caller names the
// instruction and the thread.
Status ExecuteInteger(const DecodedInstruction& in, Lane& lane);
Status ExecuteFloat(const DecodedInstruction& in, Lane& lane);
Status ExecuteMemory(const DecodedInstruction& in, Lane& lane);

// The device runtime's bodiless functions (interpreter_device_runtime.cc):
// vprintf formats and hands the text to `sink` (stdout if empty);
// __assertfail is an error carrying the assertion's message.
Status DevicePrintf(const DecodedInstruction& in, Lane& lane,
                    const std::function<void(const std::string&)>& sink);
Status DeviceAssertFailure(const DecodedInstruction& in, Lane& lane);
// malloc(size) takes a block of the launch memory's device heap
// (DeviceMemory::HeapAllocate; NULL when none is free), free(p) returns
// one; freeing anything else is an error naming the address.
Status DeviceMalloc(const DecodedInstruction& in, Lane& lane);
Status DeviceFree(const DecodedInstruction& in, Lane& lane);
// cudaGraphSetConditional(handle, value): hands both to `set` (an error
// when there is none: the kernel runs outside any graph that could own
// the handle).
Status DeviceSetConditional(
    const DecodedInstruction& in, Lane& lane,
    const std::function<Status(uint64_t, uint32_t)>& set);

// The host bytes of [address, address + bytes) in `space` for this lane,
// checked against the space's bounds and the access's natural alignment.
Result<uint8_t*> ResolveAccess(Lane& lane, Space space, uint64_t address,
                               uint32_t bytes, uint32_t align);

// Warp collectives for the lanes in `active` (the lanes of the warp at this
// instruction whose guard holds); `lanes[i]` is lane i's Lane (valid for
// active lanes). Errors name the lane that breaks the rule.
Status ExecuteCollective(const DecodedInstruction& in, Warp& warp,
                         uint32_t active, std::array<Lane, kWarpSize>& lanes);

// Block barriers: the lane arrives (and for sync / red, waits). A barrier
// completes when its thread count has arrived, or with no count when every
// thread of the block that has not exited has; completing releases its
// waiters into `released` (so the scheduler can requeue their warps) and
// writes bar.red's result into each.
Status ArriveAtBarrier(const DecodedInstruction& in, Lane& lane,
                       std::vector<Thread*>& released);
// Completes the barriers that waited only for threads that have now exited.
void CompleteBarriersAfterExit(Block& block, std::vector<Thread*>& released);

// bar.warp.sync: the active lanes wait until every lane of the union of
// the waiting lanes' masks has arrived at a bar.warp.sync (or exited).
Status ArriveAtWarpSync(const DecodedInstruction& in, Warp& warp,
                        uint32_t active, std::array<Lane, kWarpSize>& lanes,
                        std::vector<Thread*>& released);
// Completes a warp sync that waited only for lanes that have now exited.
void CompleteWarpSync(Warp& warp, std::vector<Thread*>& released);

}  // namespace colo::ptx::interp
