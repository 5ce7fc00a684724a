// tools/version.cc — the version text, compiled with the one definition
// that changes when the tree does (tools/CMakeLists.txt sets it on this file
// alone, so a new commit recompiles nothing else).
#include "tools/version.h"

#ifndef COLO_VERSION_TEXT
#error "COLO_VERSION_TEXT is set by tools/CMakeLists.txt"
#endif

namespace colo::tools {

const char* VersionString() { return COLO_VERSION_TEXT; }

}  // namespace colo::tools
