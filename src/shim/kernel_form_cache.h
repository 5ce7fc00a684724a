// shim/kernel_form_cache.h — each kernel's sliced and persistent forms
// (ptx/kernel_forms.h), built from the PTX a program carries
// (fatbin_ptx.h) and compiled for the device, lazily and once: the first
// time the interposer asks for a module's forms, and not again in a later
// run (the cubins are kept on disk).
//
// Per PTX module (its text): ReadPtx -> AddKernelForms -> a module of the
// forms alone (the original kernels dropped, every .func and module
// variable kept) -> PrintPtx -> the PtxJit (ptx_jit.h) compiles it for the
// device's architecture, one cubin holding every form of the module, which
// the caller loads with cuModuleLoadData. A kernel's form is available if
// AnalyzeKernel allows it, AddKernelForms built it, it reads or writes no
// module-scope .global / .const / texture variable (a separately loaded
// module has its own copy of those, so the form would not see the program's
// values), and the module compiled. Otherwise the kernel runs whole and
// KernelFormInfo says why: AnalyzeKernel's reason, the rewrite's, the
// variable it uses, the reader's error (malformed or truncated PTX, an
// unknown PTX version), or the JIT's error log. Each reason is logged once
// per cache object ("colo: " on stderr unless a FormLog is given), however
// often the kernel is asked for.
//
// The disk cache: directory COLO_FORM_CACHE_DIR, else
// $XDG_CACHE_HOME/colo/forms, else $HOME/.cache/colo/forms (created 0700).
// Key: SHA-256 (sha256.h) of the PTX text compiled (after rewriting, so a
// change of the rewriter is a new key), the architecture, the driver's
// version (PtxJit::DriverVersion) and the file format's version; file
// "<sha256 hex>.sm<arch>.drv<version>.v<format>.colo-forms". File: a
// 96-byte header — magic "COLOFRM\0", u32 format version, u32 arch, u32
// driver version, u32 0, the 32-byte key, u64 cubin size, the cubin's
// 32-byte SHA-256 — then the cubin. Written to a temporary file in the
// directory and renamed over the name (readers never see a partial file).
// A file whose header, size or checksum does not match (truncated, foreign,
// corrupted) is never loaded: the module is compiled again and the file
// replaced. A directory that is not this user's own, or is writable by
// others (a key decides which code runs), or cannot be written: the forms
// are compiled and kept in memory, logged once. JIT failures are not kept
// on disk (one may be passing, like an out-of-memory).
//
// Thread safety: a KernelFormCache may be used from any number of threads.
// A mutex guards its table of modules; each module has its own mutex, held
// while that module is rewritten and compiled, so threads asking for the
// same module wait for one compile and threads asking for others go on.
// The ModuleForms handed out are immutable.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "shim/ptx_jit.h"

namespace colo::shim {

// Receives one line (without "colo: " or a newline) to log.
using FormLog = std::function<void(std::string_view line)>;

struct FormAvailability {
  bool available = false;
  std::string reason;  // why not; empty if available
};

struct KernelFormInfo {
  FormAvailability slice;       // <name>__colo_slice
  FormAvailability persistent;  // <name>__colo_persistent
  // False: the kernel runs whole and colod gates it as a whole kernel.
  bool transformable() const { return slice.available || persistent.available; }
};

// One PTX module's forms.
struct ModuleForms {
  // The forms' cubin (for cuModuleLoadData; the forms are its kernels,
  // named as kernel_forms.h says); empty if no form is available.
  std::string cubin;
  // Hex SHA-256 of the PTX text compiled; empty if nothing was compiled.
  std::string key;
  bool from_disk = false;  // the cubin came from the disk cache
  // Every kernel (.entry) of the module, by its (mangled) name; empty if
  // the text could not be read.
  std::map<std::string, KernelFormInfo, std::less<>> kernels;
  // Why the module has no forms at all (the reader's error); empty if read.
  std::string error;

  // Kernel `name`'s forms; a kernel the module does not define has none
  // (the reason says so, or gives `error`).
  KernelFormInfo Kernel(std::string_view name) const;
};

struct FormCacheStats {
  int64_t compiles = 0;        // PtxJit::Compile calls
  int64_t compile_errors = 0;  // ... of them that failed
  int64_t disk_hits = 0;       // cubins read from the disk cache
  int64_t disk_writes = 0;     // cubins written to it
  int64_t rejected_files = 0;  // cache files refused (damaged, foreign)
};

// COLO_FORM_CACHE_DIR, else $XDG_CACHE_HOME/colo/forms, else
// $HOME/.cache/colo/forms; empty if none of them is set (no disk cache).
std::string DefaultFormCacheDirectory();

// Writes "colo: <line>\n" to stderr in one write.
void LogToStderr(std::string_view line);

class KernelFormCache {
 public:
  struct Options {
    int arch = 0;  // the device's SM architecture: 80 = sm_80
    // The disk cache's directory; empty: no disk cache (memory only).
    std::string directory = DefaultFormCacheDirectory();
    FormLog log;  // null: LogToStderr
  };

  // `jit` must outlive the cache.
  KernelFormCache(PtxJit& jit, Options options);
  KernelFormCache(const KernelFormCache&) = delete;
  KernelFormCache& operator=(const KernelFormCache&) = delete;

  // The forms of the module whose PTX text is `ptx` (as fatbin_ptx.h reads
  // it); `source` names it in messages ("<fatbin 0x7f..>", a file name).
  // Built on the first call for this text (from disk if cached there) and
  // returned as is on later ones. Never null. Logs what concerns the module
  // (unreadable PTX, a failed compile, the disk cache's troubles). Each call
  // hashes `ptx`: keep the result rather than asking again on a hot path.
  std::shared_ptr<const ModuleForms> Forms(std::string_view ptx,
                                           std::string_view source);

  // What Forms() will say of each kernel's forms as far as reading,
  // analyzing and rewriting the module can tell, without compiling it
  // (`cubin` empty; a failed compile may take forms away later). Once per
  // module, as Forms(); the result of Forms() once that has run.
  std::shared_ptr<const ModuleForms> Analyze(std::string_view ptx,
                                             std::string_view source);

  // Forms(ptx, source)->Kernel(kernel), logging why a form of `kernel` is
  // missing: each line once per cache object, however often asked.
  KernelFormInfo KernelForms(std::string_view ptx, std::string_view source,
                             std::string_view kernel);

  int arch() const { return options_.arch; }
  const std::string& directory() const { return options_.directory; }
  FormCacheStats stats() const;

 private:
  struct Slot {
    std::mutex mutex;
    // Set once each, under mutex: the analysis and the forms' module text
    // (empty: nothing to compile), then the compiled forms.
    std::shared_ptr<const ModuleForms> analyzed;
    std::string text;
    std::shared_ptr<const ModuleForms> forms;
  };

  std::shared_ptr<Slot> SlotOf(std::string_view ptx);
  // Reads, analyzes and rewrites the module into slot.analyzed, slot.text.
  void Plan(Slot& slot, std::string_view ptx, std::string_view source);
  // Compiles slot.text into the forms.
  std::shared_ptr<const ModuleForms> Build(const Slot& slot,
                                           std::string_view source);
  // The cubin for `text` (rewritten PTX): from disk, else compiled (and
  // stored); `from_disk` says which.
  Result<std::string> Cubin(const std::string& text, bool* from_disk);
  void LogOnce(const std::string& line);

  PtxJit& jit_;
  Options options_;

  std::mutex mutex_;  // guards modules_ and logged_
  std::map<std::string, std::shared_ptr<Slot>, std::less<>> modules_;
  std::set<std::string, std::less<>> logged_;
  // Set once the disk cache turned out unusable (checked, then unwritable).
  std::atomic<bool> disk_off_{false};

  std::atomic<int64_t> compiles_{0}, compile_errors_{0}, disk_hits_{0},
      disk_writes_{0}, rejected_files_{0};
};

}  // namespace colo::shim
