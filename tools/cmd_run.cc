// `colo run [--class best-effort|high] [--token T] [--require-class]
//  [--socket PATH] [--preload LIB] [--allow-static-cudart] [--verbose]
//  [--execute] [--memory-persistent SIZE --memory-ephemeral SIZE]
//  [--iterations N] [--iteration-range PATTERN [--iteration-domain D]]
//  -- PROGRAM ARGS...`: runs an
// unmodified CUDA program under the interposer against colod. It only sets the
// environment (LD_PRELOAD, COLO_SOCKET, COLO_CLASS, COLO_TOKEN,
// COLO_REQUIRE_CLASS, COLO_EXECUTE with
// --execute, COLO_MEMORY_PERSISTENT and COLO_MEMORY_EPHEMERAL in bytes: the
// memory the program declares, which colod admits to a memory lane and
// holds it to; COLO_ITERATIONS, the iterations it declares, which colod's
// srtf and colo policies order by; with --iteration-range, COLO_ITERATION_RANGE
// (COLO_ITERATION_DOMAIN) and NVTX_INJECTION64_PATH (the interposer: its
// iterations end at its NVTX ranges, shim/nvtx_injection.h);
// CUDA_MPS_PIPE_DIRECTORY when
// colod runs its clients over MPS, and LD_LIBRARY_PATH when the machine has
// no CUDA driver library: ProvideDriverLibrary) and execs the program; the
// class is a request that colod grants from its own configuration (the
// interposer warns when it does not; --require-class asks colod first and
// refuses). It refuses a program that carries its own copy of the CUDA runtime
// (nvcc's default, -cudart static): that copy talks to the driver directly, so
// no interposer sees its calls.
#include <dlfcn.h>
#include <limits.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ipc/byte_size.h"
#include "ipc/runtime_client.h"
#include "shim/colod_credentials.h"
#include "tools/cli_status.h"
#include "tools/commands.h"

namespace colo::tools {
namespace {

struct RunFlags {
  std::string cls = "best-effort";
  std::string token;
  std::string socket;
  std::string preload;
  bool allow_static_cudart = false;
  bool require_class = false;
  bool verbose = false;
  bool execute = false;           // --execute: kernels compute (COLO_EXECUTE=1)
  std::string memory_persistent;  // --memory-persistent: "2GiB"; "" none
  std::string memory_ephemeral;   // --memory-ephemeral: "512MiB"; "" none
  int64_t iterations = 0;         // --iterations: declared; 0 none
  std::string iteration_range;    // --iteration-range: glob; "" none
  std::string iteration_domain;   // --iteration-domain: glob; "" default
  std::vector<std::string> command;
};

// libcolo_preload.so next to the running `colo` executable (a build
// folder), else in ../lib/colo/ from it (an installed tree: bin/colo and
// lib/colo/libcolo_preload.so, packaging/CMakeLists.txt).
std::string DefaultPreload() {
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return "libcolo_preload.so";
  self[n] = '\0';
  std::string dir(self);
  dir = dir.substr(0, dir.rfind('/'));
  const std::string beside = dir + "/libcolo_preload.so";
  if (access(beside.c_str(), F_OK) == 0) return beside;
  const std::string installed = dir + "/../lib/colo/libcolo_preload.so";
  if (access(installed.c_str(), F_OK) == 0) return installed;
  return beside;  // named in the error when neither exists
}

// A program linked with the CUDA driver (-lcuda) cannot load where the
// machine has no libcuda.so.1 (no GPU driver): then it gets colo's driver
// library for the simulated GPU, sim_driver/libcuda.so.1 beside the
// interposer, through LD_LIBRARY_PATH. Says which driver library the
// program gets on stderr when it links the driver (`links_driver`) and it
// is colo's, or with `verbose`. NotFound if neither exists.
Status ProvideDriverLibrary(const std::string& preload, bool links_driver,
                            bool verbose) {
  if (void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    if (verbose) {
      char path[PATH_MAX] = "libcuda.so.1";
      (void)dlinfo(driver, RTLD_DI_ORIGIN, path);
      std::fprintf(stderr,
                   "colo: the program gets the machine's CUDA driver "
                   "library (libcuda.so.1 in %s)\n",
                   path);
    }
    dlclose(driver);
    return OkStatus();
  }
  const std::string dir =
      preload.substr(0, preload.find_last_of('/') + 1) + "sim_driver";
  if (access((dir + "/libcuda.so.1").c_str(), R_OK) != 0) {
    return NotFoundError(
        "this machine has no CUDA driver library (libcuda.so.1), and colo's "
        "driver library for the simulated GPU is not at " +
        dir + "/libcuda.so.1; a program linked with -lcuda cannot load");
  }
  std::string path = dir;
  if (const char* old = std::getenv("LD_LIBRARY_PATH"); old && *old) {
    path += std::string(":") + old;
  }
  setenv("LD_LIBRARY_PATH", path.c_str(), 1);
  if (!links_driver && !verbose) return OkStatus();
  std::fprintf(stderr,
               "colo: note: this machine has no CUDA driver library "
               "(libcuda.so.1); the program gets colo's driver library for "
               "the simulated GPU (%s/libcuda.so.1), which answers the driver "
               "calls colo does not implement with CUDA_ERROR_NOT_SUPPORTED\n",
               dir.c_str());
  return OkStatus();
}

// The bytes of `path` if it is a regular ELF file of at most 1 GiB, else
// nothing. Never throws.
std::optional<std::string> ReadElf(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size > (uintmax_t{1} << 30)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  std::string bytes(static_cast<size_t>(size), '\0');
  if (!in.read(bytes.data(), static_cast<std::streamsize>(size)))
    return std::nullopt;
  if (bytes.rfind("\x7f"
                  "ELF",
                  0) != 0)
    return std::nullopt;
  return bytes;
}

// An ELF file that mentions COLO_SOCKET, the variable the interposer reads.
bool LooksLikeTheInterposer(const std::string& path) {
  const auto bytes = ReadElf(path);
  return bytes && bytes->find("COLO_SOCKET") != std::string::npos;
}

// The file execvp would run for `name`: `name` itself if it holds a '/',
// else the first executable regular file of that name on $PATH; empty if
// none.
std::string ProgramPath(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  for (;;) {
    const size_t end = dirs.find(':', start);
    std::string dir =
        dirs.substr(start, end == std::string::npos ? end : end - start);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec) &&
        access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    if (end == std::string::npos) return "";
    start = end + 1;
  }
}

// Whether the executable links the CUDA runtime statically. Every CUDA
// runtime holds the names of its error codes for cudaGetErrorName, among
// them cudaErrorCudartUnloading, which a program has no reason to spell
// itself; a program that links libcudart.so dynamically leaves that table in
// the library. The table is data, so a stripped executable still holds it.
bool CarriesStaticCudaRuntime(const std::string& program) {
  const auto bytes = ReadElf(program);
  return bytes && bytes->find("cudaErrorCudartUnloading") != std::string::npos;
}

// Whether colod's peer uid may tell this program where its MPS daemon is:
// root, this user, or a uid in COLO_SERVER_UID (comma-separated), the
// servers the interposer trusts with a token. Another user's socket could
// otherwise put the program's GPU context in that user's MPS server.
bool TrustedServer(uid_t uid) {
  if (uid == 0 || uid == getuid()) return true;
  std::vector<uid_t> servers;
  if (!shim::ParseServerUids(std::getenv("COLO_SERVER_UID"), &servers)) {
    return false;
  }
  return std::find(servers.begin(), servers.end(), uid) != servers.end();
}

// colod's MPS pipe directory (its stats' "mps.pipe_dir"), when colod runs
// its clients over MPS; "" when it does not, cannot be reached (the
// interposer reports that at the program's first CUDA call) or is not
// trusted. Bounded: a wedged colod costs 5 s.
std::string ColodMpsPipeDir(const std::string& socket_flag) {
  ipc::ClientOptions o;
  o.socket_path = socket_flag;
  if (o.socket_path.empty()) {
    const char* env = std::getenv("COLO_SOCKET");
    o.socket_path = env != nullptr && *env ? env : "/run/colo/colod.sock";
  }
  o.role = ipc::ClientRole::kMonitor;
  o.program = "colo-run";
  o.reply_timeout = Seconds(5);
  Result<std::unique_ptr<ipc::RuntimeClient>> client =
      ipc::RuntimeClient::Connect(o);
  if (!client.ok()) return "";
  Result<std::string> stats = (*client)->Stats();
  if (!stats.ok()) return "";
  const nlohmann::json j = nlohmann::json::parse(*stats, nullptr, false);
  if (j.is_discarded() || !j.contains("mps") || !j["mps"].is_object() ||
      !j["mps"].contains("pipe_dir") || !j["mps"]["pipe_dir"].is_string()) {
    return "";
  }
  const std::string dir = j["mps"]["pipe_dir"].get<std::string>();
  if (dir.empty() || dir.front() != '/') return "";
  ucred peer{};
  socklen_t len = sizeof peer;
  if (getsockopt((*client)->socket_fd(), SOL_SOCKET, SO_PEERCRED, &peer,
                 &len) != 0 ||
      !TrustedServer(peer.uid)) {
    std::fprintf(stderr,
                 "colo: colod at %s runs as uid %u, not root, you or one of "
                 "COLO_SERVER_UID: not using its MPS pipe directory %s\n",
                 o.socket_path.c_str(), static_cast<unsigned>(peer.uid),
                 dir.c_str());
    return "";
  }
  return dir;
}

// With --require-class high: asks colod, as this process (which becomes the
// program: same pid, uid, cgroup) with the token, which class it grants;
// InvalidArgument (exit 2: the run asked for what it may not have) with
// colod's reason if not high. Unavailable if colod cannot be reached. Bounded:
// a wedged colod costs 5 s.
Status CheckClassGranted(const RunFlags& f) {
  ipc::ClientOptions o;
  o.socket_path = f.socket;
  if (o.socket_path.empty()) {
    const char* env = std::getenv("COLO_SOCKET");
    o.socket_path = env != nullptr && *env ? env : "/run/colo/colod.sock";
  }
  o.requested_class = ipc::WireClass::kHigh;
  o.token = f.token;
  o.program = "colo-run";
  o.reply_timeout = Seconds(5);
  Result<std::unique_ptr<ipc::RuntimeClient>> client =
      ipc::RuntimeClient::Connect(o);
  if (!client.ok()) {
    return UnavailableError("--require-class: cannot ask colod at " +
                            o.socket_path + ": " + client.status().message());
  }
  const ipc::WelcomeMsg& w = (*client)->welcome();
  if (w.granted_class == static_cast<uint32_t>(ipc::WireClass::kHigh))
    return OkStatus();
  return InvalidArgumentError(
      "--require-class: colod does not grant high priority: " +
      ipc::ReadPrintable(w.class_reason));
}

// --iteration-range: NVTX loads its injection library from
// NVTX_INJECTION64_PATH (an absolute path; the preloaded interposer is the
// same copy), and the interposer counts ranges matching
// COLO_ITERATION_RANGE in the domains COLO_ITERATION_DOMAIN names (unset:
// the default domain). A user's own NVTX_INJECTION64_PATH (a profiler's)
// is kept, and then the ranges cannot be seen: iterations end at
// synchronizing calls, as said on stderr.
Status SetIterationRange(const std::string& pattern, const std::string& domain,
                         const std::string& preload) {
  if (pattern.empty() && !domain.empty()) {
    return InvalidArgumentError(
        "--iteration-domain names the NVTX domains of --iteration-range's "
        "ranges: give --iteration-range too");
  }
  if (pattern.empty()) return OkStatus();
  char real[PATH_MAX];
  if (realpath(preload.c_str(), real) == nullptr) {
    return NotFoundError("interposer " + preload + ": " + std::strerror(errno));
  }
  const char* old = std::getenv("NVTX_INJECTION64_PATH");
  if (old != nullptr && *old != '\0' && std::string(old) != real) {
    std::fprintf(stderr,
                 "colo: NVTX_INJECTION64_PATH=%s is set (another tool's): "
                 "colod cannot see the program's NVTX ranges, so its "
                 "iterations end at its synchronizing calls, not at "
                 "--iteration-range '%s'\n",
                 old, pattern.c_str());
    return OkStatus();
  }
  setenv("NVTX_INJECTION64_PATH", real, 1);
  setenv("COLO_ITERATION_RANGE", pattern.c_str(), 1);
  if (!domain.empty()) setenv("COLO_ITERATION_DOMAIN", domain.c_str(), 1);
  return OkStatus();
}

// Returns only on failure (exec replaces the process on success).
Status RunProgram(const RunFlags& f) {
  if (f.cls != "best-effort" && f.cls != "high") {
    return InvalidArgumentError(
        "--class must be 'best-effort' or 'high', not '" + f.cls + "'");
  }
  if (f.command.empty()) {
    return InvalidArgumentError("give the program to run after '--'");
  }
  if (f.memory_persistent.empty() != f.memory_ephemeral.empty()) {
    return InvalidArgumentError(
        "give --memory-persistent and --memory-ephemeral together (use 0 for "
        "none of one kind)");
  }
  for (auto [flag, text, env] :
       {std::tuple{"--memory-persistent", &f.memory_persistent,
                   "COLO_MEMORY_PERSISTENT"},
        std::tuple{"--memory-ephemeral", &f.memory_ephemeral,
                   "COLO_MEMORY_EPHEMERAL"}}) {
    if (text->empty()) continue;
    Result<int64_t> bytes = ipc::ParseByteSize(*text);
    if (!bytes.ok()) {
      return InvalidArgumentError(std::string(flag) + ": " +
                                  bytes.status().message());
    }
    setenv(env, std::to_string(*bytes).c_str(), 1);
  }
  if (f.iterations < 0 || f.iterations > ipc::kMaxDeclaredIterations) {
    return InvalidArgumentError(
        "--iterations must be a whole number in [1, 2^30 - 1] (0: none), "
        "not " +
        std::to_string(f.iterations));
  }
  if (f.iterations > 0) {
    setenv("COLO_ITERATIONS", std::to_string(f.iterations).c_str(), 1);
  }
  if (f.require_class && f.cls == "high") {
    COLO_RETURN_IF_ERROR(CheckClassGranted(f));
    // Also for the program's own connection (a grant may change meanwhile).
    setenv("COLO_REQUIRE_CLASS", "1", 1);
  }
  const std::string preload = f.preload.empty() ? DefaultPreload() : f.preload;
  if (access(preload.c_str(), R_OK) != 0) {
    return NotFoundError("interposer " + preload +
                         " not found (give --preload PATH)");
  }
  // ld.so skips a file it cannot preload, with only a warning, and a wrong
  // library preloads quietly: either way the program would run without
  // colod. colo's interposer is the shared object that reads COLO_SOCKET.
  if (!LooksLikeTheInterposer(preload)) {
    return InvalidArgumentError(
        "--preload " + preload +
        " is not colo's interposer (libcolo_preload.so): the program would "
        "run without colod");
  }
  const std::string program = ProgramPath(f.command[0]);
  if (!f.allow_static_cudart && !program.empty() &&
      CarriesStaticCudaRuntime(program)) {
    return InvalidArgumentError(
        "'" + program +
        "' links the CUDA runtime statically (nvcc's default), and that copy "
        "calls the driver directly: the interposer would see none of its CUDA "
        "calls, so colod would neither schedule nor account it (on a machine "
        "without a GPU its calls fail with cudaErrorInsufficientDriver, "
        "whatever colod simulates). Rebuild it with "
        "'nvcc -cudart shared' (CMake: CUDA_RUNTIME_LIBRARY Shared), or give "
        "--allow-static-cudart to run it anyway");
  }
  std::string ld = preload;
  if (const char* old = std::getenv("LD_PRELOAD"); old && *old) {
    ld += std::string(":") + old;
  }
  setenv("LD_PRELOAD", ld.c_str(), 1);
  COLO_RETURN_IF_ERROR(
      SetIterationRange(f.iteration_range, f.iteration_domain, preload));
  // The program's own dynamic section names libcuda.so.1 when it links the
  // driver (its libraries may too: then the note is not said).
  const std::optional<std::string> image =
      program.empty() ? std::nullopt : ReadElf(program);
  const bool links_driver =
      image && image->find("libcuda.so.1") != std::string::npos;
  if (Status driver = ProvideDriverLibrary(preload, links_driver, f.verbose);
      !driver.ok() && (links_driver || f.verbose)) {
    // Only a program that links the driver fails to load: say why, and run.
    std::fprintf(stderr, "colo: %s\n", std::string(driver.message()).c_str());
  }
  if (f.execute) setenv("COLO_EXECUTE", "1", 1);
  if (!f.socket.empty()) setenv("COLO_SOCKET", f.socket.c_str(), 1);
  setenv("COLO_CLASS", f.cls.c_str(), 1);
  if (!f.token.empty()) setenv("COLO_TOKEN", f.token.c_str(), 1);
  // The CUDA driver reads it when the program initializes CUDA: then its
  // context is one of the MPS server's that colod's other clients share.
  if (const std::string mps = ColodMpsPipeDir(f.socket); !mps.empty()) {
    const char* old = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
    if (old != nullptr && mps != old) {
      std::fprintf(stderr,
                   "colo: CUDA_MPS_PIPE_DIRECTORY=%s replaced by colod's MPS "
                   "pipe directory %s\n",
                   old, mps.c_str());
    }
    setenv("CUDA_MPS_PIPE_DIRECTORY", mps.c_str(), 1);
  }
  std::vector<char*> argv;
  for (const std::string& a : f.command) {
    argv.push_back(const_cast<char*>(a.c_str()));
  }
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  const int err = errno;
  if (err == ENOENT && f.command[0].find('/') != std::string::npos &&
      access(f.command[0].c_str(), F_OK) == 0) {
    return InvalidArgumentError(
        "cannot run '" + f.command[0] +
        "': it exists, but its interpreter (#! line) or loader was not found");
  }
  if (err == ENOENT)
    return NotFoundError("program '" + f.command[0] + "' not found");
  return InternalError("cannot run '" + f.command[0] +
                       "': " + std::strerror(err));
}

}  // namespace

void RegisterRunCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<RunFlags>();
  CLI::App* sub = app.add_subcommand(
      "run",
      "Run an unmodified CUDA program under colod (colo run -- PROG ARGS)");
  sub->add_option("--class", flags->cls,
                  "priority class to ask for: best-effort (default) or high; "
                  "colod grants high only per its config");
  sub->add_option("--token", flags->token,
                  "a priority token issued by the operator");
  sub->add_option(
      "--socket", flags->socket,
      "colod's socket (default: $COLO_SOCKET or /run/colo/colod.sock)");
  sub->add_option("--preload", flags->preload,
                  "the interposer (default: libcolo_preload.so beside colo)");
  sub->add_flag("--allow-static-cudart", flags->allow_static_cudart,
                "run a program that links the CUDA runtime statically (nvcc's "
                "default) although the interposer cannot see its CUDA calls");
  sub->add_flag("--require-class", flags->require_class,
                "with --class high: refuse to run (exit 2) unless colod grants "
                "high priority; without it a program colod runs best-effort "
                "only warns");
  sub->add_flag(
      "--verbose", flags->verbose,
      "say which CUDA driver library (libcuda.so.1) the program gets");
  sub->add_flag("--execute", flags->execute,
                "simulated GPU: run the program's kernels on colo's PTX "
                "interpreter too, so that they compute (slow; for tests and "
                "small inputs)");
  sub->add_option("--memory-persistent", flags->memory_persistent,
                  "memory the program keeps for its life (weights, optimizer "
                  "state), e.g. 2GiB: colod admits it to a memory lane and "
                  "refuses allocations past persistent + ephemeral");
  sub->add_option("--memory-ephemeral", flags->memory_ephemeral,
                  "memory one iteration needs (activations), e.g. 512MiB");
  sub->add_option("--iterations", flags->iterations,
                  "the iterations the program will run (each ended by a "
                  "synchronizing call, or by a range of --iteration-range): "
                  "colod's srtf and colo job policies "
                  "run the client with the least remaining time first");
  sub->add_option(
      "--iteration-range", flags->iteration_range,
      "the program's iterations end where its NVTX ranges of this name end "
      "(a glob; '*': every range pushed at depth 0), not at its "
      "synchronizing calls: colod counts and times them from the ranges "
      "(default: none)");
  sub->add_option(
      "--iteration-domain", flags->iteration_domain,
      "the NVTX domains whose ranges --iteration-range matches (a glob over "
      "domain names: 'megatron', '*' for all; default: the default domain "
      "only)");
  sub->add_option("command", flags->command, "the program and its arguments");
  // From the program on, every argument is the program's, also without '--':
  // `colo run ./serve --class x` must not take the program's --class.
  sub->positionals_at_end();
  sub->callback(
      [flags, exit_code] { *exit_code = ReportStatus(RunProgram(*flags)); });
}

}  // namespace colo::tools
