// colod's connections (on the thread that runs Daemon::Run()): accepting
// them within the limits of descriptors and of connections that have not
// registered, reading their messages as bytes arrive, sending replies
// without waiting, and closing the ones past their deadlines. No client can
// hold the loop: every socket is non-blocking, and a client is dropped,
// never waited for.
#include <errno.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "runtime/daemon.h"
#include "runtime/daemon_client.h"

namespace colo::runtime {

namespace {

long long Ms(Duration d) { return static_cast<long long>(d.count() / 1000000); }

}  // namespace

void Daemon::Accept() {
  // A bounded batch: a flood of connections must not starve the clients.
  for (int batch = 0; batch < 16 && !listening_paused_; ++batch) {
    const int fd =
        accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
          errno == ENOMEM) {
        OnOutOfDescriptors();
        continue;
      }
      return;  // EAGAIN: nothing more pending.
    }
    ucred cred{};
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
      close(fd);
      continue;
    }
    const bool allowed =
        cred.uid == 0 || cred.uid == geteuid() ||
        std::find(config_.allowed_uids.begin(), config_.allowed_uids.end(),
                  cred.uid) != config_.allowed_uids.end();
    if (!allowed) {
      ++connections_rejected_;
      DaemonLog("rejected connection from uid %u (pid %d): uid not allowed",
                cred.uid, cred.pid);
      ipc::RejectedMsg r;
      ipc::CopyString(r.reason, "uid " + std::to_string(cred.uid) +
                                    " is not allowed to use colod");
      (void)ipc::SendStruct(fd, ipc::MsgType::kRejected, r);  // never waits
      close(fd);
      continue;
    }
    // The oldest connection that has not registered makes room: a client
    // registers within a round trip of connecting, so only connections that
    // sat silent for the longest are closed.
    if (unregistered_.size() >= config_.limits.pending_connections) {
      Drop(*unregistered_.begin(),
           "protocol error: too many connections have not registered", true);
    }
    auto c = std::make_unique<Client>();
    c->id = next_client_++;
    c->fd = fd;
    c->connected_at = std::chrono::steady_clock::now();
    c->peer.pid = cred.pid;
    c->peer.uid = cred.uid;
    c->peer.gid = cred.gid;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.u64 = Tag(kClientSocket, c->id);
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
    unregistered_.insert(c->id);
    clients_[c->id] = std::move(c);
  }
}

void Daemon::OnOutOfDescriptors() {
  if (!unregistered_.empty()) {
    Drop(*unregistered_.begin(),
         "protocol error: colod is out of file descriptors and this "
         "connection had not registered",
         true);
    return;
  }
  // Nothing to close: the pending connections wait in the backlog while
  // colod stops listening for a moment.
  DaemonLog(
      "out of file descriptors (%zu clients connected): not accepting "
      "connections for 100 ms; raise colod's file limit (ulimit -n)",
      clients_.size());
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, listen_fd_, nullptr);
  listening_paused_ = true;
  listen_again_at_ =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
}

void Daemon::OnSocketReadable(Client& c) {
  const ClientId id = c.id;
  // A few messages per wake-up; the socket stays readable for the rest.
  for (int i = 0; i < 16; ++i) {
    if (!c.outbox.empty()) return;  // until it has read its replies.
    Result<std::optional<ipc::Message>> got = c.reader.ReadSome(c.fd);
    if (!got.ok()) {
      return Drop(id, got.status().code() == StatusCode::kUnavailable
                          ? "disconnected"
                          : "protocol error: " + got.status().message());
    }
    if (!got->has_value()) return;
    HandleMessage(c, **got);
    auto it = clients_.find(id);
    if (it == clients_.end() || it->second->broken) return;
  }
}

void Daemon::Reply(Client& c, ipc::MsgType type, const void* payload,
                   size_t length) {
  if (c.broken) return;
  const std::vector<char> bytes = ipc::EncodeMessage(type, payload, length);
  c.outbox.insert(c.outbox.end(), bytes.begin(), bytes.end());
  FlushOutbox(c);
}

void Daemon::FlushOutbox(Client& c) {
  if (c.broken) return;
  while (c.outbox_sent < c.outbox.size()) {
    const ssize_t n =
        send(c.fd, c.outbox.data() + c.outbox_sent,
             c.outbox.size() - c.outbox_sent, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      c.outbox_sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    c.broken = true;
    doomed_.emplace_back(c.id, "disconnected");
    return;
  }
  epoll_event ev{};
  ev.data.u64 = Tag(kClientSocket, c.id);
  if (c.outbox_sent == c.outbox.size()) {
    c.outbox.clear();
    c.outbox_sent = 0;
    if (c.write_blocked) {
      ev.events = EPOLLIN | EPOLLRDHUP;
      epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, c.fd, &ev);
      c.write_blocked = false;
    }
    return;
  }
  if (c.outbox.size() - c.outbox_sent > kMaxOutboxBytes) {
    c.broken = true;
    doomed_.emplace_back(c.id,
                         "protocol error: it does not read colod's replies");
    return;
  }
  if (!c.write_blocked) {
    ev.events = EPOLLOUT;  // no more requests until it has read its replies.
    epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, c.fd, &ev);
    c.write_blocked = true;
  }
}

void Daemon::EnforceDeadlines() {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_deadline_check_ < std::chrono::milliseconds(10)) return;
  last_deadline_check_ = now;
  const ClientLimits& limits = config_.limits;
  std::vector<std::pair<ClientId, bool>> late;  // (id, registered)
  for (const auto& [id, c] : clients_) {
    if (c->broken) continue;
    if (!c->registered && now - c->connected_at > limits.hello_timeout) {
      late.emplace_back(id, false);
    } else if (c->reader.InMessage() &&
               now - c->reader.StartedAt() > limits.message_timeout) {
      late.emplace_back(id, true);
    }
  }
  for (const auto& [id, registered] : late) {
    if (registered) {
      Drop(id, "protocol error: a message took over " +
                   std::to_string(Ms(limits.message_timeout)) +
                   " ms to arrive");
    } else {
      Drop(id,
           "protocol error: no hello within " +
               std::to_string(Ms(limits.hello_timeout)) + " ms",
           true);
    }
  }
  if (listening_paused_ && now >= listen_again_at_) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = Tag(kListen);
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &ev);
    listening_paused_ = false;
  }
  if (closed_unregistered_ > closed_unregistered_logged_ &&
      now - last_quiet_log_ >= std::chrono::seconds(1)) {
    DaemonLog(
        "closed %lld connection(s) that did not register in time or made "
        "room for newer ones (%lld in all)",
        static_cast<long long>(closed_unregistered_ -
                               closed_unregistered_logged_),
        static_cast<long long>(closed_unregistered_));
    closed_unregistered_logged_ = closed_unregistered_;
    last_quiet_log_ = now;
  }
}

void Daemon::ResumeHeldBack() {
  for (auto& [id, c] : clients_) {
    if (!c->held_back || c->broken ||
        c->outstanding.size() >= config_.limits.queued_launches) {
      continue;
    }
    c->held_back = false;
    if (DrainRing(*c)) ReplySyncIfDone(*c);
  }
}

}  // namespace colo::runtime
