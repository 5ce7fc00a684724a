// trace/trace_writer.h — writes a trace in the Chrome trace-event format
// (the JSON object form: {"traceEvents": [...], "displayTimeUnit": "ns",
// "metadata": {...}}), which Perfetto UI and chrome://tracing open.
//
// Events stream to the file as they are added, so memory stays constant
// however long the trace. Each event carries the fields its phase requires
// (Trace Event Format, Google, 2016): "name", "ph", "ts" (microseconds, with
// nanosecond digits), "pid" and "tid" (integers); complete events ("X") a
// "dur", instant events ("i") a scope "s" ("t" thread, "p" process, "g"
// global), counters ("C") their values as numeric "args"; metadata events
// ("M") name processes and threads ("process_name", "thread_name") and order
// them ("process_sort_index", "thread_sort_index"). Times are non-negative.
//
// The writer knows nothing of colo's runs; trace/sim_trace.h decides what
// goes in. Thread safety: none (one owner).
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "colo/status.h"
#include "colo/time.h"

namespace colo::trace {

// `text` as a JSON string literal, quotes included; bytes that are not
// UTF-8 become U+FFFD, so any kernel name gives valid JSON.
std::string JsonString(std::string_view text);

// Appends `ns` (>= 0) nanoseconds as microseconds with three decimals
// ("1234.567"): the format's unit, exact where a double would round.
void AppendMicros(std::string& out, int64_t ns);

class TraceWriter {
 public:
  // Creates (or truncates) `path` and writes the trace's opening.
  // InvalidArgument naming the path if it cannot be opened.
  static Result<std::unique_ptr<TraceWriter>> Open(const std::string& path);

  // A writer that keeps the whole trace in memory (colod's live window,
  // which travels as one message): Finish closes it and text() is the
  // trace. Its size is bytes(); the caller bounds it.
  static std::unique_ptr<TraceWriter> InMemory();

  // A writer not finished removes its file: a run that failed leaves no
  // half-written trace.
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Metadata events: the name and display order of a process or thread.
  void ProcessName(int pid, std::string_view name, int sort_index);
  void ThreadName(int pid, int tid, std::string_view name, int sort_index);

  // `args` is the inside of the event's args object, JSON members
  // ("\"sms\":54,\"form\":\"slice\""), or empty. `name` and `category` are
  // plain text. REQUIRES: ts >= 0 and dur >= 0.
  void Complete(int pid, int tid, std::string_view name,
                std::string_view category, TimePoint ts, Duration dur,
                std::string_view args);
  // REQUIRES: scope is 't', 'p' or 'g'.
  void Instant(int pid, int tid, std::string_view name,
               std::string_view category, TimePoint ts, char scope,
               std::string_view args);
  // Counter values: `args` members with numeric values, one track each.
  void Counter(int pid, std::string_view name, TimePoint ts,
               std::string_view args);

  // Closes the event array, writes the top-level "metadata" object (`args`:
  // its members as JSON text) and closes the file. Unavailable naming the
  // path if any write failed. Call once; nothing may be added after it.
  Status Finish(std::string_view metadata);

  // Events written so far, metadata events included.
  int64_t events() const { return events_; }
  // In memory: the text so far (after Finish, the whole trace) and its
  // size. A file writer's text holds only what is not flushed yet.
  const std::string& text() const { return buffer_; }
  size_t bytes() const { return buffer_.size(); }
  const std::string& path() const { return path_; }

  // The thread of a track (process `pid`) for an event over [start, end):
  // the first of its threads whose last event ended by `start`, else a new
  // one, named "kernels", "kernels 2", ... as it is opened, so overlapping
  // events stack instead of nesting. `lane_ends` is the track's state: per
  // thread, when its last event ends. Threads are numbered from 1.
  int StackedThread(int pid, std::vector<TimePoint>* lane_ends, TimePoint start,
                    TimePoint end);

 private:
  TraceWriter(std::string path, std::FILE* file);
  // Starts an event: the separator and the fields every phase has.
  void Begin(char phase, int pid, int tid, std::string_view name,
             std::string_view category, TimePoint ts);
  void End(std::string_view args);
  void FlushIfFull();

  std::string path_;
  std::FILE* file_ = nullptr;  // null: in memory.
  std::string buffer_;         // pending text, flushed past kFlushBytes.
  int64_t events_ = 0;
  bool write_failed_ = false;
  bool finished_ = false;
};

}  // namespace colo::trace
