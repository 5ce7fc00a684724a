#include "shim/blas_lt.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "colo/gemm_model.h"
#include "shim/annotated_mutex.h"
#include "shim/blas_common.h"
#include "shim/blas_compute.h"
#include "shim/shim_runtime.h"
#include "shim/shim_state.h"

namespace colo::shim::blas_lt {
namespace {

using namespace colo::cuda;  // kBlas*, kLt*, kData*
using blas::ElementBytes;

// One attribute as cublasLt.h documents it: its size in bytes and default.
struct AttrSpec {
  int id;
  int size;
  uint64_t initial;
};

constexpr uint64_t kNone =
    static_cast<uint64_t>(-1);  // a cudaDataType of -1: unset

constexpr AttrSpec kMatmulAttrs[] = {
    {kLtDescComputeType, 4, 0},  // set by Create
    {kLtDescScaleType, 4, 0},
    {kLtDescPointerMode, 4, kLtPointerHost},
    {kLtDescTransA, 4, kBlasOpN},
    {kLtDescTransB, 4, kBlasOpN},
    {kLtDescTransC, 4, kBlasOpN},
    {kLtDescFillMode, 4, kBlasFillModeFull},
    {kLtDescEpilogue, 4, kLtEpilogueDefault},
    {kLtDescBiasPointer, 8, 0},
    {kLtDescBiasBatchStride, 8, 0},
    {kLtDescAuxPointer, 8, 0},
    {kLtDescAuxLd, 8, 0},
    {kLtDescAuxBatchStride, 8, 0},
    {kLtDescAlphaVectorBatchStride, 8, 0},
    {kLtDescSmCountTarget, 4, 0},
    {kLtDescAScalePointer, 8, 0},
    {kLtDescAScalePointer + 1, 8, 0},
    {kLtDescAScalePointer + 2, 8, 0},
    {kLtDescAScalePointer + 3, 8, 0},
    {kLtDescAmaxDPointer, 8, 0},
    {kLtDescAuxDataType, 4, kNone},
    {kLtDescAuxScalePointer, 8, 0},
    {kLtDescAuxAmaxPointer, 8, 0},
    {kLtDescFastAccum, 1, 0},
    {kLtDescBiasDataType, 4, kNone},
    {kLtDescAScaleMode, 4, 0},
    {kLtDescAScaleMode + 1, 4, 0},
    {kLtDescAScaleMode + 2, 4, 0},
    {kLtDescAScaleMode + 3, 4, 0},
    {kLtDescAuxScaleMode, 4, 0},
    {kLtDescDOutScalePointer, 8, 0},
    {kLtDescDOutScaleMode, 4, 0},
    {kLtDescEmulationDescriptor, 8, 0},
};

constexpr AttrSpec kLayoutAttrs[] = {
    {kLtLayoutType, 4, 0},  // type, rows, cols, ld: set by Create
    {kLtLayoutOrder, 4, kLtOrderCol},
    {kLtLayoutRows, 8, 0},
    {kLtLayoutCols, 8, 0},
    {kLtLayoutLd, 8, 0},
    {kLtLayoutBatchCount, 4, 1},
    {kLtLayoutStridedBatchOffset, 8, 0},
    {kLtLayoutPlaneOffset, 8, 0},
    {kLtLayoutBatchMode, 4, 0},
};

constexpr AttrSpec kPreferenceAttrs[] = {
    {kLtPrefSearchMode, 4, 0},
    {kLtPrefMaxWorkspaceBytes, 8, 0},
    {kLtPrefReductionSchemeMask, 4, 0x7},
    {kLtPrefMinAlignmentABytes, 4, 256},
    {kLtPrefMinAlignmentABytes + 1, 4, 256},
    {kLtPrefMinAlignmentABytes + 2, 4, 256},
    {kLtPrefMinAlignmentDBytes, 4, 256},
    {kLtPrefMaxWavesCount, 4, 0},  // a float; 0.0f is all-zero bits
    {kLtPrefImplMask, 8, ~uint64_t{0}},
};

// cuBLASLt's opaque structs, which *Init_internal needs room for.
constexpr size_t kOpaqueBytes[] = {32 * 8, 8 * 8, 8 * 8};

template <size_t N>
const AttrSpec* Find(const AttrSpec (&specs)[N], int id) {
  for (const AttrSpec& s : specs)
    if (s.id == id) return &s;
  return nullptr;
}

const AttrSpec* SpecOf(Kind kind, int id) {
  switch (kind) {
    case Kind::kMatmul:
      return Find(kMatmulAttrs, id);
    case Kind::kLayout:
      return Find(kLayoutAttrs, id);
    case Kind::kPreference:
      return Find(kPreferenceAttrs, id);
  }
  return nullptr;
}

// A descriptor: its kind and each attribute's bytes (little-endian in a
// uint64_t, as cuBLASLt's C types are).
struct Descriptor {
  Kind kind;
  std::unordered_map<int, uint64_t> values;

  explicit Descriptor(Kind k) : kind(k) {
    auto fill = [&](const auto& specs) {
      for (const AttrSpec& s : specs) values[s.id] = s.initial;
    };
    if (k == Kind::kMatmul) fill(kMatmulAttrs);
    if (k == Kind::kLayout) fill(kLayoutAttrs);
    if (k == Kind::kPreference) fill(kPreferenceAttrs);
  }
  int32_t I32(int id) const {
    return static_cast<int32_t>(static_cast<uint32_t>(values.at(id)));
  }
  int64_t I64(int id) const { return static_cast<int64_t>(values.at(id)); }
  uint64_t U64(int id) const { return values.at(id); }
  float F32(int id) const {
    const uint32_t bits = static_cast<uint32_t>(values.at(id));
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
  }
};

// The live cuBLASLt descriptors, by the address the program knows each by.
struct DescriptorTable {
  Mutex mu;
  // State below is protected by mu.
  std::unordered_map<void*, std::unique_ptr<Descriptor>> descriptors
      COLO_GUARDED_BY(mu);
};
DescriptorTable& Descriptors() {
  // Never destroyed: exit-time calls stay safe.
  static DescriptorTable* t = new DescriptorTable;
  return *t;
}

// Registers `d` at `key` (replacing what was there: memory handed to
// *Init_internal again).
void Register(void* key, std::unique_ptr<Descriptor> d) {
  DescriptorTable& t = Descriptors();
  MutexLock lock(t.mu);
  t.descriptors[key] = std::move(d);
}

// Creates a descriptor of `kind`, with `init` applied, in new memory.
template <typename F>
int CreateDescriptor(void** out, Kind kind, F init) {
  if (out == nullptr) return kBlasInvalidValue;
  auto d = std::make_unique<Descriptor>(kind);
  init(*d);
  void* key = d.get();
  Register(key, std::move(d));
  *out = key;
  return kBlasSuccess;
}

// The same in the caller's `size` bytes at `memory`.
template <typename F>
int InitDescriptor(void* memory, size_t size, Kind kind, F init) {
  if (memory == nullptr) return kBlasInvalidValue;
  if (size < kOpaqueBytes[static_cast<int>(kind)]) return kBlasAllocFailed;
  auto d = std::make_unique<Descriptor>(kind);
  init(*d);
  Register(memory, std::move(d));
  return kBlasSuccess;
}

// A copy of the descriptor at `key` if it is one of `kind`.
std::optional<Descriptor> Copy(const DescriptorTable& t, void* key, Kind kind)
    COLO_REQUIRES(t.mu) {
  auto it = t.descriptors.find(key);
  if (it == t.descriptors.end() || it->second->kind != kind)
    return std::nullopt;
  return *it->second;
}

// A matrix as its layout says: logical rows x cols, order, leading
// dimension, batch count, element type.
struct Matrix {
  int type = 0;
  int order = kLtOrderCol;
  uint64_t rows = 0, cols = 0;
  int64_t ld = 0;
  int64_t batch = 1;
  int64_t batch_stride = 0;  // elements between a strided batch's matrices
};

Matrix MatrixOf(const Descriptor& l) {
  Matrix m;
  m.type = l.I32(kLtLayoutType);
  m.order = l.I32(kLtLayoutOrder);
  m.rows = l.U64(kLtLayoutRows);
  m.cols = l.U64(kLtLayoutCols);
  m.ld = l.I64(kLtLayoutLd);
  m.batch = l.I32(kLtLayoutBatchCount);
  m.batch_stride = l.I64(kLtLayoutStridedBatchOffset);
  return m;
}

// The leading dimension `m` needs: its rows in column order, its columns in
// row order, at least 1.
bool LdHolds(const Matrix& m) {
  const uint64_t extent = m.order == kLtOrderCol ? m.rows : m.cols;
  return m.ld >= 1 && static_cast<uint64_t>(m.ld) >= extent;
}

// The epilogue's name in the kernel's, or nullptr for one cuBLASLt does not
// define.
const char* EpilogueName(uint32_t e) {
  switch (e) {
    case kLtEpilogueDefault:
      return "";
    case kLtEpilogueRelu:
      return "relu";
    case kLtEpilogueRelu | kLtEpilogueAux:
      return "relu_aux";
    case kLtEpilogueBias:
      return "bias";
    case kLtEpilogueRelu | kLtEpilogueBias:
      return "relu_bias";
    case kLtEpilogueRelu | kLtEpilogueAux | kLtEpilogueBias:
      return "relu_aux_bias";
    case kLtEpilogueDRelu:
      return "drelu";
    case kLtEpilogueDRelu | kLtEpilogueBgrad:
      return "drelu_bgrad";
    case kLtEpilogueGelu:
      return "gelu";
    case kLtEpilogueGelu | kLtEpilogueAux:
      return "gelu_aux";
    case kLtEpilogueGelu | kLtEpilogueBias:
      return "gelu_bias";
    case kLtEpilogueGelu | kLtEpilogueAux | kLtEpilogueBias:
      return "gelu_aux_bias";
    case kLtEpilogueDGelu:
      return "dgelu";
    case kLtEpilogueDGelu | kLtEpilogueBgrad:
      return "dgelu_bgrad";
    case kLtEpilogueBgradA:
      return "bgrada";
    case kLtEpilogueBgradB:
      return "bgradb";
  }
  return nullptr;
}

// A checked matmul: what to launch, or the status that refuses it.
struct Planned {
  int status = kBlasSuccess;
  GemmShape shape;
  std::string op;
  bool empty = false;  // m or n is 0: nothing to launch
  // What the matmul computes (sim mode's `execute`), when the operands were
  // given and blas_compute.h covers the matmul; `computable` false with an
  // operands' matmul it does not (row order, gradient epilogues).
  std::function<void()> compute;
  bool computable = true;
};

Planned Refuse(int status) {
  Planned p;
  p.status = status;
  return p;
}

// Checks a matmul of `desc` over the four layouts (see blas_lt.h); the
// scalars are checked only when `alpha` is given (a matmul, not a heuristic
// query).
Planned Plan(const Descriptor& desc, const Matrix& a, const Matrix& b,
             const Matrix& c, const Matrix& d, const void* alpha,
             const void* beta, bool check_scalars,
             const MatmulArgs* operands = nullptr) {
  const int pointer_mode = desc.I32(kLtDescPointerMode);
  if (pointer_mode < kLtPointerHost ||
      pointer_mode > kLtPointerAlphaVectorBetaHost)
    return Refuse(kBlasNotSupported);
  const bool beta_zero_mode = pointer_mode == kLtPointerAlphaVectorBetaZero;
  if (check_scalars &&
      (alpha == nullptr || (beta == nullptr && !beta_zero_mode)))
    return Refuse(kBlasInvalidValue);
  const int transa = desc.I32(kLtDescTransA), transb = desc.I32(kLtDescTransB);
  if (!blas::ValidOp(transa) || !blas::ValidOp(transb))
    return Refuse(kBlasInvalidValue);
  if (desc.I32(kLtDescTransC) != kBlasOpN ||
      desc.I32(kLtDescFillMode) != kBlasFillModeFull)
    return Refuse(kBlasNotSupported);
  for (const Matrix* m : {&a, &b, &c, &d})
    if (m->order != kLtOrderCol && m->order != kLtOrderRow)
      return Refuse(kBlasNotSupported);
  if (c.order != d.order || c.type != d.type) return Refuse(kBlasNotSupported);
  // op(A) is m x k, op(B) k x n, C and D m x n.
  const uint64_t m = transa == kBlasOpN ? a.rows : a.cols;
  const uint64_t k = transa == kBlasOpN ? a.cols : a.rows;
  const uint64_t kb = transb == kBlasOpN ? b.rows : b.cols;
  const uint64_t n = transb == kBlasOpN ? b.cols : b.rows;
  constexpr uint64_t kMax =
      static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (k != kb || c.rows != m || c.cols != n || d.rows != m || d.cols != n ||
      m > kMax || n > kMax || k > kMax)
    return Refuse(kBlasInvalidValue);
  for (const Matrix* x : {&a, &b, &c, &d})
    if (!LdHolds(*x) || x->batch < 1 || x->batch != d.batch)
      return Refuse(kBlasInvalidValue);

  const uint32_t epilogue = static_cast<uint32_t>(desc.U64(kLtDescEpilogue));
  const char* epilogue_name = EpilogueName(epilogue);
  if (epilogue_name == nullptr) return Refuse(kBlasNotSupported);
  const bool bias_in = (epilogue & kLtEpilogueBias) != 0;
  const bool bias_out =
      (epilogue & (kLtEpilogueBgrad | kLtEpilogueBgradA | kLtEpilogueBgradB)) !=
      0;
  const bool aux = (epilogue & kLtEpilogueAux) != 0;
  if ((bias_in || bias_out) && desc.U64(kLtDescBiasPointer) == 0)
    return Refuse(kBlasInvalidValue);
  if (aux &&
      (desc.U64(kLtDescAuxPointer) == 0 ||
       desc.I64(kLtDescAuxLd) < static_cast<int64_t>(std::max<uint64_t>(m, 1))))
    return Refuse(kBlasInvalidValue);

  blas::GemmCall call;
  call.a_type = a.type, call.b_type = b.type, call.c_type = d.type;
  call.compute = desc.I32(kLtDescComputeType);
  const std::optional<MathUnit> math = blas::MathOf(call, kBlasDefaultMath);
  const int scale_type = desc.I32(kLtDescScaleType);
  if (!math || ElementBytes(a.type) == 0 || ElementBytes(d.type) == 0 ||
      ElementBytes(scale_type) == 0)
    return Refuse(kBlasNotSupported);
  auto bytes_of = [&](int attr) {  // a vector's element type: its own, else D's
    const int32_t t = desc.I32(attr);
    return ElementBytes(t == -1 ? d.type : t);
  };
  if ((bias_in || bias_out) && bytes_of(kLtDescBiasDataType) == 0)
    return Refuse(kBlasNotSupported);
  if (aux && bytes_of(kLtDescAuxDataType) == 0)
    return Refuse(kBlasNotSupported);

  Planned p;
  p.shape.m = static_cast<int64_t>(m);
  p.shape.n = static_cast<int64_t>(n);
  p.shape.k = static_cast<int64_t>(k);
  p.shape.batch = d.batch;
  p.shape.input_bytes = ElementBytes(a.type);
  p.shape.output_bytes = ElementBytes(d.type);
  p.shape.math = *math;
  bool beta_zero = beta_zero_mode;
  if (check_scalars && (pointer_mode == kLtPointerHost ||
                        pointer_mode == kLtPointerAlphaVectorBetaHost))
    beta_zero = blas::HostScalarIsZero(beta, scale_type);
  p.shape.reads_c = !beta_zero;
  const double rows = static_cast<double>(m), cols = static_cast<double>(n);
  double extra = 0;
  if (bias_in) extra += rows * bytes_of(kLtDescBiasDataType);
  if ((epilogue & kLtEpilogueBgrad) != 0 || (epilogue & kLtEpilogueBgradA) != 0)
    extra += rows * bytes_of(kLtDescBiasDataType);
  if ((epilogue & kLtEpilogueBgradB) != 0)
    extra += cols * bytes_of(kLtDescBiasDataType);
  if (aux) {  // written by RELU/GELU_AUX, read back by DRELU/DGELU
    const bool relu = (epilogue & kLtEpilogueRelu) != 0 ||
                      epilogue == kLtEpilogueDRelu ||
                      epilogue == (kLtEpilogueDRelu | kLtEpilogueBgrad);
    extra +=
        relu ? rows * cols / 8 : rows * cols * bytes_of(kLtDescAuxDataType);
  }
  p.shape.epilogue_bytes = extra;
  p.op = std::string("cublasLtMatmul") + (*epilogue_name != '\0' ? "+" : "") +
         epilogue_name;
  p.empty = m == 0 || n == 0;
  if (operands != nullptr) {
    const uint32_t computed = kLtEpilogueRelu | kLtEpilogueBias |
                              kLtEpilogueGelu | kLtEpilogueDefault;
    p.computable = (epilogue & ~computed) == 0 && a.order == kLtOrderCol &&
                   b.order == kLtOrderCol && c.order == kLtOrderCol &&
                   pointer_mode == kLtPointerHost;
    if (p.computable) {
      call.transa = transa, call.transb = transb;
      call.m = static_cast<int64_t>(m), call.n = static_cast<int64_t>(n);
      call.k = static_cast<int64_t>(k);
      call.lda = a.ld, call.ldb = b.ld, call.ldc = c.ld;
      call.batch = d.batch;
      call.alpha = alpha, call.beta = beta;
      call.a = operands->a_data, call.b = operands->b_data;
      call.c = const_cast<void*>(operands->c_data);
      call.stride_a = a.batch_stride, call.stride_b = b.batch_stride;
      call.stride_c = c.batch_stride;
      blas::GemmEpilogue e;
      if (bias_in) {
        e.bias = reinterpret_cast<const void*>(desc.U64(kLtDescBiasPointer));
        const int32_t t = desc.I32(kLtDescBiasDataType);
        e.bias_type = t == -1 ? d.type : t;
      }
      e.relu = (epilogue & kLtEpilogueRelu) != 0;
      e.gelu = (epilogue & kLtEpilogueGelu) != 0;
      e.d = operands->d_data, e.ldd = d.ld, e.d_type = d.type;
      e.d_stride = d.batch_stride;
      p.compute = [call, e] { blas::ComputeGemm(call, e); };
    }
  }
  return p;
}

// Plans the matmul `args` names, reading its descriptors under the table's
// lock.
Planned PlanArgs(const MatmulArgs& args, bool check_scalars) {
  if (!blas::IsLiveHandle(args.handle)) return Refuse(kBlasNotInitialized);
  DescriptorTable& t = Descriptors();
  MutexLock lock(t.mu);
  const std::optional<Descriptor> desc = Copy(t, args.desc, Kind::kMatmul);
  std::optional<Descriptor> layouts[4];
  void* const keys[4] = {args.a, args.b, args.c, args.d};
  for (int i = 0; i < 4; ++i) layouts[i] = Copy(t, keys[i], Kind::kLayout);
  if (!desc || !layouts[0] || !layouts[1] || !layouts[2] || !layouts[3])
    return Refuse(kBlasInvalidValue);
  return Plan(
      *desc, MatrixOf(*layouts[0]), MatrixOf(*layouts[1]),
      MatrixOf(*layouts[2]), MatrixOf(*layouts[3]), args.alpha, args.beta,
      check_scalars,
      args.a_data != nullptr || args.d_data != nullptr ? &args : nullptr);
}

}  // namespace

// A cuBLASLt handle is a cuBLAS one (blas.h): the interposer keeps nothing
// per handle that cuBLASLt needs, and either serves for the other.
int Create(void** handle) { return blas::Create(handle); }
int Destroy(void* handle) { return blas::Destroy(handle); }

namespace {

auto MatmulInit(int compute_type, int scale_type) {
  return [=](Descriptor& d) {
    d.values[kLtDescComputeType] = static_cast<uint32_t>(compute_type);
    d.values[kLtDescScaleType] = static_cast<uint32_t>(scale_type);
  };
}

auto LayoutInit(int type, uint64_t rows, uint64_t cols, int64_t ld) {
  return [=](Descriptor& d) {
    d.values[kLtLayoutType] = static_cast<uint32_t>(type);
    d.values[kLtLayoutRows] = rows;
    d.values[kLtLayoutCols] = cols;
    d.values[kLtLayoutLd] = static_cast<uint64_t>(ld);
  };
}

void NoInit(Descriptor&) {}

}  // namespace

int MatmulDescCreate(void** desc, int compute_type, int scale_type) {
  return CreateDescriptor(desc, Kind::kMatmul,
                          MatmulInit(compute_type, scale_type));
}
int MatmulDescInit(void* desc, size_t size, int compute_type, int scale_type) {
  return InitDescriptor(desc, size, Kind::kMatmul,
                        MatmulInit(compute_type, scale_type));
}
int MatrixLayoutCreate(void** layout, int type, uint64_t rows, uint64_t cols,
                       int64_t ld) {
  return CreateDescriptor(layout, Kind::kLayout,
                          LayoutInit(type, rows, cols, ld));
}
int MatrixLayoutInit(void* layout, size_t size, int type, uint64_t rows,
                     uint64_t cols, int64_t ld) {
  return InitDescriptor(layout, size, Kind::kLayout,
                        LayoutInit(type, rows, cols, ld));
}
int PreferenceCreate(void** pref) {
  return CreateDescriptor(pref, Kind::kPreference, NoInit);
}
int PreferenceInit(void* pref, size_t size) {
  return InitDescriptor(pref, size, Kind::kPreference, NoInit);
}

int DestroyDescriptor(Kind kind, void* desc) {
  DescriptorTable& t = Descriptors();
  MutexLock lock(t.mu);
  auto it = t.descriptors.find(desc);
  if (it == t.descriptors.end() || it->second->kind != kind)
    return kBlasInvalidValue;
  t.descriptors.erase(it);
  return kBlasSuccess;
}

int SetAttribute(Kind kind, void* desc, int attr, const void* buf,
                 size_t size) {
  const AttrSpec* spec = SpecOf(kind, attr);
  if (spec == nullptr || buf == nullptr ||
      size != static_cast<size_t>(spec->size))
    return kBlasInvalidValue;
  uint64_t value = 0;
  std::memcpy(&value, buf, size);
  DescriptorTable& t = Descriptors();
  MutexLock lock(t.mu);
  auto it = t.descriptors.find(desc);
  if (it == t.descriptors.end() || it->second->kind != kind)
    return kBlasInvalidValue;
  it->second->values[attr] = value;
  return kBlasSuccess;
}

int GetAttribute(Kind kind, void* desc, int attr, void* buf, size_t size,
                 size_t* written) {
  const AttrSpec* spec = SpecOf(kind, attr);
  if (spec == nullptr) return kBlasInvalidValue;
  DescriptorTable& t = Descriptors();
  MutexLock lock(t.mu);
  auto it = t.descriptors.find(desc);
  if (it == t.descriptors.end() || it->second->kind != kind)
    return kBlasInvalidValue;
  if (size == 0) {  // a query of the size
    if (written == nullptr) return kBlasInvalidValue;
    *written = static_cast<size_t>(spec->size);
    return kBlasSuccess;
  }
  if (buf == nullptr || size != static_cast<size_t>(spec->size))
    return kBlasInvalidValue;
  const uint64_t value = it->second->values.at(attr);
  std::memcpy(buf, &value, size);
  if (written != nullptr) *written = size;
  return kBlasSuccess;
}

namespace {

// `p`'s waves on colod's GPU into `waves`, as a cublasStatus_t.
int WavesOf(const Planned& p, double* waves) {
  *waves = 0;
  if (p.empty) return kBlasSuccess;
  const int err = GemmWaves(p.shape, p.op, waves);
  if (err == cuda::kCudaErrorDevicesUnavailable) return kBlasNotInitialized;
  return err == kCudaSuccess
             ? kBlasSuccess
             : kBlasNotSupported;  // more tiles than a grid holds
}

}  // namespace

int AlgoGetHeuristic(const MatmulArgs& args, void* preference, int requested,
                     LtHeuristicResult* results, int* returned) {
  if (requested <= 0 || results == nullptr || returned == nullptr)
    return kBlasInvalidValue;
  *returned = 0;
  const Planned p = PlanArgs(args, /*check_scalars=*/false);
  if (p.status != kBlasSuccess) return p.status;
  float max_waves = 0;
  if (preference != nullptr) {
    DescriptorTable& t = Descriptors();
    MutexLock lock(t.mu);
    const std::optional<Descriptor> pref =
        Copy(t, preference, Kind::kPreference);
    if (!pref) return kBlasInvalidValue;
    max_waves = pref->F32(kLtPrefMaxWavesCount);
  }
  double waves = 0;
  if (int st = WavesOf(p, &waves); st != kBlasSuccess) return st;
  if (max_waves > 0 && waves > max_waves) return kBlasNotSupported;
  LtHeuristicResult r{};
  r.algo[0] = 0x6f6c6f63;  // "colo": colo's one algorithm
  r.state = kBlasSuccess;
  r.waves_count = static_cast<float>(waves);
  results[0] = r;
  *returned = 1;
  return kBlasSuccess;
}

int AlgoCheck(const MatmulArgs& args, const void* algo,
              LtHeuristicResult* result) {
  if (algo == nullptr || result == nullptr) return kBlasInvalidValue;
  const Planned p = PlanArgs(args, /*check_scalars=*/false);
  if (p.status != kBlasSuccess) return p.status;
  double waves = 0;
  if (int st = WavesOf(p, &waves); st != kBlasSuccess) return st;
  LtHeuristicResult r{};
  std::memcpy(r.algo, algo,
              sizeof(r.algo));  // before `result`: they may overlap
  r.state = kBlasSuccess;
  r.waves_count = static_cast<float>(waves);
  *result = r;
  return kBlasSuccess;
}

int Matmul(const MatmulArgs& args, void* stream) {
  const Planned p = PlanArgs(args, /*check_scalars=*/true);
  if (p.status != kBlasSuccess) return p.status;
  if (p.empty) return kBlasSuccess;
  if (!p.computable && ExecuteMode()) {
    AnnounceRefused(
        "cublasLtMatmul",
        "under `execute`, colo computes column-major matmuls with host "
        "scalars and the bias, ReLU and GELU epilogues only",
        kBlasNotSupported);
    return kBlasNotSupported;
  }
  return blas::LaunchBlas(p.shape, p.op, stream, p.compute);
}

}  // namespace colo::shim::blas_lt
