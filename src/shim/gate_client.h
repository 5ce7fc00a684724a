// shim/gate_client.h — the interposer's half of gate mode (colod's
// `device: cuda`; protocol in ipc/wire.h).
//
// The program keeps its own CUDA context, but a kernel launch is not issued
// when the program makes it: its argument values are copied (their sizes
// from cudaFuncGetParamInfo, or cuFuncGetParamInfo for the driver API), the
// launch goes onto the launch ring as in sim mode, and waits here. The gate
// thread reads colod's grants from the gate channel; for each it issues the
// launch to the real runtime (or driver) on the program's stream and device,
// records a CUDA event after it, and reports kDone to colod once the event
// has completed, with the launch's error if it could not be issued or
// failed.
//
// A direct client (colod's welcome said `issue_at_once`: high priority)
// waits for nothing: the program's own thread issues each launch at once
// with the program's argument pointers (IssueNow), records an event after
// it, and the launch goes onto the ring marked issued; the gate thread
// watches that event like its own (Watch) and reports kDone. It never gets
// a grant, and its kernels get no host function behind them (sleeping, the
// thread looks at their events every 50 us). Events come from a pool per
// device, so a launch creates none.
//
// While a launch it issued or watches is unfinished, and for `spin` after the
// last one finished or a grant came, the thread does not sleep but looks at
// the events and the channel over and over (as CUDA's own synchronization
// spins by default), so neither a kernel's end nor the next grant waits for
// a wake-up. With `spin` 0 it sleeps: a host function behind each event
// wakes it (an eventfd) once the kernel has ended, and the events are also
// looked at every millisecond while any is outstanding (every 50 us for a
// launch whose host function was refused), since a failed kernel runs no
// host function. On an H100, polling every 50 us (the first way) gave a
// request of four 250 us kernels a median latency of 3.9 ms, not 1.0 ms; see
// docs/measurements/gate-mode-h100.md for the figures of each way. colod's
// completion watermark therefore means "finished on the GPU", and the shim's
// synchronizing calls keep working unchanged.
//
// Forms: a grant may ask for a slice of the kernel's grid or persistent
// workers over the rest of it (ipc/wire.h). A launch whose kernel the
// interposer declared forms for (GateLaunch::forms) is then issued in that
// form (FormLauncher; compiled the first time one is granted), and stays
// here until its last part has been issued: a slice through the last
// block, or a persistent part whose workers ran the last one (a retreated
// part's kDone says where they stopped; colod grants the rest). kRetreat
// sets the retreat flag of the persistent part it names (none if that part
// ended already). A form that cannot be had is logged once per kernel and
// reason; the kernel then runs whole at its first part (kDone says
// done_whole) and its later parts are answered at once, or, if a part of it
// ran already, the grant fails (cudaErrorLaunchFailure).
//
// Work that CUDA orders on a stream behind kernels (async copies, memsets,
// event records, stream waits) must reach the real stream after the
// stream's earlier launches: WaitIssued() blocks until they were issued.
//
// Thread safety: all methods may be called from any thread. The launches
// waiting for a grant, those given to Watch and the event pool are guarded
// by this object's own mutex, which no thread holds while it calls CUDA,
// and which never waits for the shim's state mutex (callers may hold that one:
// a synchronizing call holds it while colod waits for this thread's kDone). The
// gate thread runs all its CUDA calls inside a ReentryGuard, so they go to the
// real libraries.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "colo/time.h"
#include "ipc/wire.h"
#include "shim/form_launcher.h"
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
  // Where its kernel's forms come from; null: it runs whole only.
  std::shared_ptr<const FormSource> forms;
};

// The sizes of the parameters of `func` (a host stub, or a CUfunction if
// `driver`). cudaErrorNotSupported if the real library cannot say. The
// runtime's probe fails past the last parameter; the calling thread's last
// error (cudaGetLastError) stays what the program left it.
int ParamSizes(const void* func, bool driver, std::vector<size_t>* sizes);

// Copies the parameter values `args` points to into `launch->args`.
// cudaErrorNotSupported if `args` is null while the kernel has parameters
// (e.g. cuLaunchKernel's `extra` form, which gate mode does not take).
int CaptureArgs(void** args, const std::vector<size_t>& sizes,
                GateLaunch* launch);

class GateClient {
 public:
  // How long the gate thread spins after its last activity, unless the
  // program's environment says otherwise (COLO_GATE_SPIN_US): 200 us for a
  // client whose launches wait for grants (its next grant and its kernels'
  // ends are then seen at once); none for a direct client, whose program
  // waits for nothing of this thread: it sleeps and looks at its events
  // every 50 us, so that it takes no core from the program (on the 2-core
  // test machine, with other work running, a spinning one made each
  // request of four 100 us kernels on the host-emulated runtime wait about
  // 250 us for a core, one looking every 50 us 1 to 12 us).
  static constexpr Duration kDefaultSpin = Microseconds(200);
  static constexpr Duration kDirectDefaultSpin{0};

  // Starts the gate thread on `gate_fd` (not owned; it stays open for the
  // process's life), spinning as described above for `spin`; `direct`: the
  // client issues its launches itself (colod's welcome says so).
  // `form_arch` > 0: kernels' forms are built for that SM architecture (80
  // = sm_80), cached on disk where DefaultFormCacheDirectory() says; 0:
  // none (every grant in a form runs the kernel whole).
  GateClient(int gate_fd, Duration spin, bool direct, int form_arch = 0);
  GateClient(const GateClient&) = delete;
  GateClient& operator=(const GateClient&) = delete;
  ~GateClient();

  bool direct() const { return direct_; }
  // The forms' cache (thread-safe), or null without forms.
  KernelFormCache* form_cache() { return form_cache_.get(); }

  // A launch the program's thread issued (IssueNow).
  struct Issued {
    uint64_t seq = 0;
    void* event = nullptr;  // recorded after it on its stream.
    bool wakes = false;     // a host function behind it rings wake_fd_.
    void* stream = nullptr;
    int device = 0;
    int64_t at_ns = 0;  // MonotonicNs() just before it was issued.
    // A part of a granted launch (the gate thread's own):
    uint64_t grant = 0;         // colod's id of the part
    bool final_part = false;    // its end ends the launch
    bool done_whole = false;    // the whole kernel ran for a form
    uint32_t end_block = 0;     // the grant's end_block
    bool persistent = false;    // `workers` below are its own
    uint32_t total_blocks = 0;  // the grid's (persistent)
    FormLauncher::Persistent workers;
  };
  // Issues `launch` on the calling thread, whose current device is
  // launch.device, with parameter pointers `args` (a direct client's: the
  // program's own), and records an event from the pool after it. Returns
  // the launch's cudaError_t (CUresult for the driver API); on an error
  // `out` holds no event. `out->seq` is the caller's to fill.
  int IssueNow(const GateLaunch& launch, void** args, Issued* out);
  // Direct: the gate thread watches `issued` (pushed onto the ring) and
  // reports its end; in order of the calls, which must follow the ring's.
  void Watch(const Issued& issued);

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
  using Outstanding = Issued;
  // A launch waiting for its grants.
  struct Pending {
    GateLaunch launch;
    bool started = false;    // a part of it was granted
    bool ran_whole = false;  // all of it ran, for a form it lacked
  };
  void Run();
  // The host function behind each issued launch (any thread of CUDA's).
  static void Wake(void* self);
  // Issues grant `g`; adds its event to `out` or reports its error.
  void Issue(const ipc::GateMsg& g, std::vector<Outstanding>* out);
  // Issues a part in a form (Issue's helper): its error, or 0.
  int IssueForm(const ipc::GateMsg& g, Pending& p, void** args, Issued* out);
  // Records an event from the pool after what was just issued on
  // `l.stream` (IssueNow's second half).
  int RecordAfter(const GateLaunch& l, Issued* out);
  // Launch `seq` has had its last part issued: it leaves pending_.
  void Finish(uint64_t seq);
  // Logs `line` once ("colo: " on stderr).
  void LogOnce(const std::string& line);
  // An event of `device`'s from the pool (made if none is free), and one
  // given back to it.
  int TakeEvent(int device, void** event);
  void ReturnEvent(int device, void* event);
  // Gate thread: moves the launches given to Watch() into `out`. With
  // `to_sleep`, says it is about to sleep for long (so Watch rings
  // wake_fd_) unless some were waiting; returns whether any were.
  bool TakeWatched(std::vector<Outstanding>* out, bool to_sleep);
  void SendDone(const Issued& part, int cuda_error, uint32_t next_block = 0);
  void SendDone(uint64_t seq, uint64_t grant, int cuda_error);

  int fd_;
  int wake_fd_;  // an eventfd, rung by Wake() and Watch().
  Duration spin_;
  const bool direct_;
  std::mutex mu_;
  std::condition_variable issued_;        // with mu_: a launch left pending_.
  std::map<uint64_t, Pending> pending_;   // guarded by mu_.
  bool lost_ = false;                     // guarded by mu_.
  std::vector<Issued> watched_;           // guarded by mu_: for Run().
  std::atomic<bool> any_watched_{false};  // watched_ is not empty.
  bool sleeping_ = false;  // guarded by mu_: Run() sleeps in ppoll.
  std::map<int, std::vector<void*>> free_events_;  // guarded by mu_.
  int device_ = -1;              // gate thread: its current device.
  std::unique_ptr<PtxJit> jit_;  // with forms
  std::unique_ptr<KernelFormCache> form_cache_;  // with forms
  std::unique_ptr<FormLauncher> launcher_;       // with forms; gate thread
  std::set<std::string> logged_;                 // gate thread: LogOnce
  std::thread thread_;
};

}  // namespace colo::shim
