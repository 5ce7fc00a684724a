// RunKernel: checks the launch, decodes the kernel (interpreter_decode.cc),
// then schedules. Each step draws one ready warp of the resident blocks
// from a splitmix64 stream of the seed (its output is the same on every
// host, unlike <random>'s distributions) and runs one instruction for the
// warp's lanes at the lowest program counter (min-PC reconvergence: lanes
// behind catch up before lanes ahead move, so divergent paths meet again
// where they join). A program counter is the call stack of (function, pc);
// comparing stacks lexicographically keeps a lane at a call behind the
// lanes already inside the callee until it enters too.
#include "ptx/ptx_interpreter.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "ptx/interpreter_machine.h"

namespace colo::ptx {
namespace interp {
namespace {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

std::string Triple(const uint32_t v[3]) {
  return "(" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," +
         std::to_string(v[2]) + ")";
}

// <0 when `a` is behind `b` (runs first), 0 when they are at the same place.
int CompareProgress(const Thread& a, const Thread& b) {
  size_t da = a.frames.size(), db = b.frames.size();
  if (da == 1 && db == 1) return a.pc == b.pc ? 0 : a.pc < b.pc ? -1 : 1;
  size_t n = std::min(da, db);
  for (size_t i = 0; i < n; ++i) {
    // Lanes that went through one indirect call to different functions
    // are at different places whatever their pcs: the lower function runs
    // first, and they meet again after the call returns.
    uint32_t fa = a.frames[i].function, fb = b.frames[i].function;
    if (fa != fb) return fa < fb ? -1 : 1;
    uint32_t pa = i + 1 == da ? a.pc : a.frames[i].pc;
    uint32_t pb = i + 1 == db ? b.pc : b.frames[i].pc;
    if (pa != pb) return pa < pb ? -1 : 1;
  }
  if (da == db) return 0;
  return a.frames.size() < b.frames.size() ? -1 : 1;
}

enum class Family { kMemory, kInteger, kFloat, kOther };

Family FamilyOf(Op op) {
  if (op <= Op::kNop) return Family::kMemory;
  if (op >= Op::kAdd && op <= Op::kSad) return Family::kInteger;
  if (op >= Op::kSetp && op <= Op::kSlct) return Family::kInteger;
  if ((op >= Op::kFAdd && op <= Op::kTestp) || op == Op::kCvt)
    return Family::kFloat;
  return Family::kOther;
}

class Scheduler {
 public:
  Scheduler(Launch& launch, const InterpreterOptions& options)
      : launch_(launch), options_(options), rng_(options.seed) {}

  Result<RunStats> Run();

 private:
  void StartBlock(uint32_t slot);
  Status Step(Warp& warp);
  Status Call(const DecodedInstruction& in, Lane& lane);
  void Return(Thread& t);
  void UpdateReady(Warp& warp);
  Status Deadlock(const Block& block) const;
  Status ErrorAt(const DecodedInstruction& in, const Block& b, const Thread& t,
                 const Status& s) const;

  Launch& launch_;
  const InterpreterOptions& options_;
  SplitMix64 rng_;
  std::vector<std::unique_ptr<Block>> slots_;
  std::vector<Warp*> ready_;
  uint64_t next_block_ = 0;
  uint64_t total_blocks_ = 0;
  RunStats stats_;
  std::vector<Thread*> released_;
};

void Scheduler::StartBlock(uint32_t slot) {
  const Dim3 g = launch_.grid, bd = launch_.block;
  auto block = std::make_unique<Block>();
  uint64_t linear = next_block_++;
  block->linear = static_cast<uint32_t>(linear);
  block->ctaid[0] = static_cast<uint32_t>(linear % g.x);
  block->ctaid[1] = static_cast<uint32_t>((linear / g.x) % g.y);
  block->ctaid[2] =
      static_cast<uint32_t>(linear / (static_cast<uint64_t>(g.x) * g.y));
  block->slot = slot;
  block->shared.assign(launch_.total_shared, 0);
  const DecodedFunction& kernel = launch_.program->functions[0];
  uint32_t n = bd.x * bd.y * bd.z;
  block->threads.resize(n);
  block->live = n;
  for (uint32_t i = 0; i < n; ++i) {
    Thread& t = block->threads[i];
    t.linear = i;
    t.lane = i % kWarpSize;
    t.tid[0] = i % bd.x;
    t.tid[1] = (i / bd.x) % bd.y;
    t.tid[2] = i / (bd.x * bd.y);
    t.frames.push_back(Frame{});
    t.regs.assign(kernel.register_count, 0);
    t.local.assign(kernel.local_bytes, 0);
    t.params.assign(kernel.param_bytes, 0);
  }
  uint32_t warps = (n + kWarpSize - 1) / kWarpSize;
  block->warps.resize(warps);
  for (uint32_t w = 0; w < warps; ++w) {
    Warp& warp = block->warps[w];
    warp.block = block.get();
    warp.index = w;
    warp.first = w * kWarpSize;
    warp.lanes = std::min(kWarpSize, n - w * kWarpSize);
    warp.runnable = warp.lanes == kWarpSize ? ~0u : (1u << warp.lanes) - 1;
  }
  slots_[slot] = std::move(block);
  for (Warp& warp : slots_[slot]->warps) UpdateReady(warp);
}

void Scheduler::UpdateReady(Warp& warp) {
  bool ready = warp.runnable != 0;
  if (ready && warp.ready_slot < 0) {
    warp.ready_slot = static_cast<int>(ready_.size());
    ready_.push_back(&warp);
    ++warp.block->ready_warps;
  } else if (!ready && warp.ready_slot >= 0) {
    Warp* last = ready_.back();
    ready_[warp.ready_slot] = last;
    last->ready_slot = warp.ready_slot;
    ready_.pop_back();
    warp.ready_slot = -1;
    --warp.block->ready_warps;
  }
}

Status Scheduler::Call(const DecodedInstruction& in, Lane& lane) {
  Thread& t = *lane.thread;
  if (t.frames.size() >= 1024)
    return InvalidArgumentError("call depth beyond 1024 frames");
  uint32_t target = in.target;
  if (in.indirect) {
    const uint64_t address = lane.Read(in.callee);
    auto it = launch_.program->function_at.find(address);
    if (it == launch_.program->function_at.end()) {
      char hex[32];
      std::snprintf(hex, sizeof(hex), "0x%llx",
                    static_cast<unsigned long long>(address));
      return InvalidArgumentError(std::string("indirect call of address ") +
                                  hex +
                                  ", which is no function of this module");
    }
    target = it->second;
    const Function& f = *launch_.program->functions[target].source;
    if (f.return_params.size() != in.dst.size() ||
        f.params.size() != in.src.size()) {
      return InvalidArgumentError(
          "indirect call of " + f.name + " with " +
          std::to_string(in.dst.size()) + " results and " +
          std::to_string(in.src.size()) + " arguments for its " +
          std::to_string(f.return_params.size()) + " and " +
          std::to_string(f.params.size()));
    }
  }
  const DecodedFunction& callee = launch_.program->functions[target];
  if (!callee.source->has_body) {
    // The device runtime's printf, assert, malloc, free and
    // cudaGraphSetConditional, run here; any
    // other function without a body cannot run.
    const std::string& name = callee.source->name;
    if (name == "__assertfail") return interp::DeviceAssertFailure(in, lane);
    if (name == "vprintf") {
      COLO_RETURN_IF_ERROR(interp::DevicePrintf(in, lane, options_.print));
    } else if (name == "malloc") {
      COLO_RETURN_IF_ERROR(interp::DeviceMalloc(in, lane));
    } else if (name == "free") {
      COLO_RETURN_IF_ERROR(interp::DeviceFree(in, lane));
    } else if (name == "cudaGraphSetConditional") {
      COLO_RETURN_IF_ERROR(
          interp::DeviceSetConditional(in, lane, options_.set_conditional));
    } else {
      return InvalidArgumentError(
          "call of " + name +
          ", which has no body in this module (of the device runtime's "
          "functions, only printf, assert, malloc, free and "
          "cudaGraphSetConditional are implemented)");
    }
    ++t.pc;
    return OkStatus();
  }
  Frame f;
  f.function = target;
  f.reg_base = static_cast<uint32_t>(t.regs.size());
  // Frames start 16-aligned: PTX allows .align 16 on .local and .param
  // variables, and vector accesses to them need it.
  f.local_base = static_cast<uint32_t>((t.local.size() + 15) / 16 * 16);
  f.param_base = static_cast<uint32_t>((t.params.size() + 15) / 16 * 16);
  for (const Value& v : in.dst) f.args.push_back(lane.Read(v));
  for (const Value& v : in.src) f.args.push_back(lane.Read(v));
  t.regs.resize(t.regs.size() + callee.register_count, 0);
  t.local.resize(f.local_base + callee.local_bytes, 0);
  t.params.resize(f.param_base + callee.param_bytes, 0);
  // The caller's frame keeps the call's index until the callee returns.
  t.frames.back().pc = t.pc;
  t.frames.push_back(std::move(f));
  t.pc = 0;
  return OkStatus();
}

void Scheduler::Return(Thread& t) {
  const Frame& f = t.frames.back();
  t.regs.resize(f.reg_base);
  t.local.resize(f.local_base);
  t.params.resize(f.param_base);
  t.frames.pop_back();
  t.pc = t.frames.back().pc + 1;
}

Status Scheduler::Step(Warp& warp) {
  Block& b = *warp.block;
  uint32_t group = 0;
  Thread* leader = nullptr;
  for (uint32_t m = warp.runnable; m != 0; m &= m - 1) {
    uint32_t i = static_cast<uint32_t>(std::countr_zero(m));
    Thread& t = b.threads[warp.first + i];
    int c = leader == nullptr ? -1 : CompareProgress(t, *leader);
    if (c < 0) {
      leader = &t;
      group = 1u << i;
    } else if (c == 0) {
      group |= 1u << i;
    }
  }
  const DecodedInstruction& in =
      launch_.program->functions[leader->frames.back().function]
          .code[leader->pc];
  std::array<Lane, kWarpSize> lanes;
  uint32_t active = 0;
  for (uint32_t m = group; m != 0; m &= m - 1) {
    uint32_t i = static_cast<uint32_t>(std::countr_zero(m));
    Thread& t = b.threads[warp.first + i];
    Frame& f = t.frames.back();
    uint64_t* regs = t.regs.data() + f.reg_base;
    lanes[i] = Lane{&launch_, &b, &t, &f, regs};
    if (!in.has_guard || ((regs[in.guard_slot] != 0) != in.guard_negated))
      active |= 1u << i;
  }
  stats_.instructions += static_cast<uint64_t>(std::popcount(group));
  released_.clear();
  auto advance = [&](uint32_t mask) {
    for (uint32_t m = mask; m != 0; m &= m - 1) {
      ++b.threads[warp.first + std::countr_zero(m)].pc;
    }
  };
  Status st;
  Thread* culprit = leader;
  uint32_t exiting = 0;
  switch (in.op) {
    case Op::kBra:
      for (uint32_t m = group; m != 0; m &= m - 1) {
        uint32_t i = static_cast<uint32_t>(std::countr_zero(m));
        Thread& t = b.threads[warp.first + i];
        t.pc = ((active >> i) & 1) ? in.target : t.pc + 1;
      }
      break;
    case Op::kCall:
    case Op::kRet:
    case Op::kExit:
      advance(group & ~active);
      for (uint32_t m = active; m != 0 && st.ok(); m &= m - 1) {
        uint32_t i = static_cast<uint32_t>(std::countr_zero(m));
        Thread& t = *lanes[i].thread;
        culprit = &t;
        if (in.op == Op::kCall) {
          st = Call(in, lanes[i]);
        } else if (in.op == Op::kExit || t.frames.size() == 1) {
          exiting |= 1u << i;
        } else {
          Return(t);
        }
      }
      break;
    case Op::kTrap:
      if (active != 0) st = InvalidArgumentError("trap executed");
      advance(group);
      break;
    case Op::kShfl:
    case Op::kVote:
    case Op::kActivemask:
    case Op::kMatch:
    case Op::kRedux:
      advance(group);
      st = ExecuteCollective(in, warp, active, lanes);
      break;
    case Op::kWarpSync:
      advance(group);
      st = ArriveAtWarpSync(in, warp, active, lanes, released_);
      break;
    case Op::kBarSync:
    case Op::kBarArrive:
    case Op::kBarRed:
      advance(group);
      for (uint32_t m = active; m != 0 && st.ok(); m &= m - 1) {
        uint32_t i = static_cast<uint32_t>(std::countr_zero(m));
        culprit = lanes[i].thread;
        st = ArriveAtBarrier(in, lanes[i], released_);
      }
      break;
    default: {
      Family family = FamilyOf(in.op);
      for (uint32_t m = active; m != 0; m &= m - 1) {
        uint32_t i = static_cast<uint32_t>(std::countr_zero(m));
        Status r = family == Family::kInteger ? ExecuteInteger(in, lanes[i])
                   : family == Family::kFloat ? ExecuteFloat(in, lanes[i])
                                              : ExecuteMemory(in, lanes[i]);
        if (!r.ok()) {
          culprit = lanes[i].thread;
          st = std::move(r);
          break;
        }
      }
      advance(group);
    }
  }
  if (!st.ok()) return ErrorAt(in, b, *culprit, st);
  if (exiting != 0) {
    for (uint32_t m = exiting; m != 0; m &= m - 1) {
      b.threads[warp.first + std::countr_zero(m)].state =
          Thread::State::kExited;
      --b.live;
    }
    CompleteBarriersAfterExit(b, released_);
    CompleteWarpSync(warp, released_);
  }
  // Only the lanes that ran can have stopped; released threads restart.
  for (uint32_t m = group; m != 0; m &= m - 1) {
    uint32_t i = static_cast<uint32_t>(std::countr_zero(m));
    if (b.threads[warp.first + i].state != Thread::State::kRunnable) {
      warp.runnable &= ~(1u << i);
    }
  }
  for (Thread* t : released_)
    b.warps[t->linear / kWarpSize].runnable |= 1u << t->lane;
  UpdateReady(warp);
  for (Thread* t : released_) UpdateReady(b.warps[t->linear / kWarpSize]);
  return OkStatus();
}

Status Scheduler::ErrorAt(const DecodedInstruction& in, const Block& b,
                          const Thread& t, const Status& s) const {
  const Frame& f = t.frames.back();
  const std::string& function =
      launch_.program->functions[f.function].source->name;
  return InstructionError(function, *in.source,
                          s.message() + " (block " + Triple(b.ctaid) +
                              ", thread " + Triple(t.tid) + ")");
}

Status Scheduler::Deadlock(const Block& b) const {
  uint32_t at_barrier = 0, at_warp_sync = 0;
  const Thread* example = nullptr;
  for (const Thread& t : b.threads) {
    if (t.state == Thread::State::kBarrier) ++at_barrier;
    if (t.state == Thread::State::kWarpSync) ++at_warp_sync;
    if (example == nullptr && t.state != Thread::State::kExited) example = &t;
  }
  std::string where;
  if (example != nullptr) {
    const Frame& f = example->frames.back();
    const DecodedFunction& fn = launch_.program->functions[f.function];
    uint32_t pc = example->pc;
    const Instruction* waited = fn.code[pc > 0 ? pc - 1 : 0].source;
    where = "; thread " + Triple(example->tid) + " waits after line " +
            std::to_string(waited->line) + " (" + FormatInstruction(*waited) +
            ")";
    if (example->state == Thread::State::kBarrier) {
      const BarrierState& bs = b.barriers[example->barrier];
      where += " at barrier " + std::to_string(example->barrier) + ", " +
               std::to_string(bs.arrived) + " of " +
               std::to_string(bs.expected ? bs.expected : b.live) + " arrived";
    }
  }
  return InvalidArgumentError(
      launch_.kernel + ": deadlock in block " + Triple(b.ctaid) + ": " +
      std::to_string(b.live) +
      " threads have not exited and none can "
      "run (" +
      std::to_string(at_barrier) + " wait at a barrier, " +
      std::to_string(at_warp_sync) + " at bar.warp.sync)" + where);
}

Result<RunStats> Scheduler::Run() {
  total_blocks_ =
      static_cast<uint64_t>(launch_.grid.x) * launch_.grid.y * launch_.grid.z;
  uint64_t resident =
      std::min<uint64_t>(launch_.resident_blocks, total_blocks_);
  slots_.resize(resident);
  for (uint32_t s = 0; s < resident; ++s) StartBlock(s);
  while (!ready_.empty()) {
    if (stats_.steps >= options_.max_steps) {
      return InvalidArgumentError(
          launch_.kernel + ": the step budget of " +
          std::to_string(options_.max_steps) +
          " warp-instructions is spent (a loop that does not end, or "
          "a spin-wait nothing will release)");
    }
    if (options_.hook && options_.hook_every > 0 && stats_.steps > 0 &&
        stats_.steps % options_.hook_every == 0) {
      options_.hook(stats_.steps, *launch_.memory);
    }
    Warp* warp = ready_[rng_.Next() % ready_.size()];
    COLO_RETURN_IF_ERROR(Step(*warp));
    launch_.steps = ++stats_.steps;
    Block* block = warp->block;
    if (block->live == 0) {
      uint32_t slot = block->slot;
      slots_[slot].reset();
      if (next_block_ < total_blocks_) StartBlock(slot);
    } else if (block->ready_warps == 0) {
      return Deadlock(*block);
    }
  }
  for (const auto& block : slots_) {
    if (block && block->live > 0) return Deadlock(*block);
  }
  return stats_;
}

}  // namespace

uint64_t Lane::ReadSpecial(Special s) const {
  const Dim3 g = launch->grid, bd = launch->block;
  uint32_t lane = thread->lane;
  switch (s) {
    case Special::kTidX:
      return thread->tid[0];
    case Special::kTidY:
      return thread->tid[1];
    case Special::kTidZ:
      return thread->tid[2];
    case Special::kNtidX:
      return bd.x;
    case Special::kNtidY:
      return bd.y;
    case Special::kNtidZ:
      return bd.z;
    case Special::kCtaidX:
      return block->ctaid[0];
    case Special::kCtaidY:
      return block->ctaid[1];
    case Special::kCtaidZ:
      return block->ctaid[2];
    case Special::kNctaidX:
      return g.x;
    case Special::kNctaidY:
      return g.y;
    case Special::kNctaidZ:
      return g.z;
    case Special::kLaneid:
      return lane;
    case Special::kWarpid:
      return thread->linear / kWarpSize;
    case Special::kNwarpid:
      return 64;  // warp slots of an sm_80 SM
    case Special::kSmid:
      return block->slot;
    case Special::kNsmid:
      return launch->resident_blocks;
    case Special::kGridid:
      return 1;
    case Special::kLanemaskEq:
      return 1u << lane;
    case Special::kLanemaskLe:
      return static_cast<uint32_t>((2ull << lane) - 1);
    case Special::kLanemaskLt:
      return (1u << lane) - 1;
    case Special::kLanemaskGe:
      return ~((1u << lane) - 1);
    case Special::kLanemaskGt:
      return static_cast<uint32_t>(~((2ull << lane) - 1));
    // Clocks count the run's warp-instructions: deterministic and rising.
    case Special::kClock:
      return launch->steps & 0xFFFFFFFFu;
    case Special::kClockHi:
      return launch->steps >> 32;
    case Special::kClock64:
      return launch->steps;
    case Special::kGlobaltimer:
      return launch->steps;
    case Special::kGlobaltimerLo:
      return launch->steps & 0xFFFFFFFFu;
    case Special::kGlobaltimerHi:
      return launch->steps >> 32;
    case Special::kDynamicSmemSize:
      return launch->dynamic_shared;
    case Special::kTotalSmemSize:
      return launch->total_shared;
  }
  return 0;
}

}  // namespace interp

Result<RunStats> RunKernel(const Module& module, std::string_view name,
                           const LaunchConfig& launch, DeviceMemory& memory,
                           const InterpreterOptions& options) {
  interp::SymbolAddresses symbols;
  COLO_RETURN_IF_ERROR(interp::PrepareModuleVariables(module, memory, symbols));
  COLO_ASSIGN_OR_RETURN(interp::DecodedProgram program,
                        interp::DecodeProgram(module, name, symbols));
  const std::string kernel(name);
  const Dim3 g = launch.grid, b = launch.block;
  auto fail = [&](const std::string& what) {
    return InvalidArgumentError(kernel + ": " + what);
  };
  if (g.x == 0 || g.y == 0 || g.z == 0 || b.x == 0 || b.y == 0 || b.z == 0) {
    return fail("a launch dimension is 0");
  }
  uint64_t threads = static_cast<uint64_t>(b.x) * b.y * b.z;
  if (threads > 1024 || b.z > 64 || g.x > 0x7FFFFFFFu || g.y > 65535 ||
      g.z > 65535) {
    return fail(
        "the launch exceeds the limits (1024 threads and block.z <= 64 per "
        "block; "
        "grid.x < 2^31, grid.y and grid.z <= 65535)");
  }
  if (program.max_threads != 0 && threads > program.max_threads) {
    return fail("the block has " + std::to_string(threads) +
                " threads, beyond .maxntid " +
                std::to_string(program.max_threads));
  }
  const uint32_t* req = program.required_block;
  if (req[0] != 0 && (req[0] != b.x || req[1] != b.y || req[2] != b.z)) {
    return fail("the block shape differs from the kernel's .reqntid");
  }
  // Dynamic shared memory starts at the aligned end of the static part.
  uint64_t shared = launch.dynamic_shared_bytes == 0
                        ? program.static_shared_bytes
                        : uint64_t{program.dynamic_shared_offset} +
                              launch.dynamic_shared_bytes;
  uint64_t limit =
      std::max<uint64_t>(options.max_shared_bytes, program.static_shared_bytes);
  if (shared > limit) {
    return fail("static plus dynamic shared memory is " +
                std::to_string(shared) + " bytes, beyond " +
                std::to_string(limit));
  }
  const interp::DecodedFunction& entry = program.functions[0];
  if (launch.args.size() != entry.arg_bytes.size()) {
    return fail(std::to_string(launch.args.size()) + " arguments for " +
                std::to_string(entry.arg_bytes.size()) + " parameters");
  }
  interp::Launch run;
  run.params.assign(entry.param_buffer_bytes, 0);
  for (size_t i = 0; i < launch.args.size(); ++i) {
    if (launch.args[i].size() != entry.arg_bytes[i]) {
      return fail("argument " + std::to_string(i) + " has " +
                  std::to_string(launch.args[i].size()) +
                  " bytes; its parameter has " +
                  std::to_string(entry.arg_bytes[i]));
    }
    std::copy(launch.args[i].begin(), launch.args[i].end(),
              run.params.begin() + entry.param_offsets[i]);
  }
  if (options.resident_blocks == 0)
    return fail("resident_blocks must be at least 1");
  run.kernel = kernel;
  run.program = &program;
  run.memory = &memory;
  run.grid = g;
  run.block = b;
  run.dynamic_shared = launch.dynamic_shared_bytes;
  run.total_shared = static_cast<uint32_t>(shared);
  run.resident_blocks = options.resident_blocks;
  interp::Scheduler scheduler(run, options);
  return scheduler.Run();
}

}  // namespace colo::ptx
