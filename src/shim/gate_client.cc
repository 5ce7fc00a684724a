// The gate thread and argument capture (gate_client.h). The real CUDA entry
// points are called through pointers from hook_table (never through this
// library's exports), with the thread's ReentryGuard held.
#include "shim/gate_client.h"

#include <errno.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "cuda/cuda_abi.h"
#include "ipc/wire.h"
#include "shim/driver_ptx_jit.h"
#include "shim/hook_table.h"
#include "shim/shim_exports.h"
#include "shim/shim_runtime.h"
#include "shim/shim_state.h"

namespace colo::shim {
namespace {

using ParamInfoFn = int (*)(const void*, size_t, size_t*, size_t*);
using RtLaunchFn = decltype(&::cudaLaunchKernel);
using DrvLaunchFn = decltype(&::cuLaunchKernel);
using EventCreateFn = decltype(&::cudaEventCreateWithFlags);
using EventRecordFn = decltype(&::cudaEventRecord);
using EventQueryFn = decltype(&::cudaEventQuery);
using EventDestroyFn = decltype(&::cudaEventDestroy);
using SetDeviceFn = decltype(&::cudaSetDevice);
using HostFuncFn = int (*)(void*, void (*)(void*), void*);

template <typename F>
F RealFn(HookId id) {
  return reinterpret_cast<F>(Real(id));
}

}  // namespace

int ParamSizes(const void* func, bool driver, std::vector<size_t>* sizes) {
  auto info = reinterpret_cast<ParamInfoFn>(
      RealNamed(driver ? "cuFuncGetParamInfo" : "cudaFuncGetParamInfo"));
  if (info == nullptr) return cuda::kCudaErrorNotSupported;
  // The runtime's probe past the last parameter fails, and a failing runtime
  // call becomes the thread's last error, which the program would then read
  // from its next cudaGetLastError (seen on an H100: 1, invalid value, after
  // a launch that ran). So the last error the program had is kept aside and
  // the probe's is taken back.
  using LastErrorFn = int (*)();
  auto peek =
      driver ? nullptr
             : reinterpret_cast<LastErrorFn>(RealNamed("cudaPeekAtLastError"));
  auto take =
      driver ? nullptr
             : reinterpret_cast<LastErrorFn>(RealNamed("cudaGetLastError"));
  const int before = peek != nullptr ? peek() : cuda::kCudaSuccess;
  sizes->clear();
  for (size_t i = 0;; ++i) {
    size_t offset = 0, size = 0;
    // Past the last parameter the call fails (invalid value): done.
    if (info(func, i, &offset, &size) != 0) break;
    sizes->push_back(size);
  }
  if (take != nullptr) {
    take();
    // The program's own earlier error, still unread, stays its to read.
    if (before != cuda::kCudaSuccess) RecordError(before);
  }
  return cuda::kCudaSuccess;
}

int CaptureArgs(void** args, const std::vector<size_t>& sizes,
                GateLaunch* launch) {
  launch->args.clear();
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (args == nullptr || args[i] == nullptr)
      return cuda::kCudaErrorNotSupported;
    const char* p = static_cast<const char*>(args[i]);
    launch->args.emplace_back(p, p + sizes[i]);
  }
  return cuda::kCudaSuccess;
}

GateClient::GateClient(int gate_fd, Duration spin, bool direct, int form_arch)
    : fd_(gate_fd),
      wake_fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
      spin_(spin),
      direct_(direct) {
  if (form_arch > 0) {
    jit_ = std::make_unique<DriverPtxJit>(&RealNamed);
    KernelFormCache::Options o;
    o.arch = form_arch;
    form_cache_ = std::make_unique<KernelFormCache>(*jit_, std::move(o));
    launcher_ = std::make_unique<FormLauncher>(*form_cache_);
  }
  thread_ = std::thread([this] { Run(); });
}

void GateClient::Wake(void* self) {
  const uint64_t one = 1;
  // Only a full counter refuses, and then the gate thread is awake anyway.
  ssize_t r =
      write(static_cast<GateClient*>(self)->wake_fd_, &one, sizeof(one));
  (void)r;
}

GateClient::~GateClient() {
  // Never reached in practice: the shim's state lives as long as the
  // process, and so does this thread.
  if (thread_.joinable()) thread_.detach();
}

void GateClient::Add(GateLaunch launch) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t seq = launch.seq;
  pending_.emplace(seq, Pending{std::move(launch)});
}

void GateClient::Finish(uint64_t seq) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.erase(seq);
  }
  issued_.notify_all();
}

void GateClient::LogOnce(const std::string& line) {
  if (logged_.size() < 4096 && logged_.insert(line).second) LogToStderr(line);
}

void GateClient::Remove(uint64_t seq) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.erase(seq);
  }
  issued_.notify_all();
}

bool GateClient::lost() {
  std::lock_guard<std::mutex> lock(mu_);
  return lost_;
}

int GateClient::WaitIssued(uint32_t stream_id, uint64_t seq, bool all_streams) {
  if (direct_) return cuda::kCudaSuccess;  // each was issued when made.
  std::unique_lock<std::mutex> lock(mu_);
  auto blocked = [&] {
    for (const auto& [s, p] : pending_) {
      if (s > seq) break;
      if (all_streams || p.launch.stream_id == stream_id) return true;
    }
    return false;
  };
  issued_.wait(lock, [&] { return lost_ || !blocked(); });
  return blocked() ? cuda::kCudaErrorDevicesUnavailable : cuda::kCudaSuccess;
}

void GateClient::SendDone(uint64_t seq, uint64_t grant, int cuda_error) {
  Issued part;
  part.seq = seq;
  part.grant = grant;
  SendDone(part, cuda_error);
}

void GateClient::SendDone(const Issued& part, int cuda_error,
                          uint32_t next_block) {
  ipc::GateMsg g;
  g.type = static_cast<uint32_t>(ipc::GateMsgType::kDone);
  g.seq = part.seq;
  g.grant = part.grant;
  g.cuda_error = cuda_error;
  g.next_block = part.done_whole ? part.end_block : next_block;
  g.done_whole = part.done_whole ? 1 : 0;
  // A failed send means colod is gone; the channel's hang-up ends Run().
  (void)send(fd_, &g, sizeof(g), MSG_NOSIGNAL);
}

void GateClient::Issue(const ipc::GateMsg& g, std::vector<Outstanding>* out) {
  const uint64_t seq = g.seq;
  Pending p;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pending_.find(seq);
    if (it == pending_.end()) {
      // colod granted a launch this process never made: say it failed.
      SendDone(seq, g.grant, cuda::kCudaErrorLaunchFailure);
      return;
    }
    p = it->second;
    it->second.started = true;
  }
  const GateLaunch& l = p.launch;
  const auto form = static_cast<ipc::GateForm>(g.form);
  const uint64_t total = static_cast<uint64_t>(l.grid.x) * l.grid.y * l.grid.z;
  Issued issued;
  issued.seq = seq;
  issued.grant = g.grant;
  issued.end_block = g.end_block;
  // The part that ends the launch: the whole kernel, or a slice through the
  // last block (a persistent part: once its workers ran the last block).
  issued.final_part = form == ipc::GateForm::kWhole ||
                      (form == ipc::GateForm::kSlice && g.end_block >= total);
  if (form != ipc::GateForm::kWhole && p.ran_whole) {
    // All of it ran with its first part.
    issued.done_whole = true;
    SendDone(issued, cuda::kCudaSuccess);
    if (issued.final_part || form == ipc::GateForm::kPersistent) Finish(seq);
    return;
  }
  int err = cuda::kCudaSuccess;
  if (l.device != device_) {
    auto set = RealFn<SetDeviceFn>(HookId::k_cudaSetDevice);
    err = set != nullptr ? set(l.device)
                         : cuda::kCudaErrorSharedObjectSymbolNotFound;
    if (err == cuda::kCudaSuccess) device_ = l.device;
  }
  std::vector<void*> ptrs;
  for (auto& a : p.launch.args) ptrs.push_back(a.data());
  if (err == cuda::kCudaSuccess) {
    err = form == ipc::GateForm::kWhole ? IssueNow(l, ptrs.data(), &issued)
                                        : IssueForm(g, p, ptrs.data(), &issued);
  }
  // A failed persistent part ends the launch for colod too.
  if (issued.final_part || (issued.done_whole && g.end_block >= total) ||
      (err != cuda::kCudaSuccess && form == ipc::GateForm::kPersistent))
    Finish(seq);
  if (err != cuda::kCudaSuccess) {
    SendDone(issued, err);
  } else {
    out->push_back(issued);
  }
}

int GateClient::IssueForm(const ipc::GateMsg& g, Pending& p, void** args,
                          Issued* out) {
  const GateLaunch& l = p.launch;
  const bool persistent =
      static_cast<ipc::GateForm>(g.form) == ipc::GateForm::kPersistent;
  std::string why = "the interposer builds no forms here";
  int r = FormLauncher::kNoForm;
  if (launcher_ != nullptr && l.forms != nullptr) {
    const FormGrant grant{persistent, g.first_block, g.end_block, g.workers};
    r = launcher_->Issue(l, *l.forms, grant, args, &out->workers, &why);
  } else if (launcher_ != nullptr) {
    why = "it has no PTX the interposer could read";
  }
  const std::string kernel =
      l.forms != nullptr ? l.forms->kernel : std::string("a kernel");
  if (r == FormLauncher::kNoForm) {
    if (p.started) {
      LogOnce(kernel + ": a later part cannot be launched as granted (" + why +
              "): the launch fails");
      return cuda::kCudaErrorLaunchFailure;
    }
    LogOnce(kernel + " runs whole instead of the " +
            (persistent ? "persistent" : "sliced") +
            " form colod granted: " + why);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (auto it = pending_.find(out->seq); it != pending_.end())
        it->second.ran_whole = true;
    }
    out->done_whole = true;
    out->final_part = false;
    return IssueNow(l, args, out);
  }
  if (r != 0) {
    LogOnce(kernel + ": launching its " +
            (persistent ? "persistent" : "sliced") + " form failed (CUresult " +
            std::to_string(r) + ")");
    return r;
  }
  out->persistent = persistent;
  out->total_blocks = g.end_block;
  if (int err = RecordAfter(l, out); err != cuda::kCudaSuccess) {
    // Its end cannot be watched; its control block may still be written.
    out->persistent = false;
    return err;
  }
  return cuda::kCudaSuccess;
}

int GateClient::IssueNow(const GateLaunch& l, void** args, Issued* out) {
  out->at_ns = MonotonicNs();
  int err;
  if (l.driver) {
    auto launch = reinterpret_cast<DrvLaunchFn>(RealNamed("cuLaunchKernel"));
    err = launch == nullptr
              ? cuda::kCudaErrorSharedObjectSymbolNotFound
              : launch(const_cast<void*>(l.func), l.grid.x, l.grid.y, l.grid.z,
                       l.block.x, l.block.y, l.block.z,
                       static_cast<unsigned>(l.shared_mem), l.stream, args,
                       nullptr);
  } else {
    auto launch = RealFn<RtLaunchFn>(HookId::k_cudaLaunchKernel);
    err = launch == nullptr
              ? cuda::kCudaErrorSharedObjectSymbolNotFound
              : launch(l.func, colo_dim3{l.grid.x, l.grid.y, l.grid.z},
                       colo_dim3{l.block.x, l.block.y, l.block.z}, args,
                       l.shared_mem, l.stream);
  }
  if (err != cuda::kCudaSuccess) return err;
  return RecordAfter(l, out);
}

int GateClient::RecordAfter(const GateLaunch& l, Issued* out) {
  int err;
  void* event = nullptr;
  auto record = RealFn<EventRecordFn>(HookId::k_cudaEventRecord);
  err = record == nullptr ? cuda::kCudaErrorSharedObjectSymbolNotFound
                          : TakeEvent(l.device, &event);
  if (err == cuda::kCudaSuccess) err = record(event, l.stream);
  if (err != cuda::kCudaSuccess) {
    // Issued, but its end cannot be watched: the launch fails with this
    // error (it may run all the same).
    if (event != nullptr) ReturnEvent(l.device, event);
    return err;
  }
  // A spinning thread sees the event at once; a host function would only
  // hold the stream's next kernel until CUDA's callback thread woke. A
  // direct client's program waits for nothing of this thread, so its
  // kernels get none: a sleeping thread looks at their events every 50 us.
  bool wakes = false;
  if (!direct_ && wake_fd_ >= 0 && spin_ == Duration(0)) {
    auto host_func =
        reinterpret_cast<HostFuncFn>(RealNamed("cudaLaunchHostFunc"));
    wakes = host_func != nullptr &&
            host_func(l.stream, &GateClient::Wake, this) == 0;
  }
  out->event = event;
  out->wakes = wakes;
  out->stream = l.stream;
  out->device = l.device;
  return cuda::kCudaSuccess;
}

int GateClient::TakeEvent(int device, void** event) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<void*>& free = free_events_[device];
    if (!free.empty()) {
      *event = free.back();
      free.pop_back();
      return cuda::kCudaSuccess;
    }
  }
  auto create = RealFn<EventCreateFn>(HookId::k_cudaEventCreateWithFlags);
  return create == nullptr ? cuda::kCudaErrorSharedObjectSymbolNotFound
                           : create(event, cuda::kEventDisableTiming);
}

void GateClient::ReturnEvent(int device, void* event) {
  // As many as were ever in flight at once are kept, up to a bound.
  constexpr size_t kMaxFreeEvents = 1024;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<void*>& free = free_events_[device];
    if (free.size() < kMaxFreeEvents) {
      free.push_back(event);
      return;
    }
  }
  auto destroy = RealFn<EventDestroyFn>(HookId::k_cudaEventDestroy);
  if (destroy != nullptr) destroy(event);
}

void GateClient::Watch(const Issued& issued) {
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    watched_.push_back(issued);
    any_watched_.store(true, std::memory_order_release);
    wake = sleeping_;
  }
  if (wake) Wake(this);
}

bool GateClient::TakeWatched(std::vector<Outstanding>* out, bool to_sleep) {
  if (!to_sleep && !any_watched_.load(std::memory_order_acquire)) return false;
  std::lock_guard<std::mutex> lock(mu_);
  const bool any = !watched_.empty();
  out->insert(out->end(), watched_.begin(), watched_.end());
  watched_.clear();
  any_watched_.store(false, std::memory_order_relaxed);
  // Asleep only with nothing taken: Watch() rings from now on.
  sleeping_ = to_sleep && !any;
  return any;
}

void GateClient::Run() {
  ReentryGuard guard;  // every CUDA call on this thread goes to the real one.
  std::vector<Outstanding> outstanding;    // in the order they were issued.
  std::vector<void*> unfinished_streams;   // per pass below.
  const timespec poll_interval{0, 50000};  // an event without a host function.
  const timespec check_interval{0,
                                1000000};  // events with one: a failed kernel.
  const timespec no_wait{0, 0};
  int64_t last_activity = MonotonicNs();
  for (;;) {
    if (TakeWatched(&outstanding, false)) last_activity = MonotonicNs();
    pollfd p[2] = {{fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    const bool unwoken =
        std::any_of(outstanding.begin(), outstanding.end(),
                    [](const Outstanding& o) { return !o.wakes; });
    const bool spinning =
        spin_ > Duration(0) &&
        (!outstanding.empty() || MonotonicNs() - last_activity < spin_.count());
    // Without an eventfd, launches given to Watch() are looked for every
    // millisecond.
    const timespec* idle = direct_ && wake_fd_ < 0 ? &check_interval : nullptr;
    const timespec* timeout = spinning              ? &no_wait
                              : outstanding.empty() ? idle
                              : unwoken             ? &poll_interval
                                                    : &check_interval;
    // About to sleep: launches that came meanwhile are looked at first.
    // Past the next 50 us look, Watch() rings wake_fd_ from here on (a
    // burst of launches wakes the thread once, not once each).
    const bool sleeps = timeout != &no_wait;
    const bool sleeps_long = sleeps && timeout != &poll_interval;
    if (sleeps && TakeWatched(&outstanding, sleeps_long)) {
      last_activity = MonotonicNs();
      continue;
    }
    const int n = ppoll(p, wake_fd_ >= 0 ? 2 : 1, timeout, nullptr);
    if (sleeps_long) {
      std::lock_guard<std::mutex> lock(mu_);
      sleeping_ = false;
    }
    bool closed = n < 0 && errno != EINTR;
    if (n > 0 && (p[1].revents & POLLIN) != 0) {
      uint64_t count;
      ssize_t r = read(wake_fd_, &count, sizeof(count));
      (void)r;
    }
    if (n > 0 && p[0].revents != 0) {
      for (;;) {
        ipc::GateMsg g;
        const ssize_t got = recv(fd_, &g, sizeof(g), MSG_DONTWAIT);
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (got < 0 && errno == EINTR) continue;
        if (got != static_cast<ssize_t>(sizeof(g)) ||
            (g.type != static_cast<uint32_t>(ipc::GateMsgType::kGrant) &&
             g.type != static_cast<uint32_t>(ipc::GateMsgType::kRetreat))) {
          closed = true;  // colod gone (0 bytes) or speaking nonsense.
          break;
        }
        last_activity = MonotonicNs();
        if (g.type == static_cast<uint32_t>(ipc::GateMsgType::kGrant)) {
          Issue(g, &outstanding);
          continue;
        }
        // A retreat for a part that has ended already asks for nothing.
        for (const Outstanding& o : outstanding) {
          if (o.persistent && o.grant == g.grant) {
            if (int r = launcher_->Retreat(o.workers); r != 0)
              LogOnce("cannot ask persistent workers to retreat (CUresult " +
                      std::to_string(r) + ")");
            break;
          }
        }
      }
    }
    auto query = RealFn<EventQueryFn>(HookId::k_cudaEventQuery);
    auto destroy = RealFn<EventDestroyFn>(HookId::k_cudaEventDestroy);
    // colod may grant a stream several launches at once (gate_depth), and a
    // direct client issues as many as it makes; each
    // is reported after the ones before it on its stream, which the GPU
    // finished first, even if this pass looked at their events before they
    // completed.
    unfinished_streams.clear();
    for (size_t i = 0; i < outstanding.size();) {
      const bool behind =
          std::find(unfinished_streams.begin(), unfinished_streams.end(),
                    outstanding[i].stream) != unfinished_streams.end();
      const int q =
          behind ? cuda::kCudaErrorNotReady : query(outstanding[i].event);
      if (q == cuda::kCudaErrorNotReady) {
        if (!behind) unfinished_streams.push_back(outstanding[i].stream);
        ++i;
        continue;
      }
      const Outstanding& done = outstanding[i];
      uint32_t next_block = 0;
      if (done.persistent) {
        next_block = launcher_->StoppedAt(done.workers, done.total_blocks);
        launcher_->Release(done.workers);
        if (q != cuda::kCudaSuccess || next_block >= done.total_blocks)
          Finish(done.seq);
      }
      SendDone(done, q, next_block);
      last_activity = MonotonicNs();
      // An event that reported a failed kernel is not used again.
      if (q == cuda::kCudaSuccess) {
        ReturnEvent(outstanding[i].device, outstanding[i].event);
      } else {
        destroy(outstanding[i].event);
      }
      outstanding.erase(outstanding.begin() + static_cast<long>(i));
    }
    if (closed) {
      std::lock_guard<std::mutex> lock(mu_);
      lost_ = true;
      issued_.notify_all();
      return;
    }
  }
}

}  // namespace colo::shim
