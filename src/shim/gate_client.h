// shim/gate_client.h — the interposer's half of gate mode (colod's
// `device: cuda`; protocol in runtime/wire.h).
//
// The program keeps its own CUDA context, but a kernel launch is not issued
// when the program makes it: its argument values are copied (their sizes
// from cudaFuncGetParamInfo, or cuFuncGetParamInfo for the driver API), the
// launch goes onto the launch ring as in sim mode, and waits here. The gate
// thread reads colod's grants from the gate channel; for each it issues the
// launch to the real runtime (or driver) on the program's stream and device,
// records a CUDA event after it, and once the event has completed (polled
// every 50 us while any is outstanding) reports kDone to colod, with the
// launch's error if it could not be issued or failed. colod's completion
// watermark therefore means "finished on the GPU", and the shim's
// synchronizing calls keep working unchanged.
//
// Work that CUDA orders on a stream behind kernels (async copies, memsets,
// event records, stream waits) must reach the real stream after the
// stream's earlier launches: WaitIssued() blocks until they were issued.
//
// Thread safety: all methods may be called from any thread. The launches
// waiting for a grant are guarded by this object's own mutex, which the gate
// thread never holds while it calls CUDA, and which never waits for the
// shim's state mutex (callers may hold that one: a synchronizing call holds
// it while colod waits for this thread's kDone). The gate thread runs all
// its CUDA calls inside a ReentryGuard, so they go to the real libraries.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "shim/shim_runtime.h"

namespace colo::shim {

struct GateLaunch {
  uint64_t seq = 0;
  uint32_t stream_id = 0;  // the ring's stream id (0: default stream).
  bool driver = false;  // cuLaunchKernel on a CUfunction; else cudaLaunchKernel
                        // on a host stub.
  const void* func = nullptr;
  Dim grid, block;
  size_t shared_mem = 0;
  void* stream = nullptr;               // the real stream handle.
  int device = 0;                       // current on the launching thread.
  std::vector<std::vector<char>> args;  // each parameter's bytes.
};

// The sizes of the parameters of `func` (a host stub, or a CUfunction if
// `driver`). cudaErrorNotSupported if the real library cannot say.
int ParamSizes(const void* func, bool driver, std::vector<size_t>* sizes);

// Copies the parameter values `args` points to into `launch->args`.
// cudaErrorNotSupported if `args` is null while the kernel has parameters
// (e.g. cuLaunchKernel's `extra` form, which gate mode does not take).
int CaptureArgs(void** args, const std::vector<size_t>& sizes,
                GateLaunch* launch);

class GateClient {
 public:
  // Starts the gate thread on `gate_fd` (not owned; it stays open for the
  // process's life).
  explicit GateClient(int gate_fd);
  GateClient(const GateClient&) = delete;
  GateClient& operator=(const GateClient&) = delete;
  ~GateClient();

  // Keeps `launch` until colod grants it. Call before colod can see the
  // launch on the ring, or at least under the lock that pushes it.
  void Add(GateLaunch launch);
  // Forgets launch `seq` (its push onto the ring failed).
  void Remove(uint64_t seq);
  // Waits until every launch of `stream_id` (of every stream if
  // `all_streams`) with sequence <= seq has been issued to the GPU.
  // cudaErrorDevicesUnavailable if the gate channel closed first.
  int WaitIssued(uint32_t stream_id, uint64_t seq, bool all_streams);
  // The gate channel closed (colod gone).
  bool lost();

 private:
  struct Outstanding {
    uint64_t seq;
    void* event;
  };
  void Run();
  // Issues launch `seq`; adds its event to `out` or reports its error.
  void Issue(uint64_t seq, std::vector<Outstanding>* out);
  void SendDone(uint64_t seq, int cuda_error);

  int fd_;
  std::mutex mu_;
  std::condition_variable issued_;          // with mu_: a launch left pending_.
  std::map<uint64_t, GateLaunch> pending_;  // guarded by mu_.
  bool lost_ = false;                       // guarded by mu_.
  int device_ = -1;                         // gate thread: its current device.
  std::thread thread_;
};

}  // namespace colo::shim
