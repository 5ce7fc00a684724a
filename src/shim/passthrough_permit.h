// shim/passthrough_permit.h — whether the node's operator allowed the
// interposer's pass-through (COLO_SHIM_PASSTHROUGH=1: every CUDA call goes
// straight to the real libraries, outside colod).
//
// The variable alone is a user's wish, which must not take a program out of
// colod's control. The operator allows pass-through on a node by creating
// the permit file, whose path is fixed when the interposer is built
// (kPassthroughPermitPath; CMake's COLO_SHIM_PASSTHROUGH_PERMIT). The
// interposer honours the variable only where that file is a regular file
// (not a symbolic link) owned by root, writable by no one else, in a
// directory owned by root that no one else may write to (so a user can
// neither edit the file nor put another in its place). Its contents do not
// matter.
//
// Thread safety: CheckPassthroughPermit is a pure function of the file
// system; call it from any thread.
#pragma once

#include <sys/types.h>

#include <string>

#include "colo/status.h"

namespace colo::shim {

// The permit's path, fixed at build time.
extern const char* const kPassthroughPermitPath;

// OK if `path` is a permit that `operator_uid` issued (the interposer passes
// 0, root; tests their own uid): a regular file owned by `operator_uid`,
// not writable by its group or others, in a directory that is owned by
// `operator_uid` (or root) and not writable by its group or others.
// Otherwise FailedPrecondition with a sentence that names what is wrong
// ("... does not exist", "... is writable by group or others", ...).
Status CheckPassthroughPermit(const std::string& path, uid_t operator_uid);

}  // namespace colo::shim
