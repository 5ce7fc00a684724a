// COLO_TOKEN and COLO_SERVER_UID (colod_credentials.h).
#include "shim/colod_credentials.h"

#include <cerrno>
#include <cstdlib>
#include <string>

namespace colo::shim {

const std::string& TakeColodToken() {
  static const std::string* token = [] {
    const char* v = std::getenv("COLO_TOKEN");
    auto* t = new std::string(v != nullptr ? v : "");
    unsetenv("COLO_TOKEN");
    return t;
  }();
  return *token;
}

bool ParseServerUids(const char* text, std::vector<uid_t>* uids) {
  uids->clear();
  if (text == nullptr || *text == '\0') return false;
  const char* p = text;
  for (;;) {
    if (*p < '0' || *p > '9') break;  // no sign, no space, no empty part
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(p, &end, 10);
    // (uid_t)-1 means "no uid" to the kernel: never a server's.
    if (errno != 0 || v >= 0xFFFFFFFFull) break;
    uids->push_back(static_cast<uid_t>(v));
    if (*end == '\0') return true;
    if (*end != ',') break;
    p = end + 1;
  }
  uids->clear();
  return false;
}

}  // namespace colo::shim
