// shim/copy_work.h — sim mode's copies and memsets after their checks: the
// device work each stands for, put on its stream so that it takes the time a
// GPU gives it, and the host's side, the bytes themselves, moved by one
// worker thread per process in issue order (the ByteMoveQueue,
// state_tables.h). Defined in copy_work.cc.
//
// Thread safety: the functions taking an InterposerState REQUIRE its mutex
// held (the waits let it go meanwhile); the others touch only the memory
// they are given.
#pragma once

#include <cstddef>
#include <functional>

#include "shim/graph_objects.h"
#include "shim/shim_state.h"
#include "shim/thread_annotations.h"

namespace colo::shim {

// Sim mode: the device work a copy or memset stands for goes on `stream`
// (before the host moves the bytes, so that the host's memmove does not
// delay the work's simulated start), so that it takes the time a GPU gives
// it and what follows on the stream waits for it:
//  * a copy between host and device memory: PushHostCopyLocked, of
//    width x height bytes;
//  * a copy between device memory, or a memset of device memory: a kernel
//    that declares its DRAM traffic (read and written; written), timed by
//    the roofline like a library GEMM (colo/gemm_model.h);
//  * a copy between host memory, or a memset of host memory: nothing (the
//    host did it all).
// Device memory: device and managed allocations and __device__ and
// __managed__ variables; pinned and registered host memory is host memory.
// REQUIRES: connected, not gate mode, `stream` checked and not capturing.
int PushCopyWorkLocked(InterposerState& s, const CapturedOp& op, void* stream)
    COLO_REQUIRES(s.mu);
// Whether `op` is a copy from device memory to device memory (as above).
bool BetweenDeviceMemory(const InterposerState& s, const CapturedOp& op)
    COLO_REQUIRES(s.mu);
// Sim mode: runs a checked copy or memset's host side. A copy with a side
// in pageable host memory moves its bytes now, as CUDA stages pageable
// memory before the call returns; any other copy, and a memset, is handed
// to the process's byte-moving worker (`move`: what moves them, default
// RunCapturedCopy(op)), which moves them in issue order while the caller
// goes on, as a GPU's DMA or kernel would.
void MoveBytes(InterposerState& s, const CapturedOp& op,
               std::function<void()> move = nullptr) COLO_REQUIRES(s.mu);
// Waits, with s.mu released meanwhile, until every byte move enqueued
// before the call has been made: before the host may see their bytes (a
// synchronization or query that says the work has ended, a host function,
// a copy made at once) or their memory goes (a free).
void AfterByteMoves(InterposerState& s) COLO_REQUIRES(s.mu);
// Whether byte moves are still waiting or running.
bool ByteMovesPending(const InterposerState& s) COLO_REQUIRES(s.mu);
// fork(): the parent waits for its moves; the child has no worker.
void FinishByteMovesForFork(InterposerState& s) COLO_REQUIRES(s.mu);
void ForgetByteMovesInChild(InterposerState& s) COLO_REQUIRES(s.mu);
// Runs one captured copy or memset now (sim mode: host memory).
int RunCapturedCopy(const CapturedOp& op);
// Sim mode's pitched copy: `height` rows of `width` bytes (host memory).
int CopyRows(void* dst, size_t dpitch, const void* src, size_t spitch,
             size_t width, size_t height);

}  // namespace colo::shim
