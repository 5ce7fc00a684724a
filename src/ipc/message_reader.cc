#include "ipc/message_reader.h"

#include <unistd.h>

#include <cstdio>
#include <string>

namespace colo::ipc {

MessageReader::~MessageReader() { Reset(); }

void MessageReader::Reset() {
  for (int f : fds_) close(f);
  fds_.clear();
  header_got_ = 0;
  payload_.clear();
  payload_got_ = 0;
}

Result<std::optional<Message>> MessageReader::ReadSome(int fd) {
  auto fail = [this](Status s) -> Result<std::optional<Message>> {
    Reset();
    return s;
  };
  for (;;) {
    char* into;
    size_t want;
    if (header_got_ < sizeof(header_)) {
      into = reinterpret_cast<char*>(&header_) + header_got_;
      want = sizeof(header_) - header_got_;
    } else {
      into = payload_.data() + payload_got_;
      want = payload_.size() - payload_got_;
    }
    size_t got = 0;
    if (want > 0) {
      Result<size_t> n = ReceiveSome(fd, into, want, &fds_);
      if (!n.ok()) return fail(n.status());
      if (fds_.size() > kMaxFds) {
        return fail(InvalidArgumentError(
            std::to_string(fds_.size()) +
            " descriptors attached to one message (at most " +
            std::to_string(kMaxFds) + ")"));
      }
      if (*n == 0) return std::optional<Message>();  // nothing more for now
      got = *n;
      if (header_got_ == 0) started_at_ = std::chrono::steady_clock::now();
    }
    if (header_got_ < sizeof(header_)) {
      header_got_ += got;
      if (header_got_ < sizeof(header_)) continue;
      if (header_.magic != kWireMagic) {
        char buf[64];
        std::snprintf(buf, sizeof(buf), "bad message magic 0x%08x",
                      header_.magic);
        return fail(InvalidArgumentError(buf));
      }
      if (header_.length > kMaxPayload) {
        return fail(InvalidArgumentError("message payload of " +
                                         std::to_string(header_.length) +
                                         " bytes is over the limit"));
      }
      payload_.resize(header_.length);
    } else {
      payload_got_ += got;
    }
    if (header_got_ == sizeof(header_) && payload_got_ == payload_.size()) {
      Message m;
      m.type = static_cast<MsgType>(header_.type);
      m.payload.swap(payload_);
      m.fds.swap(fds_);
      Reset();
      return std::optional<Message>(std::move(m));
    }
  }
}

}  // namespace colo::ipc
