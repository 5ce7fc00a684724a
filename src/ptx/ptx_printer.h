// ptx/ptx_printer.h — writes a ptx::Module back as PTX text that ptxas and
// the driver's JIT accept. Reading the printed text gives the same tree
// (ReadPtx(PrintPtx(m)) == m up to line numbers), which the tests check on
// every kernel of the test programs.
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include "ptx/ptx_module.h"

namespace colo::ptx {

std::string PrintPtx(const Module& module);
// One instruction as PTX writes it ("@!%p1 bra $L__BB0_4;"), for error
// messages and the printer.
std::string PrintInstruction(const Instruction& instruction);
std::string PrintOperand(const Operand& operand);

}  // namespace colo::ptx
