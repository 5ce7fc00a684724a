// The NVTX side of iteration boundaries (nvtx_injection.h). The NVTX types
// below are NVTX v3's ABI (nvtx3/nvtxDetail/nvtxTypes.h, nvToolsExt.h),
// restated because the interposer includes no CUDA header; the nvcc-built
// nvtx_trainer (tests/cuda_programs) checks them against the real headers
// end to end. A callback never throws and never blocks on colod: it sends
// one message with the state lock let go.
#include "shim/nvtx_injection.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cwchar>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "ipc/runtime_client.h"
#include "ipc/wire.h"
#include "shim/shim_state.h"

namespace colo::shim {
namespace {

// nvtxTypes.h: export tables, callback modules and callback ids.
constexpr uint32_t kEtidCallbacks = 1;    // NVTX_ETID_CALLBACKS
constexpr uint32_t kEtidVersionInfo = 3;  // NVTX_ETID_VERSIONINFO
constexpr int kModuleCore = 1;            // NVTX_CB_MODULE_CORE
constexpr int kModuleCore2 = 5;           // NVTX_CB_MODULE_CORE2
// NVTX_CBID_CORE_*.
constexpr unsigned kCbidRangeStartEx = 4;
constexpr unsigned kCbidRangeStartA = 5;
constexpr unsigned kCbidRangeStartW = 6;
constexpr unsigned kCbidRangeEnd = 7;
constexpr unsigned kCbidRangePushEx = 8;
constexpr unsigned kCbidRangePushA = 9;
constexpr unsigned kCbidRangePushW = 10;
constexpr unsigned kCbidRangePop = 11;
// NVTX_CBID_CORE2_*.
constexpr unsigned kCbid2DomainRangeStartEx = 2;
constexpr unsigned kCbid2DomainRangeEnd = 3;
constexpr unsigned kCbid2DomainRangePushEx = 4;
constexpr unsigned kCbid2DomainRangePop = 5;
constexpr unsigned kCbid2DomainRegisterStringA = 10;
constexpr unsigned kCbid2DomainRegisterStringW = 11;
constexpr unsigned kCbid2DomainCreateA = 12;
constexpr unsigned kCbid2DomainCreateW = 13;
constexpr unsigned kCbid2DomainDestroy = 14;
constexpr uint32_t kNvtxVersion = 3;
// nvToolsExt.h: nvtxMessageType_t.
constexpr int32_t kMessageAscii = 1;
constexpr int32_t kMessageUnicode = 2;
constexpr int32_t kMessageRegistered = 3;

using FunctionPointer = void (*)();
using FunctionTable = FunctionPointer**;
struct ExportTableCallbacks {
  size_t struct_size;
  int (*GetModuleFunctionTable)(int module, FunctionTable* out_table,
                                unsigned int* out_size);
};
struct ExportTableVersionInfo {
  size_t struct_size;
  uint32_t version;
  uint32_t reserved0;
  void (*SetInjectionNvtxVersion)(uint32_t version);
};
// nvtxEventAttributes_v2.
struct EventAttributes {
  uint16_t version;
  uint16_t size;
  uint32_t category;
  int32_t color_type;
  uint32_t color;
  int32_t payload_type;
  int32_t reserved0;
  uint64_t payload;
  int32_t message_type;
  union {
    const char* ascii;
    const wchar_t* unicode;
    const void* registered;
  } message;
};
using GetExportTable = const void* (*)(uint32_t id);

// What this interposer hands out as nvtxDomainHandle_t and
// nvtxStringHandle_t (NVTX leaves their meaning to the injection). Interned
// by name and never freed: a handle stays valid for the process's life,
// also after nvtxDomainDestroy, since another thread may still use it.
struct Domain {
  std::string name;
};
struct RegisteredString {
  std::string text;
};
template <typename T>
class Interned {
 public:
  const T* Get(const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    std::unique_ptr<T>& slot = by_name_[name];
    if (!slot) slot.reset(new T{name});
    return slot.get();
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<T>> by_name_;  // protected by mu_
};
Interned<Domain>& Domains() {
  static auto* domains = new Interned<Domain>;
  return *domains;
}
Interned<RegisteredString>& Strings() {
  static auto* strings = new Interned<RegisteredString>;
  return *strings;
}
const std::string& DomainName(const Domain* d) {
  static const std::string* kDefault = new std::string;
  return d != nullptr ? d->name : *kDefault;
}

std::string Narrow(const wchar_t* w) {
  std::string out;
  for (; w != nullptr && *w != L'\0'; ++w)
    out.push_back(*w >= 0 && *w < 128 ? static_cast<char>(*w) : '?');
  return out;
}
std::string Text(const char* s) { return s != nullptr ? s : ""; }

// The name a range's attributes give it; "" when they give none (or give
// it in a form this interposer does not read).
std::string MessageOf(const EventAttributes* a) {
  if (a == nullptr ||
      a->size < offsetof(EventAttributes, message) + sizeof(a->message)) {
    return "";
  }
  switch (a->message_type) {
    case kMessageAscii:
      return Text(a->message.ascii);
    case kMessageUnicode:
      return Narrow(a->message.unicode);
    case kMessageRegistered:
      // Every registered handle in this process is this interposer's
      // (NVTX loads one injection), or null where registration failed.
      return a->message.registered != nullptr
                 ? static_cast<const RegisteredString*>(a->message.registered)
                       ->text
                 : "";
    default:
      return "";
  }
}

const IterationRangeRule& Rule() {
  static const auto* rule =
      new IterationRangeRule(IterationRangePattern(), IterationRangeDomain());
  return *rule;
}

// This thread's push/pop stack of domain `d` (nullptr: the default one).
// A deque: references stay valid as domains are added.
RangeCounter& ThreadStack(const Domain* d) {
  thread_local std::deque<std::pair<const Domain*, RangeCounter>> stacks;
  for (auto& [domain, counter] : stacks) {
    if (domain == d) return counter;
  }
  stacks.emplace_back(
      d, RangeCounter(Rule().name_glob(), Rule().DomainCounts(DomainName(d))));
  return stacks.back().second;
}

OpenRanges& Unnested() {
  static auto* open = new OpenRanges;
  return *open;
}

// Iterations ended in this process, and how many of them colod was told.
// Accessed with Interposer().mu held.
struct EndedMarks {
  uint64_t ended = 0;
  uint64_t told = 0;
};
EndedMarks& Marks() {
  static auto* marks = new EndedMarks;
  return *marks;
}

void Notify(ipc::RuntimeClient& client, ipc::IterationMarkKind kind,
            uint64_t ended, bool before_connection = false) {
  ipc::IterationMarkMsg m;
  m.kind = static_cast<uint32_t>(kind);
  m.before_connection = before_connection ? 1 : 0;
  m.ended = ended;
  // A broken socket fails the program's next call, which reports it.
  (void)client.Notify(ipc::MsgType::kIterationMark, &m, sizeof m);
}

// One counted range ended: tells colod if the program is connected; if not
// yet, DeclareIterationRanges tells it at the connection.
void IterationEnded() {
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  EndedMarks& marks = Marks();
  const uint64_t ended = ++marks.ended;
  if (!s.colod.client || s.colod.lost) return;
  marks.told = ended;
  ipc::RuntimeClient* client = s.colod.client.get();
  WithoutStateLock(
      s, [&] { Notify(*client, ipc::IterationMarkKind::kEnded, ended); });
}

int Push(const Domain* d, const std::string& name) {
  return ThreadStack(d).Push(name);
}
int Pop(const Domain* d) {
  RangeCounter& c = ThreadStack(d);
  if (c.depth() == 0) return -1;
  const int level = c.depth() - 1;
  if (c.Pop()) IterationEnded();
  return level;
}
uint64_t Start(const Domain* d, const std::string& name) {
  return Unnested().Start(Rule().DomainCounts(DomainName(d)) &&
                          Rule().NameMatches(name));
}
void End(uint64_t id) {
  if (Unnested().End(id)) IterationEnded();
}

// The callbacks, in the types of nvtxTypes.h's *_impl_fntype.
int RangePushA(const char* message) { return Push(nullptr, Text(message)); }
int RangePushW(const wchar_t* message) {
  return Push(nullptr, Narrow(message));
}
int RangePushEx(const EventAttributes* a) {
  return Push(nullptr, MessageOf(a));
}
int RangePop() { return Pop(nullptr); }
uint64_t RangeStartA(const char* message) {
  return Start(nullptr, Text(message));
}
uint64_t RangeStartW(const wchar_t* message) {
  return Start(nullptr, Narrow(message));
}
uint64_t RangeStartEx(const EventAttributes* a) {
  return Start(nullptr, MessageOf(a));
}
void RangeEnd(uint64_t id) { End(id); }
int DomainRangePushEx(const Domain* d, const EventAttributes* a) {
  return Push(d, MessageOf(a));
}
int DomainRangePop(const Domain* d) { return Pop(d); }
uint64_t DomainRangeStartEx(const Domain* d, const EventAttributes* a) {
  return Start(d, MessageOf(a));
}
void DomainRangeEnd(const Domain*, uint64_t id) { End(id); }
const RegisteredString* DomainRegisterStringA(const Domain*, const char* s) {
  return Strings().Get(Text(s));
}
const RegisteredString* DomainRegisterStringW(const Domain*, const wchar_t* s) {
  return Strings().Get(Narrow(s));
}
const Domain* DomainCreateA(const char* name) {
  return Domains().Get(Text(name));
}
const Domain* DomainCreateW(const wchar_t* name) {
  return Domains().Get(Narrow(name));
}
void DomainDestroy(const Domain*) {}

template <typename F>
void Set(FunctionTable table, unsigned id, F* f) {
  if (table[id] != nullptr) *table[id] = reinterpret_cast<FunctionPointer>(f);
}

// The module's table, if NVTX has one with slots up to `highest_id`.
FunctionTable TableOf(const ExportTableCallbacks& callbacks, int module,
                      unsigned highest_id) {
  FunctionTable table = nullptr;
  unsigned int size = 0;  // NVTX's *_SIZE: ids 0 .. size - 1
  if (callbacks.GetModuleFunctionTable(module, &table, &size) == 0 ||
      table == nullptr || size <= highest_id) {
    return nullptr;
  }
  return table;
}

}  // namespace

std::string IterationRangePattern() {
  const char* v = std::getenv("COLO_ITERATION_RANGE");
  return v != nullptr ? v : "";
}

std::string IterationRangeDomain() {
  const char* v = std::getenv("COLO_ITERATION_DOMAIN");
  return v != nullptr ? v : "";
}

void DeclareIterationRanges(ipc::RuntimeClient& client) {
  if (IterationRangePattern().empty()) return;
  Notify(client, ipc::IterationMarkKind::kRanged, 0);
  // Ranges that ended before this connection, in one mark: colod counts
  // them without timing them.
  EndedMarks& marks = Marks();
  if (marks.ended > marks.told) {
    Notify(client, ipc::IterationMarkKind::kEnded, marks.ended,
           /*before_connection=*/true);
  }
  marks.told = marks.ended;
}

}  // namespace colo::shim

// NVTX's entry point: fills the core module's range callbacks and the core2
// module's domain ones. 1 on success; 0 (NVTX then makes every call a
// no-op) without a pattern or when the core table is not NVTX v3's. Each
// copy of NVTX in the process (each library built with its headers) calls
// it with its own tables.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    colo::shim::GetExportTable get_export_table) {
  using namespace colo::shim;
  if (get_export_table == nullptr || IterationRangePattern().empty()) return 0;
  const auto* callbacks = static_cast<const ExportTableCallbacks*>(
      get_export_table(kEtidCallbacks));
  if (callbacks == nullptr ||
      callbacks->struct_size < sizeof(ExportTableCallbacks) ||
      callbacks->GetModuleFunctionTable == nullptr) {
    return 0;
  }
  FunctionTable core = TableOf(*callbacks, kModuleCore, kCbidRangePop);
  if (core == nullptr) return 0;
  Set(core, kCbidRangeStartEx, &RangeStartEx);
  Set(core, kCbidRangeStartA, &RangeStartA);
  Set(core, kCbidRangeStartW, &RangeStartW);
  Set(core, kCbidRangeEnd, &RangeEnd);
  Set(core, kCbidRangePushEx, &RangePushEx);
  Set(core, kCbidRangePushA, &RangePushA);
  Set(core, kCbidRangePushW, &RangePushW);
  Set(core, kCbidRangePop, &RangePop);
  // Domains are all or nothing: handles from DomainCreate are what the
  // other domain callbacks read.
  if (FunctionTable core2 =
          TableOf(*callbacks, kModuleCore2, kCbid2DomainDestroy)) {
    Set(core2, kCbid2DomainRangeStartEx, &DomainRangeStartEx);
    Set(core2, kCbid2DomainRangeEnd, &DomainRangeEnd);
    Set(core2, kCbid2DomainRangePushEx, &DomainRangePushEx);
    Set(core2, kCbid2DomainRangePop, &DomainRangePop);
    Set(core2, kCbid2DomainRegisterStringA, &DomainRegisterStringA);
    Set(core2, kCbid2DomainRegisterStringW, &DomainRegisterStringW);
    Set(core2, kCbid2DomainCreateA, &DomainCreateA);
    Set(core2, kCbid2DomainCreateW, &DomainCreateW);
    Set(core2, kCbid2DomainDestroy, &DomainDestroy);
  }
  if (const auto* v = static_cast<const ExportTableVersionInfo*>(
          get_export_table(kEtidVersionInfo));
      v != nullptr && v->struct_size >= sizeof(ExportTableVersionInfo) &&
      v->SetInjectionNvtxVersion != nullptr) {
    v->SetInjectionNvtxVersion(kNvtxVersion);
  }
  return 1;
}
