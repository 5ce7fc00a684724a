// shim/stream_objects.h — the objects behind the stream and event handles
// the interposer gives the program (Stream: cudaStream_t, Event:
// cudaEvent_t; in gate mode each wraps the real one), and a host function
// waiting in stream order (PendingHostFunc, host_funcs.cc).
//
// Thread safety: plain structs. The live ones belong to the interposer's
// StreamTable, EventTable and HostFuncQueue (state_tables.h) and are read
// and written only under InterposerState::mu, as those tables are.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "ipc/wire.h"
#include "shim/graph_objects.h"

namespace colo::shim {

// A stream the program created (cudaStreamCreate*), or a lane of an
// instantiated graph (GraphExec::lanes).
// A cudaStreamAttrValue's bytes (a union of 64 bytes in CUDA 13).
struct StreamAttrValue {
  unsigned char bytes[64] = {};
};
struct Stream {
  uint32_t id = 0;           // on the ring; 0 is the default stream.
  uint64_t last_seq = 0;     // the last entry pushed on it (0: none)
  void* real = nullptr;      // gate mode: the program's real stream.
  Graph* capture = nullptr;  // sim mode: the graph being captured, if any.
  uint64_t capture_id = 0;
  // Sim mode, while capturing: whether this stream began the capture (or
  // joined it by waiting on an event recorded in it); the operations it has
  // recorded; its capture_ops when another stream of the capture last waited
  // on an event recorded on it (-1: never). Ending the capture needs every
  // joined stream rejoined at its last operation.
  bool capture_origin = false;
  // What its next operation in the capture depends on.
  std::vector<const GraphNode*> capture_deps;
  uint64_t capture_ops = 0;
  int64_t rejoined_ops = -1;
  unsigned flags = 0;  // as created (cudaStreamGetFlags).
  int priority = 0;    // as created, clamped to the device's range.
  // cudaStreamSetAttribute's values, by cudaStreamAttrID.
  std::map<int, StreamAttrValue> attributes;
  // Sim mode, a blocking stream and the legacy default stream
  // (OrderWithLegacyStream): this stream's last launch the legacy stream
  // already waits for, and the legacy stream's last launch this one does.
  uint64_t legacy_waits_for = 0;
  uint64_t waits_for_legacy = 0;
};
// An event the program created (cudaEventCreate*).
struct Event {
  uint64_t seq = 0;  // the last launch before it on its stream (0: none)
  bool recorded = false;
  // Sim mode: when it was recorded, and whether on a default stream (then
  // it completes when every launch before it has ended, not only its
  // stream's); when it completed (steady clock ns; -1: not known yet);
  // whether it keeps times (not cudaEventDisableTiming).
  int64_t record_ns = 0;
  bool legacy = false;
  int64_t time_ns = -1;
  bool timing = true;
  void* real = nullptr;  // gate mode: the real event.
  // Sim mode: last recorded on a capturing stream (queries answer
  // cudaErrorCapturedEvent); while that capture runs, the point in it: its
  // graph, the stream and that stream's capture_ops then.
  bool in_capture = false;
  Graph* capture = nullptr;
  Stream* capture_stream = nullptr;
  uint64_t capture_ops = 0;
  std::vector<const GraphNode*> capture_deps;  // its stream's, when recorded.
};

// Sim mode: a host function enqueued on a stream and not yet finished
// (host_funcs.cc). It runs once the launches before it on its stream have
// ended: launch `seq` under `scope`, as SyncTo waits.
struct PendingHostFunc {
  const void* stream = nullptr;  // its Stream; null: the legacy default stream.
  bool blocking = true;          // ordered with the legacy default stream (not
                                 // cudaStreamNonBlocking)
  uint64_t seq = 0;
  ipc::SyncScope scope = ipc::SyncScope::kAllBefore;
  // cudaLaunchHostFunc's function, or cudaStreamAddCallback's callback with
  // the stream handle the program passed.
  void (*fn)(void*) = nullptr;
  void (*callback)(void*, int, void*) = nullptr;
  void* handle = nullptr;
  void* data = nullptr;
};

}  // namespace colo::shim
