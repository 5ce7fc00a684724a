// The sliced and persistent forms (kernel_forms.h), built on the tree of
// ptx_module.h. Both forms keep the original body and change only what it
// sees of the grid: every operand that reads %ctaid.{x,y,z} or
// %nctaid.{x,y,z} reads a register the form computes instead, so the body's
// own arithmetic on block indices is untouched. All names the forms add
// share one prefix that no name of the original function starts with
// (UniquePrefix), so they cannot clash with its registers, labels or
// parameters.
#include "ptx/kernel_forms.h"

#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ptx/ptx_module.h"

namespace colo::ptx {
namespace {

using std::string_view_literals::operator""sv;

Operand Reg(std::string name) {
  Operand op;
  op.kind = Operand::Kind::kRegister;
  op.name = std::move(name);
  return op;
}
Operand Special(std::string name, std::string component) {
  Operand op = Reg(std::move(name));
  op.component = std::move(component);
  return op;
}
Operand Imm(int64_t value) {
  Operand op;
  op.kind = Operand::Kind::kInteger;
  op.int_value = value;
  return op;
}
Operand Sym(std::string name) {
  Operand op;
  op.kind = Operand::Kind::kSymbol;
  op.name = std::move(name);
  return op;
}
Operand Addr(std::string base, bool base_is_register, int64_t offset = 0) {
  Operand op;
  op.kind = Operand::Kind::kAddress;
  op.name = std::move(base);
  op.base_is_register = base_is_register;
  op.int_value = offset;
  return op;
}
Instruction Ins(std::string opcode, std::vector<std::string> modifiers,
                std::vector<Operand> operands,
                std::optional<Guard> guard = std::nullopt) {
  Instruction in;
  in.guard = std::move(guard);
  in.opcode = std::move(opcode);
  in.modifiers = std::move(modifiers);
  in.operands = std::move(operands);
  return in;
}
Guard If(std::string predicate, bool negated = false) {
  return Guard{std::move(predicate), negated};
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// A name of the original that could clash with a form's: one that starts
// with "__colo" once a leading '%' or '$' is dropped.
inline bool MayClash(std::string_view name) {
  if (!name.empty() && (name[0] == '%' || name[0] == '$')) {
    name.remove_prefix(1);
  }
  return name.size() >= 6 && name[0] == '_' && StartsWith(name, "__colo");
}

// The names an operand mentions that may clash (MayClash).
void CollectClashes(const Operand& op, std::vector<std::string_view>* out) {
  if (MayClash(op.name)) out->push_back(op.name);
  for (const Operand& e : op.elements) CollectClashes(e, out);
  for (const Operand& p : op.pair) CollectClashes(p, out);
}
void CollectClashes(const Instruction& in, std::vector<std::string_view>* out) {
  if (in.guard && MayClash(in.guard->predicate)) {
    out->push_back(in.guard->predicate);
  }
  for (const Operand& op : in.operands) {
    if (MayClash(op.name)) out->push_back(op.name);
    // Vectors, texture addresses and '|' pairs (a few in a body) nest.
    if (!op.elements.empty() || !op.pair.empty()) {
      for (const Operand& e : op.elements) CollectClashes(e, out);
      for (const Operand& p : op.pair) CollectClashes(p, out);
    }
  }
}

// "__colo", or "__colo1", "__colo2" ... : the first whose "<p>_" begins no
// register, label, parameter or variable name of `f` (leading '%' or '$'
// aside). The forms' names are "%<p>_...", "$<p>_..." and "<p>_...". Only
// the names that start with "__colo" can begin any "<p>_", and a kernel
// rarely has one, so those are gathered first.
std::string UniquePrefix(const Function& f) {
  std::vector<std::string_view> names;
  for (const Param& p : f.params) {
    if (MayClash(p.name)) names.push_back(p.name);
  }
  for (const Statement& st : f.body) {
    if (const auto* in = std::get_if<Instruction>(&st)) {
      CollectClashes(*in, &names);
    } else if (const auto* l = std::get_if<Label>(&st)) {
      if (MayClash(l->name)) names.push_back(l->name);
    } else if (const auto* r = std::get_if<RegisterDecl>(&st)) {
      if (MayClash(r->name)) names.push_back(r->name);
    } else if (const auto* v = std::get_if<Variable>(&st)) {
      if (MayClash(v->name)) names.push_back(v->name);
    }
  }
  for (int n = 0;; ++n) {
    std::string prefix = "__colo" + (n == 0 ? "" : std::to_string(n));
    const std::string with_sep = prefix + "_";
    bool clash = false;
    for (std::string_view name : names) {
      if (!name.empty() && (name[0] == '%' || name[0] == '$')) {
        name.remove_prefix(1);
      }
      if (StartsWith(name, with_sep)) {
        clash = true;
        break;
      }
    }
    if (!clash) return prefix;
  }
}

// The names one form adds, all under one prefix.
struct Names {
  explicit Names(std::string p) : prefix(std::move(p)) {}
  std::string prefix;
  std::string R(std::string_view n) const {  // a register
    return "%" + prefix + "_" + std::string(n);
  }
  std::string L(std::string_view n) const {  // a label
    return "$" + prefix + "_" + std::string(n);
  }
  std::string S(std::string_view n) const {  // a parameter or variable
    return prefix + "_" + std::string(n);
  }
};

// Appends `s` to a body. (Constructing the variant in place also keeps
// g++ 12 from a false -Wmaybe-uninitialized on a converted temporary.)
template <typename T>
void Put(std::vector<Statement>* out, T s) {
  out->emplace_back(std::in_place_type<T>, std::move(s));
}

RegisterDecl Decl(std::string type, std::string name) {
  RegisterDecl d;
  d.type = std::move(type);
  d.name = std::move(name);
  return d;
}
Param U32Param(std::string name) {
  Param p;
  p.type = "u32";
  p.name = std::move(name);
  return p;
}

// Whether `op` itself (not its elements) reads %ctaid.{x,y,z} or
// %nctaid.{x,y,z}: a test of a few bytes for the body's other operands.
inline bool IsGridRead(const Operand& op) {
  if (op.kind != Operand::Kind::kRegister || op.component.size() != 1 ||
      op.name.size() < 6 || op.name.size() > 7) {
    return false;
  }
  const char c = op.component[0];
  return (c == 'x' || c == 'y' || c == 'z') &&
         (op.name == "%ctaid"sv || op.name == "%nctaid"sv);
}

// Replaces %ctaid.{x,y,z} / %nctaid.{x,y,z} (anywhere in the operand) by
// the form's registers.
bool ReplaceGridReads(Operand& op, const Names& n) {
  bool replaced = false;
  if (IsGridRead(op)) {
    const std::string& c = op.component;
    std::string name;
    if (op.name == "%ctaid"sv) {
      name = n.R("ctaid_" + c);
    } else {
      name = n.R(c == "x" ? "grid_x" : c == "y" ? "grid_y" : "grid_z");
    }
    op.name = std::move(name);
    op.component.clear();
    replaced = true;
  }
  for (Operand& e : op.elements) replaced |= ReplaceGridReads(e, n);
  for (Operand& p : op.pair) replaced |= ReplaceGridReads(p, n);
  return replaced;
}

// Replaces the grid reads of `in`. A 16-bit mov of a special register
// (`mov.u16 %rs1, %ctaid.x`) reads its low half; from a .u32 register that
// is `cvt.u16.u32`.
void ReplaceGridReads(Instruction& in, const Names& n) {
  bool replaced = false;
  for (Operand& op : in.operands) {
    // Most operands are neither a grid read nor nest one.
    if (IsGridRead(op) || !op.elements.empty() || !op.pair.empty()) {
      replaced |= ReplaceGridReads(op, n);
    }
  }
  if (replaced && in.opcode == "mov"sv && in.modifiers.size() == 1 &&
      (in.modifiers[0] == "u16"sv || in.modifiers[0] == "b16"sv ||
       in.modifiers[0] == "s16"sv)) {
    in.opcode = "cvt";
    in.modifiers = {"u16", "u32"};
  }
}

// Where the form's set-up code goes: after the declarations that open the
// body (registers, variables, debug directives), before the first
// instruction, label or scope, so that it runs first and stays in the
// body's outermost scope.
size_t SetupPosition(const std::vector<Statement>& body) {
  size_t i = 0;
  while (i < body.size() && (std::holds_alternative<RegisterDecl>(body[i]) ||
                             std::holds_alternative<Variable>(body[i]) ||
                             std::holds_alternative<RawStatement>(body[i]))) {
    ++i;
  }
  return i;
}

// The registers both forms declare: the grid size, the block's own index
// in it and temporaries, all .u32.
void DeclareGridRegisters(const Names& n, std::vector<Statement>* out) {
  for (const char* r : {"grid_x", "grid_y", "grid_z", "grid_xy", "ctaid_x",
                        "ctaid_y", "ctaid_z", "linear", "quotient"}) {
    Put(out, Decl("u32", n.R(r)));
  }
}

// ld.param of the grid size, and gx * gy.
void LoadGrid(const Names& n, std::vector<Statement>* out) {
  for (const char* r : {"grid_x", "grid_y", "grid_z"}) {
    Put(out, Ins("ld", {"param", "u32"}, {Reg(n.R(r)), Addr(n.S(r), false)}));
  }
  Put(out, Ins("mul", {"lo", "u32"},
               {Reg(n.R("grid_xy")), Reg(n.R("grid_x")), Reg(n.R("grid_y"))}));
}

// %ctaid of linear block index L (in register `linear`):
// x = L % gx, y = (L / gx) % gy, z = L / (gx * gy).
void ComputeCtaid(const Names& n, std::vector<Statement>* out) {
  Put(out, Ins("rem", {"u32"},
               {Reg(n.R("ctaid_x")), Reg(n.R("linear")), Reg(n.R("grid_x"))}));
  Put(out, Ins("div", {"u32"},
               {Reg(n.R("quotient")), Reg(n.R("linear")), Reg(n.R("grid_x"))}));
  Put(out,
      Ins("rem", {"u32"},
          {Reg(n.R("ctaid_y")), Reg(n.R("quotient")), Reg(n.R("grid_y"))}));
  Put(out, Ins("div", {"u32"},
               {Reg(n.R("ctaid_z")), Reg(n.R("linear")), Reg(n.R("grid_xy"))}));
}

Function FormHeader(const Function& original, std::string_view suffix) {
  Function f;
  f.is_entry = true;
  f.linkage = original.linkage;
  f.name = original.name + std::string(suffix);
  f.params = original.params;
  f.directives = original.directives;
  f.has_body = true;
  f.line = 0;
  return f;
}

const Function* FindKernel(const Module& module, std::string_view name) {
  for (const TopLevel& item : module.items) {
    const auto* f = std::get_if<Function>(&item);
    if (f != nullptr && f->is_entry && f->name == name) return f;
  }
  return nullptr;
}

// Whether the persistent form's body rewrite turns `in` into its flagged
// non-aligned barrier.sync 0: the barriers AnalyzeKernel lets through
// (bar.sync 0, barrier.sync{.aligned} 0, with or without .cta; not
// bar.warp.sync).
bool IsBlockBarrier(const Instruction& in) {
  if (in.opcode != "bar"sv && in.opcode != "barrier"sv) return false;
  for (const std::string& m : in.modifiers) {
    if (m == "sync"sv) return true;
    if (m != "cta"sv) return false;
  }
  return false;
}

// The sliced form of `original` (AnalyzeKernel allows it).
Function SliceOf(const Function* original) {
  const Names n(UniquePrefix(*original));
  Function f = FormHeader(*original, kSliceSuffix);
  f.params.push_back(U32Param(n.S("first")));
  for (const char* r : {"grid_x", "grid_y", "grid_z"}) {
    f.params.push_back(U32Param(n.S(r)));
  }

  const size_t setup_at = SetupPosition(original->body);
  f.body.reserve(original->body.size() + 24);
  DeclareGridRegisters(n, &f.body);
  Put(&f.body, Decl("u32", n.R("first")));
  f.body.insert(f.body.end(), original->body.begin(),
                original->body.begin() + setup_at);
  // L = first + %ctaid.x: the launch's blocks are the original's
  // [first, first + gridDim.x) in linear order.
  Put(&f.body, Ins("ld", {"param", "u32"},
                   {Reg(n.R("first")), Addr(n.S("first"), false)}));
  LoadGrid(n, &f.body);
  Put(&f.body,
      Ins("mov", {"u32"}, {Reg(n.R("linear")), Special("%ctaid", "x")}));
  Put(&f.body,
      Ins("add", {"u32"},
          {Reg(n.R("linear")), Reg(n.R("linear")), Reg(n.R("first"))}));
  ComputeCtaid(n, &f.body);
  // Each statement is copied once, into its place, and changed there.
  for (size_t i = setup_at; i < original->body.size(); ++i) {
    Statement& st = f.body.emplace_back(original->body[i]);
    if (auto* in = std::get_if<Instruction>(&st)) {
      ReplaceGridReads(*in, n);
    }
  }
  return f;
}

// The persistent form of `original` (AnalyzeKernel allows it).
Function PersistentOf(const Function* original) {
  const Names n(UniquePrefix(*original));
  Function f = FormHeader(*original, kPersistentSuffix);
  Param control;
  control.type = "u64";
  control.name = n.S("control");
  f.params.push_back(control);
  for (const char* r : {"grid_x", "grid_y", "grid_z"}) {
    f.params.push_back(U32Param(n.S(r)));
  }

  const std::string next = n.L("next");
  const std::string wait = n.L("wait");
  const std::string block_end = n.L("block_end");
  const std::string done = n.L("done");
  const std::string slot = n.S("block");
  const std::string flags = n.S("running");
  const std::string ctl = n.R("control");
  const std::string idx = n.R("linear");
  const std::string total = n.R("total");
  const std::string tid = n.R("tid");
  const std::string tid_part = n.R("tid_part");
  const std::string flags_base = n.R("running_base");
  const std::string cur = n.R("phase");
  const std::string prev = n.R("phase_prev");
  const std::string addr = n.R("phase_addr");
  const std::string seen = n.R("seen");
  const std::string leader = n.R("leader");
  const std::string taken = n.R("taken");
  const std::string still = n.R("still");

  const size_t setup_at = SetupPosition(original->body);
  std::vector<Statement>& b = f.body;
  // One allocation: the form's own statements (declarations, set-up, loop
  // head and block end: fewer than kPersistentStatements) and the body,
  // where each barrier becomes at most kStatementsPerBarrier.
  constexpr size_t kPersistentStatements = 96;
  constexpr size_t kStatementsPerBarrier = 12;
  size_t barriers = 0;
  for (const Statement& st : original->body) {
    const auto* in = std::get_if<Instruction>(&st);
    barriers += in != nullptr && IsBlockBarrier(*in);
  }
  b.reserve(original->body.size() + kPersistentStatements +
            kStatementsPerBarrier * barriers);
  DeclareGridRegisters(n, &b);
  for (const std::string& r :
       {total, tid, tid_part, flags_base, cur, prev, addr, seen}) {
    Put(&b, Decl("u32", r));
  }
  Put(&b, Decl("u64", ctl));
  for (const std::string& r : {leader, taken, still}) {
    Put(&b, Decl("pred", r));
  }
  // Shared state, declared in the kernel's scope as nvcc declares demoted
  // __shared__ variables, so that the form needs nothing at module scope:
  // the logical block index the leader hands out, and three "some thread
  // is still in the body" flags used in rotation (PhaseStep).
  Variable slot_var;
  slot_var.space = StateSpace::kShared;
  slot_var.align = 4;
  slot_var.type = "u32";
  slot_var.name = slot;
  Put(&b, slot_var);
  Variable flags_var = slot_var;
  flags_var.name = flags;
  flags_var.dims = {3};
  Put(&b, flags_var);
  b.insert(b.end(), original->body.begin(), original->body.begin() + setup_at);

  // Set-up: the control block's global address, the grid, n = gx * gy * gz,
  // the leader (thread (0, 0, 0)); the leader clears the flags, which the
  // first loop-head barrier publishes.
  Put(&b, Ins("ld", {"param", "u64"}, {Reg(ctl), Addr(n.S("control"), false)}));
  Put(&b, Ins("cvta", {"to", "global", "u64"}, {Reg(ctl), Reg(ctl)}));
  LoadGrid(n, &b);
  Put(&b, Ins("mul", {"lo", "u32"},
              {Reg(total), Reg(n.R("grid_xy")), Reg(n.R("grid_z"))}));
  Put(&b, Ins("mov", {"u32"}, {Reg(tid), Special("%tid", "x")}));
  for (const char* c : {"y", "z"}) {
    Put(&b, Ins("mov", {"u32"}, {Reg(tid_part), Special("%tid", c)}));
    Put(&b, Ins("or", {"b32"}, {Reg(tid), Reg(tid), Reg(tid_part)}));
  }
  Put(&b, Ins("setp", {"eq", "u32"}, {Reg(leader), Reg(tid), Imm(0)}));
  Put(&b, Ins("mov", {"u32"}, {Reg(flags_base), Sym(flags)}));
  for (int64_t offset : {0, 4, 8}) {
    Put(&b, Ins("st", {"shared", "u32"}, {Addr(flags, false, offset), Imm(0)},
                If(leader)));
  }

  // Loop head: the leader takes the next block unless told to retreat
  // (0xffffffff >= n then ends the worker), and publishes it.
  Put(&b, Label{next, 0});
  Put(&b, Ins("bra", {}, {Sym(wait)}, If(leader, /*negated=*/true)));
  Put(&b,
      Ins("ld", {"volatile", "global", "u32"}, {Reg(idx), Addr(ctl, true, 4)}));
  Put(&b, Ins("setp", {"ne", "u32"}, {Reg(taken), Reg(idx), Imm(0)}));
  Put(&b, Ins("mov", {"u32"}, {Reg(idx), Imm(-1)}));
  Put(&b,
      Ins("atom", {"global", "add", "u32"},
          {Reg(idx), Addr(ctl, true, 0), Imm(1)}, If(taken, /*negated=*/true)));
  Put(&b, Ins("st", {"shared", "u32"}, {Addr(slot, false), Reg(idx)}));
  Put(&b, Label{wait, 0});
  // Non-aligned: the leader reaches it from its own branch. The barrier
  // also orders the leader's stores before everyone's loads.
  Put(&b, Ins("barrier", {"sync"}, {Imm(0)}));
  Put(&b, Ins("ld", {"shared", "u32"}, {Reg(idx), Addr(slot, false)}));
  Put(&b, Ins("setp", {"ge", "u32"}, {Reg(taken), Reg(idx), Reg(total)}));
  Put(&b, Ins("bra", {"uni"}, {Sym(done)}, If(taken)));
  ComputeCtaid(n, &b);
  // Phase 0 of the block: flag slot 0 now, slot 2 the one before.
  Put(&b, Ins("mov", {"u32"}, {Reg(cur), Imm(0)}));
  Put(&b, Ins("mov", {"u32"}, {Reg(prev), Imm(8)}));

  // After barrier instance p of the block, the leader clears the flag of
  // instance p - 1 (everyone read it before arriving at p), and the phase
  // advances: flag offsets cur = 4 * (p % 3), prev = 4 * ((p + 2) % 3);
  // the third offset is 12 ^ cur ^ prev (0 ^ 4 ^ 8 = 12).
  auto phase_step = [&](std::vector<Statement>* out) {
    Put(out, Ins("add", {"u32"}, {Reg(addr), Reg(flags_base), Reg(prev)}));
    Put(out,
        Ins("st", {"shared", "u32"}, {Addr(addr, true), Imm(0)}, If(leader)));
    Put(out, Ins("xor", {"b32"}, {Reg(addr), Reg(cur), Reg(prev)}));
    Put(out, Ins("xor", {"b32"}, {Reg(addr), Reg(addr), Imm(12)}));
    Put(out, Ins("mov", {"u32"}, {Reg(prev), Reg(cur)}));
    Put(out, Ins("mov", {"u32"}, {Reg(cur), Reg(addr)}));
  };

  // The body: rets end the logical block for the thread; a barrier 0
  // raises this phase's flag (some thread is still in the body) before
  // the barrier, which parked threads meet at the block's end.
  int skip_count = 0;
  for (size_t i = setup_at; i < original->body.size(); ++i) {
    const Statement& st = original->body[i];
    const auto* in = std::get_if<Instruction>(&st);
    if (in == nullptr) {
      b.push_back(st);
      continue;
    }
    if (in->opcode == "ret"sv || in->opcode == "exit"sv) {
      std::vector<std::string> mods;
      for (const std::string& m : in->modifiers) {
        if (m == "uni"sv) mods.push_back(m);
      }
      Put(&b, Ins("bra", std::move(mods), {Sym(block_end)}, in->guard));
    } else if (IsBlockBarrier(*in)) {
      std::string skip;
      if (in->guard) {  // a guarded barrier: the same guard for all of it
        skip = n.L("skip_" + std::to_string(skip_count++));
        Put(&b, Ins("bra", {}, {Sym(skip)},
                    If(in->guard->predicate, !in->guard->negated)));
      }
      Put(&b, Ins("add", {"u32"}, {Reg(addr), Reg(flags_base), Reg(cur)}));
      Put(&b, Ins("st", {"shared", "u32"}, {Addr(addr, true), Imm(1)}));
      Put(&b, Ins("barrier", {"sync"}, {Imm(0)}));
      phase_step(&b);
      if (!skip.empty()) Put(&b, Label{skip, 0});
    } else {
      // Copied once, into its place, and changed there.
      ReplaceGridReads(std::get<Instruction>(b.emplace_back(st)), n);
    }
  }

  // The block's end: meet the barriers of the threads still in the body,
  // leaving once an instance had no flag raised, i.e. every thread is
  // here; every thread reads the same flag, so they leave together.
  Put(&b, Label{block_end, 0});
  Put(&b, Ins("add", {"u32"}, {Reg(addr), Reg(flags_base), Reg(cur)}));
  Put(&b, Ins("barrier", {"sync"}, {Imm(0)}));
  Put(&b, Ins("ld", {"shared", "u32"}, {Reg(seen), Addr(addr, true)}));
  phase_step(&b);
  Put(&b, Ins("setp", {"ne", "u32"}, {Reg(still), Reg(seen), Imm(0)}));
  Put(&b, Ins("bra", {}, {Sym(block_end)}, If(still)));
  Put(&b, Ins("bra", {"uni"}, {Sym(next)}));
  Put(&b, Label{done, 0});
  Put(&b, Ins("ret", {}, {}));
  return f;
}

}  // namespace

Result<Function> MakeSliceForm(const Module& module, std::string_view name) {
  const Function* original = FindKernel(module, name);
  if (original == nullptr) {
    return NotFoundError("no kernel named '" + std::string(name) + "'");
  }
  const Transformability t = AnalyzeKernel(module, name);
  if (!t.slice) {
    return FailedPreconditionError("no sliced form of " + std::string(name) +
                                   ": " + t.reason);
  }
  return SliceOf(original);
}

Result<Function> MakePersistentForm(const Module& module,
                                    std::string_view name) {
  const Function* original = FindKernel(module, name);
  if (original == nullptr) {
    return NotFoundError("no kernel named '" + std::string(name) + "'");
  }
  const Transformability t = AnalyzeKernel(module, name);
  if (!t.persistent) {
    return FailedPreconditionError("no persistent form of " +
                                   std::string(name) + ": " + t.reason);
  }
  return PersistentOf(original);
}

Module AddKernelForms(const Module& module, std::vector<std::string>* reasons) {
  Module out = module;
  out.items.reserve(module.items.size() * 3);
  for (const TopLevel& item : module.items) {
    const auto* k = std::get_if<Function>(&item);
    if (k == nullptr || !k->is_entry) continue;
    const Transformability t = AnalyzeKernel(module, k->name);
    if (t.slice) {
      out.items.emplace_back(std::in_place_type<Function>, SliceOf(k));
    }
    if (t.persistent) {
      out.items.emplace_back(std::in_place_type<Function>, PersistentOf(k));
    }
    if (reasons != nullptr && !t.persistent) {
      reasons->push_back(k->name +
                         (t.slice ? ": no persistent form: "
                                  : ": no sliced or persistent form: ") +
                         t.reason);
    }
  }
  return out;
}

}  // namespace colo::ptx
