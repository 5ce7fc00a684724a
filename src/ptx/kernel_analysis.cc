// AnalyzeKernel (kernel_forms.h): whether a kernel's sliced and persistent
// forms keep its meaning. The forms change only what a block sees of the
// grid (%ctaid, %nctaid) and, for the persistent form, how a block ends and
// meets barrier 0; a kernel stays whole when it depends on the launch in a
// way these rewrites cannot reproduce. Every finding is one sentence naming
// what was found, so that a user can see why a kernel was not cut.
#include <algorithm>
#include <deque>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "ptx/kernel_forms.h"
#include "ptx/ptx_module.h"

namespace colo::ptx {
namespace {

using std::string_view_literals::operator""sv;

// Special registers that exist only with thread-block clusters.
constexpr std::string_view kClusterRegisters[] = {
    "%clusterid",          "%nclusterid",      "%cluster_ctaid",
    "%cluster_nctaid",     "%cluster_ctarank", "%cluster_nctarank",
    "%is_explicit_cluster"};
// Directives that ask for a cluster launch.
constexpr std::string_view kClusterDirectives[] = {
    ".reqnctapercluster", ".explicitcluster", ".maxclusterrank"};
// Instructions that only make sense inside a cluster.
constexpr std::string_view kClusterOpcodes[] = {"mapa", "getctarank"};

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}
bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.substr(s.size() - suffix.size()) == suffix;
}
bool Contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

// A device-side launch goes through the device runtime's parameter buffer
// and launch calls; their names differ between CUDA versions
// (cudaLaunchDevice, cudaLaunchDeviceV2, __cudaCDP2LaunchDeviceV2 ...).
bool IsDeviceLaunchCall(std::string_view callee) {
  return Contains(callee, "LaunchDevice") ||
         Contains(callee, "GetParameterBuffer");
}
// Cooperative groups' grid sync in older toolkits is a call into the device
// runtime (cudaCGSynchronize, cudaCGGetIntrinsicHandle ...).
bool IsGridSyncCall(std::string_view callee) {
  return StartsWith(callee, "cudaCG") || StartsWith(callee, "__cudaCG");
}

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

// The instruction as "opcode.mod.mod", for reasons.
std::string OpcodeText(const Instruction& in) {
  std::vector<std::string> parts = {in.opcode};
  parts.insert(parts.end(), in.modifiers.begin(), in.modifiers.end());
  return Join(parts, ".");
}

// Whether a register name may be one of the special registers Examine
// looks for: %envreg<N>, the cluster registers (kClusterRegisters),
// %ctaid, %nctaid.
bool MaySpecial(std::string_view name) {
  if (name.size() < 2 || name[0] != '%') return false;
  const char c = name[1];
  return c == 'c' || c == 'e' || c == 'i' || c == 'n';
}

// Visits every register operand (also inside vectors and '|' pairs).
template <typename Fn>
void ForEachRegister(const Operand& op, Fn&& fn) {
  if (op.kind == Operand::Kind::kRegister) fn(op);
  for (const Operand& e : op.elements) ForEachRegister(e, fn);
  for (const Operand& p : op.pair) ForEachRegister(p, fn);
}

// What one function body shows. `slice` findings stop both forms;
// `persistent` findings stop the persistent form only.
struct Findings {
  std::optional<std::string> slice;
  std::optional<std::string> persistent;
  // The symbols of each call: the callee among them when it is called by
  // name, else only parameters (a call through a register).
  std::vector<std::vector<std::string>> calls;
};

// The persistent form rewrites `bar.sync 0` / `barrier.sync{.aligned} 0`
// (any .cta spelling) into a non-aligned barrier.sync 0 that threads
// waiting at the block's end also meet; any other use of a CTA barrier
// would meet theirs with a different kind of barrier operation, a
// different thread count, or on a barrier they never reach.
std::optional<std::string> PersistentBarrierProblem(const Instruction& in) {
  std::vector<std::string_view> mods;
  for (const std::string& m : in.modifiers) {
    if (m != "cta"sv) mods.push_back(m);
  }
  if (!mods.empty() && mods[0] == "warp"sv) return std::nullopt;  // warp-level
  const auto has = [&in] { return "has " + OpcodeText(in); };
  if (mods.empty() || mods[0] != "sync"sv) {
    return has() + ", a barrier the persistent form cannot rewrite";
  }
  for (size_t i = 1; i < mods.size(); ++i) {
    if (mods[i] != "aligned"sv) {
      return has() + ", a barrier the persistent form cannot rewrite";
    }
  }
  if (in.operands.size() >= 2) {
    return has() +
           " with a thread count, which the persistent form cannot rewrite";
  }
  if (in.operands.size() != 1 ||
      in.operands[0].kind != Operand::Kind::kInteger ||
      in.operands[0].int_value != 0) {
    return has() +
           " on a barrier other than 0, which the persistent form cannot "
           "rewrite";
  }
  return std::nullopt;
}

Findings Examine(const Function& f, bool is_entry) {
  Findings out;
  auto slice = [&](std::string reason) {
    if (!out.slice) out.slice = std::move(reason);
  };
  auto persistent = [&](std::string reason) {
    if (!out.persistent) out.persistent = std::move(reason);
  };
  for (const std::string& d : f.directives) {
    for (std::string_view cd : kClusterDirectives) {
      if (StartsWith(d, cd)) {
        slice("has directive " + d + " (thread-block clusters)");
      }
    }
  }
  // Every register looked for here starts with "%c", "%e", "%i" or "%n";
  // the body's own registers (%r, %rd, %f, %p ...) mostly do not, and are
  // passed over without a string comparison or a call.
  const auto check = [&](const Operand& r) {
    if (!MaySpecial(r.name)) return;
    if (StartsWith(r.name, "%envreg")) {
      slice("reads " + r.name +
            " (grid-wide synchronization or a cooperative launch)");
    }
    for (std::string_view c : kClusterRegisters) {
      if (r.name == c) slice("reads " + r.name + " (thread-block clusters)");
    }
    if (r.name == "%ctaid"sv || r.name == "%nctaid"sv) {
      if (!is_entry) {
        slice("reads " + r.name +
              (r.component.empty() ? "" : "." + r.component));
      } else if (r.component != "x"sv && r.component != "y"sv &&
                 r.component != "z"sv) {
        slice("reads " + r.name +
              (r.component.empty() ? " as a whole vector" : "." + r.component));
      }
    }
  };
  for (const Statement& st : f.body) {
    const auto* in = std::get_if<Instruction>(&st);
    if (in == nullptr) continue;
    for (const Operand& op : in->operands) {
      // ForEachRegister(op, check), its common case inline.
      if (op.kind == Operand::Kind::kRegister && MaySpecial(op.name)) {
        check(op);
      }
      for (const Operand& e : op.elements) ForEachRegister(e, check);
      for (const Operand& p : op.pair) ForEachRegister(p, check);
    }
    for (std::string_view co : kClusterOpcodes) {
      if (in->opcode == co) {
        slice("uses " + OpcodeText(*in) + " (thread-block clusters)");
      }
    }
    for (const std::string& m : in->modifiers) {
      if (Contains(m, "cluster")) {
        slice("uses " + OpcodeText(*in) + " (thread-block clusters)");
      }
    }
    if (in->opcode == "call"sv) {
      std::vector<std::string> symbols;
      for (const Operand& op : in->operands) {
        if (op.kind == Operand::Kind::kSymbol) symbols.push_back(op.name);
      }
      out.calls.push_back(std::move(symbols));
    }
    if (in->opcode == "bar"sv || in->opcode == "barrier"sv) {
      bool cluster = std::find(in->modifiers.begin(), in->modifiers.end(),
                               "cluster"sv) != in->modifiers.end();
      if (!cluster) {
        if (!is_entry) {
          persistent("has " + OpcodeText(*in) +
                     ", a barrier the persistent form cannot rewrite inside "
                     "a .func");
        } else if (auto problem = PersistentBarrierProblem(*in)) {
          persistent(*problem);
        }
      }
    }
    if (!is_entry && in->opcode == "exit"sv) {
      persistent("has exit, which would end a persistent worker's thread");
    }
  }
  return out;
}

// The entry `name` of `module` (nullptr if none) and whether a .func has
// that name instead.
const Function* FindEntry(const Module& module, std::string_view name,
                          bool* is_func) {
  *is_func = false;
  for (const TopLevel& item : module.items) {
    const auto* f = std::get_if<Function>(&item);
    if (f == nullptr || f->name != name) continue;
    if (f->is_entry) return f;
    *is_func = true;
  }
  return nullptr;
}

// "sm_80" -> 80, "sm_90a" -> 90; nullopt if not of that shape.
std::optional<int> TargetNumber(std::string_view target) {
  if (!StartsWith(target, "sm_")) return std::nullopt;
  int value = 0;
  size_t i = 3;
  for (; i < target.size() && target[i] >= '0' && target[i] <= '9'; ++i) {
    value = value * 10 + (target[i] - '0');
  }
  if (i == 3) return std::nullopt;
  return value;
}

}  // namespace

Transformability AnalyzeKernel(const Module& module, std::string_view name) {
  Transformability t;
  auto refuse = [&](std::string reason) {
    t.slice = false;
    t.persistent = false;
    t.reason = std::move(reason);
    return t;
  };
  bool is_func = false;
  const Function* entry = FindEntry(module, name, &is_func);
  if (entry == nullptr) {
    return refuse(is_func
                      ? "'" + std::string(name) + "' is a .func, not a kernel"
                      : "no kernel named '" + std::string(name) + "'");
  }
  if (!entry->has_body) {
    return refuse("kernel '" + std::string(name) + "' has no body");
  }
  if (EndsWith(name, kSliceSuffix) || EndsWith(name, kPersistentSuffix)) {
    return refuse("'" + std::string(name) + "' is itself a colo form");
  }
  // A second form of the same name would be a duplicate symbol.
  for (std::string_view suffix : {kSliceSuffix, kPersistentSuffix}) {
    bool is_func_form = false;
    const std::string form = std::string(name) + std::string(suffix);
    if (FindEntry(module, form, &is_func_form) != nullptr || is_func_form) {
      return refuse("the module already has a function named " + form);
    }
  }

  std::unordered_map<std::string_view, const Function*> functions;
  for (const TopLevel& item : module.items) {
    // A declaration and the definition share a name: keep the definition.
    const auto* f = std::get_if<Function>(&item);
    if (f == nullptr) continue;
    auto [it, inserted] = functions.emplace(f->name, f);
    if (!inserted && f->has_body) it->second = f;
  }

  std::optional<std::string> slice_reason;
  std::optional<std::string> persistent_reason;
  Findings top = Examine(*entry, /*is_entry=*/true);
  slice_reason = top.slice;
  persistent_reason = top.persistent;

  // Everything the kernel can reach through calls. A call through a
  // register may reach any .func whose address the module takes, which
  // this does not track: every .func with a body counts as reached then.
  std::set<std::string> seen;
  std::deque<std::string> queue;
  bool indirect = false;
  auto enqueue_calls = [&](const Findings& f) {
    for (const std::vector<std::string>& symbols : f.calls) {
      bool named = false;
      for (const std::string& s : symbols) {
        if (functions.count(s) > 0 || IsDeviceLaunchCall(s) ||
            IsGridSyncCall(s)) {
          queue.push_back(s);
          named = true;
        }
      }
      if (!named && !indirect) {
        indirect = true;
        for (const TopLevel& item : module.items) {
          const auto* fn = std::get_if<Function>(&item);
          if (fn != nullptr && !fn->is_entry && fn->has_body) {
            queue.push_back(fn->name);
          }
        }
      }
    }
  };
  enqueue_calls(top);
  while (!queue.empty() && !slice_reason) {
    const std::string callee = queue.front();
    queue.pop_front();
    if (!seen.insert(callee).second) continue;
    if (IsDeviceLaunchCall(callee)) {
      slice_reason = "calls " + callee + " (a device-side launch)";
      break;
    }
    if (IsGridSyncCall(callee)) {
      slice_reason = "calls " + callee +
                     " (grid-wide synchronization or a cooperative launch)";
      break;
    }
    auto it = functions.find(callee);
    if (it == functions.end() || !it->second->has_body ||
        it->second->is_entry) {
      continue;  // an extern declaration (vprintf, __assertfail ...)
    }
    Findings f = Examine(*it->second, /*is_entry=*/false);
    if (f.slice) {
      slice_reason = "calls .func " + callee + ", which " + *f.slice;
    }
    if (f.persistent && !persistent_reason) {
      persistent_reason = "calls .func " + callee + ", which " + *f.persistent;
    }
    enqueue_calls(f);
  }
  if (slice_reason) return refuse(*slice_reason);

  // The persistent form's non-aligned barrier.sync needs PTX ISA 6.0 and
  // the independent thread scheduling of sm_70 and later.
  if (!persistent_reason && module.version_major < 6) {
    persistent_reason = "the module's PTX version " +
                        std::to_string(module.version_major) + "." +
                        std::to_string(module.version_minor) +
                        " lacks non-aligned barrier.sync (PTX 6.0)";
  }
  if (!persistent_reason) {
    std::optional<int> sm = TargetNumber(module.target);
    if (sm && *sm < 70) {
      persistent_reason = "the module's target " + module.target +
                          " lacks non-aligned barriers (sm_70)";
    }
  }
  t.slice = true;
  t.persistent = !persistent_reason;
  if (persistent_reason) t.reason = *persistent_reason;
  return t;
}

}  // namespace colo::ptx
