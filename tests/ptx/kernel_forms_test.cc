// The kernel forms of ptx/kernel_forms.h on hand-written PTX (and nvcc
// output pasted in): the sliced form's %ctaid is the original block's
// (L % gx, (L / gx) % gy, L / (gx * gy)) with L = first + %ctaid.x, computed
// by the form's own set-up code, which a small u32 evaluator below runs;
// the persistent form's loop, its rets turned into branches to the block's
// end, its barriers into non-aligned barrier.sync 0 after raising the
// phase's flag, the flags' rotation over three slots; names that cannot
// clash with the original's; AddKernelForms. (The reasons a kernel stays
// whole: kernel_analysis_test.cc.)
#include "ptx/kernel_forms.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "gtest/gtest.h"
#include "kernel_forms_test_util.h"
#include "ptx/ptx_printer.h"
#include "ptx/ptx_reader.h"

namespace colo::ptx {
namespace {

using forms_test::Find;
using forms_test::Instructions;
using forms_test::Kernel;
using forms_test::kGrid3d;
using forms_test::kHeader;
using forms_test::Read;
using Kind = Operand::Kind;

// Whether `op` (or an element of it) is register `name` with `component`.
bool Reads(const Operand& op, const std::string& name,
           const std::string& component) {
  if (op.kind == Kind::kRegister && op.name == name &&
      (component == "*" || op.component == component)) {
    return true;
  }
  for (const Operand& e : op.elements) {
    if (Reads(e, name, component)) return true;
  }
  return false;
}
int CountReads(const std::vector<Instruction>& ins, const std::string& name,
               const std::string& component = "*") {
  int n = 0;
  for (const Instruction& in : ins) {
    for (const Operand& op : in.operands) n += Reads(op, name, component);
  }
  return n;
}

// Straight-line u32 evaluation of a form's set-up code: ld.param reads
// `params` by name, ld.shared reads `shared` by name, special registers
// come from `special` ("%ctaid.x"), other loads read 0, and mov / add /
// mul.lo / div / rem / or / xor / setp.{eq,ne,ge} compute as PTX says for
// .u32;
// branches, barriers, atomics and stores are passed over (their effects
// are not what these tests evaluate).
struct Evaluator {
  std::map<std::string, uint64_t> params, shared, special;
  std::map<std::string, uint64_t> regs;

  std::optional<uint64_t> Value(const Operand& op) const {
    if (op.kind == Kind::kInteger) return static_cast<uint32_t>(op.int_value);
    if (op.kind != Kind::kRegister) return std::nullopt;
    std::string key = op.name;
    if (!op.component.empty()) key += "." + op.component;
    if (auto it = special.find(key); it != special.end()) return it->second;
    if (auto it = regs.find(key); it != regs.end()) return it->second;
    return std::nullopt;
  }
  bool Has(const Instruction& in, const std::string& m) const {
    for (const std::string& x : in.modifiers) {
      if (x == m) return true;
    }
    return false;
  }
  void Run(const std::vector<Instruction>& code) {
    for (const Instruction& in : code) Step(in);
  }
  void Step(const Instruction& in) {
    if (in.operands.empty() || in.operands[0].kind != Kind::kRegister) return;
    const std::string& d = in.operands[0].name;
    auto arg = [&](size_t i) { return Value(in.operands.at(i)); };
    const std::string& op = in.opcode;
    if (op == "ld" && Has(in, "param")) {
      regs[d] = params.at(in.operands[1].name);
    } else if (op == "ld" && Has(in, "shared")) {
      regs[d] = shared.at(in.operands[1].name);
    } else if (op == "ld") {
      regs[d] = 0;  // other memory reads as zero (retreat = 0)
    } else if (op == "mov") {
      if (auto v = arg(1)) regs[d] = *v & 0xffffffffu;
    } else if (op == "add" || op == "mul" || op == "div" || op == "rem" ||
               op == "or" || op == "xor") {
      auto a = arg(1);
      auto b = arg(2);
      ASSERT_TRUE(a && b) << PrintInstruction(in);
      uint32_t x = static_cast<uint32_t>(*a), y = static_cast<uint32_t>(*b);
      uint32_t r = op == "add"   ? x + y
                   : op == "mul" ? x * y
                   : op == "or"  ? x | y
                   : op == "xor" ? x ^ y
                   : op == "div" ? x / y
                                 : x % y;
      regs[d] = r;
    } else if (op == "setp") {
      auto a = arg(1);
      auto b = arg(2);
      ASSERT_TRUE(a && b) << PrintInstruction(in);
      bool r = Has(in, "eq") ? *a == *b : Has(in, "ne") ? *a != *b : *a >= *b;
      regs[d] = r ? 1 : 0;
    }
  }
};

// The original's instructions against the form's tail: the same opcodes,
// modifiers and guards in the same order, operands equal except that a
// read of %ctaid.c / %nctaid.c became a register of the form; returns the
// register each such read became ("%ctaid.x" -> "%__colo_ctaid_x").
std::map<std::string, std::set<std::string>> MatchBody(
    const std::vector<Instruction>& original,
    const std::vector<Instruction>& tail) {
  std::map<std::string, std::set<std::string>> replaced;
  EXPECT_EQ(original.size(), tail.size());
  for (size_t i = 0; i < original.size() && i < tail.size(); ++i) {
    const Instruction& a = original[i];
    const Instruction& b = tail[i];
    EXPECT_EQ(a.opcode, b.opcode);
    EXPECT_EQ(a.modifiers, b.modifiers);
    if (a.operands.size() != b.operands.size()) {
      ADD_FAILURE() << PrintInstruction(a) << " vs " << PrintInstruction(b);
      continue;
    }
    for (size_t j = 0; j < a.operands.size(); ++j) {
      const Operand& x = a.operands[j];
      const Operand& y = b.operands[j];
      if (x.kind == Kind::kRegister &&
          (x.name == "%ctaid" || x.name == "%nctaid")) {
        EXPECT_EQ(y.kind, Kind::kRegister);
        EXPECT_TRUE(y.component.empty());
        replaced[x.name + "." + x.component].insert(y.name);
      } else {
        EXPECT_EQ(PrintOperand(x), PrintOperand(y)) << PrintInstruction(a);
      }
    }
  }
  return replaced;
}

TEST(SliceForm, ComputesTheOriginalBlockIndexFromFirstPlusCtaidX) {
  const Module m = Read(Kernel(kGrid3d));
  Result<Function> form = MakeSliceForm(m, "k");
  ASSERT_TRUE(form.ok()) << form.status().ToString();
  const Function& f = *form;
  const Function& k = *Find(m, "k");
  EXPECT_EQ(f.name, "k__colo_slice");
  EXPECT_TRUE(f.is_entry);
  // ABI: the original's parameters, then first, gx, gy, gz (.u32).
  ASSERT_EQ(f.params.size(), k.params.size() + 4);
  EXPECT_EQ(f.params[0].name, k.params[0].name);
  for (size_t i = 1; i < 5; ++i) EXPECT_EQ(f.params[i].type, "u32");

  const std::vector<Instruction> orig = Instructions(k);
  const std::vector<Instruction> all = Instructions(f);
  ASSERT_GT(all.size(), orig.size());
  const size_t setup = all.size() - orig.size();
  const std::vector<Instruction> prefix(all.begin(), all.begin() + setup);
  const std::vector<Instruction> tail(all.begin() + setup, all.end());
  // The grid is read only by the set-up, once: %ctaid.x; %nctaid never.
  EXPECT_EQ(CountReads(orig, "%ctaid"), 3);
  EXPECT_EQ(CountReads(prefix, "%ctaid", "x"), 1);
  EXPECT_EQ(CountReads(all, "%ctaid"), 1);
  EXPECT_EQ(CountReads(all, "%nctaid"), 0);
  auto replaced = MatchBody(orig, tail);
  ASSERT_EQ(replaced.size(), 6u);

  // For a launch of the slice starting at `first` in grid (gx, gy, gz),
  // block X of the slice sees the original block L = first + X.
  struct Case {
    uint32_t first, x, gx, gy, gz;
  };
  const Case cases[] = {{0, 0, 1, 1, 1},        {0, 5, 7, 1, 1},
                        {3, 4, 3, 5, 2},        {29, 0, 3, 5, 2},
                        {100, 17, 13, 11, 7},   {0, 1000, 1, 1, 1001},
                        {70000, 1, 65535, 3, 2}};
  for (const Case& c : cases) {
    Evaluator e;
    e.params = {{f.params[1].name, c.first},
                {f.params[2].name, c.gx},
                {f.params[3].name, c.gy},
                {f.params[4].name, c.gz}};
    e.special = {{"%ctaid.x", c.x}};
    e.Run(prefix);
    const uint64_t l = uint64_t{c.first} + c.x;
    const std::map<std::string, uint64_t> want = {
        {"%ctaid.x", l % c.gx},
        {"%ctaid.y", (l / c.gx) % c.gy},
        {"%ctaid.z", l / (uint64_t{c.gx} * c.gy)},
        {"%nctaid.x", c.gx},
        {"%nctaid.y", c.gy},
        {"%nctaid.z", c.gz}};
    for (const auto& [special, value] : want) {
      for (const std::string& reg : replaced[special]) {
        ASSERT_TRUE(e.regs.count(reg)) << reg << " not set by the set-up";
        EXPECT_EQ(e.regs[reg], value) << special << " of L=" << l << " in grid "
                                      << c.gx << "x" << c.gy << "x" << c.gz;
      }
    }
  }
}

TEST(SliceForm, KeepsDeclarationsAndLabelsAndAddsOnlyPrefixedNames) {
  const Module m = Read(Kernel(kGrid3d));
  Result<Function> form = MakeSliceForm(m, "k");
  ASSERT_TRUE(form.ok());
  std::vector<std::string> labels;
  int decls_from_original = 0;
  for (const Statement& s : form->body) {
    if (const auto* l = std::get_if<Label>(&s)) labels.push_back(l->name);
    if (const auto* r = std::get_if<RegisterDecl>(&s)) {
      if (r->name.rfind("%__colo_", 0) == 0) {
        EXPECT_EQ(r->count, 0);
      } else {
        ++decls_from_original;
      }
    }
  }
  EXPECT_EQ(labels, std::vector<std::string>{"$L__BB0_2"});
  EXPECT_EQ(decls_from_original, 3);
  // The printed form reads back as the same function.
  Module with = m;
  with.items.emplace_back(std::in_place_type<Function>, *form);
  Module again = Read(PrintPtx(with));
  const Function* back = Find(again, "k__colo_slice");
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(Instructions(*back).size(), Instructions(*form).size());
}

// PTX allows a 16-bit mov of a special register, which reads its low
// half; from the form's .u32 register that is cvt.u16.u32 (a mov.u16 of a
// .u32 register is refused by ptxas).
TEST(SliceForm, SixteenBitReadOfCtaidBecomesCvt) {
  const Module m =
      Read(Kernel("\t.reg .b16 %rs<2>;\n"
                  "\tmov.u16 %rs1, %ctaid.y;\n"
                  "\tmov.b16 %rs1, %nctaid.z;\n"
                  "\tmov.u16 %rs1, %tid.x;\n"));
  for (auto make : {&MakeSliceForm, &MakePersistentForm}) {
    Result<Function> form = make(m, "k");
    ASSERT_TRUE(form.ok()) << form.status().ToString();
    std::vector<std::string> printed;
    for (const Instruction& in : Instructions(*form)) {
      printed.push_back(PrintInstruction(in));
    }
    auto has = [&](const std::string& s) {
      return std::find(printed.begin(), printed.end(), s) != printed.end();
    };
    EXPECT_TRUE(has("cvt.u16.u32 %rs1, %__colo_ctaid_y;"));
    EXPECT_TRUE(has("cvt.u16.u32 %rs1, %__colo_grid_z;"));
    EXPECT_TRUE(has("mov.u16 %rs1, %tid.x;"));  // not a grid read: kept
  }
}

// Early return, the spellings of barrier 0, a guarded barrier, exit, a
// warp barrier.
constexpr char kPersistentBody[] = R"(
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r2, %ctaid.y;
	setp.gt.u32 	%p1, %r1, 40;
	@%p1 ret;
	bar.sync 	0;
	setp.eq.u32 	%p2, %r1, 7;
	@%p2 exit;
	barrier.sync.aligned 	0;
	bar.warp.sync 	-1;
	barrier.sync 	0;
	setp.lt.u32 	%p3, %r2, 3;
	@!%p3 bar.cta.sync 	0;
	mov.u32 	%r3, %nctaid.x;
)";

bool IsBarrier(const Instruction& in) {
  return (in.opcode == "bar" || in.opcode == "barrier") &&
         in.modifiers[0] != "warp";
}

// The instructions a body barrier of the persistent form becomes: raise
// this phase's flag, meet barrier 0, then the phase step.
constexpr const char* kBarrierSequence[] = {
    "add.u32 %__colo_phase_addr, %__colo_running_base, %__colo_phase;",
    "st.shared.u32 [%__colo_phase_addr], 1;",
    "barrier.sync 0;",
    "add.u32 %__colo_phase_addr, %__colo_running_base, %__colo_phase_prev;",
    "@%__colo_leader st.shared.u32 [%__colo_phase_addr], 0;",
    "xor.b32 %__colo_phase_addr, %__colo_phase, %__colo_phase_prev;",
    "xor.b32 %__colo_phase_addr, %__colo_phase_addr, 12;",
    "mov.u32 %__colo_phase_prev, %__colo_phase;",
    "mov.u32 %__colo_phase, %__colo_phase_addr;",
};

TEST(PersistentForm, RetsBranchToTheBlockEndAndBarriersRaiseAFlag) {
  const Module m = Read(Kernel(kPersistentBody));
  Result<Function> form = MakePersistentForm(m, "k");
  ASSERT_TRUE(form.ok()) << form.status().ToString();
  const Function& f = *form;
  EXPECT_EQ(f.name, "k__colo_persistent");
  // ABI: the original's parameters, then control (.u64), gx, gy, gz.
  ASSERT_EQ(f.params.size(), 5u);
  EXPECT_EQ(f.params[1].type, "u64");
  for (size_t i = 2; i < 5; ++i) EXPECT_EQ(f.params[i].type, "u32");

  const std::vector<Instruction> orig = Instructions(*Find(m, "k"));
  std::vector<std::string> all;
  for (const Instruction& in : Instructions(f)) {
    all.push_back(PrintInstruction(in));
  }
  // The original body starts at its first instruction.
  size_t at = std::find(all.begin(), all.end(), PrintInstruction(orig[0])) -
              all.begin();
  ASSERT_LT(at, all.size());
  const size_t start = at;
  int barriers = 0;
  for (const Instruction& a : orig) {
    SCOPED_TRACE(PrintInstruction(a));
    ASSERT_LT(at, all.size());
    if (a.opcode == "ret" || a.opcode == "exit") {
      // The thread's block ends, under the same guard.
      std::string guard;
      if (a.guard) {
        guard = "@" + std::string(a.guard->negated ? "!" : "") +
                a.guard->predicate + " ";
      }
      EXPECT_EQ(all[at++], guard + "bra $__colo_block_end;");
    } else if (IsBarrier(a)) {
      ++barriers;
      if (a.guard) {  // skipped as a whole when the guard is false
        EXPECT_EQ(all[at++], "@" + std::string(a.guard->negated ? "" : "!") +
                                 a.guard->predicate + " bra $__colo_skip_0;");
      }
      for (const char* want : kBarrierSequence) EXPECT_EQ(all[at++], want);
    } else {
      // Unchanged but for %ctaid / %nctaid.
      Instruction b = a;
      for (Operand& op : b.operands) {
        if (op.name == "%ctaid" && op.component == "y") {
          op.name = "%__colo_ctaid_y", op.component.clear();
        }
        if (op.name == "%nctaid" && op.component == "x") {
          op.name = "%__colo_grid_x", op.component.clear();
        }
      }
      EXPECT_EQ(all[at++], PrintInstruction(b));
    }
  }
  EXPECT_EQ(barriers, 4);
  // No barrier of any other kind is left; the only ret is the worker's own.
  int syncs = 0;
  int rets = 0;
  for (const std::string& in : all) {
    EXPECT_EQ(in.find("barrier.red"), std::string::npos);
    EXPECT_EQ(in.find("bar.sync"), std::string::npos);
    EXPECT_EQ(in.find("aligned"), std::string::npos);
    syncs += in == "barrier.sync 0;";
    rets += in == "ret;" || in == "exit;";
  }
  EXPECT_EQ(syncs, barriers + 2);  // + loop head + block end
  EXPECT_EQ(rets, 1);
  EXPECT_EQ(CountReads(Instructions(f), "%ctaid"), 0);
  EXPECT_EQ(CountReads(Instructions(f), "%nctaid"), 0);

  // The block's end: meet barrier 0, read this phase's flag, step, and
  // wait again while some thread was still in the body; then loop.
  const std::vector<std::string> end(all.begin() + at, all.end());
  const std::vector<std::string> want_end = {
      "add.u32 %__colo_phase_addr, %__colo_running_base, %__colo_phase;",
      "barrier.sync 0;",
      "ld.shared.u32 %__colo_seen, [%__colo_phase_addr];",
      kBarrierSequence[3],
      kBarrierSequence[4],
      kBarrierSequence[5],
      kBarrierSequence[6],
      kBarrierSequence[7],
      kBarrierSequence[8],
      "setp.ne.u32 %__colo_still, %__colo_seen, 0;",
      "@%__colo_still bra $__colo_block_end;",
      "bra.uni $__colo_next;",
      "ret;"};
  EXPECT_EQ(end, want_end);
  ASSERT_TRUE(std::holds_alternative<Label>(f.body[f.body.size() - 2]));
  EXPECT_EQ(std::get<Label>(f.body[f.body.size() - 2]).name, "$__colo_done");

  // The loop head: the leader reads retreat (control + 4) volatile, takes
  // a block with atom.add on control + 0 and publishes it in the shared
  // slot; everyone meets a non-aligned barrier.sync 0.
  const std::vector<std::string> head(all.begin(), all.begin() + start);
  auto has = [&](const std::string& s) {
    return std::find(head.begin(), head.end(), s) != head.end();
  };
  EXPECT_TRUE(
      has("ld.volatile.global.u32 %__colo_linear, [%__colo_control+4];"));
  EXPECT_TRUE(
      has("@!%__colo_taken atom.global.add.u32 %__colo_linear, "
          "[%__colo_control], 1;"));
  EXPECT_TRUE(has("st.shared.u32 [__colo_block], %__colo_linear;"));
  EXPECT_TRUE(has("barrier.sync 0;"));
  EXPECT_TRUE(has("@%__colo_taken bra.uni $__colo_done;"));
  for (const char* clear :
       {"@%__colo_leader st.shared.u32 [__colo_running], 0;",
        "@%__colo_leader st.shared.u32 [__colo_running+4], 0;",
        "@%__colo_leader st.shared.u32 [__colo_running+8], 0;"}) {
    EXPECT_TRUE(has(clear)) << clear;
  }
  // The shared variables are the form's own.
  std::map<std::string, std::vector<int64_t>> shared;
  for (const Statement& s : f.body) {
    if (const auto* v = std::get_if<Variable>(&s)) {
      if (v->space == StateSpace::kShared && v->type == "u32") {
        shared[v->name] = v->dims;
      }
    }
  }
  EXPECT_EQ(shared, (std::map<std::string, std::vector<int64_t>>{
                        {"__colo_block", {}}, {"__colo_running", {3}}}));
}

TEST(PersistentForm, SetUpLeaderAndBlockIndex) {
  const Module m = Read(Kernel(kPersistentBody));
  Result<Function> form = MakePersistentForm(m, "k");
  ASSERT_TRUE(form.ok());
  const Function& f = *form;
  const std::vector<Instruction> ins = Instructions(f);
  const std::vector<Instruction> orig = Instructions(*Find(m, "k"));
  size_t start = 0;
  while (PrintInstruction(ins[start]) != PrintInstruction(orig[0])) ++start;
  const std::vector<Instruction> head(ins.begin(), ins.begin() + start);
  // Evaluated: leader iff tid == (0, 0, 0); n = gx * gy * gz; `taken`
  // (the worker ends) iff idx >= n; %ctaid of idx as in the sliced form;
  // phase 0: flag offset 0, the one before it 8.
  for (uint32_t idx : {0u, 4u, 29u, 30u, 0xffffffffu}) {
    for (uint32_t t : {0u, 1u}) {
      Evaluator e;
      e.params = {{f.params[1].name, 0x1000},
                  {f.params[2].name, 3},
                  {f.params[3].name, 5},
                  {f.params[4].name, 2}};
      e.shared = {{"__colo_block", idx}};
      e.special = {{"%tid.x", 0}, {"%tid.y", t}, {"%tid.z", 0}};
      e.Run(head);
      EXPECT_EQ(e.regs["%__colo_leader"], t == 0 ? 1u : 0u);
      EXPECT_EQ(e.regs["%__colo_total"], 30u);
      EXPECT_EQ(e.regs["%__colo_taken"], idx >= 30 ? 1u : 0u);
      EXPECT_EQ(e.regs["%__colo_phase"], 0u);
      EXPECT_EQ(e.regs["%__colo_phase_prev"], 8u);
      if (idx < 30) {
        EXPECT_EQ(e.regs["%__colo_ctaid_x"], idx % 3);
        EXPECT_EQ(e.regs["%__colo_ctaid_y"], (idx / 3) % 5);
        EXPECT_EQ(e.regs["%__colo_ctaid_z"], idx / 15);
      }
    }
  }
}

// The flags rotate: after barrier instance p (0, 1, 2 ...) the leader
// clears flag (p - 1) mod 3, i.e. byte offset 4 * ((p + 2) % 3), and the
// next instance raises flag (p + 1) mod 3; so an instance's flag is
// cleared only after everyone has passed the next instance (and read it),
// and is clear again before instance p + 3 raises it.
TEST(PersistentForm, FlagsRotateOverThreeSlots) {
  std::vector<Instruction> sequence;
  for (const char* text : kBarrierSequence) {
    const Module m = Read(Kernel(std::string("\t") + text + "\n"));
    sequence.push_back(Instructions(*Find(m, "k"))[0]);
  }
  Evaluator e;
  e.regs = {{"%__colo_phase", 0},
            {"%__colo_phase_prev", 8},
            {"%__colo_running_base", 0x100},
            {"%__colo_leader", 1}};
  for (uint32_t p = 0; p < 12; ++p) {
    EXPECT_EQ(e.regs["%__colo_phase"], 4 * (p % 3)) << p;
    EXPECT_EQ(e.regs["%__colo_phase_prev"], 4 * ((p + 2) % 3)) << p;
    // Raise at cur (before the barrier), clear at prev (after it).
    e.Run({sequence[0]});
    EXPECT_EQ(e.regs["%__colo_phase_addr"], 0x100 + 4 * (p % 3));
    e.Run({sequence[3]});
    EXPECT_EQ(e.regs["%__colo_phase_addr"], 0x100 + 4 * ((p + 2) % 3));
    e.Run({sequence[5], sequence[6], sequence[7], sequence[8]});
  }
}

// A kernel with thousands of registers and labels, whose own names also
// start with "__colo_" (a register, a parameter and a label): the forms'
// names take another prefix, so nothing they declare is a name of the
// original.
TEST(Names, NeverClashWithTheOriginal) {
  std::string text = std::string(kHeader) +
                     ".visible .entry k(\n\t.param .u32 __colo_first\n)\n{\n"
                     "\t.reg .pred %p<3>;\n\t.reg .b32 %r<4001>;\n"
                     "\t.reg .b32 %__colo_ctaid_x;\n\n"
                     "\tld.param.u32 %r0, [__colo_first];\n"
                     "\tmov.u32 %__colo_ctaid_x, %ctaid.x;\n";
  for (int i = 1; i <= 4000; ++i) {
    text += "\tadd.s32 %r" + std::to_string(i) + ", %r" +
            std::to_string(i - 1) + ", %__colo_ctaid_x;\n";
    if (i % 500 == 0) text += "$L__BB0_" + std::to_string(i) + ":\n";
  }
  text +=
      "$__colo_next:\n\tsetp.eq.s32 %p1, %r4000, 0;\n"
      "\t@%p1 bra $__colo_next;\n\tbar.sync 0;\n\tret;\n}\n";
  const Module m = Read(text);
  // Every name the original declares or mentions, ranges expanded.
  std::set<std::string> original;
  const Function& k = *Find(m, "k");
  for (const Param& p : k.params) original.insert(p.name);
  for (const Statement& s : k.body) {
    if (const auto* r = std::get_if<RegisterDecl>(&s)) {
      if (r->count == 0) original.insert(r->name);
      for (int i = 0; i < r->count; ++i) {
        original.insert(r->name + std::to_string(i));
      }
    } else if (const auto* l = std::get_if<Label>(&s)) {
      original.insert(l->name);
    }
  }
  for (auto make : {&MakeSliceForm, &MakePersistentForm}) {
    Result<Function> form = make(m, "k");
    ASSERT_TRUE(form.ok()) << form.status().ToString();
    std::set<std::string> added;
    for (size_t i = k.params.size(); i < form->params.size(); ++i) {
      EXPECT_TRUE(added.insert(form->params[i].name).second);
    }
    for (const Statement& s : form->body) {
      if (const auto* r = std::get_if<RegisterDecl>(&s)) {
        if (!original.count(r->name) && r->count == 0) {
          EXPECT_TRUE(added.insert(r->name).second) << r->name;
        }
      } else if (const auto* l = std::get_if<Label>(&s)) {
        if (!original.count(l->name)) {
          EXPECT_TRUE(added.insert(l->name).second) << l->name;
        }
      } else if (const auto* v = std::get_if<Variable>(&s)) {
        EXPECT_TRUE(added.insert(v->name).second) << v->name;
      }
    }
    ASSERT_FALSE(added.empty());
    for (const std::string& a : added) {
      EXPECT_EQ(original.count(a), 0u) << a << " clashes";
      // The forms' prefix is one the original does not use.
      EXPECT_NE(a.find("__colo1_"), std::string::npos) << a;
    }
    // The user's register keeps its reads, and is not the block index.
    const std::vector<Instruction> ins = Instructions(*form);
    EXPECT_EQ(CountReads(ins, "%__colo_ctaid_x"), 4001);
    EXPECT_EQ(CountReads(ins, "%ctaid"), make == &MakeSliceForm ? 1 : 0);
    Module with = m;
    with.items.emplace_back(std::in_place_type<Function>, *form);
    EXPECT_TRUE(ReadPtx(PrintPtx(with), "printed").ok());
  }
}

TEST(AddKernelForms, AddsEveryFormThatCanBeBuiltAndSaysWhyNot) {
  std::string text = Kernel(kGrid3d);
  // Two more kernels: one with barrier 1 (sliced only), one with a grid
  // sync (no form).
  for (const auto& [name, body] :
       {std::pair<std::string, std::string>{"named_barrier", "\tbar.sync 1;\n"},
        {"grid_sync", "\tmov.u32 %r1, %envreg1;\n"}}) {
    text += ".visible .entry " + name +
            "(\n\t.param .u64 p\n)\n{\n\t.reg .b32 %r<3>;\n" + body +
            "\tret;\n}\n";
  }
  const Module m = Read(text);
  std::vector<std::string> reasons;
  const Module out = AddKernelForms(m, &reasons);
  // k: 2 forms, named_barrier: 1, grid_sync: 0; after the originals.
  ASSERT_EQ(out.items.size(), m.items.size() + 3);
  std::vector<std::string> added;
  for (size_t i = m.items.size(); i < out.items.size(); ++i) {
    added.push_back(std::get<Function>(out.items[i]).name);
  }
  EXPECT_EQ(added,
            (std::vector<std::string>{"k__colo_slice", "k__colo_persistent",
                                      "named_barrier__colo_slice"}));
  ASSERT_EQ(reasons.size(), 2u);
  EXPECT_EQ(
      reasons[0].rfind("named_barrier: no persistent form: has bar.sync", 0),
      0u)
      << reasons[0];
  EXPECT_EQ(reasons[1].rfind(
                "grid_sync: no sliced or persistent form: reads %envreg1", 0),
            0u)
      << reasons[1];
  // The module with its forms prints and reads back with all of them.
  const Module again = Read(PrintPtx(out));
  for (const std::string& name : added) EXPECT_NE(Find(again, name), nullptr);
}

}  // namespace
}  // namespace colo::ptx
