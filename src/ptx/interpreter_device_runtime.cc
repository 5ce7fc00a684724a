// The device runtime's functions a kernel calls without a body in its
// module (interpreter_machine.h): vprintf, which device printf compiles
// to, __assertfail, which a failed device assert calls, the device
// heap's malloc and free, and cudaGraphSetConditional, which a kernel of a
// conditional graph calls to set its handle.
//
// vprintf(format, args): `format` is the generic address of the format
// string, `args` of a buffer holding the arguments in order, each at an
// offset aligned to its size, as nvcc packs them: 4 bytes for the int
// conversions (d i u x X o c) without a length or with h / hh, 8 with l,
// ll, j, z or t; 8 for the floating ones (a float is promoted to double),
// %s (a generic address of the string) and %p. A `*` width or precision
// takes a 4-byte int. The formatted text goes to the options' sink.
#include <cstdio>
#include <cstring>
#include <string>

#include "ptx/interpreter_machine.h"

namespace colo::ptx::interp {
namespace {

constexpr uint64_t kMaxString = 4096;  // longest string read

// The NUL-terminated string at generic `address`, at most kMaxString bytes.
Result<std::string> ReadString(Lane& lane, uint64_t address) {
  std::string s;
  for (uint64_t i = 0; i < kMaxString; ++i) {
    COLO_ASSIGN_OR_RETURN(
        uint8_t * p, ResolveAccess(lane, Space::kGeneric, address + i, 1, 1));
    if (*p == 0) return s;
    s += static_cast<char>(*p);
  }
  return InvalidArgumentError("a string of more than " +
                              std::to_string(kMaxString) + " bytes");
}

// The `bytes`-byte value at the next slot of the argument buffer.
class ArgReader {
 public:
  ArgReader(Lane& lane, uint64_t base) : lane_(lane), base_(base) {}
  Result<uint64_t> Next(uint32_t bytes) {
    offset_ = (offset_ + bytes - 1) / bytes * bytes;
    COLO_ASSIGN_OR_RETURN(
        uint8_t * p,
        ResolveAccess(lane_, Space::kGeneric, base_ + offset_, bytes, bytes));
    offset_ += bytes;
    uint64_t v = 0;
    std::memcpy(&v, p, bytes);
    return v;
  }

 private:
  Lane& lane_;
  uint64_t base_;
  uint64_t offset_ = 0;
};

// The value of the 64-bit parameter a call passes in param variable `v`.
Result<uint64_t> CallArg(Lane& lane, const Value& v, uint32_t bytes) {
  COLO_ASSIGN_OR_RETURN(uint8_t * p, ResolveAccess(lane, Space::kParam,
                                                   lane.Read(v), bytes, bytes));
  uint64_t x = 0;
  std::memcpy(&x, p, bytes);
  return x;
}

Result<std::string> Format(Lane& lane, const std::string& format,
                           uint64_t args) {
  ArgReader reader(lane, args);
  std::string out;
  char buffer[512];
  for (size_t i = 0; i < format.size();) {
    if (format[i] != '%') {
      out += format[i++];
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '%') {
      out += '%';
      i += 2;
      continue;
    }
    // %[flags][width][.precision][length]conversion
    size_t j = i + 1;
    std::string spec = "%";
    std::vector<int> stars;
    while (j < format.size() && std::strchr("-+ #0", format[j]))
      spec += format[j++];
    auto digits_or_star = [&] {
      if (j < format.size() && format[j] == '*') {
        spec += '*';
        ++j;
        stars.push_back(0);
        return;
      }
      while (j < format.size() && format[j] >= '0' && format[j] <= '9')
        spec += format[j++];
    };
    digits_or_star();
    if (j < format.size() && format[j] == '.') {
      spec += format[j++];
      digits_or_star();
    }
    std::string length;
    while (j < format.size() && std::strchr("hlLjzt", format[j]))
      length += format[j++];
    if (j >= format.size())
      return InvalidArgumentError("format ends inside a conversion");
    const char conv = format[j++];
    i = j;
    for (int& star : stars) {
      COLO_ASSIGN_OR_RETURN(uint64_t v, reader.Next(4));
      star = static_cast<int>(static_cast<int32_t>(v));
    }
    auto print = [&](auto value, const std::string& host_spec) {
      if (stars.size() == 2) {
        std::snprintf(buffer, sizeof(buffer), host_spec.c_str(), stars[0],
                      stars[1], value);
      } else if (stars.size() == 1) {
        std::snprintf(buffer, sizeof(buffer), host_spec.c_str(), stars[0],
                      value);
      } else {
        std::snprintf(buffer, sizeof(buffer), host_spec.c_str(), value);
      }
      out += buffer;
    };
    const bool wide = length == "l" || length == "ll" || length == "j" ||
                      length == "z" || length == "t";
    if (std::strchr("diuxXoc", conv)) {
      COLO_ASSIGN_OR_RETURN(uint64_t v, reader.Next(wide ? 8 : 4));
      const bool is_signed = conv == 'd' || conv == 'i';
      if (conv == 'c') {
        print(static_cast<int>(static_cast<unsigned char>(v)), spec + "c");
      } else if (wide) {
        if (is_signed) {
          print(static_cast<long long>(v), spec + "ll" + conv);
        } else {
          print(static_cast<unsigned long long>(v), spec + "ll" + conv);
        }
      } else if (is_signed) {
        int32_t x = static_cast<int32_t>(v);
        if (length == "h") x = static_cast<int16_t>(x);
        if (length == "hh") x = static_cast<int8_t>(x);
        print(static_cast<int>(x), spec + conv);
      } else {
        uint32_t x = static_cast<uint32_t>(v);
        if (length == "h") x = static_cast<uint16_t>(x);
        if (length == "hh") x = static_cast<uint8_t>(x);
        print(static_cast<unsigned>(x), spec + conv);
      }
    } else if (std::strchr("fFeEgGaA", conv)) {
      COLO_ASSIGN_OR_RETURN(uint64_t v, reader.Next(8));
      double d;
      std::memcpy(&d, &v, 8);
      print(d, spec + conv);
    } else if (conv == 's') {
      COLO_ASSIGN_OR_RETURN(uint64_t v, reader.Next(8));
      if (v == 0) {
        print("(null)", spec + 's');
      } else {
        COLO_ASSIGN_OR_RETURN(std::string s, ReadString(lane, v));
        print(s.c_str(), spec + 's');
      }
    } else if (conv == 'p') {
      COLO_ASSIGN_OR_RETURN(uint64_t v, reader.Next(8));
      print(reinterpret_cast<void*>(v), spec + 'p');
    } else {
      return InvalidArgumentError(std::string("conversion %") + conv +
                                  " (not implemented)");
    }
  }
  return out;
}

}  // namespace

Status DevicePrintf(const DecodedInstruction& in, Lane& lane,
                    const std::function<void(const std::string&)>& sink) {
  if (in.src.size() != 2) {
    return InvalidArgumentError("vprintf with " +
                                std::to_string(in.src.size()) +
                                " arguments (expected 2)");
  }
  COLO_ASSIGN_OR_RETURN(uint64_t format_address, CallArg(lane, in.src[0], 8));
  COLO_ASSIGN_OR_RETURN(uint64_t args, CallArg(lane, in.src[1], 8));
  COLO_ASSIGN_OR_RETURN(std::string format, ReadString(lane, format_address));
  Result<std::string> text = Format(lane, format, args);
  if (!text.ok()) {
    return InvalidArgumentError("printf(\"" + format +
                                "\"): " + std::string(text.status().message()));
  }
  if (sink) {
    sink(*text);
  } else {
    std::fwrite(text->data(), 1, text->size(), stdout);
  }
  // vprintf's result: the characters written.
  if (!in.dst.empty()) {
    COLO_ASSIGN_OR_RETURN(
        uint8_t * p,
        ResolveAccess(lane, Space::kParam, lane.Read(in.dst[0]), 4, 4));
    const int32_t n = static_cast<int32_t>(text->size());
    std::memcpy(p, &n, 4);
  }
  return OkStatus();
}

Status DeviceAssertFailure(const DecodedInstruction& in, Lane& lane) {
  // __assertfail(message, file, line, function, char size).
  if (in.src.size() < 4) return InvalidArgumentError("device assertion failed");
  COLO_ASSIGN_OR_RETURN(uint64_t message, CallArg(lane, in.src[0], 8));
  COLO_ASSIGN_OR_RETURN(uint64_t file, CallArg(lane, in.src[1], 8));
  COLO_ASSIGN_OR_RETURN(uint64_t line, CallArg(lane, in.src[2], 4));
  COLO_ASSIGN_OR_RETURN(uint64_t function, CallArg(lane, in.src[3], 8));
  Result<std::string> m = ReadString(lane, message);
  Result<std::string> f = ReadString(lane, file);
  Result<std::string> fn = ReadString(lane, function);
  return InvalidArgumentError(
      "device assertion failed: " + (f.ok() ? *f : std::string("?")) + ":" +
      std::to_string(static_cast<uint32_t>(line)) + ": " +
      (fn.ok() ? *fn : std::string("?")) + ": Assertion `" +
      (m.ok() ? *m : std::string("?")) + "` failed");
}

Status DeviceMalloc(const DecodedInstruction& in, Lane& lane) {
  if (in.src.size() != 1 || in.dst.size() != 1)
    return InvalidArgumentError("malloc takes one argument and returns one");
  COLO_ASSIGN_OR_RETURN(uint64_t bytes, CallArg(lane, in.src[0], 8));
  const uint64_t address = lane.launch->memory->HeapAllocate(bytes);
  COLO_ASSIGN_OR_RETURN(uint8_t * p, ResolveAccess(lane, Space::kParam,
                                                   lane.Read(in.dst[0]), 8, 8));
  std::memcpy(p, &address, 8);
  return OkStatus();
}

Status DeviceFree(const DecodedInstruction& in, Lane& lane) {
  if (in.src.size() != 1)
    return InvalidArgumentError("free takes one argument");
  COLO_ASSIGN_OR_RETURN(uint64_t address, CallArg(lane, in.src[0], 8));
  return lane.launch->memory->HeapFree(address);
}

Status DeviceSetConditional(
    const DecodedInstruction& in, Lane& lane,
    const std::function<Status(uint64_t, uint32_t)>& set) {
  if (in.src.size() != 2)
    return InvalidArgumentError("cudaGraphSetConditional takes two arguments");
  COLO_ASSIGN_OR_RETURN(uint64_t handle, CallArg(lane, in.src[0], 8));
  COLO_ASSIGN_OR_RETURN(uint64_t value, CallArg(lane, in.src[1], 4));
  if (!set) {
    return InvalidArgumentError(
        "cudaGraphSetConditional with no graph to own handle " +
        std::to_string(handle));
  }
  return set(handle, static_cast<uint32_t>(value));
}

}  // namespace colo::ptx::interp
