#include "sim/event_loop.h"

#include <cassert>

namespace colo::sim {

void EventLoop::At(TimePoint t, Callback cb, int priority) {
  assert(t >= Now() && "events cannot be scheduled in the past");
  queue_.push(Entry{t, priority, next_seq_++, std::move(cb)});
}

void EventLoop::RunUntil(TimePoint end) {
  stopped_ = false;
  while (!stopped_) {
    Model* due_model = nullptr;
    std::optional<TimePoint> t;
    for (Model* m : models_) {
      auto mt = m->NextEventTime();
      if (mt && (!t || *mt < *t)) {
        t = mt;
        due_model = m;
      }
    }
    if (!queue_.empty() && (!t || queue_.top().time < *t)) {
      t = queue_.top().time;
      due_model = nullptr;
    }
    if (!t || *t > end) break;
    clock_.AdvanceTo(*t);
    ++events_processed_;
    if (due_model != nullptr) {
      due_model->AdvanceTo(*t);
    } else {
      // Move the callback out before popping: it may schedule new events.
      Callback cb = std::move(const_cast<Entry&>(queue_.top()).cb);
      queue_.pop();
      cb();
    }
  }
  if (!stopped_ && Now() < end) clock_.AdvanceTo(end);
}

}  // namespace colo::sim
