// `colo serve CONFIG [--socket PATH] [--squeue-every-s S] [--verbose]`: the
// placement service that Slurm's job_submit plug-in (slurm/job_submit.lua)
// asks for a node and GPU at each GPU job's submission (src/serve,
// docs/slurm.md). It keeps the jobs it placed; with --squeue-every-s it
// reads Slurm's own view (`squeue --json`) that often and after each
// request: which of its placements still exist (the `colo[cN]` tag the
// plug-in writes in each job's comment; it forgets the others), on which
// GPUs Slurm ran them, and the running GPU jobs Slurm placed itself (colo
// serve down or not asked), which it counts on their GPUs until they end
// (PlacementService::Observe). It refuses to start when its nodes are not
// Slurm's (sinfo).
#include <signal.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "colo/clock.h"
#include "serve/line_server.h"
#include "serve/placement_service.h"
#include "serve/slurm_jobs.h"
#include "tools/cli_status.h"
#include "tools/commands.h"

namespace colo::tools {
namespace {

struct ServeFlags {
  std::string config;
  std::string socket = "/run/colo/serve.sock";
  double squeue_every_s = 0;  // 0: never ask Slurm.
  std::string squeue = "squeue";
  std::string sinfo = "sinfo";
  bool verbose = false;
};

serve::LineServer* g_server = nullptr;

void OnSignal(int) {
  if (g_server != nullptr) g_server->RequestStop();
}

// The output of `command`, or nothing if it fails.
std::optional<std::string> Output(const std::string& command) {
  FILE* p = popen((command + " 2>/dev/null").c_str(), "r");
  if (p == nullptr) return std::nullopt;
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) text.append(buf, n);
  if (pclose(p) != 0) return std::nullopt;
  return text;
}

// Slurm's view, or nothing when squeue fails or writes what colo cannot
// read (then nothing changes; the reason goes to stderr once per kind).
std::optional<serve::SlurmView> ReadSlurmView(const std::string& squeue) {
  const std::string command = squeue + " --json";
  std::optional<std::string> out = Output(command);
  if (!out) return std::nullopt;
  Result<serve::SlurmView> view = serve::ParseSqueueJson(*out, command);
  if (!view.ok()) {
    static std::string last;
    if (view.status().message() != last) {
      last = view.status().message();
      std::fprintf(stderr, "colo serve: %s\n", last.c_str());
    }
    return std::nullopt;
  }
  return std::move(*view);
}

// A node colo does not share with Slurm would make job_submit.lua name a
// node Slurm refuses (the submission fails): refuse to start instead. When
// Slurm cannot be asked, say so and go on.
Status CheckNodesAgainstSlurm(const serve::ServeConfig& config,
                              const std::string& sinfo) {
  std::optional<std::string> text = Output(sinfo + " -h -N -o %N");
  if (!text) {
    std::fprintf(stderr,
                 "colo serve: warning: '%s' failed; the nodes of %s are not "
                 "checked against Slurm's\n",
                 sinfo.c_str(), config.source.c_str());
    return OkStatus();
  }
  std::set<std::string> slurm_nodes;
  std::istringstream in(*text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) slurm_nodes.insert(line);
  }
  std::string unknown;
  for (const serve::NodeSpec& n : config.nodes) {
    if (!slurm_nodes.count(n.name))
      unknown += (unknown.empty() ? "" : ", ") + n.name;
  }
  if (unknown.empty()) return OkStatus();
  return InvalidArgumentError(
      config.source + ": node(s) " + unknown +
      " are not in Slurm's node list (sinfo); job_submit.lua would send jobs "
      "where Slurm cannot run them");
}

// Asks squeue every `period`, and soon after each Poke, on its own thread (a
// slow slurmctld must not hold up answers); the server takes the latest
// view before each answer and at each tick.
class SlurmWatcher {
 public:
  SlurmWatcher(std::string squeue, std::chrono::milliseconds period)
      : squeue_(std::move(squeue)), period_(period) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~SlurmWatcher() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  std::optional<serve::SlurmView> Take() {
    std::lock_guard<std::mutex> l(mu_);
    return std::exchange(latest_, std::nullopt);
  }
  // Reads Slurm's view again now (a request came: Slurm may have started
  // jobs colo did not place).
  void Poke() {
    {
      std::lock_guard<std::mutex> l(mu_);
      poked_ = true;
    }
    cv_.notify_all();
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> l(mu_);
    while (!stop_) {
      poked_ = false;
      l.unlock();
      auto view = ReadSlurmView(squeue_);
      l.lock();
      if (view) latest_ = std::move(view);
      cv_.wait_for(l, period_, [this] { return stop_ || poked_; });
    }
  }
  std::string squeue_;
  std::chrono::milliseconds period_;
  std::mutex mu_;
  std::condition_variable cv_;
  // State below is protected by mu_.
  bool stop_ = false;
  bool poked_ = false;
  std::optional<serve::SlurmView> latest_;
  std::thread thread_;
};

Status RunServe(const ServeFlags& f) {
  if (f.squeue_every_s < 0 || f.squeue_every_s > 3600)
    return InvalidArgumentError("--squeue-every-s must be in [0, 3600]");
  COLO_ASSIGN_OR_RETURN(serve::ServeConfig config,
                        serve::LoadServeConfig(f.config));
  if (f.squeue_every_s > 0)
    COLO_RETURN_IF_ERROR(CheckNodesAgainstSlurm(config, f.sinfo));
  serve::PlacementService service(std::move(config));
  COLO_ASSIGN_OR_RETURN(std::unique_ptr<serve::LineServer> server,
                        serve::LineServer::Listen(f.socket));
  g_server = server.get();
  signal(SIGINT, OnSignal);
  signal(SIGTERM, OnSignal);
  signal(SIGPIPE, SIG_IGN);
  std::fprintf(stderr,
               "colo serve: listening on %s (%zu nodes, %d GPUs, %d shards "
               "per GPU)\n",
               f.socket.c_str(), service.config().nodes.size(),
               service.config().TotalGpus(), service.config().shards_per_gpu);
  RealClock clock;
  std::unique_ptr<SlurmWatcher> watcher;
  if (f.squeue_every_s > 0) {
    watcher = std::make_unique<SlurmWatcher>(
        f.squeue, std::chrono::milliseconds(
                      static_cast<int64_t>(f.squeue_every_s * 1000)));
  }
  // Slurm's latest view enters the state (PlacementService::Observe).
  auto observe = [&] {
    if (!watcher) return;
    if (auto view = watcher->Take()) {
      const serve::ObserveCounts c =
          service.Observe(*view, clock.Now(), Seconds(30));
      if (f.verbose && (c.dropped || c.moved || c.unknown_nodes)) {
        std::fprintf(stderr,
                     "colo serve: Slurm's view: forgot %d placement(s), %d "
                     "ran on other GPUs, %d job(s) on nodes colo lacks; %d "
                     "running job(s) Slurm placed itself\n",
                     c.dropped, c.moved, c.unknown_nodes, c.from_slurm);
      }
    }
  };
  auto handle = [&](const std::string& line) {
    observe();
    std::string answer = service.Handle(line, clock.Now());
    // A placement asked: Slurm may be starting jobs; read its view again
    // (pokes coalesce: one squeue at a time).
    if (watcher && line.find(R"("op":"place")") != std::string::npos)
      watcher->Poke();
    if (f.verbose)
      std::fprintf(stderr, "colo serve: %s -> %s\n", line.c_str(),
                   answer.c_str());
    return answer;
  };
  Status s = server->Run(handle, observe, Milliseconds(200));
  g_server = nullptr;
  std::fprintf(stderr, "colo serve: stopped\n");
  return s;
}

}  // namespace

void RegisterServeCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<ServeFlags>();
  CLI::App* cmd = app.add_subcommand(
      "serve", "placement service for Slurm's job_submit plug-in");
  cmd->add_option("config", f->config, "serve configuration (YAML)")
      ->required();
  cmd->add_option("--socket", f->socket,
                  "Unix socket to listen on (default /run/colo/serve.sock)");
  cmd->add_option("--squeue-every-s", f->squeue_every_s,
                  "read Slurm's view (squeue --json) this often and after "
                  "each request: which placements still exist, and the "
                  "running GPU jobs Slurm placed itself (0: never; default "
                  "0)");
  cmd->add_option("--squeue", f->squeue, "squeue command (default squeue)");
  cmd->add_option("--sinfo", f->sinfo,
                  "sinfo command, to check the nodes against Slurm's at start "
                  "with --squeue-every-s (default sinfo)");
  cmd->add_flag("--verbose", f->verbose, "log every request and answer");
  cmd->callback([=] { *exit_code = ReportStatus(RunServe(*f)); });
}

}  // namespace colo::tools
