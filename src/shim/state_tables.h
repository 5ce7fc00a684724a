// shim/state_tables.h — the tables the interposer's process-wide state is
// made of, one per concern: the connection to colod, what this process has
// pushed onto the launch ring, kernels, driver modules, memory, streams,
// events, graphs, device settings, and the two queues of work sim mode runs
// on the host (host functions, copies' bytes).
//
// Thread safety: none of these tables has a lock of its own. Each is a
// member of InterposerState (shim_state.h) and, with the objects it owns,
// is protected by InterposerState::mu, the one mutex of that state.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "colo/gemm_model.h"
#include "ipc/runtime_client.h"
#include "shim/driver_objects.h"
#include "shim/fatbin.h"
#include "shim/gate_client.h"
#include "shim/graph_objects.h"
#include "shim/stream_objects.h"

namespace colo::ptx {
class DeviceMemory;
struct Module;
}  // namespace colo::ptx

namespace colo::shim {

// The connection to colod: the runtime client (its socket, the launch ring
// and the gate channel), made by the first call that needs it (Connected);
// whether colod was lost; in gate mode, the gate client that holds each
// launch until colod grants it. A child after fork() drops both (they are
// the parent's) and connects afresh.
struct ColodConnection {
  std::unique_ptr<ipc::RuntimeClient> client;  // null until connected.
  bool lost = false;  // colod unreachable or gone: every call fails.
  std::unique_ptr<GateClient> gate;  // gate mode, once connected.
};

// What this process has pushed onto colod's launch ring: which kernels it
// defined there (by launch key, each with its id on the ring) and the id
// the next one gets; the sequence number of the last entry (launch, stream
// wait or copy) on any stream, and of the last on the legacy default
// stream. Each stream's own last entry is its Stream::last_seq.
struct RingPushes {
  std::unordered_map<const void*, uint32_t> kernel_ids;
  uint32_t next_kernel_id = 1;
  uint64_t last_seq = 0;
  uint64_t legacy_last_seq = 0;
};

// A kernel a library call stands for (LaunchGemm's GEMMs, copy_work.cc's
// memory kernels): what it uses and the work it does, declared to colod
// when it is defined on the ring.
struct LibraryKernel {
  int registers_per_thread = 0;
  int64_t shared_mem = 0;
  KernelWork work;
};

// Sim mode: cudaFuncSetAttribute's settings of one kernel.
struct KernelSettings {
  int max_dynamic_shared_bytes = -1;  // -1: not set (48 KiB less static).
  int preferred_carveout = -1;
};

// Gate mode: the transformed forms the interposer can build of a kernel
// (ipc::kKernelSliceForm, kKernelPersistentForm) and where they come from;
// {null, 0}: it runs whole.
struct DeclaredForms {
  std::shared_ptr<const FormSource> source;
  uint32_t flags = 0;
};

// The kernels the program may launch, by the key a launch names them with
// (a registered host stub, a driver module's function handle, a library
// kernel's key): their device names, where their registers and shared
// memory are read from, and what is kept per kernel.
struct KernelTable {
  // Launch key -> device name (a kernel without one is named by address).
  std::unordered_map<const void*, std::string> names;
  // Library kernels: one key per kernel name, and what each key's kernel
  // uses and does. Kept for the process's life (a captured graph may
  // launch them again).
  std::map<std::string, std::unique_ptr<char>> library_keys;
  std::unordered_map<const void*, LibraryKernel> library_kernels;
  // Host stub -> the fat binary it was registered with, and what was read
  // from each fat binary (kernel -> resources; empty if unreadable).
  std::unordered_map<const void*, const void*> fat_binary_of;
  std::unordered_map<const void*, std::map<std::string, KernelResources>>
      fat_binary_kernels;
  // Sim mode: cudaFuncSetAttribute's settings per kernel.
  std::unordered_map<const void*, KernelSettings> settings;
  // Gate mode: each kernel's parameter sizes, found at its first launch.
  std::unordered_map<const void*, std::vector<size_t>> param_sizes;
  // Gate mode: the forms declared for each kernel (gate_forms.h), and the
  // PTX read from each fat binary or module image (null: none).
  std::unordered_map<const void*, DeclaredForms> forms;
  std::unordered_map<const void*, std::shared_ptr<const std::string>>
      binary_ptx;
};

// Driver modules (cuModuleLoad*). Sim mode owns the handles (a byte each);
// gate mode's are the real driver's.
struct ModuleTable {
  // Sim mode: module -> its function handles by name ("" holds the
  // module's own handle).
  std::unordered_map<void*, std::map<std::string, std::unique_ptr<char>>>
      sim_handles;
  // Sim mode: each module's image, what was read from it, and which module
  // each of its function handles came from.
  std::unordered_map<void*, std::string> images;
  std::unordered_map<void*, std::map<std::string, KernelResources>> kernels;
  std::unordered_map<const void*, void*> module_of;
  // Gate mode: the functions of each module the program asked for.
  std::unordered_map<void*, std::vector<const void*>> gate_functions;
};

// Allocations, base -> size, in address order: the one holding an address
// is found in O(log n).
using AllocationMap = std::map<uintptr_t, size_t>;

// The memory the interposer knows of: what colod accounts (device and
// managed allocations), and in sim mode the host memory CUDA would know
// (pinned, registered) and the program's variables, whose bytes sim mode
// treats as device memory.
struct MemoryTable {
  AllocationMap allocations;  // device and managed (sim and gate mode)
  int64_t allocated = 0;      // their bytes, as colod accounts them
  std::unordered_set<uintptr_t> managed;  // sim mode: managed allocations.
  AllocationMap pinned;                   // sim mode: pinned host memory.
  AllocationMap registered;  // sim mode: cudaHostRegister'ed host memory.
  // __device__ / __constant__ variables: host shadow -> size (sim mode's
  // device copy is the shadow itself, device memory like an allocation),
  // and the fat binary each came with.
  AllocationMap symbols;
  std::unordered_map<uintptr_t, const void*> symbol_fat_binary;
  std::unordered_map<uintptr_t, std::string> symbol_names;  // device names
  // Sim mode: `__managed__` variables' storage, base -> size (managed
  // allocations, also in `allocations`): the symbol the program names them
  // by is that storage (managed_vars.cc).
  AllocationMap managed_vars;
};

// Sim mode's `execute` (sim_execute.h): whether kernels also run on the
// PTX interpreter (decided at the first launch: -1 until then), the
// interpreter's view of the process's memory, the PTX module read from
// each fat binary or module image (null: none it can run, `module_errors`
// says why), the kernels said to be unable to run (once each), and the
// error a failed kernel left (sticky: every later sync returns it).
struct ExecuteState {
  int enabled = -1;
  std::shared_ptr<ptx::DeviceMemory> memory;
  std::unordered_map<const void*, std::shared_ptr<const ptx::Module>> modules;
  std::unordered_map<const void*, std::string> module_errors;
  std::unordered_set<const void*> refused_kernels;
  int sticky_error = 0;
  // What ran (COLO_EXECUTE_STATS=1 prints it at exit): kernels, their
  // thread-instructions, and the wall time spent in the interpreter.
  uint64_t kernels = 0;
  uint64_t instructions = 0;
  int64_t interpreter_ns = 0;
};

// The streams the interposer handed out (the program's, and the lanes of
// instantiated graphs), each owned here from its creation to its
// destruction, and the ring id the next one gets.
struct StreamTable {
  std::unordered_set<Stream*> live;
  uint32_t next_id = 1;  // 0 is the default stream.
};

// The events the interposer handed out, each owned here from its creation
// to its destruction.
struct EventTable {
  std::unordered_set<Event*> live;
};

// Sim mode's graphs: those handed to the program (a capture's once it has
// ended, cudaGraphCreate's), owned here until cudaGraphDestroy; the
// instantiated ones, owned here until cudaGraphExecDestroy; the graph each
// node belongs to (a capture's too, while it runs); the id the next capture
// gets.
struct GraphTable {
  std::unordered_set<Graph*> live;
  std::unordered_set<GraphExec*> execs;
  std::unordered_map<const GraphNode*, Graph*> graph_of_node;
  uint64_t next_capture_id = 1;
  // Graph allocations (memory nodes), by address: reserved when the node is
  // made (listed in MemoryTable::allocations, so that nodes may name it),
  // charged to colod's ledger while `charged`; unmapped when no graph node
  // or instantiated graph uses it (`users`). `outstanding`: a launch left
  // it allocated (no free node of its graph frees it) and it has not been
  // freed since; it counts as a user, and stays charged, until then.
  struct GraphMemory {
    size_t size = 0;
    int users = 0;
    bool charged = false;
    bool outstanding = false;
  };
  std::map<uintptr_t, GraphMemory> memory;
  // Conditional handles by their value (cudaGraphConditionalHandle), from
  // 1; they live as long as the program.
  std::map<uint64_t, std::unique_ptr<ConditionalHandle>> conditionals;
  uint64_t next_conditional = 1;
};

// Sim mode: what the program set on the device.
struct DeviceSettings {
  unsigned flags = 0;            // cudaSetDeviceFlags.
  std::map<int, size_t> limits;  // cudaDeviceSetLimit's values.
};

// Sim mode: host functions waiting or running, in the order they were
// enqueued (the front one is the worker's); signalled whenever one is added
// or finishes; whether the worker thread runs (host_funcs.cc).
struct HostFuncQueue {
  std::deque<PendingHostFunc> pending;
  std::condition_variable changed;
  bool worker_running = false;
};

// Sim mode: the bytes of asynchronous copies and memsets still to move, in
// the order they were issued (the front one is the worker's), how many were
// ever enqueued and moved, whether the worker thread runs, and what is
// signalled when one is added or moved (copy_work.cc).
struct ByteMoveQueue {
  std::deque<std::function<void()>> moves;
  uint64_t enqueued = 0;
  uint64_t done = 0;
  bool worker_running = false;
  std::condition_variable changed;
};

}  // namespace colo::shim
