// Warp collectives and block barriers. The scheduler runs a warp's lanes
// at the lowest program counter together, so a collective sees exactly the
// lanes that reached it together; PTX requires every lane named in the
// membermask that has not exited to take part, and reading a lane outside
// that set gives an unpredictable value on a GPU: both are errors here.
#include <bit>
#include <string>

#include "ptx/interpreter_machine.h"

namespace colo::ptx::interp {
namespace {

// Lanes of `warp` that have not exited.
uint32_t LiveLanes(const Warp& warp) {
  uint32_t live = 0;
  for (uint32_t i = 0; i < warp.lanes; ++i) {
    if (warp.block->threads[warp.first + i].state != Thread::State::kExited)
      live |= 1u << i;
  }
  return live;
}

std::string Name(const DecodedInstruction& in) {
  return in.source ? in.source->opcode : std::string("collective");
}

// Each active lane's membermask, checked: the lane is in it, and every
// live lane of it is active.
Status CheckMasks(const DecodedInstruction& in, const Warp& warp,
                  uint32_t active, const std::array<Lane, kWarpSize>& lanes,
                  const Value& mask_operand,
                  std::array<uint32_t, kWarpSize>& masks) {
  uint32_t live = LiveLanes(warp);
  for (uint32_t i = 0; i < kWarpSize; ++i) {
    if (!((active >> i) & 1)) continue;
    uint32_t mask = static_cast<uint32_t>(lanes[i].Read(mask_operand));
    masks[i] = mask;
    if (!((mask >> i) & 1)) {
      return InvalidArgumentError(Name(in) + ": lane " + std::to_string(i) +
                                  " executes it but is not in its membermask");
    }
    uint32_t missing = mask & live & ~active;
    if (missing != 0) {
      return InvalidArgumentError(
          Name(in) + ": lane " + std::to_string(std::countr_zero(missing)) +
          " of the membermask is not converged with lane " + std::to_string(i));
    }
  }
  return OkStatus();
}

Status Shuffle(const DecodedInstruction& in, uint32_t active,
               std::array<Lane, kWarpSize>& lanes,
               const std::array<uint32_t, kWarpSize>& masks) {
  std::array<uint64_t, kWarpSize> value{};
  std::array<bool, kWarpSize> in_range{};
  for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
    if (!((active >> lane) & 1)) continue;
    uint32_t b = static_cast<uint32_t>(lanes[lane].Read(in.src[1]));
    uint32_t c = static_cast<uint32_t>(lanes[lane].Read(in.src[2]));
    uint32_t bval = b & 0x1F, cval = c & 0x1F, seg = (c >> 8) & 0x1F;
    uint32_t max_lane = (lane & seg) | (cval & ~seg);
    uint32_t min_lane = lane & seg;
    int64_t j = 0;
    bool p = false;
    switch (in.variant) {
      case Variant::kUp:
        j = static_cast<int64_t>(lane) - bval;
        p = j >= static_cast<int64_t>(max_lane);
        break;
      case Variant::kDown:
        j = static_cast<int64_t>(lane) + bval;
        p = j <= static_cast<int64_t>(max_lane);
        break;
      case Variant::kBfly:
        j = lane ^ bval;
        p = j <= static_cast<int64_t>(max_lane);
        break;
      default:  // idx
        j = min_lane | (bval & ~seg);
        p = j <= static_cast<int64_t>(max_lane);
    }
    if (!p) j = lane;
    uint32_t source = static_cast<uint32_t>(j) & 31;
    if (!((active >> source) & 1) || !((masks[lane] >> source) & 1)) {
      return InvalidArgumentError(
          "shfl.sync: lane " + std::to_string(lane) + " reads lane " +
          std::to_string(source) +
          ", which does not take part (its value is undefined)");
    }
    value[lane] = lanes[source].Read(in.src[0]);
    in_range[lane] = p;
  }
  for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
    if (!((active >> lane) & 1)) continue;
    lanes[lane].Write(in.dst[0], value[lane] & 0xFFFFFFFFu);
    if (in.dst.size() > 1) lanes[lane].Write(in.dst[1], in_range[lane] ? 1 : 0);
  }
  return OkStatus();
}

Status Reduce(const DecodedInstruction& in, uint32_t active,
              std::array<Lane, kWarpSize>& lanes,
              const std::array<uint32_t, kWarpSize>& masks) {
  std::array<uint64_t, kWarpSize> value{};
  for (uint32_t i = 0; i < kWarpSize; ++i) {
    if ((active >> i) & 1) value[i] = lanes[i].Read(in.src[0]);
  }
  std::array<uint64_t, kWarpSize> result{};
  std::array<bool, kWarpSize> flag{};
  for (uint32_t i = 0; i < kWarpSize; ++i) {
    if (!((active >> i) & 1)) continue;
    uint32_t group = masks[i] & active;
    switch (in.op) {
      case Op::kVote: {
        uint32_t yes = 0;
        for (uint32_t j = 0; j < kWarpSize; ++j) {
          if (((group >> j) & 1) && value[j]) yes |= 1u << j;
        }
        if (in.variant == Variant::kBallot) {
          result[i] = yes;
        } else if (in.variant == Variant::kAll) {
          result[i] = yes == group;
        } else if (in.variant == Variant::kAny) {
          result[i] = yes != 0;
        } else {
          result[i] = yes == group || yes == 0;
        }
        break;
      }
      case Op::kMatch: {
        uint64_t mask = MaskOf(in.type.bits);
        uint32_t same = 0;
        for (uint32_t j = 0; j < kWarpSize; ++j) {
          if (((group >> j) & 1) && (value[j] & mask) == (value[i] & mask))
            same |= 1u << j;
        }
        bool all = same == group;
        result[i] = in.variant == Variant::kAny ? same : (all ? group : 0);
        flag[i] = all;
        break;
      }
      default: {  // redux.sync
        bool is_signed = in.type.kind == Kind::kS;
        uint64_t acc = 0;
        bool first = true;
        for (uint32_t j = 0; j < kWarpSize; ++j) {
          if (!((group >> j) & 1)) continue;
          uint64_t v = value[j] & 0xFFFFFFFFu;
          if (first) {
            acc = v;
            first = false;
            continue;
          }
          bool less =
              is_signed ? SignExtend(v, 32) < SignExtend(acc, 32) : v < acc;
          switch (in.variant) {
            case Variant::kAtomAdd:
              acc += v;
              break;
            case Variant::kAtomMin:
              acc = less ? v : acc;
              break;
            case Variant::kAtomMax:
              acc = (!less && v != acc) ? v : acc;
              break;
            case Variant::kAtomAnd:
              acc &= v;
              break;
            case Variant::kAtomOr:
              acc |= v;
              break;
            default:
              acc ^= v;
          }
        }
        result[i] = acc & 0xFFFFFFFFu;
      }
    }
  }
  for (uint32_t i = 0; i < kWarpSize; ++i) {
    if (!((active >> i) & 1)) continue;
    lanes[i].Write(in.dst[0], result[i]);
    if (in.dst.size() > 1) lanes[i].Write(in.dst[1], flag[i] ? 1 : 0);
  }
  return OkStatus();
}

uint64_t* RegistersOf(Thread& t) {
  return t.regs.data() + t.frames.back().reg_base;
}

void TryComplete(Block& block, int id, std::vector<Thread*>& released) {
  BarrierState& b = block.barriers[id];
  uint32_t expected = b.expected != 0 ? b.expected : block.live;
  if (b.arrived == 0 || b.arrived < expected) return;
  uint64_t result = 0;
  switch (b.red) {
    case BoolOp::kPopc:
      result = b.popc;
      break;
    case BoolOp::kAnd:
      result = b.popc == b.arrived;
      break;
    case BoolOp::kOr:
      result = b.popc > 0;
      break;
    default:
      break;
  }
  for (Thread& t : block.threads) {
    if (t.state != Thread::State::kBarrier || t.barrier != id) continue;
    t.state = Thread::State::kRunnable;
    if (b.red != BoolOp::kNone && t.barrier_dst.from == Value::From::kReg) {
      RegistersOf(t)[t.barrier_dst.index] =
          result & MaskOf(t.barrier_dst.reg_bits);
    }
    released.push_back(&t);
  }
  b = BarrierState{};
}

}  // namespace

Status ExecuteCollective(const DecodedInstruction& in, Warp& warp,
                         uint32_t active, std::array<Lane, kWarpSize>& lanes) {
  if (in.op == Op::kActivemask) {
    for (uint32_t i = 0; i < kWarpSize; ++i) {
      if ((active >> i) & 1) lanes[i].Write(in.dst[0], active);
    }
    return OkStatus();
  }
  std::array<uint32_t, kWarpSize> masks{};
  const Value& mask_operand = in.op == Op::kShfl ? in.src[3] : in.src[1];
  COLO_RETURN_IF_ERROR(
      CheckMasks(in, warp, active, lanes, mask_operand, masks));
  if (in.op == Op::kShfl) return Shuffle(in, active, lanes, masks);
  return Reduce(in, active, lanes, masks);
}

Status ArriveAtBarrier(const DecodedInstruction& in, Lane& lane,
                       std::vector<Thread*>& released) {
  Block& block = *lane.block;
  uint64_t id = lane.Read(in.src[0]);
  if (id >= kBarrierCount) {
    return InvalidArgumentError("barrier " + std::to_string(id) +
                                " (there are 16, 0 to 15)");
  }
  // bar.sync a{, b}; bar.arrive a, b; bar.red d, a{, b}, c
  size_t with_count = in.op == Op::kBarRed ? 3 : 2;
  uint64_t count = in.src.size() >= with_count ? lane.Read(in.src[1]) : 0;
  if (in.src.size() >= with_count &&
      (count == 0 || count % kWarpSize != 0 ||
       count > block.threads.size() + kWarpSize - 1)) {
    return InvalidArgumentError(
        "barrier thread count " + std::to_string(count) +
        " is not a non-zero multiple of 32 within the block");
  }
  BarrierState& b = block.barriers[id];
  if (count != 0) {
    if (b.arrived > 0 && b.expected != count) {
      return InvalidArgumentError("barrier " + std::to_string(id) +
                                  " reached with different thread counts");
    }
    b.expected = static_cast<uint32_t>(count);
  } else if (b.arrived > 0 && b.expected != 0) {
    return InvalidArgumentError("barrier " + std::to_string(id) +
                                " reached with and without a thread count");
  }
  BoolOp red = in.op == Op::kBarRed ? in.bool_op : BoolOp::kNone;
  if (b.arrived > 0 && b.red != red) {
    return InvalidArgumentError(
        "barrier " + std::to_string(id) +
        " mixes bar.red with other barrier instructions, "
        "or different reductions (PTX: unpredictable)");
  }
  b.red = red;
  ++b.arrived;
  if (in.op == Op::kBarRed && lane.Read(in.src.back()) != 0) ++b.popc;
  if (in.op != Op::kBarArrive) {
    lane.thread->state = Thread::State::kBarrier;
    lane.thread->barrier = static_cast<uint8_t>(id);
    lane.thread->barrier_dst = in.op == Op::kBarRed ? in.dst[0] : Value{};
  }
  TryComplete(block, static_cast<int>(id), released);
  return OkStatus();
}

void CompleteBarriersAfterExit(Block& block, std::vector<Thread*>& released) {
  for (int id = 0; id < kBarrierCount; ++id) {
    if (block.barriers[id].expected == 0) TryComplete(block, id, released);
  }
}

Status ArriveAtWarpSync(const DecodedInstruction& in, Warp& warp,
                        uint32_t active, std::array<Lane, kWarpSize>& lanes,
                        std::vector<Thread*>& released) {
  for (uint32_t i = 0; i < kWarpSize; ++i) {
    if (!((active >> i) & 1)) continue;
    uint32_t mask = static_cast<uint32_t>(lanes[i].Read(in.src[0]));
    if (!((mask >> i) & 1)) {
      return InvalidArgumentError("bar.warp.sync: lane " + std::to_string(i) +
                                  " executes it but is not in its membermask");
    }
    warp.sync_mask |= mask;
    lanes[i].thread->state = Thread::State::kWarpSync;
  }
  warp.sync_arrived |= active;
  CompleteWarpSync(warp, released);
  return OkStatus();
}

void CompleteWarpSync(Warp& warp, std::vector<Thread*>& released) {
  if (warp.sync_arrived == 0) return;
  uint32_t needed = warp.sync_mask & LiveLanes(warp);
  if ((needed & ~warp.sync_arrived) != 0) return;
  for (uint32_t i = 0; i < warp.lanes; ++i) {
    Thread& t = warp.block->threads[warp.first + i];
    if (t.state == Thread::State::kWarpSync) {
      t.state = Thread::State::kRunnable;
      released.push_back(&t);
    }
  }
  warp.sync_arrived = 0;
  warp.sync_mask = 0;
}

}  // namespace colo::ptx::interp
