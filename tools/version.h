// tools/version.h — the version `colo --version` and `colod --version`
// print: CMake's project() version, then `git describe` of the source tree
// when it was configured from a git checkout ("0.1.0 (git e31cc18-dirty)").
#pragma once

namespace colo::tools {

// "colo 0.1.0 (git e31cc18)"-style text without the program name; static
// storage.
const char* VersionString();

}  // namespace colo::tools
