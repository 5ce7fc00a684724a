// ipc/message_reader.h — reads wire messages (wire.h) from a non-blocking
// socket as their bytes arrive, so that one thread serving many peers never
// waits for any of them: a peer that sends half a message, or one byte at a
// time, costs the reader one short read per wake-up and nothing more.
//
// The reader never reads past the end of the message it is assembling, so
// the bytes of the next message stay in the socket. Descriptors attached to
// a message's bytes (SCM_RIGHTS) come with it; those of a message never
// completed are closed when the reader is destroyed.
//
// How long a peer may take over a message is the caller's to decide
// (colod: DaemonConfig::message_timeout); StartedAt() says since when one is
// incomplete.
//
// Thread safety: none; one reader per socket, used by one thread.
#pragma once

#include <chrono>
#include <optional>
#include <vector>

#include "colo/status.h"
#include "ipc/wire.h"

namespace colo::ipc {

class MessageReader {
 public:
  // The most descriptors one message may carry; more is a protocol error.
  static constexpr size_t kMaxFds = 4;

  MessageReader() = default;
  ~MessageReader();
  MessageReader(const MessageReader&) = delete;
  MessageReader& operator=(const MessageReader&) = delete;

  // Reads what `fd` holds now, without waiting, up to the end of one
  // message. Returns the message once it is whole (the reader then starts
  // on the next), or nullopt when the socket has nothing more for now.
  // Unavailable: the peer closed the connection (or a socket error).
  // InvalidArgument: a bad magic, a payload over kMaxPayload, or more than
  // kMaxFds descriptors; the connection is then unusable.
  Result<std::optional<Message>> ReadSome(int fd);

  // Whether part of a message has arrived and the rest has not.
  bool InMessage() const { return header_got_ > 0; }
  // When the first byte of the incomplete message arrived (steady clock);
  // meaningless unless InMessage().
  std::chrono::steady_clock::time_point StartedAt() const {
    return started_at_;
  }

 private:
  void Reset();

  MsgHeader header_;
  size_t header_got_ = 0;
  std::vector<char> payload_;
  size_t payload_got_ = 0;
  std::vector<int> fds_;
  std::chrono::steady_clock::time_point started_at_;
};

}  // namespace colo::ipc
