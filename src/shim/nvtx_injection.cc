// The NVTX side of iteration boundaries (nvtx_injection.h). The NVTX types
// below are NVTX v3's ABI (nvtx3/nvtxDetail/nvtxTypes.h, nvToolsExt.h),
// restated because the interposer includes no CUDA header; the nvcc-built
// nvtx_trainer (tests/cuda_programs) checks them against the real headers
// end to end. A callback never throws and never blocks on colod: it sends
// one message with the state lock let go.
#include "shim/nvtx_injection.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cwchar>
#include <memory>

#include "ipc/runtime_client.h"
#include "ipc/wire.h"
#include "shim/shim_state.h"

namespace colo::shim {
namespace {

// nvtxTypes.h: export tables, callback modules and core callback ids.
constexpr uint32_t kEtidCallbacks = 1;    // NVTX_ETID_CALLBACKS
constexpr uint32_t kEtidVersionInfo = 3;  // NVTX_ETID_VERSIONINFO
constexpr int kModuleCore = 1;            // NVTX_CB_MODULE_CORE
constexpr unsigned kCbidRangePushEx = 8;  // NVTX_CBID_CORE_RangePushEx
constexpr unsigned kCbidRangePushA = 9;
constexpr unsigned kCbidRangePushW = 10;
constexpr unsigned kCbidRangePop = 11;
constexpr uint32_t kNvtxVersion = 3;
// nvToolsExt.h: nvtxMessageType_t.
constexpr int32_t kMessageAscii = 1;
constexpr int32_t kMessageUnicode = 2;

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

std::string Narrow(const wchar_t* w) {
  std::string out;
  for (; w != nullptr && *w != L'\0'; ++w)
    out.push_back(*w >= 0 && *w < 128 ? static_cast<char>(*w) : '?');
  return out;
}

const std::string& Pattern() {
  static const std::string* pattern = new std::string(IterationRangePattern());
  return *pattern;
}

RangeCounter& ThisThread() {
  thread_local RangeCounter counter(Pattern());
  return counter;
}

// One counted range ended: tells colod, if the program is connected.
void IterationEnded() {
  static std::atomic<uint64_t> ended{0};
  ipc::IterationMarkMsg m;
  m.kind = static_cast<uint32_t>(ipc::IterationMarkKind::kEnded);
  m.ended = ended.fetch_add(1) + 1;
  InterposerState& s = Interposer();
  MutexLock lock(s.mu);
  if (!s.colod.client || s.colod.lost) return;
  ipc::RuntimeClient* client = s.colod.client.get();
  // A broken socket fails the program's next call, which reports it.
  (void)WithoutStateLock(s, [&] {
    return client->Notify(ipc::MsgType::kIterationMark, &m, sizeof m);
  });
}

int PushNamed(const std::string& name) { return ThisThread().Push(name); }

int RangePushA(const char* message) {
  return PushNamed(message != nullptr ? message : "");
}
int RangePushW(const wchar_t* message) { return PushNamed(Narrow(message)); }
int RangePushEx(const EventAttributes* a) {
  if (a == nullptr) return PushNamed("");
  if (a->message_type == kMessageAscii && a->message.ascii != nullptr)
    return PushNamed(a->message.ascii);
  if (a->message_type == kMessageUnicode)
    return PushNamed(Narrow(a->message.unicode));
  return PushNamed("");  // registered strings are not ours to read
}
int RangePop() {
  RangeCounter& c = ThisThread();
  if (c.depth() == 0) return -1;
  const int level = c.depth() - 1;
  if (c.Pop()) IterationEnded();
  return level;
}

}  // namespace

std::string IterationRangePattern() {
  const char* v = std::getenv("COLO_ITERATION_RANGE");
  return v != nullptr ? v : "";
}

void DeclareIterationRanges(ipc::RuntimeClient& client) {
  if (IterationRangePattern().empty()) return;
  ipc::IterationMarkMsg m;
  m.kind = static_cast<uint32_t>(ipc::IterationMarkKind::kRanged);
  (void)client.Notify(ipc::MsgType::kIterationMark, &m, sizeof m);
}

}  // namespace colo::shim

// NVTX's entry point: fills the core module's push and pop callbacks.
// 1 on success; 0 (NVTX then makes every call a no-op) without a pattern or
// when the tables are not NVTX v3's.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    colo::shim::GetExportTable get_export_table) {
  using namespace colo::shim;
  if (get_export_table == nullptr || Pattern().empty()) return 0;
  const auto* callbacks = static_cast<const ExportTableCallbacks*>(
      get_export_table(kEtidCallbacks));
  if (callbacks == nullptr ||
      callbacks->struct_size < sizeof(ExportTableCallbacks) ||
      callbacks->GetModuleFunctionTable == nullptr) {
    return 0;
  }
  FunctionTable table = nullptr;
  unsigned int size = 0;
  if (callbacks->GetModuleFunctionTable(kModuleCore, &table, &size) == 0 ||
      table == nullptr || size < kCbidRangePop) {
    return 0;
  }
  *table[kCbidRangePushEx] = reinterpret_cast<FunctionPointer>(&RangePushEx);
  *table[kCbidRangePushA] = reinterpret_cast<FunctionPointer>(&RangePushA);
  *table[kCbidRangePushW] = reinterpret_cast<FunctionPointer>(&RangePushW);
  *table[kCbidRangePop] = reinterpret_cast<FunctionPointer>(&RangePop);
  if (const auto* v = static_cast<const ExportTableVersionInfo*>(
          get_export_table(kEtidVersionInfo));
      v != nullptr && v->struct_size >= sizeof(ExportTableVersionInfo) &&
      v->SetInjectionNvtxVersion != nullptr) {
    v->SetInjectionNvtxVersion(kNvtxVersion);
  }
  return 1;
}
