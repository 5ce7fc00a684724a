// Module-scope .global and .const variables in DeviceMemory: allocated the
// first time a module runs on a memory (keyed by name, so a second run, or
// the sliced and persistent forms of the same kernel, see what the first
// left), zeroed, then filled from the initializer PTX wrote: numbers, and
// the names of functions (their FunctionAddresses).
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "ptx/interpreter_float.h"
#include "ptx/interpreter_machine.h"
#include "ptx/interpreter_opcodes.h"

namespace colo::ptx::interp {
namespace {

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  size_t e = s.find_last_not_of(" \t\r\n");
  return b == std::string_view::npos ? std::string()
                                     : std::string(s.substr(b, e - b + 1));
}

bool ParseHex(std::string_view digits, uint64_t* out) {
  if (digits.empty() || digits.size() > 16) return false;
  uint64_t v = 0;
  for (char c : digits) {
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0) return false;
    v = v * 16 + static_cast<uint64_t>(d);
  }
  *out = v;
  return true;
}

// One initializer element as the bytes of `type`.
Result<uint64_t> ParseElement(const std::string& token, Type type) {
  uint64_t bits = 0;
  if ((token.starts_with("0f") || token.starts_with("0F")) &&
      token.size() == 10 &&
      ParseHex(std::string_view(token).substr(2), &bits)) {
    if (type.kind == Kind::kF && type.bits == 64)
      return BitsOf(static_cast<double>(AsF32(bits)));
    return bits;
  }
  if ((token.starts_with("0d") || token.starts_with("0D")) &&
      token.size() == 18 &&
      ParseHex(std::string_view(token).substr(2), &bits)) {
    if (type.kind == Kind::kF && type.bits == 32)
      return BitsOf(static_cast<float>(AsF64(bits)));
    return bits;
  }
  std::string t = token;
  bool negative = !t.empty() && t[0] == '-';
  if (negative) t = t.substr(1);
  if (!t.empty() && (t.back() == 'U' || t.back() == 'u')) t.pop_back();
  bool is_float = t.find_first_of(".eE") != std::string::npos &&
                  !t.starts_with("0x") && !t.starts_with("0X");
  if (is_float || (type.kind == Kind::kF && !t.empty())) {
    char* end = nullptr;
    double d = std::strtod(t.c_str(), &end);
    if (t.empty() || *end != '\0')
      return InvalidArgumentError("initializer element " + token);
    if (negative) d = -d;
    if (type.kind == Kind::kF && type.bits == 32)
      return BitsOf(static_cast<float>(d));
    if (type.kind == Kind::kF) return BitsOf(d);
    return InvalidArgumentError("float initializer " + token +
                                " for an integer variable");
  }
  int base = 10;
  std::string digits = t;
  if (t.starts_with("0x") || t.starts_with("0X")) {
    base = 16;
    digits = t.substr(2);
  } else if (t.starts_with("0b") || t.starts_with("0B")) {
    base = 2;
    digits = t.substr(2);
  } else if (t.size() > 1 && t[0] == '0') {
    base = 8;
    digits = t.substr(1);
  }
  char* end = nullptr;
  uint64_t v = digits.empty() ? 0 : std::strtoull(digits.c_str(), &end, base);
  if (digits.empty() || *end != '\0') {
    return InvalidArgumentError("initializer element " + token +
                                " (only numbers are implemented)");
  }
  return negative ? 0 - v : v;
}

// A function's address as an initializer element: "f" or "generic(f)"
// (a table of function pointers), or 0 when `token` names no function.
uint64_t FunctionElement(
    std::string token,
    const std::map<std::string, uint64_t, std::less<>>& functions) {
  if (token.starts_with("generic(") && token.ends_with(")"))
    token = Trim(std::string_view(token).substr(8, token.size() - 9));
  auto it = functions.find(token);
  return it == functions.end() ? 0 : it->second;
}

Status Initialize(
    const Variable& v, Type type, uint64_t address, uint64_t bytes,
    DeviceMemory& memory,
    const std::map<std::string, uint64_t, std::less<>>& functions) {
  std::string text;
  for (char c : v.initializer) {
    if (c != '{' && c != '}') text += c;
  }
  if (Trim(text).empty()) return OkStatus();
  uint32_t element = type.bytes();
  uint64_t offset = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string token =
        Trim(std::string_view(text).substr(start, comma - start));
    start = comma + 1;
    if (token.empty()) continue;
    const uint64_t function = FunctionElement(token, functions);
    Result<uint64_t> value =
        function != 0 ? Result<uint64_t>(function) : ParseElement(token, type);
    if (!value.ok()) {
      return InvalidArgumentError(
          "line " + std::to_string(v.line) + ": initializer of " + v.name +
          ": " + value.status().message() + " not implemented");
    }
    if (offset + element > bytes) {
      return InvalidArgumentError("line " + std::to_string(v.line) +
                                  ": initializer of " + v.name +
                                  " has more elements than the variable");
    }
    uint64_t bits = *value;
    COLO_RETURN_IF_ERROR(memory.Write(address + offset, &bits, element));
    offset += element;
  }
  return OkStatus();
}

}  // namespace

Status PrepareModuleVariables(const Module& module, DeviceMemory& memory,
                              SymbolAddresses& symbols) {
  const auto functions = FunctionAddresses(module);
  for (const TopLevel& item : module.items) {
    const auto* v = std::get_if<Variable>(&item);
    if (v == nullptr ||
        (v->space != StateSpace::kGlobal && v->space != StateSpace::kConst)) {
      continue;
    }
    uint64_t address = memory.SymbolAddress(v->name);
    if (address != 0 && memory.TakeUninitialized(v->name)) {
      // Storage the caller bound (BindSymbol): its initializer, once.
      Type type = ParseType(v->type);
      uint64_t bytes = type.bits >= 8 ? type.bytes() : 0;
      for (int64_t d : v->dims) bytes *= static_cast<uint64_t>(d < 0 ? 0 : d);
      if (bytes > 0 && memory.Resolve(address, bytes) != nullptr) {
        COLO_RETURN_IF_ERROR(
            Initialize(*v, type, address, bytes, memory, functions));
      }
    }
    if (address == 0) {
      Type type = ParseType(v->type);
      uint64_t bytes = type.bits >= 8 ? type.bytes() : 0;
      bool sized = bytes > 0;
      for (int64_t d : v->dims) {
        if (d < 0) sized = false;
        bytes *= static_cast<uint64_t>(d < 0 ? 0 : d);
      }
      // An unsized extern declaration names storage defined elsewhere; a
      // kernel that uses it fails to decode with its name unknown.
      if (!sized || bytes > (1ull << 32)) continue;
      address = memory.Allocate(bytes);
      COLO_RETURN_IF_ERROR(
          Initialize(*v, type, address, bytes, memory, functions));
      memory.SetSymbolAddress(v->name, address);
    }
    symbols.device[v->name] = address;
  }
  return OkStatus();
}

}  // namespace colo::ptx::interp
