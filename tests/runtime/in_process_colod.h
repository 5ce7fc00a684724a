// tests/runtime/in_process_colod.h — colod on a thread of the test, its
// socket and config in a fresh folder under /tmp (removed at the end). In
// gate mode (`device: cuda` in the config) the GPU is the A100 preset's
// description, or with `real_gpu` GPU 0 as its driver describes it: colod
// never touches the GPU itself in gate mode, so the gate protocol runs on
// machines without one.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>

#include "colo/gpu_spec.h"
#include "ipc/runtime_client.h"
#include "runtime/daemon.h"
#include "runtime/daemon_config.h"

namespace colo::runtime {

class InProcessColod {
 public:
  // `yaml`: the config after its socket line. ok() is false if the config
  // or colod's start failed.
  explicit InProcessColod(const std::string& yaml, bool real_gpu = false) {
    char tmpl[] = "/tmp/colo-in-process-XXXXXX";
    dir_ = mkdtemp(tmpl);
    const std::string path = dir_ + "/c.yaml";
    std::ofstream(path) << "socket: " << socket() << "\n" << yaml;
    Result<DaemonConfig> config = LoadDaemonConfig(path);
    if (!config.ok()) return;
    auto d = real_gpu ? Daemon::Create(*config)
                      : Daemon::Create(*config, GpuPreset("A100").value());
    if (!d.ok()) return;
    daemon_ = std::move(*d);
    thread_ = std::thread([this] { (void)daemon_->Run(); });
  }
  ~InProcessColod() {
    if (daemon_) {
      daemon_->RequestStop();
      thread_.join();
    }
    std::filesystem::remove_all(dir_);
  }
  InProcessColod(const InProcessColod&) = delete;
  InProcessColod& operator=(const InProcessColod&) = delete;

  bool ok() const { return daemon_ != nullptr; }
  std::string socket() const { return dir_ + "/colod.sock"; }
  // colod's state (the `colo top` JSON); null on failure.
  nlohmann::json Stats() const {
    ipc::ClientOptions o;
    o.socket_path = socket();
    o.role = ipc::ClientRole::kMonitor;
    auto c = ipc::RuntimeClient::Connect(o);
    if (!c.ok()) return nullptr;
    auto s = (*c)->Stats();
    return s.ok() ? nlohmann::json::parse(*s, nullptr, false) : nullptr;
  }
  // colod's figures of its client `program` (null if not connected).
  nlohmann::json ClientStats(const std::string& program) const {
    const nlohmann::json s = Stats();
    if (s.is_null()) return nullptr;
    for (const nlohmann::json& c : s["clients"]) {
      if (c["program"] == program) return c;
    }
    return nullptr;
  }

 private:
  std::string dir_;
  std::unique_ptr<Daemon> daemon_;
  std::thread thread_;
};

}  // namespace colo::runtime
