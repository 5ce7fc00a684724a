#include "ptx/ptx_link.h"

#include <algorithm>
#include <map>
#include <set>
#include <variant>

#include "ptx/ptx_printer.h"
#include "ptx/ptx_reader.h"

namespace colo::ptx {
namespace {

bool IdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '%';
}

// A module-scope symbol an item defines or declares, and how.
struct Symbol {
  std::string name;
  bool defines = false;   // a body, or a variable that is not .extern
  bool visible = false;   // .entry / .visible / .weak / .common
  bool weak = false;      // .weak / .common
  bool linkable = false;  // takes part in linking at all
};

Symbol SymbolOf(const TopLevel& item) {
  Symbol s;
  if (const auto* f = std::get_if<Function>(&item)) {
    s.name = f->name;
    s.linkable = true;
    s.defines = f->has_body;
    s.weak = f->linkage == "weak";
    s.visible = f->is_entry || f->linkage == "visible" || s.weak;
  } else if (const auto* v = std::get_if<Variable>(&item)) {
    // Dynamic shared memory (`.extern .shared .b8 smem[]`) is not linkage.
    if (v->space != StateSpace::kGlobal && v->space != StateSpace::kConst) {
      return s;
    }
    s.name = v->name;
    s.linkable = true;
    s.defines = v->linkage != "extern";
    s.weak = v->linkage == "weak" || v->linkage == "common";
    s.visible = v->linkage == "visible" || s.weak;
  }
  return s;
}

}  // namespace

std::string RenameIdentifier(std::string_view text, std::string_view from,
                             std::string_view to) {
  std::string out;
  out.reserve(text.size());
  size_t at = 0;
  while (true) {
    const size_t hit = text.find(from, at);
    if (hit == std::string_view::npos || from.empty()) break;
    const size_t end = hit + from.size();
    const bool starts = hit == 0 || !IdentifierChar(text[hit - 1]);
    const bool ends = end == text.size() || !IdentifierChar(text[end]);
    out.append(text.substr(at, hit - at));
    out.append(starts && ends ? to : from);
    at = end;
  }
  out.append(text.substr(at));
  return out;
}

Result<std::string> LinkPtx(const std::vector<PtxInput>& inputs) {
  if (inputs.empty()) return InvalidArgumentError("no PTX input to link");
  std::vector<Module> modules;
  for (const PtxInput& input : inputs) {
    Result<Module> read = ReadPtx(input.text, input.label);
    if (!read.ok()) {
      return InvalidArgumentError(input.label + ": " +
                                  std::string(read.status().message()));
    }
    if (!modules.empty() && read->address_size != modules[0].address_size) {
      return InvalidArgumentError(input.label + ": .address_size " +
                                  std::to_string(read->address_size) +
                                  " differs from " + inputs[0].label + "'s " +
                                  std::to_string(modules[0].address_size));
    }
    modules.push_back(std::move(*read));
  }
  // How many inputs name each module-scope symbol (defined or declared).
  std::map<std::string, int> inputs_naming;
  for (const Module& m : modules) {
    std::set<std::string> names;
    for (const TopLevel& item : m.items) {
      const Symbol s = SymbolOf(item);
      if (s.linkable) names.insert(s.name);
    }
    for (const std::string& n : names) ++inputs_naming[n];
  }
  // A file-local definition whose name another input also uses is renamed
  // in its own input, with every reference to it.
  for (size_t i = 0; i < modules.size(); ++i) {
    std::string text = inputs[i].text;
    bool renamed = false;
    for (const TopLevel& item : modules[i].items) {
      const Symbol s = SymbolOf(item);
      if (!s.linkable || !s.defines || s.visible || inputs_naming[s.name] < 2) {
        continue;
      }
      text = RenameIdentifier(text, s.name,
                              s.name + "_colo_link" + std::to_string(i));
      renamed = true;
    }
    if (!renamed) continue;
    Result<Module> again = ReadPtx(text, inputs[i].label);
    if (!again.ok()) {
      return InternalError(inputs[i].label +
                           ": renaming its file-local symbols made it "
                           "unreadable: " +
                           std::string(again.status().message()));
    }
    modules[i] = std::move(*again);
  }
  // Each visible name's winning definition: (input, item index).
  std::map<std::string, std::pair<size_t, size_t>> chosen;
  std::map<std::string, bool> chosen_weak;
  for (size_t i = 0; i < modules.size(); ++i) {
    for (size_t k = 0; k < modules[i].items.size(); ++k) {
      const Symbol s = SymbolOf(modules[i].items[k]);
      if (!s.linkable || !s.defines || !s.visible) continue;
      auto it = chosen.find(s.name);
      if (it == chosen.end() || (chosen_weak[s.name] && !s.weak)) {
        chosen[s.name] = {i, k};
        chosen_weak[s.name] = s.weak;
      } else if (!s.weak && !chosen_weak[s.name]) {
        return InvalidArgumentError("'" + s.name + "' is defined by both " +
                                    inputs[it->second.first].label + " and " +
                                    inputs[i].label);
      }
    }
  }
  std::set<std::string> defined;  // by a definition of any kind.
  for (const Module& m : modules) {
    for (const TopLevel& item : m.items) {
      const Symbol s = SymbolOf(item);
      if (s.linkable && s.defines) defined.insert(s.name);
    }
  }
  Module out;
  out.target = modules[0].target;
  out.target_flags = modules[0].target_flags;
  out.address_size = modules[0].address_size;
  std::set<std::string> declared;  // declarations kept (one each).
  for (size_t i = 0; i < modules.size(); ++i) {
    const Module& m = modules[i];
    if (std::make_pair(m.version_major, m.version_minor) >
        std::make_pair(out.version_major, out.version_minor)) {
      out.version_major = m.version_major;
      out.version_minor = m.version_minor;
    }
    for (size_t k = 0; k < m.items.size(); ++k) {
      const Symbol s = SymbolOf(m.items[k]);
      if (s.linkable && s.defines && s.visible &&
          chosen[s.name] != std::make_pair(i, k)) {
        continue;  // a weak definition another one overrides.
      }
      if (s.linkable && !s.defines &&
          (defined.count(s.name) || !declared.insert(s.name).second)) {
        continue;  // resolved elsewhere, or declared already.
      }
      out.items.push_back(m.items[k]);
    }
  }
  return PrintPtx(out);
}

}  // namespace colo::ptx
