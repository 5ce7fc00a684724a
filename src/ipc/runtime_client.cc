#include "ipc/runtime_client.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

namespace colo::ipc {
namespace {

// FailedPrecondition unless the peer of `fd` runs as root, as this
// process's user or as one of o.server_uids.
Status CheckServerMayHaveToken(int fd, const ClientOptions& o) {
  ucred cred{};
  socklen_t len = sizeof(cred);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
    return UnavailableError(std::string("SO_PEERCRED: ") + strerror(errno));
  if (cred.uid == 0 || cred.uid == getuid() ||
      std::find(o.server_uids.begin(), o.server_uids.end(), cred.uid) !=
          o.server_uids.end()) {
    return OkStatus();
  }
  return FailedPreconditionError("not sending the token to the server at " +
                                 o.socket_path + ": it runs as uid " +
                                 std::to_string(cred.uid) +
                                 ", which is neither root, this user, nor a "
                                 "uid named as colod's (COLO_SERVER_UID)");
}

}  // namespace

RuntimeClient::~RuntimeClient() {
  if (fd_ >= 0) close(fd_);
  if (gate_fd_ >= 0) close(gate_fd_);
}

Result<std::unique_ptr<RuntimeClient>> RuntimeClient::Connect(
    const ClientOptions& o) {
  sockaddr_un addr{};
  if (o.socket_path.empty() || o.socket_path.size() >= sizeof(addr.sun_path)) {
    return InvalidArgumentError("colod socket path '" + o.socket_path +
                                "' is empty or too long");
  }
  std::unique_ptr<RuntimeClient> c(new RuntimeClient());
  c->sync_spin_ = o.sync_spin;
  c->fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (c->fd_ < 0)
    return UnavailableError(std::string("socket: ") + strerror(errno));
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, o.socket_path.data(), o.socket_path.size());
  if (o.reply_timeout > Duration(0)) {
    const int64_t us = std::max<int64_t>(o.reply_timeout.count() / 1000, 1);
    timeval tv{static_cast<time_t>(us / 1'000'000),
               static_cast<suseconds_t>(us % 1'000'000)};
    setsockopt(c->fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(c->fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  }
  if (connect(c->fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    return UnavailableError("cannot reach colod at " + o.socket_path + ": " +
                            strerror(errno));
  }
  if (o.token.size() > kMaxTokenBytes) {
    return InvalidArgumentError(
        "the token is " + std::to_string(o.token.size()) +
        " bytes; colod takes at most " + std::to_string(kMaxTokenBytes));
  }
  if (!o.token.empty())
    COLO_RETURN_IF_ERROR(CheckServerMayHaveToken(c->fd_, o));
  HelloMsg hello;
  hello.role = static_cast<uint32_t>(o.role);
  hello.requested_class = static_cast<uint32_t>(o.requested_class);
  hello.pid = getpid();
  CopyString(hello.token, o.token);
  CopyString(hello.program, o.program);
  hello.persistent_bytes = o.persistent_bytes;
  hello.ephemeral_bytes = o.ephemeral_bytes;
  hello.iterations = o.iterations;
  CopyString(hello.job_id, o.job_id);
  CopyString(hello.step_id, o.step_id);
  std::vector<int> fds;
  int gate_peer = -1;
  if (o.role == ClientRole::kApp) {
    COLO_ASSIGN_OR_RETURN(LaunchRing * ring, LaunchRing::Create());
    c->ring_.reset(ring);
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
      return UnavailableError(std::string("socketpair: ") + strerror(errno));
    c->gate_fd_ = pair[0];
    gate_peer = pair[1];
    fds = {ring->memfd(), ring->eventfd(), gate_peer};
  }
  // colod may refuse a peer before reading anything (its uid): then the send
  // can fail, but the refusal with its reason is still there to read.
  Status sent = SendStruct(c->fd_, MsgType::kHello, hello, fds);
  if (gate_peer >= 0) close(gate_peer);  // colod holds its own copy now.
  Result<Message> got = ReceiveMessage(c->fd_);
  if (!got.ok()) {
    const Status& why = sent.ok() ? got.status() : sent;
    return UnavailableError("no valid answer from colod at " + o.socket_path +
                            ": " + why.message());
  }
  Message reply = std::move(*got);
  for (int f : reply.fds) close(f);
  if (reply.type == MsgType::kRejected) {
    COLO_ASSIGN_OR_RETURN(RejectedMsg r, PayloadAs<RejectedMsg>(reply));
    return FailedPreconditionError("colod rejected the connection: " +
                                   ReadString(r.reason));
  }
  if (reply.type != MsgType::kWelcome)
    return InternalError("colod answered Hello with an unexpected message");
  COLO_ASSIGN_OR_RETURN(c->welcome_, PayloadAs<WelcomeMsg>(reply));
  return c;
}

Status RuntimeClient::Send(Slot slot, MsgType type, const void* payload,
                           size_t length) {
  {
    // Asked before the request leaves, so that a reply read at once by
    // another thread finds its slot expecting it.
    std::lock_guard<std::mutex> lock(recv_mu_);
    if (!broken_.ok()) return broken_;
    asked_[slot] = true;
  }
  return SendOrBreak(type, payload, length);
}

Status RuntimeClient::SendOrBreak(MsgType type, const void* payload,
                                  size_t length) {
  std::lock_guard<std::mutex> lock(send_mu_);
  Status sent = SendMessage(fd_, type, payload, length);
  if (!sent.ok()) {
    // Part of it may have left: what colod reads next is unknowable.
    std::lock_guard<std::mutex> recv_lock(recv_mu_);
    if (broken_.ok()) broken_ = sent;
    recv_cv_.notify_all();
  }
  return sent;
}

Result<Message> RuntimeClient::AwaitReply(Slot slot, Duration spin) {
  std::unique_lock<std::mutex> lock(recv_mu_);
  for (;;) {
    if (replies_[slot]) {
      Message m = std::move(*replies_[slot]);
      replies_[slot].reset();
      return m;
    }
    if (!broken_.ok()) return broken_;
    if (reading_) {
      recv_cv_.wait(lock);
      continue;
    }
    reading_ = true;
    lock.unlock();
    SpinUntilReadable(spin);
    Result<Message> got = ReceiveMessage(fd_);
    lock.lock();
    reading_ = false;
    if (got.ok()) {
      for (int f : got->fds) close(f);
      got->fds.clear();
      const Slot to = got->type == MsgType::kSyncReply ? kSyncSlot : kCallSlot;
      if (!asked_[to] || replies_[to]) {
        broken_ = InternalError("colod sent a reply nobody asked for");
      } else {
        asked_[to] = false;
        replies_[to] = std::move(*got);
      }
    } else {
      broken_ = got.status();
    }
    recv_cv_.notify_all();
  }
}

Result<Message> RuntimeClient::Call(MsgType type, const void* payload,
                                    size_t length, MsgType reply) {
  std::lock_guard<std::mutex> lock(call_mu_);
  COLO_RETURN_IF_ERROR(Send(kCallSlot, type, payload, length));
  COLO_ASSIGN_OR_RETURN(Message m, AwaitReply(kCallSlot, Duration(0)));
  if (m.type != reply) {
    std::lock_guard<std::mutex> recv_lock(recv_mu_);
    broken_ = InternalError("colod sent an unexpected reply");
    recv_cv_.notify_all();
    return broken_;
  }
  return m;
}

Result<int> RuntimeClient::Alloc(uint64_t address, uint64_t bytes) {
  AllocMsg msg{address, bytes};
  COLO_ASSIGN_OR_RETURN(Message m, Call(MsgType::kAlloc, &msg, sizeof(msg),
                                        MsgType::kStatusReply));
  COLO_ASSIGN_OR_RETURN(StatusReplyMsg r, PayloadAs<StatusReplyMsg>(m));
  return r.cuda_error;
}

Result<int> RuntimeClient::Free(uint64_t address) {
  FreeMsg msg{address};
  COLO_ASSIGN_OR_RETURN(Message m, Call(MsgType::kFree, &msg, sizeof(msg),
                                        MsgType::kStatusReply));
  COLO_ASSIGN_OR_RETURN(StatusReplyMsg r, PayloadAs<StatusReplyMsg>(m));
  return r.cuda_error;
}

void RuntimeClient::SpinUntilReadable(Duration spin) const {
  if (spin <= Duration(0)) return;
  using SteadyClock = std::chrono::steady_clock;
  const auto deadline =
      SteadyClock::now() + std::chrono::nanoseconds(spin.count());
  pollfd p{fd_, POLLIN, 0};
  while (SteadyClock::now() < deadline) {
    if (poll(&p, 1, 0) != 0) return;  // readable, closed, or an error to read
    sched_yield();
  }
}

Result<SyncReplyMsg> RuntimeClient::Sync(uint64_t seq, SyncScope scope,
                                         const std::function<bool()>& done) {
  SyncMsg msg;
  msg.seq = seq;
  msg.scope = static_cast<uint32_t>(scope);
  std::unique_lock<std::mutex> lock(sync_mu_, std::defer_lock);
  if (done) {
    while (!lock.try_lock()) {
      if (done()) return SyncReplyMsg{};
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  } else {
    lock.lock();
  }
  COLO_RETURN_IF_ERROR(Send(kSyncSlot, MsgType::kSync, &msg, sizeof(msg)));
  const bool spin =
      ring_ && ring_->control().sync_spin_ok.load(std::memory_order_relaxed);
  COLO_ASSIGN_OR_RETURN(Message m,
                        AwaitReply(kSyncSlot, spin ? sync_spin_ : Duration(0)));
  return PayloadAs<SyncReplyMsg>(m);
}

Result<std::string> RuntimeClient::Stats() {
  COLO_ASSIGN_OR_RETURN(
      Message m, Call(MsgType::kStats, nullptr, 0, MsgType::kStatsReply));
  return std::string(m.payload.begin(), m.payload.end());
}

Status RuntimeClient::Notify(MsgType type, const void* payload, size_t length) {
  {
    std::lock_guard<std::mutex> lock(recv_mu_);
    if (!broken_.ok()) return broken_;
  }
  return SendOrBreak(type, payload, length);
}

Status RuntimeClient::SendRawForTest(const void* data, size_t length) {
  if (send(fd_, data, length, MSG_NOSIGNAL) != static_cast<ssize_t>(length)) {
    return UnavailableError("send failed");
  }
  return OkStatus();
}

}  // namespace colo::ipc
