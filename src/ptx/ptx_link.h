// ptx/ptx_link.h — links several PTX modules into one, as the CUDA driver's
// JIT linker (cuLink*) does for PTX inputs, for colo's interpreter.
//
// The result holds every input's items in input order, under one header:
// the first input's target and address size, and the highest .version of
// all inputs. Symbols resolve as a linker resolves them:
//  * an externally visible definition (.entry, .visible, .weak, .common)
//    is one symbol across inputs: two non-weak definitions of one name are
//    an error; of weak ones the first is kept (a non-weak one wins over
//    weak ones);
//  * an `.extern` declaration of a function or a global / constant variable
//    another input defines is dropped (a declared function is resolved by
//    name; a declared variable must not get storage of its own); one that
//    no input defines is kept once (the device runtime's vprintf, malloc:
//    the interpreter runs what it implements and refuses the rest by name);
//  * a file-local definition (no linkage directive) is private to its
//    input: where an earlier input already has the name, it is renamed in
//    the later input, with every reference to it ("$str" becomes
//    "$str_colo_link1"), so nvcc's per-file names (printf's format strings)
//    never collide.
// `.extern .shared` arrays (dynamic shared memory) are not linkage and are
// left as they are.
//
// Thread safety: a pure function.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "colo/status.h"

namespace colo::ptx {

struct PtxInput {
  std::string text;
  std::string label;  // for messages: "input 2 (kernels.ptx)"
};

// The linked module's PTX text. InvalidArgument naming the input (its
// label) that cannot be read, the symbol two inputs define, or the address
// sizes that differ.
Result<std::string> LinkPtx(const std::vector<PtxInput>& inputs);

// `text` with every whole identifier `from` replaced by `to` (identifiers
// as PTX spells them: letters, digits, '_', '$', '%'; a match must not
// continue an identifier on either side).
std::string RenameIdentifier(std::string_view text, std::string_view from,
                             std::string_view to);

}  // namespace colo::ptx
