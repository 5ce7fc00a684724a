// trace/launch_seen.h — what a trace keeps of a launch request: its plain
// fields without the callbacks (which the device consumes, and which would
// cost a copy of each std::function per launch). Stateless; thread-safe.
#pragma once

#include "colo/device.h"

namespace colo::trace {

inline LaunchRequest LaunchSeen(const LaunchRequest& request) {
  LaunchRequest seen;
  seen.client = request.client;
  seen.kernel = request.kernel;
  seen.first_block = request.first_block;
  seen.end_block = request.end_block;
  seen.priority = request.priority;
  seen.client_priority = request.client_priority;
  seen.persistent_workers = request.persistent_workers;
  seen.stream = request.stream;
  seen.tag = request.tag;
  return seen;
}

}  // namespace colo::trace
