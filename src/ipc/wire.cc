// Framing over a SOCK_STREAM Unix socket: a header read exactly, then the
// payload. Descriptors ride on the first byte of the header (SCM_RIGHTS).
#include "ipc/wire.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstring>

namespace colo::ipc {
namespace {

Status SendAll(int fd, const char* data, size_t len) {
  while (len > 0) {
    ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return UnavailableError(std::string("send: ") + strerror(errno));
    }
    data += n;
    len -= static_cast<size_t>(n);
  }
  return OkStatus();
}

// One recvmsg into up to `len` bytes with `flags`; SCM_RIGHTS descriptors
// go to `fds` (closed if null). Returns what recvmsg returned (errno set).
ssize_t ReceiveOnce(int fd, char* data, size_t len, int flags,
                    std::vector<int>* fds) {
  iovec iov{data, len};
  alignas(cmsghdr) char control[CMSG_SPACE(4 * sizeof(int))];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  const ssize_t n = recvmsg(fd, &msg, flags | MSG_CMSG_CLOEXEC);
  if (n < 0) return n;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr;
       c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < count; ++i) {
        int got;
        std::memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        if (fds != nullptr) {
          fds->push_back(got);
        } else {
          close(got);
        }
      }
    }
  }
  return n;
}

// Reads exactly `len` bytes; collects SCM_RIGHTS descriptors into `fds`.
// `message_start`: these are a message's first bytes, so a receive timeout
// before any of them came means the peer did not answer, not that it
// stalled in the middle of a message.
Status ReceiveAll(int fd, char* data, size_t len, std::vector<int>* fds,
                  bool message_start) {
  const size_t wanted = len;
  while (len > 0) {
    const ssize_t n = ReceiveOnce(fd, data, len, 0, fds);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        // A receive timeout (colod's, or a monitor's such as `colo top`).
        if (message_start && len == wanted)
          return UnavailableError("no answer within the receive timeout");
        return InvalidArgumentError("peer stalled in the middle of a message");
      }
      return UnavailableError(std::string("recv: ") + strerror(errno));
    }
    if (n == 0) return UnavailableError("connection closed by peer");
    data += n;
    len -= static_cast<size_t>(n);
  }
  return OkStatus();
}

}  // namespace

Status SendMessage(int fd, MsgType type, const void* payload, size_t length,
                   const std::vector<int>& fds) {
  if (length > kMaxPayload || fds.size() > 4)
    return InvalidArgumentError("message too large");
  MsgHeader h;
  h.type = static_cast<uint32_t>(type);
  h.length = static_cast<uint32_t>(length);
  // Header and payload in one sendmsg: a small message then reaches the
  // peer whole, so a sender preempted between two writes can never look
  // like a peer stalled in the middle of a message (colod drops those).
  iovec iov[2] = {{&h, sizeof(h)}, {const_cast<void*>(payload), length}};
  alignas(cmsghdr) char control[CMSG_SPACE(4 * sizeof(int))];
  msghdr msg{};
  msg.msg_iov = iov;
  msg.msg_iovlen = length > 0 ? 2 : 1;
  if (!fds.empty()) {
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(fds.size() * sizeof(int));
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(fds.size() * sizeof(int));
    std::memcpy(CMSG_DATA(c), fds.data(), fds.size() * sizeof(int));
  }
  ssize_t n;
  do {
    n = sendmsg(fd, &msg, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return UnavailableError(std::string("send: ") + strerror(errno));
  // A large payload may go out in parts: send the rest.
  size_t sent = static_cast<size_t>(n);
  if (sent < sizeof(h)) {
    COLO_RETURN_IF_ERROR(SendAll(fd, reinterpret_cast<const char*>(&h) + sent,
                                 sizeof(h) - sent));
    sent = sizeof(h);
  }
  const size_t payload_sent = sent - sizeof(h);
  return SendAll(fd, static_cast<const char*>(payload) + payload_sent,
                 length - payload_sent);
}

Result<size_t> ReceiveSome(int fd, void* data, size_t len,
                           std::vector<int>* fds) {
  for (;;) {
    const ssize_t n =
        ReceiveOnce(fd, static_cast<char*>(data), len, MSG_DONTWAIT, fds);
    if (n > 0) return static_cast<size_t>(n);
    if (n == 0) return UnavailableError("connection closed by peer");
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return size_t{0};
    return UnavailableError(std::string("recv: ") + strerror(errno));
  }
}

std::vector<char> EncodeMessage(MsgType type, const void* payload,
                                size_t length) {
  MsgHeader h;
  h.type = static_cast<uint32_t>(type);
  h.length = static_cast<uint32_t>(length);
  std::vector<char> out(sizeof(h) + length);
  std::memcpy(out.data(), &h, sizeof(h));
  if (length > 0) std::memcpy(out.data() + sizeof(h), payload, length);
  return out;
}

Result<Message> ReceiveMessage(int fd) {
  MsgHeader h;
  Message m;
  COLO_RETURN_IF_ERROR(
      ReceiveAll(fd, reinterpret_cast<char*>(&h), sizeof(h), &m.fds, true));
  auto close_fds = [&m] {
    for (int f : m.fds) close(f);
    m.fds.clear();
  };
  if (h.magic != kWireMagic) {
    close_fds();
    char buf[64];
    snprintf(buf, sizeof(buf), "bad message magic 0x%08x", h.magic);
    return InvalidArgumentError(buf);
  }
  if (h.length > kMaxPayload) {
    close_fds();
    return InvalidArgumentError("message payload of " +
                                std::to_string(h.length) +
                                " bytes is over the limit");
  }
  m.type = static_cast<MsgType>(h.type);
  m.payload.resize(h.length);
  Status s = ReceiveAll(fd, m.payload.data(), h.length, &m.fds, false);
  if (!s.ok()) {
    close_fds();
    return s;
  }
  return m;
}

}  // namespace colo::ipc
