// ptx/ptx_reader.h — reads PTX text (what nvcc --ptx writes, what a fat
// binary carries) into a ptx::Module (ptx_module.h).
//
// A real reader, not line matching: a tokenizer (identifiers with their
// dots, %registers, $labels, integer and 0f/0d float literals, strings,
// punctuation; // and /* */ comments skipped) and a recursive-descent parser
// of the directives, declarations and instructions PTX 7.0 to 9.x writes.
// It reads the whole instruction set's syntax (opcode, modifiers, operands)
// without knowing every opcode's meaning: what an instruction does is the
// interpreter's business (ptx_interpreter.h), and an opcode nobody knows is
// refused there, by name. ptx_parser.h spells out the grammar; ptx_module.h
// says how each construct lands in the tree (`call` operands included).
//
// Errors: InvalidArgument "<source>:<line>:<column>: <what was expected>,
// found '<token>'", for a malformed or truncated text, a missing .version /
// .target, or a .version whose major is not 6 to 9 (what nvcc 11-13 writes;
// "unknown PTX version 10.0"). Never a crash or an unbounded loop on any
// input (fuzz/ has a target for it).
//
// Thread safety: pure functions.
#pragma once

#include <string_view>

#include "colo/status.h"
#include "ptx/ptx_module.h"

namespace colo::ptx {

// Reads `text`; `source` names it in errors (a file name, or
// "<fatbin kernel.cu>").
Result<Module> ReadPtx(std::string_view text, std::string_view source);

// The function named `name` of `module` (an .entry or a .func with a
// body), or nullptr.
const Function* FindFunction(const Module& module, std::string_view name);
Function* FindFunction(Module& module, std::string_view name);

}  // namespace colo::ptx
