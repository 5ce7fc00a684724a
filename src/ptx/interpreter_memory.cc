// Data movement and memory instructions for one lane: mov and its vector
// forms, cvta / isspacep over the generic windows of interpreter_machine.h,
// ld / st / atom / red / cp.async with bounds and alignment checked on every
// access (a GPU faults on a misaligned or stray access; the interpreter
// names it instead of reading host memory).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "ptx/interpreter_float.h"
#include "ptx/interpreter_machine.h"

namespace colo::ptx::interp {
namespace {

std::string Hex(uint64_t v) {
  char buffer[24];
  std::snprintf(buffer, sizeof(buffer), "0x%llx",
                static_cast<unsigned long long>(v));
  return buffer;
}

const char* SpaceName(Space s) {
  switch (s) {
    case Space::kGlobal:
      return "global";
    case Space::kShared:
      return "shared";
    case Space::kLocal:
      return "local";
    case Space::kParam:
      return "param";
    case Space::kConst:
      return "const";
    default:
      return "generic";
  }
}

// The space a generic address falls in, and its address there.
Space Classify(uint64_t generic, uint64_t* address) {
  struct Window {
    uint64_t base;
    Space space;
  };
  static constexpr Window kWindows[] = {{kGenericShared, Space::kShared},
                                        {kGenericLocal, Space::kLocal},
                                        {kGenericParam, Space::kParam}};
  for (const Window& w : kWindows) {
    if (generic - w.base < kWindowBytes) {
      *address = generic - w.base;
      return w.space;
    }
  }
  *address = generic;
  return Space::kGlobal;
}

uint64_t GenericBase(Space s) {
  switch (s) {
    case Space::kShared:
      return kGenericShared;
    case Space::kLocal:
      return kGenericLocal;
    case Space::kParam:
      return kGenericParam;
    default:
      return 0;
  }
}

// Little-endian host, as the GPU; fixed sizes so the copies inline.
uint64_t Load(const uint8_t* p, uint32_t bytes) {
  switch (bytes) {
    case 1:
      return *p;
    case 2: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    default: {
      uint64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
  }
}

void Store(uint8_t* p, uint64_t v, uint32_t bytes) {
  switch (bytes) {
    case 1:
      *p = static_cast<uint8_t>(v);
      break;
    case 2: {
      uint16_t x = static_cast<uint16_t>(v);
      std::memcpy(p, &x, 2);
      break;
    }
    case 4: {
      uint32_t x = static_cast<uint32_t>(v);
      std::memcpy(p, &x, 4);
      break;
    }
    default:
      std::memcpy(p, &v, 8);
  }
}

Status Atomic(const DecodedInstruction& in, Lane& lane) {
  uint64_t address =
      lane.Read(in.address.base) + static_cast<uint64_t>(in.address.offset);
  Space space = in.address.space;
  if (space == Space::kGeneric) space = Classify(address, &address);
  uint32_t bytes = in.type.bytes();
  COLO_ASSIGN_OR_RETURN(uint8_t * p,
                        ResolveAccess(lane, space, address, bytes, bytes));
  const Type t = in.type;
  const uint64_t mask = MaskOf(t.bits);
  uint64_t old = Load(p, bytes);
  uint64_t b = lane.Read(in.src[0]) & mask;
  uint64_t r = old;
  bool is_signed = t.kind == Kind::kS;
  switch (in.variant) {
    case Variant::kAtomAdd:
      if (t.kind == Kind::kF && t.bits == 32) {
        // On global memory atom.add.f32 flushes subnormal inputs and
        // results to zero; on shared memory it keeps them (PTX ISA, atom).
        bool ftz = space == Space::kGlobal;
        float x = AsF32(old), y = AsF32(b);
        if (ftz) {
          x = FlushSubnormal(x);
          y = FlushSubnormal(y);
        }
        float sum = x + y;
        if (ftz) sum = FlushSubnormal(sum);
        r = std::isnan(sum) ? kCanonicalNaN32 : BitsOf(sum);
      } else if (t.kind == Kind::kF) {
        double sum = AsF64(old) + AsF64(b);
        r = std::isnan(sum) ? kCanonicalNaN64 : BitsOf(sum);
      } else {
        r = old + b;
      }
      break;
    case Variant::kAtomMin:
    case Variant::kAtomMax: {
      bool old_less =
          is_signed ? SignExtend(old, t.bits) < SignExtend(b, t.bits) : old < b;
      bool keep_old = in.variant == Variant::kAtomMin ? old_less : !old_less;
      r = keep_old ? old : b;
      break;
    }
    case Variant::kAtomInc:
      r = old >= b ? 0 : old + 1;
      break;
    case Variant::kAtomDec:
      r = (old == 0 || old > b) ? b : old - 1;
      break;
    case Variant::kAtomAnd:
      r = old & b;
      break;
    case Variant::kAtomOr:
      r = old | b;
      break;
    case Variant::kAtomXor:
      r = old ^ b;
      break;
    case Variant::kAtomExch:
      r = b;
      break;
    case Variant::kAtomCas:
      r = old == b ? (lane.Read(in.src[1]) & mask) : old;
      break;
    default:
      return InternalError("unknown atomic operation");
  }
  Store(p, r & mask, bytes);
  if (in.op == Op::kAtom) lane.WriteTyped(in.dst[0], old, t);
  return OkStatus();
}

}  // namespace

Result<uint8_t*> ResolveAccess(Lane& lane, Space space, uint64_t address,
                               uint32_t bytes, uint32_t align) {
  if (space == Space::kGeneric) space = Classify(address, &address);
  if (align > 1 && address % align != 0) {
    return InvalidArgumentError("misaligned " + std::to_string(bytes) +
                                "-byte " + SpaceName(space) + " access at " +
                                Hex(address) + " (needs " +
                                std::to_string(align) + "-byte alignment)");
  }
  auto in_range = [&](size_t size) {
    return address <= size && bytes <= size - address;
  };
  auto out_of_bounds = [&](size_t size) {
    return InvalidArgumentError(
        "out-of-bounds " + std::string(SpaceName(space)) +
        " access: " + std::to_string(bytes) + " bytes at " + Hex(address) +
        " (the " + SpaceName(space) + " space here has " +
        std::to_string(size) + " bytes)");
  };
  switch (space) {
    case Space::kGlobal:
    case Space::kConst: {
      // Most accesses fall in the region the last one did.
      Launch& run = *lane.launch;
      uint64_t offset = address - run.cached.start;
      if (offset < run.cached.size && bytes <= run.cached.size - offset) {
        return run.cached.data + offset;
      }
      DeviceMemory::Region region = run.memory->RegionAt(address);
      if (region.size > 0) run.cached = region;
      uint8_t* p = run.memory->Resolve(address, bytes);
      if (p == nullptr) {
        return InvalidArgumentError(
            "out-of-bounds " + std::string(SpaceName(space)) +
            " access: " + std::to_string(bytes) + " bytes at " + Hex(address) +
            " are not inside one allocation");
      }
      return p;
    }
    case Space::kShared: {
      std::vector<uint8_t>& m = lane.block->shared;
      if (!in_range(m.size())) return out_of_bounds(m.size());
      return m.data() + address;
    }
    case Space::kLocal: {
      std::vector<uint8_t>& m = lane.thread->local;
      if (!in_range(m.size())) return out_of_bounds(m.size());
      return m.data() + address;
    }
    case Space::kParam: {
      std::vector<uint8_t>& m =
          address < kFrameParamBase ? lane.launch->params : lane.thread->params;
      if (address >= kFrameParamBase) address -= kFrameParamBase;
      if (!in_range(m.size())) return out_of_bounds(m.size());
      return m.data() + address;
    }
    default:
      return InternalError("unknown state space");
  }
}

Status ExecuteMemory(const DecodedInstruction& in, Lane& lane) {
  const Type t = in.type;
  switch (in.op) {
    case Op::kMov:
      lane.Write(in.dst[0], lane.Read(in.src[0]) & MaskOf(t.bits));
      return OkStatus();
    case Op::kPack: {
      uint32_t part = t.bits / in.vector;
      uint64_t v = 0;
      for (uint32_t i = 0; i < in.vector; ++i) {
        v |= (lane.Read(in.src[i]) & MaskOf(part)) << (i * part);
      }
      lane.Write(in.dst[0], v);
      return OkStatus();
    }
    case Op::kUnpack: {
      uint32_t part = t.bits / in.vector;
      uint64_t v = lane.Read(in.src[0]);
      for (uint32_t i = 0; i < in.vector; ++i) {
        lane.Write(in.dst[i], (v >> (i * part)) & MaskOf(part));
      }
      return OkStatus();
    }
    case Op::kCvta:
    case Op::kCvtaTo:
    case Op::kIsspacep: {
      uint64_t a = lane.Read(in.src[0]);
      uint64_t base = GenericBase(in.space);
      if (in.op == Op::kIsspacep) {
        uint64_t address;
        Space s = Classify(a, &address);
        bool is =
            s == in.space || (s == Space::kGlobal && in.space == Space::kConst);
        lane.Write(in.dst[0], is ? 1 : 0);
      } else {
        uint64_t r = in.op == Op::kCvta ? a + base : a - base;
        lane.Write(in.dst[0], r & MaskOf(t.bits));
      }
      return OkStatus();
    }
    case Op::kLd:
    case Op::kSt: {
      uint64_t address =
          lane.Read(in.address.base) + static_cast<uint64_t>(in.address.offset);
      uint32_t bytes = t.bytes();
      COLO_ASSIGN_OR_RETURN(
          uint8_t * p, ResolveAccess(lane, in.address.space, address,
                                     bytes * in.vector, bytes * in.vector));
      for (uint32_t i = 0; i < in.vector; ++i) {
        if (in.op == Op::kLd) {
          lane.WriteTyped(in.dst[i], Load(p + i * bytes, bytes), t);
        } else {
          Store(p + i * bytes, lane.Read(in.src[i]), bytes);
        }
      }
      return OkStatus();
    }
    case Op::kAtom:
    case Op::kRed:
      return Atomic(in, lane);
    case Op::kCpAsync: {
      uint32_t size = static_cast<uint32_t>(lane.Read(in.src[0]));
      uint32_t copy = in.src.size() > 1
                          ? static_cast<uint32_t>(lane.Read(in.src[1]))
                          : size;
      if ((size != 4 && size != 8 && size != 16) || copy > size) {
        return InvalidArgumentError(
            "cp.async copies 4, 8 or 16 bytes, at most the copy size");
      }
      uint64_t to =
          lane.Read(in.address.base) + static_cast<uint64_t>(in.address.offset);
      uint64_t from = lane.Read(in.address2.base) +
                      static_cast<uint64_t>(in.address2.offset);
      COLO_ASSIGN_OR_RETURN(
          uint8_t * d, ResolveAccess(lane, in.address.space, to, size, size));
      if (copy > 0) {
        COLO_ASSIGN_OR_RETURN(
            uint8_t * s,
            ResolveAccess(lane, in.address2.space, from, copy, size));
        std::memmove(d, s, copy);
      }
      std::memset(d + copy, 0, size - copy);
      return OkStatus();
    }
    case Op::kNop:
      return OkStatus();
    default:
      return InternalError("not a memory instruction");
  }
}

}  // namespace colo::ptx::interp
