// What a program under the interposer sees of colod's environment
// variables, for tests/runtime/colod_security_test.cc: it allocates through
// the driver API (found with dlsym, so it links no CUDA library), which
// connects to colod, then prints "alloc=<CUresult>",
// "token=<COLO_TOKEN or none>" and, from a child shell, what a program it
// starts would see ("child_token=...").
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

int main() {
  using Alloc = int (*)(unsigned long long*, size_t);
  using Free = int (*)(unsigned long long);
  auto alloc = reinterpret_cast<Alloc>(dlsym(RTLD_DEFAULT, "cuMemAlloc_v2"));
  auto free_fn = reinterpret_cast<Free>(dlsym(RTLD_DEFAULT, "cuMemFree_v2"));
  if (alloc == nullptr || free_fn == nullptr) {
    std::printf("no cuMemAlloc_v2\n");
    return 1;
  }
  unsigned long long d = 0;
  std::printf("alloc=%d\n", alloc(&d, 4096));
  if (d != 0) (void)free_fn(d);
  const char* token = std::getenv("COLO_TOKEN");
  std::printf("token=%s\n", token != nullptr ? token : "none");
  std::fflush(stdout);
  return std::system("echo child_token=${COLO_TOKEN:-none}") == 0 ? 0 : 1;
}
