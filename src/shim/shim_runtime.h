// shim/shim_runtime.h — what the interposer does behind its extern "C"
// layer. colod's Welcome says which device it runs:
//
// Gate mode (colod's `device: cuda`; gate_runtime.h, gate_client.h): the
// program's own CUDA runtime does the device work; the interposer holds
// each kernel launch back until colod grants it (a high-priority client's,
// as colod's welcome says, it issues at once and only tells colod of),
// reports its completion, accounts allocations with colod, and keeps
// stream-ordered work behind launches not yet granted. Calls that need no gate
// (device properties, pinned memory, ...) go straight to the real runtime
// (GateMode()).
//
// Sim mode (a simulated GPU): the interposer answers the CUDA calls itself.
//
//  * Kernels: registration records each kernel's device name by its host
//    stub; a launch pushes the name (once per kernel, with the registers
//    and shared memory read from the program's binary) and the launch shape
//    onto the launch ring, without a round trip. Kernels are not executed.
//  * Memory: "device" memory is host memory in this process (page-aligned
//    anonymous mappings standing in for device buffers); colod accounts
//    every allocation and may refuse it (cudaErrorMemoryAllocation) under
//    the client's limit. A copy or memset puts the device work it stands
//    for on its stream (colod times it) and moves its bytes on the host.
//  * Synchronization: a sync waits until colod has finished, on the
//    simulated GPU, what it names: a stream sync the stream's launches up
//    to its last (on a stream of the program's, that stream's own work
//    only; on the legacy default stream, every launch before it on any
//    stream), an event sync the work before the event, a device sync every
//    launch; each also waits for the host functions and the copies' bytes
//    before it. It is a Sync call on the socket only when the ring does not
//    already show that work ended; queries read what colod posts in the
//    ring, without a round trip. Asynchronous errors (a refused launch)
//    surface at the next synchronizing call.
//  * Properties: the simulated GPU's spec, from colod's Welcome.
//  * colod unreachable or gone: every call returns
//    cudaErrorDevicesUnavailable, and one line on stderr says why.
//
// Environment: COLO_SOCKET (default /run/colo/colod.sock), COLO_CLASS
// ("high" or "best-effort": a request colod may refuse), COLO_TOKEN
// (an operator-issued token, removed from the environment at the first
// connection), COLO_SERVER_UID (uids colod may run as besides root and the
// program's own: colod_credentials.h), COLO_SHIM_PASSTHROUGH=1 (forward every
// call to the real CUDA libraries; honoured only where the operator's permit
// file allows it, passthrough_permit.h; otherwise one line on stderr and the
// program stays under colod),
// COLO_SYNC_SPIN_US (how long a synchronizing call polls the ring before it
// blocks on colod's answer), COLO_GATE_SPIN_US (gate_client.h).
//
// Every function returns a cudaError_t value (CUresult for Cu*) and never
// throws. Thread safety: all functions may be called from any thread; the
// connection, the ring and every table are guarded by one mutex
// (InterposerState::mu, shim_state.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "colo/gemm_model.h"
#include "cuda/cuda_abi.h"

namespace colo::shim {

struct CapturedOp;  // graph_objects.h

struct Dim {
  unsigned x = 1, y = 1, z = 1;
};

// COLO_SHIM_PASSTHROUGH=1 and the operator's permit (passthrough_permit.h);
// decided once, at the first call.
bool Passthrough();
// Connects to colod if needed; true if colod runs a GPU in gate mode.
bool GateMode();

// Thread-local re-entry guard for the extern "C" layer.
class ReentryGuard {
 public:
  ReentryGuard();
  ~ReentryGuard();
  bool reentered() const { return reentered_; }

 private:
  bool reentered_;
};

// Remembers `err` as the thread's last error if it is not success; returns it.
int RecordError(int err);
int TakeLastError();
int PeekLastError();

// A kernel the program registered (__cudaRegisterFunction): its device name
// by its host stub, which launches name it by. `fat_binary`: the wrapper
// registered with it (nullptr if unknown); the kernel's registers and static
// shared memory are read from it (fatbin.h) the first time one of its
// kernels is launched or asked about. (registry.h keeps the registration
// itself, for the real runtime.)
void AddRegisteredKernel(const void* host_fun, const char* device_name,
                         const void* fat_binary);
// Drops what was read from, or remembered about, `fat_binary` (unloaded).
void ForgetFatBinary(const void* fat_binary);
// A __device__ or __constant__ variable the program registered
// (__cudaRegisterVar): its host shadow, size, fat binary and device name;
// the symbol the calls below take.
void AddRegisteredVariable(const void* host_var, size_t size,
                           const void* fat_binary, const char* device_name);
// The stream the interposer works on for a stream argument: for
// cudaStreamPerThread (0x2), in sim mode, the calling thread's own default
// stream (a stream of its own, made on first use and destroyed when the
// thread ends: independent of other threads' default streams, as in CUDA);
// any other value as it is. In gate mode the real runtime's per-thread
// stream serves.
void* OwnStream(void* stream);
int PushConfig(Dim grid, Dim block, size_t shared_mem, void* stream);
int PopConfig(Dim* grid, Dim* block, size_t* shared_mem, void** stream);
// `args`: the kernel's parameter pointers (gate mode copies the values).
int Launch(const void* host_fun, Dim grid, Dim block, size_t shared_mem,
           void* stream, void** args);
// Gate mode: cudaErrorNotSupported for cuLaunchKernel's `extra` form.
int DriverLaunch(void* function, Dim grid, Dim block, size_t shared_mem,
                 void* stream, void** args, void** extra);

// Driver modules. Sim mode: LoadModule hands out a handle of ours and
// ModuleFunction one handle per (module, kernel name), named so that colod
// finds the kernel in its profile table; UnloadModule releases them
// (CUDA_ERROR_INVALID_HANDLE for a handle that is not a loaded module).
// Gate mode: the real driver's handles, and NameFunction / ForgetModule
// keep the names.
// `image`: a copy of the module's bytes (shim/fatbin.h CopyModuleImage; empty
// if it holds no cubin), read for its kernels' resources when first needed.
int LoadModule(void** module, std::string image);
int UnloadModule(void* module);
int ModuleFunction(void** function, void* module, const char* name);
void NameFunction(void* module, const void* function, const char* name);
void ForgetModule(void* module);

// A library call in sim mode (shim/blas.h) as one kernel launch on `stream`:
// the GEMM `shape` planned for the simulated GPU (colo/gemm_model.h PlanGemm:
// its tiles, 128 registers a thread, its shared memory), defined on the
// ring once per kernel name with the work it does, so that colod times it
// by its roofline (or by a profile-table entry matching the name, which
// starts with `op`). Recorded like any kernel while `stream` captures.
// cudaErrorInvalidValue for a shape PlanGemm refuses; cudaErrorNotSupported
// in gate mode (the real cuBLAS runs there); else what a launch returns.
// Whether sim mode's `execute` is on (sim_execute.h); connects first.
bool ExecuteMode();
// Under sim mode's `execute`, `compute` (the GEMM itself, on the host's
// memory) runs in stream order (sim_execute.h).
int LaunchGemm(const GemmShape& shape, const std::string& op, void* stream,
               std::function<void()> compute = nullptr);
// The waves LaunchGemm's launch of `shape` takes on colod's GPU: its blocks
// over the blocks all SMs hold at once (cuBLASLt's wavesCount). cudaSuccess,
// cudaErrorInvalidValue for a shape PlanGemm refuses, or Connect's error.
int GemmWaves(const GemmShape& shape, const std::string& op, double* waves);
// Connects to colod if needed: cudaSuccess, or the error every call returns
// (cudaErrorDevicesUnavailable when colod is unreachable or gone).
int Connect();

// cudaDeviceGetAttribute for the simulated GPU (what GetDeviceProperties
// reports); cudaErrorInvalidValue for an attribute it does not cover.
int GetDeviceAttribute(int* value, int attr, int device);

// Start-up and bookkeeping queries (runtime_queries.cc). Sim mode answers
// them all; gate mode forwards the priority range, the capture mode, limits
// and pointer attributes to the real runtime, and answers a stream's
// priority and flags from what the program created it with.
//   priority range: 0 (least) .. -5 (greatest); a stream's priority is its
//   requested one clamped to that range; limits: CUDA's defaults until set
//   (an unknown cudaLimit is cudaErrorUnsupportedLimit); pointer
//   attributes: device memory (managed for cudaMallocManaged), pinned host
//   memory from cudaMallocHost/HostAlloc, else unregistered (device -2).
int DeviceGetStreamPriorityRange(int* least, int* greatest);
int StreamGetPriority(void* stream, int* priority);
int StreamGetFlags(void* stream, unsigned* flags);
int ThreadExchangeStreamCaptureMode(int* mode);
int DeviceGetLimit(size_t* value, int limit);
int DeviceSetLimit(int limit, size_t value);
int PointerGetAttributes(void* attr, const void* ptr);

// CUDA graphs by stream capture (graph_capture.cc; sim mode only, gate mode
// answers cudaErrorNotSupported). `status` is a cudaStreamCaptureStatus
// (0 none, 1 active); `mode` a cudaStreamCaptureMode. Capturing the default
// stream is cudaErrorStreamCaptureUnsupported, ending a capture that was not
// begun cudaErrorIllegalState. While a stream captures, its kernels and
// async copies/memsets are recorded; synchronizing or querying it is
// cudaErrorStreamCaptureUnsupported. Recording an event on it marks a point
// of the capture: another stream that waits on that event joins the capture
// (fork), and a stream of the capture that waits on an event recorded on
// another one rejoins it (join). Ending the capture on a stream that joined
// it is cudaErrorStreamCaptureUnmatched; ending it while a joined stream has
// operations no other stream of the capture waited for is
// cudaErrorStreamCaptureUnjoined (no graph; the capture ends on every
// stream); a capturing stream waiting on an event recorded outside the
// capture is cudaErrorStreamCaptureIsolation, on another capture's
// cudaErrorStreamCaptureMerge; querying, synchronizing or timing an event
// last recorded in a capture is cudaErrorCapturedEvent.
int StreamBeginCapture(void* stream, int mode);
int StreamEndCapture(void* stream, void** graph);
int StreamIsCapturing(void* stream, int* status);
int StreamGetCaptureInfo(void* stream, int* status, unsigned long long* id,
                         void** graph, const void*** dependencies,
                         const void** edge_data, size_t* num_dependencies);
int GraphInstantiate(void** exec, void* graph);
int GraphLaunch(void* exec, void* stream);
int GraphExecDestroy(void* exec);
int GraphDestroy(void* graph);

// CUDA graphs built node by node (graph_build.cc; sim mode only, gate mode
// answers cudaErrorNotSupported). A node runs after the nodes of its graph
// it depends on (`deps` at creation, and cudaGraphAddDependencies'
// edges); cudaGraphInstantiate takes them in an order that keeps every
// dependency (ready nodes in the order they were added) and refuses a cycle
// with cudaErrorInvalidValue. cudaErrorInvalidValue also for: a graph or
// node that is not live, a dependency of another graph or named twice,
// flags other than 0, a repeated edge; a kernel node's function must be one
// the program registered or loaded (else cudaErrorInvalidDeviceFunction)
// and is checked as a launch (cudaErrorInvalidConfiguration for an empty
// grid or block), a memset node
// (elements of 1, 2 or 4 bytes, `width` of them a row) and a 1D copy node as
// the captured ones are (their memory in an allocation, a known copy kind).
// Edge data other than full completion (programmatic-launch ports) is
// cudaErrorNotSupported. A graph made by capture holds its operations as
// nodes, each depending on the one before.
int GraphCreate(void** graph, unsigned flags);
int GraphAddKernelNode(void** node, void* graph, const void* const* deps,
                       size_t num_deps, const void* func, Dim grid, Dim block,
                       size_t shared_mem, void** args, void** extra);
int GraphAddMemsetNode(void** node, void* graph, const void* const* deps,
                       size_t num_deps, void* dst, size_t pitch, unsigned value,
                       unsigned element_size, size_t width, size_t height);
int GraphAddMemcpyNode1D(void** node, void* graph, const void* const* deps,
                         size_t num_deps, void* dst, const void* src,
                         size_t count, int kind);
// A copy node of cudaMemcpy3DParms: linear memory only (no CUDA arrays are
// handed out: cudaErrorInvalidValue); slices that are not one run of rows
// (ysize beyond the extent's height) cudaErrorNotSupported.
int GraphAddMemcpyNode(void** node, void* graph, const void* const* deps,
                       size_t num_deps, const cuda::Memcpy3DParms* params);
// The CapturedOp of a cudaMemcpy3DParms copy (as GraphAddMemcpyNode takes).
int CopyOpOf(const cuda::Memcpy3DParms* params, CapturedOp* op);
// An instantiated graph changed (graph_exec_edit.cc): node `node` of the
// graph it came from runs `op` from the next launch on (a kernel's
// arguments from `args` / `extra` under `execute`); the node must be of
// op's kind (cudaErrorInvalidValue otherwise). cudaGraphExecUpdate takes
// every node's parameters from `graph` if it has the same operations in the
// same order and dependencies (kernels of the same function), else fills
// `result_info` (a cudaGraphExecUpdateResultInfo) and returns
// cudaErrorGraphExecUpdateFailure. cudaGraphUpload checks its arguments.
int GraphExecSetNode(void* exec, void* node, CapturedOp op, void** args,
                     void** extra);
int GraphExecUpdate(void* exec, void* graph, void* result_info);
// cudaGraphNodeSetEnabled / GetEnabled: a kernel, memcpy or memset node of
// the instantiated graph is skipped by its next launches while disabled
// (its dependencies still order what follows); other kinds, or a node not
// of the graph it was instantiated from, cudaErrorInvalidValue.
int GraphNodeSetEnabled(void* exec, void* node, unsigned enabled);
int GraphNodeGetEnabled(void* exec, void* node, unsigned* enabled);
// cudaGraphClone (graph_build.cc): the same nodes and dependencies.
int GraphClone(void** clone, void* original);
int GraphUpload(void* exec, void* stream);
int GraphAddHostNode(void** node, void* graph, const void* const* deps,
                     size_t num_deps, void (*fn)(void*), void* data);
int GraphAddEmptyNode(void** node, void* graph, const void* const* deps,
                      size_t num_deps);
int GraphAddDependencies(void* graph, const void* const* from,
                         const void* const* to, const void* edge_data,
                         size_t n);
// As CUDA: with `nodes` null, the count; else at most *num_nodes nodes in
// the order added, the rest of the array null, *num_nodes the number given.
int GraphGetNodes(void* graph, void** nodes, size_t* num_nodes);
int GraphNodeGetType(void* node, int* type);  // a cudaGraphNodeType

// Kernel attributes and occupancy on the simulated GPU, for a registered
// or loaded kernel (else cudaErrorInvalidDeviceFunction). Its registers and
// static shared memory (and __launch_bounds__) are read from its fat binary
// or module image; where they cannot be (PTX only, an unreadable image) it
// is taken to use 32 registers per thread and no static shared memory.
// Occupancy follows the simulated GPU's rules (colo::ComputeOccupancy): 0
// blocks for a block the SM cannot hold. cudaFuncSetAttribute keeps the maximum
// dynamic shared memory (up to the per-block opt-in limit) and the carveout
// (-1..100); other attributes are cudaErrorInvalidValue.
int FuncGetAttributes(void* attr, const void* func);
int FuncSetAttribute(const void* func, int attr, int value);
int OccupancyMaxActiveBlocks(int* num_blocks, const void* func, int block_size,
                             size_t dynamic_smem);

// Which call allocates: cudaMalloc, cuMemAlloc_v2 or cudaMallocManaged
// (gate mode calls that one; sim mode's memory is host memory, so managed
// memory needs nothing more). All are accounted with colod alike.
enum class AllocKind { kRuntime, kDriver, kManaged };

// __cudaInitModule in sim mode: gives each `__managed__` variable of the
// module `handle` (ours) its storage, once: managed memory from Malloc
// (colod accounts it, as the runtime counts managed memory), holding the
// variable's initial value from the module's cubin (zeros without one), and
// sets the program's pointer to it. Without colod (Malloc refused), host
// memory colod does not see, so that the program's host code still runs.
// Returns 1 (initialized), 0 if even host memory ran out.
char InitManagedVars(void** handle);
// `driver`: cuMemFree_v2 (gate mode calls the driver's). A managed
// allocation of 0 bytes, or a free of what is not an allocation (or was
// freed), is cudaErrorInvalidValue.
int Malloc(void** ptr, size_t size, AllocKind kind = AllocKind::kRuntime);
int Free(void* ptr, bool driver = false);
// `kind`: cudaMemcpyKind. Sim mode checks what CUDA would refuse before
// touching memory: an unknown kind is cudaErrorInvalidMemcpyDirection; the
// device side(s) the kind names (with cudaMemcpyDefault, a side that starts
// in device memory) must lie inside one device, managed or pinned
// allocation, else cudaErrorInvalidValue; the async forms check the stream
// (cudaErrorInvalidResourceHandle). Memsets need their bytes inside one
// allocation. Gate mode leaves the checks to the real runtime.
//
// Sim mode puts the device work the copy or memset stands for on its
// stream (PushCopyWorkLocked): what follows waits for it, and it takes the
// time a GPU gives it. The bytes move on the host (kernels compute nothing,
// so there is nothing to order them after; MoveBytes). The
// synchronous copies run on `stream` (the legacy default stream, or the
// calling thread's for the per-thread entry points) and return when their
// stream's work up to and including them has ended, except a copy between
// device memory, which returns at once as CUDA's does; the synchronous
// memsets return at once.
int Memcpy(void* dst, const void* src, size_t count, int kind,
           void* stream = nullptr);
// `height` rows of `width` bytes, rows `dpitch` / `spitch` bytes apart;
// cudaErrorInvalidPitchValue if a row is wider than either pitch.
int Memcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch,
             size_t width, size_t height, int kind, void* stream = nullptr);
// The same on `stream`, asynchronously.
int Memcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                  size_t width, size_t height, int kind, void* stream);
int MemcpyAsync(void* dst, const void* src, size_t count, int kind,
                void* stream);
int Memset(void* ptr, int value, size_t count, void* stream = nullptr);
int MemsetAsync(void* ptr, int value, size_t count, void* stream);
int MemGetInfo(size_t* free_bytes, size_t* total_bytes);
// Gate mode: `free_bytes` (the GPU's, from the real runtime) capped by what
// this client may still allocate under its limit.
int CapFreeMemory(size_t* free_bytes);
// Pinned host memory: page-aligned host memory here (nothing to pin), not
// accounted as device memory. FreeHost of anything else, or twice, is
// cudaErrorInvalidValue.
int MallocHost(void** ptr, size_t size);
int FreeHost(void* ptr);

// Stream-ordered allocation (stream_ordered_memory.cc). MallocAsync
// allocates at once through Malloc (accounted with colod, refused over the
// limit with cudaErrorMemoryAllocation; size 0 gives a null pointer), so the
// memory is usable by anything after it on `stream` (and by everything
// else: sooner than CUDA promises). FreeAsync returns the memory once the
// work before it on `stream` has completed: the calling thread waits for
// the stream (an asynchronous error that wait reports is returned and the
// memory stays allocated), then frees as Free does; a pointer that is not
// an allocation (or was freed already) is cudaErrorInvalidValue at once,
// without waiting and without a round trip; a null pointer does nothing.
// Both check the stream (cudaErrorInvalidResourceHandle). On a capturing
// stream they record the capture's allocation / free node, as CUDA does
// (graph_memory_nodes.cc); FreeAsync of a graph allocation outside a
// capture frees it as Free does (FreeGraphMemory). Gate mode: the same, on the
// real runtime's cudaMalloc / cudaFree (gate::Malloc, gate::Free), so colod
// accounts them.
int MallocAsync(void** ptr, size_t size, void* stream);
int FreeAsync(void* ptr, void* stream);
// cudaMemPrefetchAsync: in sim mode managed memory is host memory, so a
// prefetch that passes CUDA's checks is a no-op success (also while the
// stream captures: there is nothing to record). Checks: the stream
// (cudaErrorInvalidResourceHandle), `flags` 0, a location of type device
// with id 0 (another id: cudaErrorInvalidDevice), host or host NUMA current,
// or host NUMA with an id >= 0 (else cudaErrorInvalidValue), and the
// `count` bytes from `ptr` inside one cudaMallocManaged allocation (else
// cudaErrorInvalidValue: device, pinned or unregistered host memory).
// Gate mode: the real prefetch, after the stream's launches were issued.
int MemPrefetchAsync(const void* ptr, size_t count, int location_type,
                     int location_id, unsigned flags, void* stream);
// cudaMemAdvise, sim mode (gate mode calls the real one): managed memory is
// host memory, so advice that passes CUDA's checks is a no-op success.
// Checks: `advice` a cudaMemoryAdvise value (1-6); for the preferred-location
// and accessed-by advice, the location as for a prefetch (read-mostly
// ignores it); `count` > 0 bytes from `ptr` inside one managed allocation or
// `__managed__` variable. Else cudaErrorInvalidValue (cudaErrorInvalidDevice
// for a device other than 0).
int MemAdvise(const void* ptr, size_t count, int advice, int location_type,
              int location_id);

// `flags`, `priority`: gate mode gives them to the real stream. Sim mode
// keeps both: `flags` says whether the stream is ordered with the legacy
// default stream (not with cudaStreamNonBlocking); `priority` is clamped to
// the reported range and answered back (StreamGetPriority), but colod
// schedules by the class it granted the client, not by stream priority.
int StreamCreate(void** stream, unsigned flags, int priority);
int StreamSynchronize(void* stream);
int StreamQuery(void* stream);
int StreamDestroy(void* stream);
// Orders `stream` after `event`. Sim mode: after the host functions before
// it on `stream`, a wait pushed onto the ring (unless the event's work has
// ended already): colod holds the work that follows on `stream` until the
// event's work has ended, while the calling thread goes on, as with CUDA.
// An event recorded in a capture joins or rejoins that capture (see the
// graphs below). Gate mode: the real device-side wait.
int StreamWaitEvent(void* stream, void* event, unsigned flags);
int EventCreate(void** event, unsigned flags);
int EventRecord(void* event, void* stream);
int EventQuery(void* event);
int EventSynchronize(void* event);
int EventElapsedTime(float* ms, void* start, void* end);
int EventDestroy(void* event);

int DeviceSynchronize();

// Sim mode's forms of further runtime calls (shim_memory.cc, shim_streams.cc,
// runtime_queries.cc); in gate mode the symbol copies and 2D memsets are the
// real runtime's once the kernels before them were issued (gate_runtime.h),
// cudaDeviceReset answers cudaErrorNotSupported, cudaMallocPitch allocates
// through Malloc's gate path, and the export layer forwards the rest to the
// real runtime.
//
// Symbols: the variable's bytes are its host shadow (a __managed__
// variable's: its managed storage). An unregistered symbol
// is cudaErrorInvalidSymbol; `offset` + `count` beyond its size, or a source
// / destination the kind calls device memory outside an allocation,
// cudaErrorInvalidValue; a kind that does not fit (to a symbol from device
// to host, say) cudaErrorInvalidMemcpyDirection. The synchronous forms wait
// for the kernels before them, as cudaMemcpy does.
int MemcpyToSymbol(const void* symbol, const void* src, size_t count,
                   size_t offset, int kind, void* stream, bool async);
int MemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset,
                     int kind, void* stream, bool async);
int GetSymbolAddress(void** dev_ptr, const void* symbol);
int GetSymbolSize(size_t* size, const void* symbol);
// Rows padded to a multiple of 512 bytes.
int MallocPitch(void** ptr, size_t* pitch, size_t width, size_t height);
// `height` rows of `width` bytes, `pitch` apart, inside one allocation.
int Memset2D(void* ptr, size_t pitch, int value, size_t width, size_t height,
             void* stream, bool async);
// 3D regions of pitched linear memory (shim_memory_3d.cc): `depth` slices of
// `height` rows of `width` bytes, slice z starting z * ysize rows in.
// Malloc3D pads rows as MallocPitch does. A copy or memset checks the whole
// region first (CUDA's shape rules: a row within its pitch,
// cudaErrorInvalidPitchValue for a copy, cudaErrorInvalidValue for a
// memset; height within ysize when there is more than one slice), then
// runs as one 2D copy or memset per slice. CUDA arrays:
// cudaErrorNotSupported (none exists in sim mode). An empty extent does
// nothing.
int Malloc3D(cuda::PitchedPtr* out, cuda::Extent extent);
int Memcpy3D(const cuda::Memcpy3DParms* params, void* stream, bool async);
int Memset3D(cuda::PitchedPtr ptr, int value, cuda::Extent extent, void* stream,
             bool async);
// Host memory the program allocated itself, made addressable like pinned
// memory (cudaErrorHostMemoryAlreadyRegistered if it overlaps registered or
// pinned memory); unregistering needs the registered base
// (cudaErrorHostMemoryNotRegistered). The device pointer of pinned or
// registered host memory is the host pointer (UVA).
int HostRegister(void* ptr, size_t size, unsigned flags);
int HostUnregister(void* ptr);
int HostGetDevicePointer(void** dev_ptr, void* host_ptr, unsigned flags);
// 1 with colod; 0 and cudaErrorNoDevice where colod cannot be reached.
int DeviceCount(int* count);
int SetDeviceFlags(unsigned flags);
int GetDeviceFlags(unsigned* flags);
// Waits for the device, then returns every allocation to colod except the
// storage of __managed__ variables (the program reaches it through pointers
// nvcc set once), and forgets cudaFuncSetAttribute's settings and the
// device flags (CUDA destroys the context; streams and events stay usable
// here). Gate mode: cudaErrorNotSupported.
int DeviceReset();
int DeviceCanAccessPeer(int* can_access, int device, int peer);
// Host work in stream order (host_funcs.cc): returns at once; a worker
// thread runs `fn` once the stream's work before it has ended (a callback
// after an error too, passed the error), and later work ordered behind it
// waits for it. LaunchHostFunc captures into a graph; AddCallback does not
// (cudaErrorStreamCaptureUnsupported), and its `flags` must be 0.
int LaunchHostFunc(void* stream, void (*fn)(void*), void* data);
int StreamAddCallback(void* stream, void (*fn)(void*, int, void*), void* data,
                      unsigned flags);
int GetDeviceProperties(void* prop, int device);

}  // namespace colo::shim
