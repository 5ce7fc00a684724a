// A CUDA client that forks: parent and child both launch (through the
// interposer's cuLaunchKernel found with dlsym) and synchronize. Under
// libcolo_preload.so each must be its own colod client.
// Prints "parent=N" / "child=N" launches; exits non-zero if a call failed.
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

using LaunchFn = int (*)(void*, unsigned, unsigned, unsigned, unsigned,
                         unsigned, unsigned, unsigned, void*, void**, void**);
using SyncFn = int (*)();

int Launch(const char* who, int n) {
  auto launch =
      reinterpret_cast<LaunchFn>(dlsym(RTLD_DEFAULT, "cuLaunchKernel"));
  auto sync =
      reinterpret_cast<SyncFn>(dlsym(RTLD_DEFAULT, "cudaDeviceSynchronize"));
  if (launch == nullptr || sync == nullptr) return 2;
  static int fake_function;
  int ok = 0;
  for (int i = 0; i < n; ++i) {
    if (launch(&fake_function, 8, 1, 1, 64, 1, 1, 0, nullptr, nullptr,
               nullptr) == 0) {
      ++ok;
    }
  }
  const int s = sync();
  std::printf("%s=%d sync=%d\n", who, ok, s);
  std::fflush(stdout);
  return ok == n && s == 0 ? 0 : 1;
}

int main() {
  if (Launch("parent", 5) != 0) return 1;
  pid_t child = fork();
  if (child == 0) _exit(Launch("child", 7));
  int st = 0;
  waitpid(child, &st, 0);
  if (Launch("parent", 3) != 0) return 1;
  return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 3;
}
