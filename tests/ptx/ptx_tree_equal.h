// tests/ptx/ptx_tree_equal.h — compares two ptx::Module trees field by field,
// ignoring line numbers (the printer's output has its own lines), for the
// reader/printer round-trip tests and any test that checks a rewrite.
//
// TreeDiff(a, b) is "" when the trees are equal and otherwise names the
// first difference by path ("items[3].body[17].operands[1].name: '%r5' vs
// '%r6'"), so a failing EXPECT shows where the trees part.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "ptx/ptx_module.h"

namespace colo::ptx::testing {

namespace tree_equal_internal {

inline std::string Show(const std::string& s) { return "'" + s + "'"; }
template <typename T>
std::string Show(const T& v) {
  return std::to_string(v);
}

// Appends to `diff` (if still empty) when a and b differ.
template <typename T>
void Field(const std::string& path, const T& a, const T& b, std::string& diff) {
  if (diff.empty() && !(a == b)) {
    diff = path + ": " + Show(a) + " vs " + Show(b);
  }
}

inline void Size(const std::string& path, size_t a, size_t b,
                 std::string& diff) {
  if (diff.empty() && a != b) {
    diff = path + ".size(): " + std::to_string(a) + " vs " + std::to_string(b);
  }
}

inline void Strings(const std::string& path, const std::vector<std::string>& a,
                    const std::vector<std::string>& b, std::string& diff) {
  Size(path, a.size(), b.size(), diff);
  for (size_t i = 0; diff.empty() && i < a.size(); ++i) {
    Field(path + "[" + std::to_string(i) + "]", a[i], b[i], diff);
  }
}

inline void Compare(const std::string& p, const Operand& a, const Operand& b,
                    std::string& diff) {
  Field(p + ".kind", static_cast<int>(a.kind), static_cast<int>(b.kind), diff);
  Field(p + ".name", a.name, b.name, diff);
  Field(p + ".component", a.component, b.component, diff);
  Field(p + ".base_is_register", a.base_is_register, b.base_is_register, diff);
  Field(p + ".is_unsigned", a.is_unsigned, b.is_unsigned, diff);
  Field(p + ".is_double", a.is_double, b.is_double, diff);
  Field(p + ".int_value", a.int_value, b.int_value, diff);
  Field(p + ".float_bits", a.float_bits, b.float_bits, diff);
  Field(p + ".negated", a.negated, b.negated, diff);
  Size(p + ".pair", a.pair.size(), b.pair.size(), diff);
  for (size_t i = 0; diff.empty() && i < a.pair.size(); ++i) {
    Compare(p + ".pair[" + std::to_string(i) + "]", a.pair[i], b.pair[i], diff);
  }
  Size(p + ".elements", a.elements.size(), b.elements.size(), diff);
  for (size_t i = 0; diff.empty() && i < a.elements.size(); ++i) {
    Compare(p + ".elements[" + std::to_string(i) + "]", a.elements[i],
            b.elements[i], diff);
  }
}

inline void Compare(const std::string& p, const Instruction& a,
                    const Instruction& b, std::string& diff) {
  Field(p + ".guard", a.guard.has_value(), b.guard.has_value(), diff);
  if (diff.empty() && a.guard) {
    Field(p + ".guard.predicate", a.guard->predicate, b.guard->predicate, diff);
    Field(p + ".guard.negated", a.guard->negated, b.guard->negated, diff);
  }
  Field(p + ".opcode", a.opcode, b.opcode, diff);
  Strings(p + ".modifiers", a.modifiers, b.modifiers, diff);
  Size(p + ".operands", a.operands.size(), b.operands.size(), diff);
  for (size_t i = 0; diff.empty() && i < a.operands.size(); ++i) {
    Compare(p + ".operands[" + std::to_string(i) + "]", a.operands[i],
            b.operands[i], diff);
  }
}

inline void Compare(const std::string& p, const Label& a, const Label& b,
                    std::string& diff) {
  Field(p + ".name", a.name, b.name, diff);
}
inline void Compare(const std::string& p, const RegisterDecl& a,
                    const RegisterDecl& b, std::string& diff) {
  Field(p + ".type", a.type, b.type, diff);
  Field(p + ".name", a.name, b.name, diff);
  Field(p + ".count", a.count, b.count, diff);
}
inline void Compare(const std::string& p, const Variable& a, const Variable& b,
                    std::string& diff) {
  Field(p + ".space", static_cast<int>(a.space), static_cast<int>(b.space),
        diff);
  Field(p + ".linkage", a.linkage, b.linkage, diff);
  Field(p + ".align", a.align, b.align, diff);
  Strings(p + ".attributes", a.attributes, b.attributes, diff);
  Field(p + ".type", a.type, b.type, diff);
  Field(p + ".name", a.name, b.name, diff);
  Size(p + ".dims", a.dims.size(), b.dims.size(), diff);
  for (size_t i = 0; diff.empty() && i < a.dims.size(); ++i) {
    Field(p + ".dims[" + std::to_string(i) + "]", a.dims[i], b.dims[i], diff);
  }
  Field(p + ".initializer", a.initializer, b.initializer, diff);
}
inline void Compare(const std::string&, const ScopeOpen&, const ScopeOpen&,
                    std::string&) {}
inline void Compare(const std::string&, const ScopeClose&, const ScopeClose&,
                    std::string&) {}
inline void Compare(const std::string& p, const RawStatement& a,
                    const RawStatement& b, std::string& diff) {
  Field(p + ".text", a.text, b.text, diff);
}
inline void Compare(const std::string& p, const RawDirective& a,
                    const RawDirective& b, std::string& diff) {
  Field(p + ".text", a.text, b.text, diff);
}

inline void Compare(const std::string& p, const Param& a, const Param& b,
                    std::string& diff) {
  Field(p + ".type", a.type, b.type, diff);
  Field(p + ".name", a.name, b.name, diff);
  Field(p + ".align", a.align, b.align, diff);
  Field(p + ".array_size", a.array_size, b.array_size, diff);
  Strings(p + ".attributes", a.attributes, b.attributes, diff);
}

inline void Params(const std::string& p, const std::vector<Param>& a,
                   const std::vector<Param>& b, std::string& diff) {
  Size(p, a.size(), b.size(), diff);
  for (size_t i = 0; diff.empty() && i < a.size(); ++i) {
    Compare(p + "[" + std::to_string(i) + "]", a[i], b[i], diff);
  }
}

void Compare(const std::string& p, const Function& a, const Function& b,
             std::string& diff);

// Two variants: the same alternative, then that alternative's fields.
template <typename... Ts>
void Alternatives(const std::string& p, const std::variant<Ts...>& a,
                  const std::variant<Ts...>& b, std::string& diff) {
  Field(p + ".index()", a.index(), b.index(), diff);
  if (!diff.empty()) return;
  std::visit(
      [&](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        Compare(p, x, std::get<X>(b), diff);
      },
      a);
}

inline void Compare(const std::string& p, const Function& a, const Function& b,
                    std::string& diff) {
  Field(p + ".is_entry", a.is_entry, b.is_entry, diff);
  Field(p + ".linkage", a.linkage, b.linkage, diff);
  Field(p + ".name", a.name, b.name, diff);
  Params(p + ".return_params", a.return_params, b.return_params, diff);
  Params(p + ".params", a.params, b.params, diff);
  Strings(p + ".directives", a.directives, b.directives, diff);
  Field(p + ".has_body", a.has_body, b.has_body, diff);
  Size(p + ".body", a.body.size(), b.body.size(), diff);
  for (size_t i = 0; diff.empty() && i < a.body.size(); ++i) {
    Alternatives(p + ".body[" + std::to_string(i) + "]", a.body[i], b.body[i],
                 diff);
  }
}

}  // namespace tree_equal_internal

// "" if `a` and `b` are equal up to line numbers, else the first difference.
inline std::string TreeDiff(const Module& a, const Module& b) {
  using namespace tree_equal_internal;
  std::string diff;
  Field("version_major", a.version_major, b.version_major, diff);
  Field("version_minor", a.version_minor, b.version_minor, diff);
  Field("target", a.target, b.target, diff);
  Strings("target_flags", a.target_flags, b.target_flags, diff);
  Field("address_size", a.address_size, b.address_size, diff);
  Size("items", a.items.size(), b.items.size(), diff);
  for (size_t i = 0; diff.empty() && i < a.items.size(); ++i) {
    Alternatives("items[" + std::to_string(i) + "]", a.items[i], b.items[i],
                 diff);
  }
  return diff;
}

}  // namespace colo::ptx::testing
