// shim/form_launcher.h — issues the sliced or persistent form of a kernel
// (ptx/kernel_forms.h) that colod granted a best-effort launch in (gate
// mode, ipc/wire.h), on the gate thread.
//
// The forms of a module are built and compiled the first time one of them
// is granted (KernelFormCache::Forms: from the disk cache if there), loaded
// once per context with cuModuleLoadData, and found by name
// (`<kernel>__colo_slice`, `<kernel>__colo_persistent`). A launch gets the
// original's parameters, then the form's own (kernel_forms.h's ABI), its
// block and dynamic shared memory (a form is a function of its own, so a
// dynamic shared memory size over 48 KiB is allowed on it with
// cuFuncSetAttribute, as the program did on the original):
//   slice [first, end):  grid (end - first, 1, 1), parameters first, gx, gy,
//                        gz (the original grid);
//   persistent, W from first: a PersistentControl {first, 0} copied to
//                        device memory on the launch's stream, grid (W, 1, 1),
//                        parameters control, gx, gy, gz; after it, the
//                        control's next_block copied back to pinned host
//                        memory on the same stream, so that once an event
//                        recorded after the launch has completed,
//                        StoppedAt() says where the workers stopped.
// Retreat() sets the control's retreat flag with an asynchronous copy from
// pinned memory on a non-blocking stream of its own: a copy engine does it
// while the workers hold every SM (a memset might need an SM itself).
// Control blocks (8 bytes of device memory) and pinned words come from
// pools that grow by pages and are never returned to the driver; colod's
// memory ledger does not count them.
//
// The driver's entry points are found with RealNamed (hook_table.h), so
// they are the real library's, never the interposer's own; nothing links
// libcuda.
//
// Thread safety: not thread-safe; the gate thread alone uses it, with its
// ReentryGuard held and the launch's device current.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "shim/kernel_form_cache.h"

namespace colo::shim {

// Where a kernel's forms come from: its module's PTX and its name there.
struct FormSource {
  std::shared_ptr<const std::string> ptx;  // the module's PTX text
  std::string label;                       // the module, for messages
  std::string kernel;                      // its .entry (mangled) name
};

// What colod granted (ipc::GateMsg): blocks [first, end) as a slice, or
// `workers` persistent workers from `first` (end: the grid's block count).
struct FormGrant {
  bool persistent = false;
  uint32_t first = 0;
  uint32_t end = 0;
  uint32_t workers = 0;
};

struct GateLaunch;

class FormLauncher {
 public:
  // A persistent launch's control block and where its stop is read back.
  struct Persistent {
    uint64_t control = 0;         // device address of its PersistentControl
    uint32_t* stopped = nullptr;  // pinned: next_block, after the launch
    int device = 0;
    size_t slot = 0;
  };

  // Issue's answer when the form cannot be had (nothing was issued): the
  // caller runs the kernel whole.
  static constexpr int kNoForm = -1;

  // `cache` must outlive this.
  explicit FormLauncher(KernelFormCache& cache);
  ~FormLauncher();
  FormLauncher(const FormLauncher&) = delete;
  FormLauncher& operator=(const FormLauncher&) = delete;

  // Issues `grant` of `launch`'s kernel (from `source`) on launch.stream,
  // with the original's parameter pointers `args`. 0 on success (for a
  // persistent grant `*persistent` is then set: Release it once done);
  // kNoForm with `*why` if the form is not available or cannot be loaded
  // or the grant is not a part of the grid; else the driver's CUresult of
  // the call that failed (part of the work may have been issued).
  int Issue(const GateLaunch& launch, const FormSource& source,
            const FormGrant& grant, void** args, Persistent* persistent,
            std::string* why);
  // Asks `p`'s workers to stop after the logical blocks they hold. Returns
  // the driver's CUresult.
  int Retreat(const Persistent& p);
  // Where `p`'s workers stopped (the first logical block that did not run,
  // at most `total`), once an event recorded after its launch completed.
  uint32_t StoppedAt(const Persistent& p, uint32_t total) const;
  // `p`'s control block and pinned words may serve another launch.
  void Release(const Persistent& p);

 private:
  struct Driver;  // the entry points
  struct Loaded {
    std::shared_ptr<const ModuleForms> forms;  // keeps the cubin alive
    void* module = nullptr;
    std::map<std::string, void*> functions;  // by form name
  };
  // Per device: control blocks and pinned words, in pages of kSlotsPerPage.
  struct Pool {
    std::vector<uint64_t> control_pages;  // device memory
    std::vector<uint32_t*> pinned_pages;  // 4 words a slot
    std::vector<size_t> free_slots;
    void* retreat_stream = nullptr;
    uint32_t* one = nullptr;  // pinned, holds 1: the retreat flag's value
  };
  static constexpr size_t kSlotsPerPage = 256;

  // The loaded function `name` of `forms` in the current context, or
  // nullptr with `*why`.
  void* Function(const std::shared_ptr<const ModuleForms>& forms,
                 const std::string& name, std::string* why);
  int TakeSlot(int device, Persistent* p);

  KernelFormCache& cache_;
  std::unique_ptr<Driver> driver_;
  // By (module forms, context).
  std::map<std::pair<const ModuleForms*, void*>, Loaded> loaded_;
  std::map<int, Pool> pools_;
  // Dynamic shared memory allowed on each form function (bytes).
  std::map<void*, int> shared_allowed_;
};

}  // namespace colo::shim
