// runtime/client_limits.h — what one client may take of colod, which every
// other program on the node depends on: how long it may take to register and
// to send a message, how many connections may wait unregistered, how many
// launches colod queues for it, how many allocations it may hold.
//
// Config (colod's file, every key optional):
//   limits:
//     hello_timeout_ms: 2000      # a connection must register within this
//     message_timeout_ms: 1000    # a message begun must be whole within this
//     pending_connections: 64     # connections not registered yet; at the
//                                 # limit the oldest is closed for a new one
//     queued_launches: 4096       # per client: taken from its ring and not
//                                 # ended; beyond it colod leaves the rest in
//                                 # the ring, and the program waits in its
//                                 # launch call as on a full CUDA queue
//     allocations: 1048576        # per client: allocations held at once;
//                                 # beyond it cudaErrorMemoryAllocation
//
// Thread safety: value types.
#pragma once

#include <cstddef>
#include <string>

#include "colo/status.h"
#include "colo/time.h"
#include "io/yaml_value.h"

namespace colo::runtime {

struct ClientLimits {
  Duration hello_timeout = Milliseconds(2000);
  Duration message_timeout = Milliseconds(1000);
  size_t pending_connections = 64;
  size_t queued_launches = 4096;
  size_t allocations = size_t{1} << 20;

  // InvalidArgument naming `source` if a value is out of range (the ranges
  // ParseClientLimits accepts).
  Status Validate(const std::string& source) const;
};

// Reads the `limits:` mapping into `*limits` (keys it lacks keep their
// value). InvalidArgument "file:line: ..." on an unknown key or a value out
// of range.
Status ParseClientLimits(const io::YamlValue& v, ClientLimits* limits);

}  // namespace colo::runtime
