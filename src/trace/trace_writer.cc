#include "trace/trace_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <utility>

namespace colo::trace {
namespace {

// Text is buffered and written in pieces of about this size: one fwrite per
// event would cost more than the formatting.
constexpr size_t kFlushBytes = size_t{1} << 20;

}  // namespace

void AppendMicros(std::string& out, int64_t ns) {
  assert(ns >= 0);
  fmt::format_to(std::back_inserter(out), "{}.{:03}", ns / 1000, ns % 1000);
}

std::string JsonString(std::string_view text) {
  // Most names are printable ASCII with nothing to escape: quoted as they
  // are, without building a JSON value.
  if (std::all_of(text.begin(), text.end(), [](char c) {
        return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
      })) {
    std::string quoted;
    quoted.reserve(text.size() + 2);
    quoted += '"';
    quoted += text;
    quoted += '"';
    return quoted;
  }
  return nlohmann::json(std::string(text))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<std::unique_ptr<TraceWriter>> TraceWriter::Open(
    const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    return InvalidArgumentError("trace " + path +
                                ": cannot open for writing (" +
                                std::strerror(errno) + ")");
  }
  std::unique_ptr<TraceWriter> writer(new TraceWriter(path, file));
  writer->buffer_ = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
  return writer;
}

std::unique_ptr<TraceWriter> TraceWriter::InMemory() {
  std::unique_ptr<TraceWriter> writer(new TraceWriter("", nullptr));
  writer->buffer_ = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
  return writer;
}

TraceWriter::TraceWriter(std::string path, std::FILE* file)
    : path_(std::move(path)), file_(file) {
  buffer_.reserve(kFlushBytes + 4096);
}

TraceWriter::~TraceWriter() {
  if (finished_ || file_ == nullptr) return;
  std::fclose(file_);
  std::remove(path_.c_str());
}

void TraceWriter::FlushIfFull() {
  if (file_ == nullptr || buffer_.size() < kFlushBytes) return;
  if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size())
    write_failed_ = true;
  buffer_.clear();
}

void TraceWriter::Begin(char phase, int pid, int tid, std::string_view name,
                        std::string_view category, TimePoint ts) {
  assert(!finished_);
  if (events_ > 0) buffer_ += ',';
  ++events_;
  buffer_ += "\n{\"name\":";
  buffer_ += JsonString(name);
  if (!category.empty()) {
    buffer_ += ",\"cat\":";
    buffer_ += JsonString(category);
  }
  fmt::format_to(std::back_inserter(buffer_),
                 ",\"ph\":\"{}\",\"pid\":{},\"tid\":{},\"ts\":", phase, pid,
                 tid);
  AppendMicros(buffer_, ToNanos(ts));
}

void TraceWriter::End(std::string_view args) {
  if (!args.empty()) {
    buffer_ += ",\"args\":{";
    buffer_ += args;
    buffer_ += '}';
  }
  buffer_ += '}';
  FlushIfFull();
}

void TraceWriter::ProcessName(int pid, std::string_view name, int sort_index) {
  Begin('M', pid, 0, "process_name", "", TimeZero());
  End("\"name\":" + JsonString(name));
  Begin('M', pid, 0, "process_sort_index", "", TimeZero());
  End(fmt::format("\"sort_index\":{}", sort_index));
}

void TraceWriter::ThreadName(int pid, int tid, std::string_view name,
                             int sort_index) {
  Begin('M', pid, tid, "thread_name", "", TimeZero());
  End("\"name\":" + JsonString(name));
  Begin('M', pid, tid, "thread_sort_index", "", TimeZero());
  End(fmt::format("\"sort_index\":{}", sort_index));
}

void TraceWriter::Complete(int pid, int tid, std::string_view name,
                           std::string_view category, TimePoint ts,
                           Duration dur, std::string_view args) {
  Begin('X', pid, tid, name, category, ts);
  buffer_ += ",\"dur\":";
  AppendMicros(buffer_, dur.count());
  End(args);
}

void TraceWriter::Instant(int pid, int tid, std::string_view name,
                          std::string_view category, TimePoint ts, char scope,
                          std::string_view args) {
  assert(scope == 't' || scope == 'p' || scope == 'g');
  Begin('i', pid, tid, name, category, ts);
  fmt::format_to(std::back_inserter(buffer_), ",\"s\":\"{}\"", scope);
  End(args);
}

void TraceWriter::Counter(int pid, std::string_view name, TimePoint ts,
                          std::string_view args) {
  Begin('C', pid, 0, name, "", ts);
  End(args);
}

Status TraceWriter::Finish(std::string_view metadata) {
  assert(!finished_);
  buffer_ += "\n],\"metadata\":{";
  buffer_ += metadata;
  buffer_ += "}}\n";
  if (file_ == nullptr) {
    finished_ = true;
    return OkStatus();
  }
  if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size())
    write_failed_ = true;
  buffer_.clear();
  const int errno_at_write = errno;
  const bool closed = std::fclose(file_) == 0;
  finished_ = true;
  if (write_failed_ || !closed) {
    std::remove(path_.c_str());
    return UnavailableError("trace " + path_ + ": write failed (" +
                            std::strerror(errno_at_write) + ")");
  }
  return OkStatus();
}

int TraceWriter::StackedThread(int pid, std::vector<TimePoint>* lane_ends,
                               TimePoint start, TimePoint end) {
  size_t lane = 0;
  while (lane < lane_ends->size() && (*lane_ends)[lane] > start) ++lane;
  const int tid = static_cast<int>(lane) + 1;
  if (lane == lane_ends->size()) {
    lane_ends->push_back(end);
    ThreadName(pid, tid,
               lane == 0 ? std::string("kernels")
                         : "kernels " + std::to_string(lane + 1),
               tid);
    return tid;
  }
  (*lane_ends)[lane] = end;
  return tid;
}

}  // namespace colo::trace
