#include "shim/blas.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "colo/gemm_model.h"
#include "cuda/cublas_abi.h"
#include "shim/annotated_mutex.h"
#include "shim/blas_common.h"
#include "shim/blas_compute.h"
#include "shim/shim_runtime.h"

namespace colo::shim::blas {
namespace {

using namespace colo::cuda;  // kBlas*, kData*

struct Handle {
  void* stream = nullptr;
  int math_mode = kBlasDefaultMath;
  int pointer_mode = kBlasPointerHost;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
};

// The live cuBLAS handles (made by cublasCreate or cublasLtCreate).
struct HandleTable {
  Mutex mu;
  // State below is protected by mu.
  std::unordered_map<void*, std::unique_ptr<Handle>> handles
      COLO_GUARDED_BY(mu);
};
HandleTable& Handles() {
  // Never destroyed: exit-time calls stay safe.
  static HandleTable* t = new HandleTable;
  return *t;
}

// Runs `f` on the live handle `h` under the table's lock.
template <typename F>
int WithHandle(void* h, F f) {
  HandleTable& t = Handles();
  MutexLock lock(t.mu);
  auto it = t.handles.find(h);
  if (it == t.handles.end()) return kBlasNotInitialized;
  return f(*it->second);
}

bool IsHalf(int type) { return type == kDataR16F || type == kDataR16BF; }

// Whether `beta`, a scalar of `type`, is known to be 0: only a host scalar
// can be read before the kernel runs.
bool BetaIsZero(const void* beta, int type, int pointer_mode) {
  return pointer_mode == kBlasPointerHost && HostScalarIsZero(beta, type);
}

}  // namespace

int ScalarType(const GemmCall& c) {
  if (c.compute < 0) return c.c_type;
  if (c.compute == kBlasCompute64F || c.compute == kBlasCompute64FPedantic)
    return kDataR64F;
  if (c.compute == kBlasCompute16F || c.compute == kBlasCompute16FPedantic)
    return kDataR16F;
  return kDataR32F;
}

int ElementBytes(int type) {
  switch (type) {
    case kDataR16F:
    case kDataR16BF:
      return 2;
    case kDataR32F:
      return 4;
    case kDataR64F:
      return 8;
  }
  return 0;
}

std::optional<MathUnit> MathOf(const GemmCall& c, int math_mode) {
  const int mode = math_mode & ~kBlasMathDisallowReducedPrecision;
  const bool half_inputs = IsHalf(c.a_type) && IsHalf(c.b_type);
  if (c.a_type != c.b_type) return std::nullopt;
  if (c.compute < 0) {  // S/D/H gemm: the element type and the math mode
    if (c.a_type == kDataR64F) return MathUnit::kFp64;
    if (half_inputs) return MathUnit::kFp16Tensor;
    if (mode == kBlasTensorOpMath) return MathUnit::kFp16Tensor;
    if (mode == kBlasTf32TensorOpMath) return MathUnit::kTf32Tensor;
    return MathUnit::kFp32;
  }
  switch (c.compute) {
    case kBlasCompute16F:
    case kBlasCompute16FPedantic:
      if (!half_inputs || !IsHalf(c.c_type)) return std::nullopt;
      return MathUnit::kFp16Tensor;
    case kBlasCompute32FFast16F:
    case kBlasCompute32FFast16BF:
      if (c.a_type == kDataR64F) return std::nullopt;
      return MathUnit::kFp16Tensor;
    case kBlasCompute32FFastTf32:
      if (c.a_type == kDataR64F) return std::nullopt;
      return half_inputs ? MathUnit::kFp16Tensor : MathUnit::kTf32Tensor;
    case kBlasCompute32F:
    case kBlasCompute32FPedantic:
      if (c.a_type == kDataR64F || c.c_type == kDataR64F) return std::nullopt;
      if (half_inputs) return MathUnit::kFp16Tensor;
      if (c.compute == kBlasCompute32F && mode == kBlasTf32TensorOpMath)
        return MathUnit::kTf32Tensor;
      return MathUnit::kFp32;
    case kBlasCompute64F:
    case kBlasCompute64FPedantic:
      if (c.a_type != kDataR64F || c.c_type != kDataR64F) return std::nullopt;
      return MathUnit::kFp64;
  }
  return std::nullopt;
}

bool HostScalarIsZero(const void* scalar, int type) {
  if (type == kDataR64F) {
    double v;
    std::memcpy(&v, scalar, sizeof(v));
    return v == 0;
  }
  if (IsHalf(type)) {
    uint16_t bits;  // FP16 or BF16: zero whatever the sign bit
    std::memcpy(&bits, scalar, sizeof(bits));
    return (bits & 0x7fff) == 0;
  }
  float v;
  std::memcpy(&v, scalar, sizeof(v));
  return v == 0;
}

bool ValidOp(int op) {
  return op == kBlasOpN || op == kBlasOpT || op == kBlasOpC;
}

int LaunchBlas(const GemmShape& shape, const std::string& op, void* stream,
               std::function<void()> compute) {
  const int err = LaunchGemm(shape, op, OwnStream(stream), std::move(compute));
  if (err == kCudaSuccess) return kBlasSuccess;
  if (err == cuda::kCudaErrorDevicesUnavailable) return kBlasNotInitialized;
  return kBlasExecutionFailed;
}

bool IsLiveHandle(void* handle) {
  return WithHandle(handle, [](Handle&) { return kBlasSuccess; }) ==
         kBlasSuccess;
}

int Create(void** handle) {
  if (handle == nullptr) return kBlasInvalidValue;
  if (Connect() != kCudaSuccess) return kBlasNotInitialized;
  auto h = std::make_unique<Handle>();
  void* key = h.get();
  HandleTable& t = Handles();
  MutexLock lock(t.mu);
  t.handles.emplace(key, std::move(h));
  *handle = key;
  return kBlasSuccess;
}

int Destroy(void* handle) {
  HandleTable& t = Handles();
  MutexLock lock(t.mu);
  return t.handles.erase(handle) == 1 ? kBlasSuccess : kBlasNotInitialized;
}

int SetStream(void* handle, void* stream) {
  return WithHandle(handle, [&](Handle& h) {
    h.stream = stream;
    return kBlasSuccess;
  });
}

int GetStream(void* handle, void** stream) {
  return WithHandle(handle, [&](Handle& h) {
    if (stream == nullptr) return kBlasInvalidValue;
    *stream = h.stream;
    return kBlasSuccess;
  });
}

int SetMathMode(void* handle, int mode) {
  return WithHandle(handle, [&](Handle& h) {
    const int base = mode & ~kBlasMathDisallowReducedPrecision;
    if (base != kBlasDefaultMath && base != kBlasTensorOpMath &&
        base != kBlasPedanticMath && base != kBlasTf32TensorOpMath)
      return kBlasInvalidValue;
    h.math_mode = mode;
    return kBlasSuccess;
  });
}

int GetMathMode(void* handle, int* mode) {
  return WithHandle(handle, [&](Handle& h) {
    if (mode == nullptr) return kBlasInvalidValue;
    *mode = h.math_mode;
    return kBlasSuccess;
  });
}

int SetPointerMode(void* handle, int mode) {
  return WithHandle(handle, [&](Handle& h) {
    if (mode != kBlasPointerHost && mode != kBlasPointerDevice)
      return kBlasInvalidValue;
    h.pointer_mode = mode;
    return kBlasSuccess;
  });
}

int GetPointerMode(void* handle, int* mode) {
  return WithHandle(handle, [&](Handle& h) {
    if (mode == nullptr) return kBlasInvalidValue;
    *mode = h.pointer_mode;
    return kBlasSuccess;
  });
}

int SetWorkspace(void* handle, void* workspace, size_t bytes) {
  return WithHandle(handle, [&](Handle& h) {
    if (workspace == nullptr && bytes != 0) return kBlasInvalidValue;
    h.workspace = workspace;
    h.workspace_bytes = bytes;
    return kBlasSuccess;
  });
}

int Gemm(void* handle, const GemmCall& c) {
  GemmShape shape;
  void* stream = nullptr;
  const int checked = WithHandle(handle, [&](Handle& h) {
    if (c.m < 0 || c.n < 0 || c.k < 0 || c.batch < 0 || !ValidOp(c.transa) ||
        !ValidOp(c.transb) || c.alpha == nullptr || c.beta == nullptr)
      return kBlasInvalidValue;
    const int64_t a_rows = c.transa == kBlasOpN ? c.m : c.k;
    const int64_t b_rows = c.transb == kBlasOpN ? c.k : c.n;
    if (c.lda < std::max<int64_t>(1, a_rows) ||
        c.ldb < std::max<int64_t>(1, b_rows) ||
        c.ldc < std::max<int64_t>(1, c.m))
      return kBlasInvalidValue;
    const int in_bytes = ElementBytes(c.a_type),
              out_bytes = ElementBytes(c.c_type);
    const std::optional<MathUnit> math = MathOf(c, h.math_mode);
    if (in_bytes == 0 || out_bytes == 0 || ElementBytes(c.b_type) == 0 || !math)
      return kBlasNotSupported;
    shape.m = c.m, shape.n = c.n, shape.k = c.k, shape.batch = c.batch;
    shape.input_bytes = in_bytes;
    shape.output_bytes = out_bytes;
    shape.reads_c = !BetaIsZero(c.beta, ScalarType(c), h.pointer_mode);
    shape.math = *math;
    stream = h.stream;
    return kBlasSuccess;
  });
  if (checked != kBlasSuccess) return checked;
  if (c.m == 0 || c.n == 0 || c.batch == 0)
    return kBlasSuccess;  // nothing to compute
  return LaunchBlas(shape, c.op, stream, [c] { ComputeGemm(c); });
}

int Gemv(void* handle, const char* op, int trans, int64_t m, int64_t n,
         const void* alpha, int64_t lda, int64_t incx, const void* beta,
         int64_t incy, int type, const GemvOperands& o) {
  GemmShape shape;
  void* stream = nullptr;
  const int checked = WithHandle(handle, [&](Handle& h) {
    if (m < 0 || n < 0 || !ValidOp(trans) || lda < std::max<int64_t>(1, m) ||
        incx == 0 || incy == 0 || alpha == nullptr || beta == nullptr)
      return kBlasInvalidValue;
    // y has op(A)'s rows; the inner dimension is its columns.
    shape.m = trans == kBlasOpN ? m : n;
    shape.n = 1;
    shape.k = trans == kBlasOpN ? n : m;
    shape.input_bytes = shape.output_bytes = ElementBytes(type);
    shape.reads_c = !BetaIsZero(beta, type, h.pointer_mode);
    shape.math = type == kDataR64F ? MathUnit::kFp64 : MathUnit::kFp32;
    stream = h.stream;
    return kBlasSuccess;
  });
  if (checked != kBlasSuccess) return checked;
  if (m == 0 || n == 0) return kBlasSuccess;
  return LaunchBlas(shape, op, stream, [=] {
    ComputeGemv(trans, m, n, alpha, o.a, lda, o.x, incx, beta, o.y, incy, type);
  });
}

}  // namespace colo::shim::blas
