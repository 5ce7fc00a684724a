// colod: the daemon. `colod [--config FILE] [--socket PATH]`: loads and
// validates the configuration (exit 2 on bad input), binds the socket and
// serves until SIGTERM/SIGINT. Without --config it reads kDefaultConfigPath
// when that file exists (an installed node's configuration), else it runs
// with the defaults (daemon_config.h).
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "runtime/daemon.h"
#include "runtime/daemon_config.h"
#include "tools/cli_status.h"
#include "tools/version.h"

namespace {
constexpr char kDefaultConfigPath[] = "/etc/colo/colod.yaml";
}  // namespace

int main(int argc, char** argv) {
  // colod's log goes to stderr, often a pipe to a supervisor or a terminal
  // that may go away; a write there must fail with EPIPE, not kill the
  // daemon every client depends on. (Its sockets send with MSG_NOSIGNAL.)
  signal(SIGPIPE, SIG_IGN);
  CLI::App app{
      "colod: the colo daemon (shares a GPU between CUDA programs under a "
      "policy)"};
  std::string config_path;
  std::string socket_override;
  app.set_version_flag("--version",
                       std::string("colod ") + colo::tools::VersionString());
  app.add_option("--config", config_path,
                 std::string("configuration file (YAML; see docs/colod.md); "
                             "default: ") +
                     kDefaultConfigPath +
                     " if it exists, else the built-in defaults (the "
                     "simulated GPU, socket /run/colo/colod.sock)");
  CLI::Option* socket_option =
      app.add_option("--socket", socket_override,
                     "listen on this socket instead of the config's");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  colo::runtime::DaemonConfig config;
  if (config_path.empty() && access(kDefaultConfigPath, F_OK) == 0) {
    config_path = kDefaultConfigPath;
  }
  if (!config_path.empty()) {
    colo::Result<colo::runtime::DaemonConfig> loaded =
        colo::runtime::LoadDaemonConfig(config_path);
    if (!loaded.ok()) return colo::tools::ReportStatus(loaded.status());
    config = *loaded;
  }
  if (socket_option->count() > 0) {
    if (socket_override.empty()) {
      std::fprintf(stderr, "colo: error: --socket: give a path\n");
      return 2;
    }
    config.socket_path = socket_override;
  }
  colo::Result<std::unique_ptr<colo::runtime::Daemon>> daemon =
      colo::runtime::Daemon::Create(config);
  if (!daemon.ok()) return colo::tools::ReportStatus(daemon.status());
  return colo::tools::ReportStatus((*daemon)->Run());
}
