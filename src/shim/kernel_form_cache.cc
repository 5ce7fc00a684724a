#include "shim/kernel_form_cache.h"

#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "ptx/kernel_forms.h"
#include "ptx/ptx_printer.h"
#include "ptx/ptx_reader.h"
#include "shim/form_cache_file.h"
#include "shim/sha256.h"

namespace colo::shim {
namespace {

// A cubin larger than this in the cache is not one the JIT wrote.
constexpr size_t kMaxFileBytes = size_t{1} << 30;

const char* Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && v[0] != '\0' ? v : nullptr;
}

// Module variables whose copy in the forms' module is harmless: the
// compiler's own read-only tables and strings (printf's formats as $str,
// libdevice's __cudart_* constants), which no host code can name.
bool CopyIsHarmless(const std::string& name) {
  return name.rfind("$str", 0) == 0 || name.rfind("__cudart_", 0) == 0;
}

const char* SpaceName(ptx::StateSpace s) {
  switch (s) {
    case ptx::StateSpace::kGlobal:
      return ".global";
    case ptx::StateSpace::kConst:
      return ".const";
    case ptx::StateSpace::kTex:
      return "texture";
    default:
      return "";
  }
}

// The names an operand mentions that are not registers.
void SymbolsOf(const ptx::Operand& op, std::vector<std::string>* out) {
  using Kind = ptx::Operand::Kind;
  if (op.kind == Kind::kSymbol ||
      (op.kind == Kind::kAddress && !op.base_is_register && !op.name.empty()))
    out->push_back(op.name);
  for (const ptx::Operand& e : op.elements) SymbolsOf(e, out);
  for (const ptx::Operand& p : op.pair) SymbolsOf(p, out);
}

// What of the module a kernel could reach: its module-scope variables of a
// space a second loaded module would duplicate (.global, .const, texture),
// and the functions it names (calls, function pointers).
class VariableUse {
 public:
  explicit VariableUse(const ptx::Module& m) {
    for (const ptx::TopLevel& item : m.items) {
      if (const auto* v = std::get_if<ptx::Variable>(&item)) {
        const bool shared_with_host = v->space == ptx::StateSpace::kGlobal ||
                                      v->space == ptx::StateSpace::kConst ||
                                      v->space == ptx::StateSpace::kTex;
        if (shared_with_host && !CopyIsHarmless(v->name))
          variables_[v->name] = v->space;
      } else if (const auto* f = std::get_if<ptx::Function>(&item)) {
        functions_[f->name] = f;
      }
    }
  }

  // The first such variable `kernel` (or a function it reaches) names, as
  // "'x' (.global)"; empty if none.
  std::string Find(const std::string& kernel) const {
    std::set<std::string> seen{kernel};
    std::vector<std::string> todo{kernel};
    while (!todo.empty()) {
      const auto f = functions_.find(todo.back());
      todo.pop_back();
      if (f == functions_.end()) continue;
      for (const ptx::Statement& s : f->second->body) {
        const auto* ins = std::get_if<ptx::Instruction>(&s);
        if (ins == nullptr) continue;
        std::vector<std::string> names;
        for (const ptx::Operand& op : ins->operands) SymbolsOf(op, &names);
        for (const std::string& n : names) {
          if (const auto v = variables_.find(n); v != variables_.end())
            return "'" + n + "' (" + SpaceName(v->second) + ")";
          if (functions_.count(n) && seen.insert(n).second) todo.push_back(n);
        }
      }
    }
    return "";
  }

 private:
  std::map<std::string, ptx::StateSpace> variables_;
  std::map<std::string, const ptx::Function*> functions_;
};

void MarkUnavailable(FormAvailability* form, const std::string& reason) {
  if (!form->available) return;
  form->available = false;
  form->reason = reason;
}

// What AddKernelForms said of `kernel` ("kernel: reason"), else `fallback`.
std::string RewriteReason(const std::vector<std::string>& reasons,
                          const std::string& kernel,
                          const std::string& fallback) {
  const std::string prefix = kernel + ": ";
  for (const std::string& r : reasons)
    if (r.rfind(prefix, 0) == 0) return r.substr(prefix.size());
  return fallback;
}

// `forms` less the original kernels and the forms not kept: what is
// compiled. Functions and module variables stay (the forms may use them).
ptx::Module FormsOnly(const ptx::Module& forms,
                      const std::set<std::string>& keep) {
  ptx::Module out = forms;
  out.items.clear();
  for (const ptx::TopLevel& item : forms.items) {
    const auto* f = std::get_if<ptx::Function>(&item);
    if (f != nullptr && f->is_entry && !keep.count(f->name)) continue;
    out.items.push_back(item);
  }
  return out;
}

}  // namespace

std::string DefaultFormCacheDirectory() {
  if (const char* dir = Env("COLO_FORM_CACHE_DIR")) return dir;
  if (const char* xdg = Env("XDG_CACHE_HOME"))
    return std::string(xdg) + "/colo/forms";
  if (const char* home = Env("HOME"))
    return std::string(home) + "/.cache/colo/forms";
  return "";
}

void LogToStderr(std::string_view line) {
  const std::string text = "colo: " + std::string(line) + "\n";
  ssize_t ignored = write(STDERR_FILENO, text.data(), text.size());
  (void)ignored;
}

KernelFormInfo ModuleForms::Kernel(std::string_view name) const {
  if (const auto k = kernels.find(name); k != kernels.end()) return k->second;
  KernelFormInfo none;
  none.slice.reason = none.persistent.reason =
      !error.empty()
          ? error
          : "the module defines no kernel named " + std::string(name);
  return none;
}

KernelFormCache::KernelFormCache(PtxJit& jit, Options options)
    : jit_(jit), options_(std::move(options)) {
  if (!options_.log) options_.log = LogToStderr;
}

FormCacheStats KernelFormCache::stats() const {
  FormCacheStats s;
  s.compiles = compiles_.load();
  s.compile_errors = compile_errors_.load();
  s.disk_hits = disk_hits_.load();
  s.disk_writes = disk_writes_.load();
  s.rejected_files = rejected_files_.load();
  return s;
}

void KernelFormCache::LogOnce(const std::string& line) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!logged_.insert(line).second) return;
  }
  options_.log(EscapeControlCharacters(line));
}

std::shared_ptr<KernelFormCache::Slot> KernelFormCache::SlotOf(
    std::string_view ptx) {
  const std::string id = Sha256Hex(ptx);
  std::lock_guard<std::mutex> lock(mutex_);
  std::shared_ptr<Slot>& s = modules_[id];
  if (s == nullptr) s = std::make_shared<Slot>();
  return s;
}

std::shared_ptr<const ModuleForms> KernelFormCache::Analyze(
    std::string_view ptx, std::string_view source) {
  std::shared_ptr<Slot> slot = SlotOf(ptx);
  std::lock_guard<std::mutex> lock(slot->mutex);
  if (slot->forms != nullptr) return slot->forms;
  if (slot->analyzed == nullptr) Plan(*slot, ptx, source);
  return slot->analyzed;
}

std::shared_ptr<const ModuleForms> KernelFormCache::Forms(
    std::string_view ptx, std::string_view source) {
  std::shared_ptr<Slot> slot = SlotOf(ptx);
  std::lock_guard<std::mutex> lock(slot->mutex);
  if (slot->forms == nullptr) {
    if (slot->analyzed == nullptr) Plan(*slot, ptx, source);
    slot->forms = Build(*slot, source);
  }
  return slot->forms;
}

KernelFormInfo KernelFormCache::KernelForms(std::string_view ptx,
                                            std::string_view source,
                                            std::string_view kernel) {
  const std::shared_ptr<const ModuleForms> module = Forms(ptx, source);
  KernelFormInfo info = module->Kernel(kernel);
  const std::string who =
      std::string(kernel) + " (" + std::string(source) + ")";
  if (!info.slice.available && !info.persistent.available &&
      info.slice.reason == info.persistent.reason) {
    LogOnce(who + " runs whole: " + info.slice.reason);
  } else {
    if (!info.slice.available)
      LogOnce(who + " has no sliced form: " + info.slice.reason);
    if (!info.persistent.available)
      LogOnce(who + " has no persistent form: " + info.persistent.reason);
  }
  return info;
}

void KernelFormCache::Plan(Slot& slot, std::string_view ptx,
                           std::string_view source) {
  auto out = std::make_shared<ModuleForms>();
  slot.analyzed = out;
  Result<ptx::Module> read = ptx::ReadPtx(ptx, source);
  if (!read.ok()) {
    out->error = "its PTX cannot be read: " + read.status().message();
    LogOnce(std::string(source) + ": kernels run whole, " + out->error);
    return;
  }
  const ptx::Module& module = *read;

  // What each kernel may have, before building anything.
  const VariableUse variables(module);
  for (const ptx::TopLevel& item : module.items) {
    const auto* f = std::get_if<ptx::Function>(&item);
    if (f == nullptr || !f->is_entry) continue;
    const ptx::Transformability t = ptx::AnalyzeKernel(module, f->name);
    KernelFormInfo& info = out->kernels[f->name];
    info.slice = {t.slice, t.slice ? "" : t.reason};
    info.persistent = {t.persistent, t.persistent ? "" : t.reason};
    if (info.transformable()) {
      const std::string used = variables.Find(f->name);
      if (!used.empty()) {
        const std::string why =
            "uses the module variable " + used +
            ", of which a separately loaded form would have its own copy";
        MarkUnavailable(&info.slice, why);
        MarkUnavailable(&info.persistent, why);
      }
    }
  }

  // The forms the rewrite built, of those.
  std::vector<std::string> reasons;
  const ptx::Module with_forms = ptx::AddKernelForms(module, &reasons);
  std::set<std::string> keep;
  for (auto& [name, info] : out->kernels) {
    const std::pair<FormAvailability*, std::string_view> forms[] = {
        {&info.slice, ptx::kSliceSuffix},
        {&info.persistent, ptx::kPersistentSuffix}};
    for (auto [form, suffix] : forms) {
      if (!form->available) continue;
      const std::string form_name = name + std::string(suffix);
      if (ptx::FindFunction(with_forms, form_name) == nullptr) {
        MarkUnavailable(
            form, RewriteReason(reasons, name,
                                "the rewrite did not build " + form_name));
      } else {
        keep.insert(form_name);
      }
    }
  }
  if (!keep.empty()) slot.text = ptx::PrintPtx(FormsOnly(with_forms, keep));
}

std::shared_ptr<const ModuleForms> KernelFormCache::Build(
    const Slot& slot, std::string_view source) {
  auto out = std::make_shared<ModuleForms>(*slot.analyzed);
  if (slot.text.empty()) return out;
  const std::string& text = slot.text;
  bool from_disk = false;
  Result<std::string> cubin = Cubin(text, &from_disk);
  if (!cubin.ok()) {
    const std::string why =
        "the forms' module did not compile: " + cubin.status().message();
    LogOnce(std::string(source) + ": " + why);
    for (auto& [name, info] : out->kernels) {
      MarkUnavailable(&info.slice, why);
      MarkUnavailable(&info.persistent, why);
    }
    return out;
  }
  out->cubin = std::move(cubin).value();
  out->key = Sha256Hex(text);
  out->from_disk = from_disk;
  return out;
}

Result<std::string> KernelFormCache::Cubin(const std::string& text,
                                           bool* from_disk) {
  *from_disk = false;
  form_file::Key key;
  key.ptx = Sha256(text);
  key.arch = options_.arch;
  bool use_disk = !options_.directory.empty() && !disk_off_.load();
  if (use_disk) {
    Result<int> version = jit_.DriverVersion();
    if (!version.ok()) {
      LogOnce("the driver's version is unknown (" + version.status().message() +
              "): kernel forms are compiled in memory, not cached on disk");
      use_disk = false;
    } else {
      key.driver_version = *version;
    }
  }
  if (use_disk) {
    const Status dir = form_file::PrepareDirectory(options_.directory);
    if (!dir.ok()) {
      LogOnce("kernel form cache unusable (" + dir.message() +
              "): forms are compiled in memory");
      disk_off_.store(true);
      use_disk = false;
    }
  }
  const std::string name = form_file::FileName(key);
  if (use_disk) {
    Result<std::string> bytes =
        form_file::ReadFile(options_.directory, name, kMaxFileBytes);
    if (bytes.ok()) {
      Result<std::string> cubin = form_file::Decode(key, *bytes);
      if (cubin.ok()) {
        ++disk_hits_;
        *from_disk = true;
        return cubin;
      }
      ++rejected_files_;
      LogOnce("kernel form cache file " + options_.directory + "/" + name +
              " refused (" + cubin.status().message() + "): compiled again");
    } else if (bytes.status().code() != StatusCode::kNotFound) {
      ++rejected_files_;
      LogOnce("kernel form cache file refused (" + bytes.status().message() +
              "): compiled again");
    }
  }
  ++compiles_;
  Result<std::string> cubin = jit_.Compile(text, options_.arch);
  if (!cubin.ok()) {
    ++compile_errors_;
    return cubin;
  }
  if (use_disk) {
    const Status put = form_file::WriteFileAtomically(
        options_.directory, name, form_file::Encode(key, *cubin));
    if (put.ok()) {
      ++disk_writes_;
    } else {
      LogOnce("kernel form cache not written (" + put.message() +
              "): forms are kept in memory");
      disk_off_.store(true);
    }
  }
  return cubin;
}

}  // namespace colo::shim
