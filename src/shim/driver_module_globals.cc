// Sim mode's storage for driver modules' module-scope variables
// (driver_module_globals.h).
#include "shim/driver_module_globals.h"

#include <sys/mman.h>

#include <string>
#include <vector>

#include "cuda/cuda_abi.h"
#include "ptx/interpreter_machine.h"
#include "ptx/ptx_interpreter.h"
#include "ptx/ptx_reader.h"
#include "shim/device_queries.h"
#include "shim/fatbin_ptx.h"

namespace colo::shim {
namespace {

// The bytes a variable of PTX type `type` ("u32", "v4.f32", "b8") and
// dimensions `dims` takes; 0 if unsized (an extern array) or not a data
// type.
size_t VariableBytes(const std::string& type,
                     const std::vector<int64_t>& dims) {
  size_t lanes = 1;
  std::string scalar = type;
  if (type.size() > 3 && type[0] == 'v' &&
      type.find('.') != std::string::npos) {
    lanes = std::stoul(type.substr(1, type.find('.') - 1));
    scalar = type.substr(type.find('.') + 1);
  }
  if (scalar.size() < 2) return 0;
  const char k = scalar[0];
  if (k != 'b' && k != 'u' && k != 's' && k != 'f') return 0;
  const unsigned long bits = std::strtoul(scalar.c_str() + 1, nullptr, 10);
  if (bits < 8 || bits % 8 != 0) return 0;
  size_t bytes = lanes * (bits / 8);
  for (int64_t d : dims) {
    if (d <= 0) return 0;
    bytes *= static_cast<size_t>(d);
  }
  return bytes;
}

// Takes `globals` out of MemoryTable and frees their storage.
void FreeGlobals(InterposerState& s,
                 const std::map<std::string, ModuleGlobal>& globals)
    COLO_REQUIRES(s.mu) {
  for (const auto& [name, g] : globals) {
    s.memory.symbols.erase(g.base);
    s.memory.symbol_fat_binary.erase(g.base);
    s.memory.symbol_names.erase(g.base);
    munmap(reinterpret_cast<void*>(g.base), g.size);
  }
}

// Frees the storage of modules no longer loaded.
void DropUnloaded(InterposerState& s) COLO_REQUIRES(s.mu) {
  for (auto it = s.driver.module_globals.begin();
       it != s.driver.module_globals.end();) {
    if (s.modules.sim_handles.count(it->first) != 0) {
      ++it;
      continue;
    }
    FreeGlobals(s, it->second);
    it = s.driver.module_globals.erase(it);
  }
}

// Gives every sized .global / .const variable of `module`'s PTX its
// storage, initialized (see the header).
Status MakeGlobals(InterposerState& s, void* module,
                   std::map<std::string, ModuleGlobal>& globals)
    COLO_REQUIRES(s.mu) {
  auto image = s.modules.images.find(module);
  if (image == s.modules.images.end())
    return NotFoundError("the module has no image");
  COLO_ASSIGN_OR_RETURN(FatbinPtx text,
                        ReadModuleImagePtx(image->second, SimDeviceArch(s)));
  COLO_ASSIGN_OR_RETURN(ptx::Module parsed, ptx::ReadPtx(text.text, "module"));
  if (s.execute.memory == nullptr)
    s.execute.memory = std::make_shared<ptx::DeviceMemory>();
  ptx::DeviceMemory& executed = *s.execute.memory;
  ptx::DeviceMemory scratch;
  for (const ptx::TopLevel& item : parsed.items) {
    const auto* v = std::get_if<ptx::Variable>(&item);
    if (v == nullptr || (v->space != ptx::StateSpace::kGlobal &&
                         v->space != ptx::StateSpace::kConst))
      continue;
    const size_t bytes = VariableBytes(v->type, v->dims);
    if (bytes == 0 || v->linkage == "extern") continue;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return InternalError("out of host memory");
    const auto base = reinterpret_cast<uintptr_t>(p);
    globals[v->name] = ModuleGlobal{base, bytes};
    if (const uint64_t ran = executed.SymbolAddress(v->name);
        ran != 0 && executed.Read(ran, p, bytes).ok()) {
      continue;  // what a kernel of the module already left there
    }
    (void)scratch.Adopt(base, static_cast<uint8_t*>(p), bytes);
    scratch.BindSymbol(v->name, base);
  }
  ptx::interp::SymbolAddresses symbols;
  COLO_RETURN_IF_ERROR(
      ptx::interp::PrepareModuleVariables(parsed, scratch, symbols));
  for (const auto& [name, g] : globals) {
    s.memory.symbols[g.base] = g.size;
    s.memory.symbol_fat_binary[g.base] = module;
    s.memory.symbol_names[g.base] = name;
    executed.BindSymbol(name, g.base);
    (void)executed.TakeUninitialized(name);
  }
  return OkStatus();
}

}  // namespace

int ModuleGlobalLocked(InterposerState& s, void* module, const char* name,
                       uintptr_t* address, size_t* bytes) {
  DropUnloaded(s);
  if (s.modules.sim_handles.count(module) == 0)
    return cuda::kCuErrorInvalidHandle;
  auto [it, added] = s.driver.module_globals.try_emplace(module);
  if (added) {
    if (Status made = MakeGlobals(s, module, it->second); !made.ok()) {
      // No variable of the module is known: what was made goes.
      FreeGlobals(s, it->second);
      s.driver.module_globals.erase(it);
      return cuda::kCuErrorNotFound;
    }
  }
  auto g = it->second.find(name);
  if (g == it->second.end()) return cuda::kCuErrorNotFound;
  *address = g->second.base;
  *bytes = g->second.size;
  return cuda::kCuSuccess;
}

void ForgetModuleGlobalsLocked(InterposerState& s, void* module) {
  auto it = s.driver.module_globals.find(module);
  if (it == s.driver.module_globals.end()) return;
  FreeGlobals(s, it->second);
  s.driver.module_globals.erase(it);
}

}  // namespace colo::shim
