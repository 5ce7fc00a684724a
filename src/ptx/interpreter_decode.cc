// Decodes a kernel and the functions it calls for the interpreter: names to
// slots, offsets and addresses, labels to instruction indices, then each
// instruction through DecodeInstruction (interpreter_opcodes.cc). Names are
// scoped as PTX scopes them: a register or .param declared inside braces
// (nvcc's call sequences declare "param0" in each) is a new one there and
// is gone after the closing brace.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ptx/interpreter_opcodes.h"
#include "ptx/interpreter_program.h"

namespace colo::ptx::interp {
namespace {

uint32_t AlignUp(uint32_t value, uint32_t align) {
  return align <= 1 ? value : (value + align - 1) / align * align;
}

// Bytes of one element of a declared type (".b8" -> 1, ".f64" -> 8).
uint32_t ElementBytes(std::string_view type) {
  Type t = ParseType(type);
  if (t.kind == Kind::kPred || t.kind == Kind::kNone) return 0;
  return t.bytes();
}

// What a name in a function stands for.
struct Binding {
  enum class What : uint8_t {
    kRegister,     // index: slot; bits: width
    kLocal,        // value: offset in the frame's local area
    kParam,        // value: offset in the frame's .param area
    kArg,          // index: the function's parameter (returns first)
    kKernelParam,  // value: offset in the kernel's parameter buffer
    kShared,       // value: offset in the block's shared memory
    kDevice,       // value: DeviceMemory address; space: global or const
  };
  What what = What::kRegister;
  uint8_t bits = 64;
  Space space = Space::kGeneric;
  uint32_t index = 0;
  uint64_t value = 0;
};

class ProgramDecoder;

class FunctionDecoder : public OperandDecoder {
 public:
  FunctionDecoder(ProgramDecoder& program, const Function& function,
                  bool is_kernel, DecodedFunction& out)
      : program_(program),
        function_(function),
        is_kernel_(is_kernel),
        out_(out) {}

  Status Decode();

  Result<Value> Source(const Operand& operand, Type type) override;
  Result<Value> Destination(const Operand& operand) override;
  Result<Address> Memory(const Operand& operand, Space space) override;
  Result<uint32_t> Label(const Operand& operand) override;
  Status Call(const Instruction& instruction, DecodedInstruction& out) override;

 private:
  Status IndirectCall(const Instruction& instruction, DecodedInstruction& out);
  Status CallArguments(const std::vector<const Operand*>& results,
                       const std::vector<const Operand*>& arguments,
                       DecodedInstruction& out);
  void Bind(const std::string& name, Binding binding);
  const Binding* Lookup(std::string_view name) const;
  Status DeclareParams();
  Status Declare(const RegisterDecl& decl);
  Status Declare(const Variable& variable);
  Result<Value> SymbolValue(std::string_view name, Space* space);

  ProgramDecoder& program_;
  const Function& function_;
  bool is_kernel_;
  DecodedFunction& out_;
  std::unordered_map<std::string, Binding> names_;
  // Per open scope: the names it declared and what they shadowed.
  std::vector<std::vector<std::pair<std::string, std::optional<Binding>>>>
      scopes_;
  std::unordered_map<std::string, uint32_t> labels_;
};

class ProgramDecoder {
 public:
  ProgramDecoder(const Module& module, const SymbolAddresses& symbols)
      : module_(module), symbols_(symbols) {}

  Result<DecodedProgram> Run(std::string_view kernel);

  // The index of function `name` in the program, queued for decoding.
  Result<uint32_t> FunctionIndex(std::string_view name);
  const Function* FindFunction(std::string_view name) const {
    auto it = functions_by_name_.find(std::string(name));
    return it == functions_by_name_.end() ? nullptr : it->second;
  }
  // Where function `name` stands (FunctionAddresses), or 0 if it is none.
  uint64_t AddressOf(std::string_view name) const {
    auto it = addresses_.find(name);
    return it == addresses_.end() ? 0 : it->second;
  }
  // Queues every address-taken function that is not a kernel (once).
  Status QueueAddressTaken();
  // A module-scope variable's binding, or nullptr.
  const Binding* ModuleSymbol(std::string_view name) const {
    auto it = module_symbols_.find(std::string(name));
    return it == module_symbols_.end() ? nullptr : &it->second;
  }

 private:
  Status LayOutShared(const Function& kernel);
  Status ReadDirectives(const Function& kernel);

  const Module& module_;
  const SymbolAddresses& symbols_;
  DecodedProgram program_;
  std::unordered_map<std::string, const Function*> functions_by_name_;
  std::unordered_map<std::string, Binding> module_symbols_;
  std::unordered_map<std::string, uint32_t> function_index_;
  std::vector<const Function*> queue_;
  std::map<std::string, uint64_t, std::less<>> addresses_;
  bool queued_address_taken_ = false;
};

void FunctionDecoder::Bind(const std::string& name, Binding binding) {
  auto it = names_.find(name);
  std::optional<Binding> previous;
  if (it != names_.end()) previous = it->second;
  if (!scopes_.empty()) scopes_.back().emplace_back(name, previous);
  names_[name] = binding;
}

const Binding* FunctionDecoder::Lookup(std::string_view name) const {
  auto it = names_.find(std::string(name));
  if (it != names_.end()) return &it->second;
  return program_.ModuleSymbol(name);
}

Status FunctionDecoder::DeclareParams() {
  if (is_kernel_) {
    uint32_t offset = 0;
    for (const Param& p : function_.params) {
      uint32_t element = ElementBytes(p.type);
      if (element == 0) {
        return InvalidArgumentError("parameter " + p.name + " has type ." +
                                    p.type + ", not implemented");
      }
      uint32_t bytes =
          element * static_cast<uint32_t>(std::max<int64_t>(1, p.array_size));
      offset = AlignUp(offset, p.align > 0 ? p.align : element);
      out_.param_offsets.push_back(offset);
      out_.arg_bytes.push_back(bytes);
      Binding b{Binding::What::kKernelParam, 64, Space::kParam, 0, offset};
      Bind(p.name, b);
      offset += bytes;
    }
    out_.param_buffer_bytes = offset;
    return OkStatus();
  }
  uint32_t index = 0;
  for (const auto* list : {&function_.return_params, &function_.params}) {
    for (const Param& p : *list) {
      uint32_t element = ElementBytes(p.type);
      if (element == 0) {
        return InvalidArgumentError("parameter " + p.name + " has type ." +
                                    p.type + ", not implemented");
      }
      out_.arg_bytes.push_back(
          element * static_cast<uint32_t>(std::max<int64_t>(1, p.array_size)));
      Bind(p.name, Binding{Binding::What::kArg, 64, Space::kParam, index++, 0});
    }
  }
  out_.return_count = static_cast<uint32_t>(function_.return_params.size());
  return OkStatus();
}

Status FunctionDecoder::Declare(const RegisterDecl& decl) {
  Type t = ParseType(decl.type);
  if (t.kind == Kind::kNone || t.kind == Kind::kBf) {
    return InvalidArgumentError("register type ." + decl.type +
                                " not implemented");
  }
  auto add = [&](const std::string& name) {
    Bind(name, Binding{Binding::What::kRegister, t.bits, Space::kGeneric,
                       out_.register_count++, 0});
  };
  if (decl.count == 0) {
    add(decl.name);
  } else {
    for (int i = 0; i < decl.count; ++i) add(decl.name + std::to_string(i));
  }
  return OkStatus();
}

Status FunctionDecoder::Declare(const Variable& v) {
  if (v.space == StateSpace::kShared) {
    // Laid out with the module's shared variables (LayOutShared); the names
    // nvcc gives them are unique in the module.
    return OkStatus();
  }
  uint32_t element = ElementBytes(v.type);
  uint64_t count = 1;
  for (int64_t d : v.dims) {
    if (d < 0)
      return InvalidArgumentError("unsized variable " + v.name +
                                  " in a function");
    count *= static_cast<uint64_t>(d);
  }
  if (element == 0 || count * element > (1u << 30)) {
    return InvalidArgumentError("variable " + v.name + " of type ." + v.type +
                                " not implemented");
  }
  uint32_t bytes = static_cast<uint32_t>(count * element);
  uint32_t align = v.align > 0 ? static_cast<uint32_t>(v.align) : element;
  if (v.space == StateSpace::kLocal) {
    out_.local_bytes = AlignUp(out_.local_bytes, align);
    Bind(v.name, Binding{Binding::What::kLocal, 64, Space::kLocal, 0,
                         out_.local_bytes});
    out_.local_bytes += bytes;
    return OkStatus();
  }
  if (v.space == StateSpace::kParam) {
    out_.param_bytes = AlignUp(out_.param_bytes, std::max<uint32_t>(align, 8));
    Bind(v.name, Binding{Binding::What::kParam, 64, Space::kParam, 0,
                         out_.param_bytes});
    out_.param_bytes += bytes;
    return OkStatus();
  }
  return InvalidArgumentError(
      "a function-scope variable in this state space (" + v.name +
      ") not implemented");
}

Status FunctionDecoder::Decode() {
  out_.source = &function_;
  COLO_RETURN_IF_ERROR(DeclareParams());
  uint32_t count = 0;
  for (const Statement& s : function_.body) {
    if (const auto* label = std::get_if<ptx::Label>(&s)) {
      if (!labels_.emplace(label->name, count).second) {
        return InvalidArgumentError(function_.name + ": line " +
                                    std::to_string(label->line) + ": label " +
                                    label->name + " defined twice");
      }
    } else if (std::holds_alternative<Instruction>(s)) {
      ++count;
    }
  }
  out_.code.reserve(count);
  for (const Statement& s : function_.body) {
    if (std::holds_alternative<ScopeOpen>(s)) {
      scopes_.emplace_back();
    } else if (std::holds_alternative<ScopeClose>(s)) {
      if (scopes_.empty()) continue;
      auto& undo = scopes_.back();
      for (auto it = undo.rbegin(); it != undo.rend(); ++it) {
        if (it->second) {
          names_[it->first] = *it->second;
        } else {
          names_.erase(it->first);
        }
      }
      scopes_.pop_back();
    } else if (const auto* decl = std::get_if<RegisterDecl>(&s)) {
      Status st = Declare(*decl);
      if (!st.ok()) {
        return InvalidArgumentError(function_.name + ": line " +
                                    std::to_string(decl->line) + ": " +
                                    st.message());
      }
    } else if (const auto* var = std::get_if<Variable>(&s)) {
      Status st = Declare(*var);
      if (!st.ok()) {
        return InvalidArgumentError(function_.name + ": line " +
                                    std::to_string(var->line) + ": " +
                                    st.message());
      }
    } else if (const auto* in = std::get_if<Instruction>(&s)) {
      DecodedInstruction d;
      Status st = DecodeInstruction(*in, *this, d);
      if (st.ok() && in->guard) {
        const Binding* g = Lookup(in->guard->predicate);
        if (g == nullptr || g->what != Binding::What::kRegister ||
            g->bits != 1) {
          st = InvalidArgumentError("guard " + in->guard->predicate +
                                    " is not a declared predicate");
        } else {
          d.has_guard = true;
          d.guard_negated = in->guard->negated;
          d.guard_slot = g->index;
        }
      }
      if (!st.ok()) return InstructionError(function_.name, *in, st.message());
      out_.code.push_back(std::move(d));
    }
  }
  // Falling off the end (or branching to a label after the last
  // instruction) returns, as ptxas treats a body without a final ret; the
  // ret keeps every pc inside the code.
  DecodedInstruction ret;
  ret.op = Op::kRet;
  static const Instruction kImplicitRet{std::nullopt, "ret", {}, {}, 0};
  ret.source = &kImplicitRet;
  out_.code.push_back(ret);
  return OkStatus();
}

Result<Value> FunctionDecoder::SymbolValue(std::string_view name,
                                           Space* space) {
  const Binding* b = Lookup(name);
  Value v;
  if (b == nullptr && program_.AddressOf(name) != 0) {
    // A function's address (`mov.u64 %rd, f;`): f may be called through it.
    const Function* f = program_.FindFunction(name);
    if (f != nullptr && !f->is_entry) {
      COLO_RETURN_IF_ERROR(program_.FunctionIndex(name).status());
    }
    v.from = Value::From::kImm;
    v.imm = program_.AddressOf(name);
    return v;
  }
  if (b == nullptr)
    return InvalidArgumentError("unknown name " + std::string(name));
  if (space) *space = b->space;
  switch (b->what) {
    case Binding::What::kRegister:
      v.from = Value::From::kReg;
      v.index = b->index;
      v.reg_bits = b->bits;
      break;
    case Binding::What::kLocal:
      v.from = Value::From::kLocal;
      v.imm = b->value;
      break;
    case Binding::What::kParam:
      v.from = Value::From::kParam;
      v.imm = b->value;
      break;
    case Binding::What::kArg:
      v.from = Value::From::kArg;
      v.index = b->index;
      break;
    case Binding::What::kKernelParam:
    case Binding::What::kShared:
    case Binding::What::kDevice:
      v.from = Value::From::kImm;
      v.imm = b->value;
      break;
  }
  return v;
}

Result<Value> FunctionDecoder::Source(const Operand& o, Type type) {
  switch (o.kind) {
    case Operand::Kind::kRegister: {
      if (std::optional<Special> special = FindSpecial(o.name, o.component)) {
        Value v;
        v.from = Value::From::kSpecial;
        v.special = *special;
        return v;
      }
      if (o.name.starts_with("%") && !o.component.empty()) {
        return InvalidArgumentError("register " + o.name + "." + o.component +
                                    " not implemented");
      }
      [[fallthrough]];
    }
    case Operand::Kind::kSymbol: {
      Result<Value> v = SymbolValue(o.name, nullptr);
      if (!v.ok()) {
        if (o.name.starts_with("%")) {
          return InvalidArgumentError(
              "register " + o.name +
              " is neither declared nor a special register "
              "this interpreter implements");
        }
        return v.status();
      }
      v->negated = o.negated;
      return v;
    }
    case Operand::Kind::kInteger: {
      Value v;
      v.from = Value::From::kImm;
      v.imm = static_cast<uint64_t>(o.int_value);
      return v;
    }
    case Operand::Kind::kFloat: {
      Value v;
      v.from = Value::From::kImm;
      v.imm = o.float_bits;
      if (type.kind == Kind::kF && type.bits == 32 && o.is_double) {
        double d;
        std::memcpy(&d, &o.float_bits, 8);
        float f = static_cast<float>(d);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        v.imm = bits;
      } else if (type.kind == Kind::kF && type.bits == 64 && !o.is_double) {
        uint32_t bits = static_cast<uint32_t>(o.float_bits);
        float f;
        std::memcpy(&f, &bits, 4);
        double d = f;
        std::memcpy(&v.imm, &d, 8);
      }
      return v;
    }
    default:
      return InvalidArgumentError("this operand cannot be a source here");
  }
}

Result<Value> FunctionDecoder::Destination(const Operand& o) {
  if ((o.kind == Operand::Kind::kSymbol ||
       o.kind == Operand::Kind::kRegister) &&
      o.name == "_") {
    Value v;
    v.from = Value::From::kSink;
    return v;
  }
  if (o.kind != Operand::Kind::kRegister && o.kind != Operand::Kind::kSymbol) {
    return InvalidArgumentError("a destination must be a register");
  }
  const Binding* b = Lookup(o.name);
  if (b == nullptr || b->what != Binding::What::kRegister) {
    return InvalidArgumentError(o.name + " is not a declared register");
  }
  Value v;
  v.from = Value::From::kReg;
  v.index = b->index;
  v.reg_bits = b->bits;
  return v;
}

Result<Address> FunctionDecoder::Memory(const Operand& o, Space space) {
  if (o.kind != Operand::Kind::kAddress) {
    return InvalidArgumentError("a memory operand must be [address]");
  }
  Address a;
  a.offset = o.int_value;
  a.space = space;
  if (o.name.empty()) {
    a.base.from = Value::From::kImm;
    return a;
  }
  Space symbol_space = Space::kGeneric;
  COLO_ASSIGN_OR_RETURN(a.base, SymbolValue(o.name, &symbol_space));
  if (a.base.from == Value::From::kReg) {
    if (a.base.reg_bits < 32)
      return InvalidArgumentError("an address register must be 32 or 64 bits");
  } else if (space == Space::kGeneric) {
    a.space = symbol_space;  // a variable named in a generic access
  } else if (symbol_space != space &&
             !(symbol_space == Space::kGlobal && space == Space::kConst) &&
             !(symbol_space == Space::kConst && space == Space::kGlobal)) {
    return InvalidArgumentError(o.name +
                                " is not in the instruction's state space");
  }
  return a;
}

Result<uint32_t> FunctionDecoder::Label(const Operand& o) {
  auto it = labels_.find(o.name);
  if (it == labels_.end())
    return InvalidArgumentError("unknown label " + o.name);
  return it->second;
}

Status FunctionDecoder::Call(const Instruction& in, DecodedInstruction& out) {
  // call (ret, ...), callee, (arg, ...): the callee is the operand naming a
  // function; lists may come as vectors or as plain names.
  std::vector<const Operand*> before, after;
  const Function* callee = nullptr;
  for (const Operand& o : in.operands) {
    auto add = [&](const Operand& e) {
      (callee ? after : before).push_back(&e);
    };
    if (callee == nullptr && o.kind == Operand::Kind::kSymbol &&
        program_.FindFunction(o.name) != nullptr) {
      callee = program_.FindFunction(o.name);
      continue;
    }
    if (o.kind == Operand::Kind::kVector) {
      for (const Operand& e : o.elements) add(e);
    } else {
      add(o);
    }
  }
  if (callee == nullptr) return IndirectCall(in, out);
  if (before.size() != callee->return_params.size() ||
      after.size() != callee->params.size()) {
    return InvalidArgumentError(
        "call of " + callee->name + " with " + std::to_string(before.size()) +
        " results and " + std::to_string(after.size()) + " arguments for its " +
        std::to_string(callee->return_params.size()) + " and " +
        std::to_string(callee->params.size()));
  }
  COLO_ASSIGN_OR_RETURN(out.target, program_.FunctionIndex(callee->name));
  return CallArguments(before, after, out);
}

Status FunctionDecoder::CallArguments(
    const std::vector<const Operand*>& results,
    const std::vector<const Operand*>& arguments, DecodedInstruction& out) {
  for (auto* list : {&results, &arguments}) {
    for (const Operand* o : *list) {
      const Binding* b = Lookup(o->name);
      if (b == nullptr || b->what != Binding::What::kParam) {
        return InvalidArgumentError(
            "call argument " + o->name +
            " is not a .param variable (not implemented)");
      }
      Value v;
      v.from = Value::From::kParam;
      v.imm = b->value;
      (list == &results ? out.dst : out.src).push_back(v);
    }
  }
  return OkStatus();
}

Status FunctionDecoder::IndirectCall(const Instruction& in,
                                     DecodedInstruction& out) {
  // call (ret)?, %rd, (args)?, prototype: the lists are the vectors
  // around the register; which function it calls, and whether its
  // parameters match the lists, is known when it runs.
  bool indirect = false;
  const Operand* target = CallTarget(in, &indirect);
  if (target == nullptr || !indirect) {
    return InvalidArgumentError(
        "call of something that is neither a function of this module nor a "
        "register holding one");
  }
  std::vector<const Operand*> results, arguments;
  bool after = false;
  for (const Operand& o : in.operands) {
    if (&o == target) {
      after = true;
    } else if (o.kind == Operand::Kind::kVector) {
      for (const Operand& e : o.elements)
        (after ? arguments : results).push_back(&e);
    }
  }
  out.indirect = true;
  COLO_ASSIGN_OR_RETURN(out.callee, Source(*target, Type{Kind::kU, 64}));
  COLO_RETURN_IF_ERROR(program_.QueueAddressTaken());
  return CallArguments(results, arguments, out);
}

Result<uint32_t> ProgramDecoder::FunctionIndex(std::string_view name) {
  auto it = function_index_.find(std::string(name));
  if (it != function_index_.end()) return it->second;
  const Function* f = FindFunction(name);
  if (f == nullptr) {
    return InvalidArgumentError("function " + std::string(name) +
                                " is not in this module");
  }
  if (f->is_entry)
    return InvalidArgumentError("call of the kernel " + std::string(name));
  uint32_t index = static_cast<uint32_t>(queue_.size());
  queue_.push_back(f);
  function_index_.emplace(name, index);
  program_.function_at[AddressOf(name)] = index;
  return index;
}

Status ProgramDecoder::QueueAddressTaken() {
  if (queued_address_taken_) return OkStatus();
  queued_address_taken_ = true;
  for (const std::string& name : AddressTakenFunctions(module_)) {
    const Function* f = FindFunction(name);
    if (f != nullptr && !f->is_entry) {
      COLO_RETURN_IF_ERROR(FunctionIndex(name).status());
    }
  }
  return OkStatus();
}

// The names an operand mentions (registers, variables, functions).
void CollectNames(const Operand& o, std::set<std::string>& names) {
  if (!o.name.empty()) names.insert(o.name);
  for (const Operand& e : o.elements) CollectNames(e, names);
  for (const Operand& e : o.pair) CollectNames(e, names);
}

Status ProgramDecoder::LayOutShared(const Function& kernel) {
  // The kernel and what it may call, transitively, and the names they use:
  // only the shared variables those name take room in its blocks.
  std::set<std::string> names;
  std::vector<const Function*> todo = {&kernel};
  std::set<const Function*> seen = {&kernel};
  std::vector<const Variable*> shared;
  for (const TopLevel& item : module_.items) {
    const auto* v = std::get_if<Variable>(&item);
    if (v != nullptr && v->space == StateSpace::kShared) shared.push_back(v);
  }
  while (!todo.empty()) {
    const Function* f = todo.back();
    todo.pop_back();
    for (const Statement& s : f->body) {
      const auto* var = std::get_if<Variable>(&s);
      if (var != nullptr && var->space == StateSpace::kShared) {
        shared.push_back(var);  // nvcc declares __shared__ arrays in the body
      }
      const auto* in = std::get_if<Instruction>(&s);
      if (in == nullptr) continue;
      // A function named anywhere may run: called directly, or through
      // its address; an indirect call may reach any address-taken one.
      std::set<std::string> used;
      for (const Operand& o : in->operands) CollectNames(o, used);
      bool indirect = false;
      if (in->opcode == "call" && CallTarget(*in, &indirect) && indirect) {
        const std::set<std::string> taken = AddressTakenFunctions(module_);
        used.insert(taken.begin(), taken.end());
      }
      for (const std::string& n : used) {
        const Function* callee = FindFunction(n);
        if (callee != nullptr && !callee->is_entry &&
            seen.insert(callee).second)
          todo.push_back(callee);
      }
      names.insert(used.begin(), used.end());
    }
  }
  uint32_t offset = 0;
  uint32_t dynamic_align = 16;
  std::vector<const Variable*> dynamic;
  for (const Variable* v : shared) {
    if (!names.count(v->name)) continue;
    uint32_t element = ElementBytes(v->type);
    if (element == 0) {
      return InvalidArgumentError("line " + std::to_string(v->line) +
                                  ": shared variable " + v->name +
                                  " of type ." + v->type + " not implemented");
    }
    uint32_t align = v->align > 0 ? static_cast<uint32_t>(v->align) : element;
    bool unsized =
        std::find(v->dims.begin(), v->dims.end(), -1) != v->dims.end();
    if (unsized || v->linkage == "extern") {
      dynamic.push_back(v);
      dynamic_align = std::max(dynamic_align, align);
      continue;
    }
    uint64_t bytes = element;
    for (int64_t d : v->dims) bytes *= static_cast<uint64_t>(d);
    if (bytes > (1u << 24)) {
      return InvalidArgumentError("shared variable " + v->name +
                                  " is too large");
    }
    offset = AlignUp(offset, align);
    module_symbols_[v->name] =
        Binding{Binding::What::kShared, 64, Space::kShared, 0, offset};
    offset += static_cast<uint32_t>(bytes);
  }
  program_.static_shared_bytes = offset;
  program_.dynamic_shared_offset = AlignUp(offset, dynamic_align);
  for (const Variable* v : dynamic) {
    module_symbols_[v->name] =
        Binding{Binding::What::kShared, 64, Space::kShared, 0,
                program_.dynamic_shared_offset};
  }
  return OkStatus();
}

Status ProgramDecoder::ReadDirectives(const Function& kernel) {
  for (const std::string& d : kernel.directives) {
    std::vector<uint32_t> numbers;
    uint64_t n = 0;
    bool in_number = false;
    for (char c : d + " ") {
      if (c >= '0' && c <= '9') {
        n = n * 10 + static_cast<uint64_t>(c - '0');
        in_number = true;
        if (n > (1u << 30))
          return InvalidArgumentError("directive " + d + " out of range");
      } else if (in_number) {
        numbers.push_back(static_cast<uint32_t>(n));
        n = 0;
        in_number = false;
      }
    }
    if (d.starts_with(".maxntid") && !numbers.empty()) {
      uint64_t product = 1;
      for (uint32_t x : numbers) product *= x;
      program_.max_threads =
          static_cast<uint32_t>(std::min<uint64_t>(product, 1u << 30));
    } else if (d.starts_with(".reqntid") && !numbers.empty()) {
      for (size_t i = 0; i < 3; ++i) {
        program_.required_block[i] = i < numbers.size() ? numbers[i] : 1;
      }
    }
  }
  return OkStatus();
}

Result<DecodedProgram> ProgramDecoder::Run(std::string_view kernel_name) {
  addresses_ = FunctionAddresses(module_);
  for (const TopLevel& item : module_.items) {
    if (const auto* f = std::get_if<Function>(&item)) {
      auto it = functions_by_name_.find(f->name);
      if (it == functions_by_name_.end() ||
          (!it->second->has_body && f->has_body)) {
        functions_by_name_[f->name] = f;
      }
    } else if (const auto* v = std::get_if<Variable>(&item)) {
      if (v->space != StateSpace::kGlobal && v->space != StateSpace::kConst)
        continue;
      auto it = symbols_.device.find(v->name);
      if (it == symbols_.device.end()) continue;
      module_symbols_[v->name] = Binding{
          Binding::What::kDevice, 64,
          v->space == StateSpace::kConst ? Space::kConst : Space::kGlobal, 0,
          it->second};
    }
  }
  const Function* kernel = FindFunction(kernel_name);
  if (kernel == nullptr || !kernel->is_entry || !kernel->has_body) {
    return InvalidArgumentError("no kernel named " + std::string(kernel_name));
  }
  COLO_RETURN_IF_ERROR(LayOutShared(*kernel));
  COLO_RETURN_IF_ERROR(ReadDirectives(*kernel));
  queue_.push_back(kernel);
  function_index_.emplace(kernel->name, 0);
  for (size_t i = 0; i < queue_.size(); ++i) {
    DecodedFunction f;
    if (queue_[i]->has_body) {
      FunctionDecoder decoder(*this, *queue_[i], i == 0, f);
      COLO_RETURN_IF_ERROR(decoder.Decode());
    } else {
      // An extern declaration (vprintf, __assertfail): a call to it is an
      // error when it runs, so kernels that only may reach one still run.
      f.source = queue_[i];
    }
    program_.functions.push_back(std::move(f));
  }
  return std::move(program_);
}

}  // namespace

Result<DecodedProgram> DecodeProgram(const Module& module,
                                     std::string_view kernel,
                                     const SymbolAddresses& symbols) {
  ProgramDecoder decoder(module, symbols);
  return decoder.Run(kernel);
}

}  // namespace colo::ptx::interp

namespace colo::ptx {

Result<std::vector<uint64_t>> KernelParamBytes(const Module& module,
                                               std::string_view name) {
  for (const TopLevel& item : module.items) {
    const auto* f = std::get_if<Function>(&item);
    if (f == nullptr || !f->is_entry || f->name != name) continue;
    std::vector<uint64_t> bytes;
    for (const Param& p : f->params) {
      const uint32_t element = interp::ElementBytes(p.type);
      if (element == 0) {
        return InvalidArgumentError(std::string(name) + ": parameter " +
                                    p.name + " has type ." + p.type +
                                    ", not implemented");
      }
      bytes.push_back(
          uint64_t{element} *
          static_cast<uint64_t>(std::max<int64_t>(1, p.array_size)));
    }
    return bytes;
  }
  return InvalidArgumentError("no kernel named " + std::string(name));
}

}  // namespace colo::ptx
