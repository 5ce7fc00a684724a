// shim/colod_credentials.h — what the interposer sends colod to prove who
// it is, and whom it sends that to, from the program's environment.
//
// COLO_TOKEN (an operator-issued token) is taken out of the environment the
// first time TakeColodToken() runs, which the interposer does when it first
// connects to colod (when the token is used): from then on the program, and
// every program it starts, no longer sees it. Not earlier, at load time: the
// interposer is loaded into every process LD_PRELOAD reaches, wrappers
// (`timeout`, a shell, a launcher) that never connect included, and those
// must pass the token on to the program that does. The interposer keeps the
// copy; a forked child (same memory) reconnects with it, an exec'd one does
// not have it.
//
// COLO_SERVER_UID names uids, besides root and the program's own, that colod
// may run as: the token is sent only to a server whose SO_PEERCRED uid is
// one of those (ipc::ClientOptions::server_uids).
//
// Thread safety: TakeColodToken may be called from any thread; its first
// call changes the environment (unsetenv), which another thread reading it
// at that moment may or may not see. ParseServerUids is a pure function.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace colo::shim {

// COLO_TOKEN as it was when first called ("" if unset), removed from the
// environment by that first call.
const std::string& TakeColodToken();

// `text` as uids: one decimal uid, or several separated by commas (e.g.
// "0", "998,999"), each in [0, 2^32 - 2]. Returns false (and leaves `uids`
// empty) if any part is not such a number, or `text` is empty.
bool ParseServerUids(const char* text, std::vector<uid_t>* uids);

}  // namespace colo::shim
