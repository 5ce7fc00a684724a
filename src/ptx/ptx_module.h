// ptx/ptx_module.h — a PTX module as a tree: what the PTX reader
// (ptx_reader.h) produces, what the rewrites (slice / persistent forms)
// transform and the printer (ptx_printer.h) writes back as PTX text, and
// what the CPU interpreter executes. PTX is NVIDIA's virtual ISA; its text is
// what nvcc embeds in a fat binary (see shim/fatbin.h) and what the driver's
// JIT compiles. The tree keeps what these need and no more: instructions are
// an opcode, its dot-separated modifiers in the order written, and typed
// operands; anything else (debug directives such as .loc and .file,
// pragmas) is kept as raw text so that printing loses nothing a compiler
// needs.
//
// This module includes no CUDA header and needs no GPU.
//
// Thread safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace colo::ptx {

// One operand of an instruction.
struct Operand {
  enum class Kind {
    // A register or special register: `name` is its base name as written
    // ("%r5", "%rd2", "%p1", "%ctaid", "%tid", "%laneid", a user name such
    // as "temp" declared by .reg inside a scope), `component` its vector
    // component ("x", "y", "z", "w") or empty ("%ctaid.x" is name "%ctaid",
    // component "x").
    kRegister,
    // An integer literal (decimal, 0x hex, 0 octal, 0b binary; a trailing U
    // kept as `is_unsigned`); `int_value` holds its 64 bits.
    kInteger,
    // A floating-point literal: PTX writes them exactly as 0fXXXXXXXX (f32)
    // or 0dXXXXXXXXXXXXXXXX (f64); `float_bits` holds the bits,
    // `is_double` which one. A decimal literal (1.5) is kept as a double.
    kFloat,
    // A name that is not a register: a variable ("tile"), a label
    // ("$L__BB0_3"), a function (in `call`), a parameter.
    kSymbol,
    // A memory address `[base+offset]`: `name` is the base (a register or a
    // symbol; `base_is_register` says which), `int_value` the byte offset
    // (0 if none; "[%r3+-4]" is base %r3, offset -4). "[0x100]" (an
    // absolute address) has an empty name. A texture or surface access
    // `[%rd6, {%f5, %f4}]` keeps what follows the base in `elements` (here
    // one kVector).
    kAddress,
    // A vector `{a, b, c, d}` (vector loads and stores, mov.b64 {lo, hi}):
    // its elements in `elements` ("_" as an element is a symbol named "_").
    // Also the parenthesized lists of `call` (see Instruction).
    kVector,
  };
  Kind kind = Kind::kRegister;
  std::string name;
  std::string component;
  bool base_is_register = false;  // kAddress
  bool is_unsigned = false;       // kInteger
  bool is_double = false;         // kFloat
  int64_t int_value = 0;          // kInteger value; kAddress offset
  uint64_t float_bits = 0;        // kFloat
  // A predicate operand written "!%p2" (negated source of a bool
  // combination, as `setp.lt.and.s32 %p3, %r1, %r2, !%p2` or selp).
  bool negated = false;
  // A second destination after '|' ("%r13|%p3" of shfl.sync, setp's
  // "%p1|%p2"): this operand is the first, `pair` holds the second.
  std::vector<Operand> pair;      // empty or exactly one
  std::vector<Operand> elements;  // kVector
};

// `@%p1` or `@!%p1` in front of an instruction.
struct Guard {
  std::string predicate;  // "%p1"
  bool negated = false;
};

struct Instruction {
  std::optional<Guard> guard;
  std::string opcode;  // "ld", "mov", "bar", "shfl", "setp", ...
  // The dot-separated parts after the opcode, without their dots, in the
  // order written: "ld.global.nc.v4.f32" is opcode "ld", modifiers
  // {"global", "nc", "v4", "f32"}.
  std::vector<std::string> modifiers;
  // The operands in the order written. `call` keeps its parenthesized
  // lists as kVector operands (printed back in parentheses), so
  //   call.uni (retval0), vprintf, (param0, param1);
  //     -> {kVector{retval0}, kSymbol vprintf, kVector{param0, param1}}
  //   call.uni _Z3diev, ();         -> {kSymbol _Z3diev, kVector{}}
  //   call (retval0), %rd5, (param0), prototype_0;   (indirect)
  //     -> {kVector{retval0}, kRegister %rd5, kVector{param0},
  //         kSymbol prototype_0}
  // That is: a first kVector operand is the return list (absent when the
  // call returns nothing); the callee follows; the kVector after it is the
  // argument list; anything after that is the prototype or target list.
  std::vector<Operand> operands;
  int line = 0;  // 1-based line in the text it was read from; 0 if made.
};

// `.reg .b32 %r<14>;` (count 14: %r0 .. %r13), `.reg .pred %p;` (count 0:
// one register named exactly `name`), also several names in one
// declaration (`.reg .b32 a, b;` is two RegisterDecls).
struct RegisterDecl {
  // "b32", "pred", "f64", ... without the dot; a vector register
  // (`.reg .v2 .f32 %v;`) is "v2.f32".
  std::string type;
  std::string name;  // "%r" (with count) or the full name
  int count = 0;     // N of <N>; 0: a single register
  int line = 0;
};

enum class StateSpace { kGlobal, kShared, kConst, kLocal, kParam, kTex };

// A variable in a state space, at module scope or inside a function body:
// `.extern .shared .align 16 .b8 tile[];`,
// `.global .align 4 .u32 counter = 5;`, `.shared .align 4 .b8 buf[1024];`.
struct Variable {
  StateSpace space = StateSpace::kGlobal;
  // Linkage as written: "" / "extern" / "visible" / "weak" / "common".
  std::string linkage;
  int align = 0;  // .align N; 0 if not given
  // Other attributes before the type, as written without the first dot:
  // "attribute(.managed)" for `.global .attribute(.managed) .u32 x;`.
  std::vector<std::string> attributes;
  // "b8", "u32", "f32", ... without the dot; a vector variable
  // (`.global .v4 .f32 v;`) is "v4.f32".
  std::string type;
  std::string name;
  // Array dimensions in order: {1024} for buf[1024]; a dimension of -1 is
  // unsized ("tile[]"). Empty for a scalar.
  std::vector<int64_t> dims;
  // The initializer as written after '=' (without the '=' and ';'), or
  // empty if none; the interpreter reads integer and float lists from it.
  std::string initializer;
  int line = 0;
};

// A kernel or function parameter: `.param .u64 name`,
// `.param .align 8 .b8 name[24]` (a struct passed by value).
struct Param {
  std::string type;  // "u64", "b8", "f32" ...; "v2.f32" for `.v2 .f32`
  std::string name;
  int align = 0;           // 0 if not given
  int64_t array_size = 0;  // [24] -> 24; 0 for a scalar
  // Attributes written before the type (".ptr", ".global", ".align" ...
  // of `.param .u64 .ptr .global .align 8 name`) other than .align, as
  // written, without dots.
  std::vector<std::string> attributes;
};

// What a function body holds, in order. Braces that open and close a
// nested scope (nvcc emits them around inline assembly) are kept so the
// printer can write them back; registers declared in a scope are visible
// until its closing brace.
struct ScopeOpen {
  int line = 0;
};
struct ScopeClose {
  int line = 0;
};
struct Label {
  std::string name;  // "$L__BB0_3"
  int line = 0;
};
// A directive the tree does not model (".pragma \"nounroll\";", ".loc 1 5
// 3"; `prototype_0 : .callprototype ...;` is a Label and the RawStatement
// ".callprototype ...;"), its whole text as written (a ';' included),
// without the trailing newline.
struct RawStatement {
  std::string text;
  int line = 0;
};
using Statement = std::variant<Instruction, Label, RegisterDecl, Variable,
                               ScopeOpen, ScopeClose, RawStatement>;

struct Function {
  bool is_entry = false;  // .entry (a kernel) or .func
  std::string linkage;    // "" / "visible" / "extern" / "weak"
  std::string name;
  std::vector<Param>
      return_params;  // .func only: `.func (.param .b32 r) f(...)`
  std::vector<Param> params;
  // Performance directives between the parameter list and the body, each as
  // written without the trailing newline (".maxntid 256, 1, 1",
  // ".reqntid 128", ".minnctapersm 2", ".maxnreg 64", ".noreturn").
  std::vector<std::string> directives;
  bool has_body = false;  // false for a declaration (`.extern .func f(...);`)
  std::vector<Statement> body;
  int line = 0;
};

// A top-level directive the tree does not model (".file 1 \"k.cu\"",
// "// comment" is not kept), as written.
struct RawDirective {
  std::string text;
  int line = 0;
};
using TopLevel = std::variant<Variable, Function, RawDirective>;

struct Module {
  int version_major = 0;  // .version 9.0
  int version_minor = 0;
  std::string target;  // ".target sm_80" -> "sm_80"; extra flags after a
                       // comma (", debug") kept in target_flags
  std::vector<std::string> target_flags;
  int address_size = 64;        // .address_size
  std::vector<TopLevel> items;  // in the order written
};

}  // namespace colo::ptx
