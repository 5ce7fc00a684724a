// tests/runtime/gate_test_client.h — the client's side of gate mode by
// hand, for tests that play the interposer against colod: it defines one
// kernel (with the forms it says it can build), pushes launches of it on
// the ring (waiting for a grant, or issued itself), reads colod's grants
// and retreats from the gate channel and reports kDone naming the grant.
#pragma once

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "ipc/launch_ring.h"
#include "ipc/runtime_client.h"
#include "ipc/wire.h"

namespace colo::runtime {

inline bool WaitFor(const std::function<bool()>& pred,
                    std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return pred();
}

class HandGateClient {
 public:
  // `token`: the operator's token for high priority (none: best effort);
  // `ask_high`: what the client asks for (COLO_CLASS=high).
  HandGateClient(const std::string& socket, const std::string& token,
                 bool ask_high, const char* program = "hand") {
    ipc::ClientOptions o;
    o.socket_path = socket;
    o.program = program;
    o.token = token;
    o.requested_class =
        ask_high ? ipc::WireClass::kHigh : ipc::WireClass::kBestEffort;
    auto c = ipc::RuntimeClient::Connect(o);
    if (c.ok()) client_ = std::move(*c);
  }
  bool ok() const { return client_ != nullptr; }
  ipc::RuntimeClient& client() { return *client_; }
  void Close() { client_.reset(); }
  bool issue_at_once() const { return client_->welcome().issue_at_once != 0; }

  // The kernel its launches run: `blocks` x 1 x 1 blocks of 32 threads,
  // declared with these forms (ipc::kKernel*Form). Before the first launch.
  void SetKernel(uint32_t blocks, uint32_t form_flags) {
    blocks_ = blocks;
    form_flags_ = form_flags;
  }

  // Pushes a launch on `stream`: one waiting for its grant, or (`issued_ns`
  // set) one the client issued then. Returns its sequence number.
  uint64_t Launch(uint32_t stream = 0,
                  std::optional<int64_t> issued_ns = std::nullopt) {
    if (!defined_) {
      ipc::RingEntry def;
      def.type = static_cast<uint32_t>(ipc::EntryType::kDefineKernel);
      def.func_id = 1;
      def.flags = form_flags_;
      ipc::CopyString(def.name, "_Z10gate_probev");
      EXPECT_TRUE(client_->ring()->Push(def).ok());
      defined_ = true;
    }
    ipc::RingEntry e;
    e.type = static_cast<uint32_t>(ipc::EntryType::kLaunch);
    e.seq = ++seq_;
    e.func_id = 1;
    e.stream_id = stream;
    e.grid[0] = blocks_;
    e.block[0] = 32;
    if (issued_ns) {
      e.flags = ipc::kLaunchIssued;
      e.issued_ns = *issued_ns;
    }
    EXPECT_TRUE(client_->ring()->Push(e).ok());
    return e.seq;
  }
  uint64_t Issue() { return Launch(0, NowNs()); }

  // The next packet from colod (a grant or a retreat) within `timeout`.
  std::optional<ipc::GateMsg> Next(std::chrono::milliseconds timeout) {
    pollfd p{client_->gate_fd(), POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(timeout.count())) <= 0)
      return std::nullopt;
    ipc::GateMsg g;
    if (recv(client_->gate_fd(), &g, sizeof(g), 0) != sizeof(g))
      return std::nullopt;
    if (g.type == static_cast<uint32_t>(ipc::GateMsgType::kGrant))
      grants_[g.seq] = g.grant;
    return g;
  }
  // The next grant (of the whole kernel) within `timeout`: its sequence.
  std::optional<uint64_t> NextGrant(std::chrono::milliseconds timeout) {
    std::optional<ipc::GateMsg> g = Next(timeout);
    if (!g) return std::nullopt;
    EXPECT_EQ(g->type, static_cast<uint32_t>(ipc::GateMsgType::kGrant));
    EXPECT_EQ(g->form, static_cast<uint32_t>(ipc::GateForm::kWhole));
    return g->seq;
  }
  // Reports launch `seq` done, naming its last grant (or `grant` if given);
  // a persistent part stopped at `next_block`.
  void Done(uint64_t seq, int cuda_error = 0,
            std::optional<uint64_t> grant = std::nullopt,
            uint32_t next_block = 0, bool done_whole = false) {
    ipc::GateMsg g;
    g.type = static_cast<uint32_t>(ipc::GateMsgType::kDone);
    g.seq = seq;
    g.grant = grant ? *grant : grants_[seq];
    g.cuda_error = cuda_error;
    g.next_block = next_block;
    g.done_whole = done_whole ? 1 : 0;
    EXPECT_EQ(send(client_->gate_fd(), &g, sizeof(g), MSG_NOSIGNAL),
              static_cast<ssize_t>(sizeof(g)));
  }
  uint64_t Completed() {
    return client_->ring()->control().completed.load(std::memory_order_acquire);
  }
  static int64_t NowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

 private:
  std::unique_ptr<ipc::RuntimeClient> client_;
  bool defined_ = false;
  uint64_t seq_ = 0;
  uint32_t blocks_ = 1;
  uint32_t form_flags_ = 0;
  std::map<uint64_t, uint64_t> grants_;  // seq -> its last grant's id
};

}  // namespace colo::runtime
