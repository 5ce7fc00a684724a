// sim/event_loop.h — the deterministic discrete-event engine.
//
// Time is a SimClock (int64 ns). Two kinds of sources produce events:
//  - callbacks scheduled with At()/After(), ordered by (time, priority,
//    insertion sequence): a smaller priority runs first at equal times, and
//    equal (time, priority) run in the order they were scheduled;
//  - resource models (SimGpu) that the loop asks "when is your next event?"
//    (SimGrid's Model::next_occurring_event). A model's event runs before
//    callbacks at the same time, models in registration order.
// Nothing here reads the wall clock or a random source, so a run is a pure
// function of its inputs.
//
// Thread safety: none; one thread owns the loop, its models and callbacks.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <vector>

#include "colo/clock.h"
#include "colo/time.h"

namespace colo::sim {

class Model {
 public:
  virtual ~Model() = default;
  // The time of this model's next event, or nullopt if it has none pending.
  // Must be >= the clock's now.
  virtual std::optional<TimePoint> NextEventTime() const = 0;
  // Processes every event of this model due at `now` (the clock already
  // reads `now`).
  virtual void AdvanceTo(TimePoint now) = 0;
};

class EventLoop {
 public:
  using Callback = std::function<void()>;

  EventLoop() = default;
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  const SimClock& clock() const { return clock_; }
  TimePoint Now() const { return clock_.Now(); }

  // Schedules `cb` at `t`. REQUIRES: t >= Now().
  void At(TimePoint t, Callback cb, int priority = 0);
  void After(Duration d, Callback cb, int priority = 0) {
    At(Now() + d, std::move(cb), priority);
  }

  // Registers a model; the loop does not own it. REQUIRES: it outlives the
  // loop's runs.
  void AddModel(Model* model) { models_.push_back(model); }

  // Processes events in order while their time is <= end, then sets the
  // clock to `end`. Events scheduled later than `end` stay queued.
  void RunUntil(TimePoint end);

  // Stops RunUntil after the current event (e.g. every job has finished).
  void Stop() { stopped_ = true; }

  // Events processed so far (callbacks and model events).
  int64_t events_processed() const { return events_processed_; }

 private:
  struct Entry {
    TimePoint time;
    int priority;
    uint64_t seq;
    Callback cb;
  };
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const {
      if (a.time != b.time) return a.time > b.time;
      if (a.priority != b.priority) return a.priority > b.priority;
      return a.seq > b.seq;
    }
  };

  SimClock clock_;
  std::priority_queue<Entry, std::vector<Entry>, Later> queue_;
  std::vector<Model*> models_;
  uint64_t next_seq_ = 0;
  int64_t events_processed_ = 0;
  bool stopped_ = false;
};

}  // namespace colo::sim
