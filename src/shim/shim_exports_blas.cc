// cuBLAS entry points (shim/blas.h): the real cuBLAS in passthrough and gate
// mode (its kernels then reach the driver hooks and are gated), the
// interposer's own handles and GEMM launches in sim mode.
#include "shim/blas.h"
#include "shim/blas_forwarding.h"
#include "shim/shim_state.h"

namespace blas = colo::shim::blas;
using colo::cuda::kDataR16F;
using colo::cuda::kDataR32F;
using colo::cuda::kDataR64F;

namespace {

// A typed GEMM of element type `type` (the S/D/H APIs).
blas::GemmCall Typed(const char* op, int transa, int transb, int m, int n,
                     int k, const void* alpha, int lda, int ldb,
                     const void* beta, int ldc, int batch, int type) {
  blas::GemmCall c;
  c.op = op;
  c.transa = transa, c.transb = transb;
  c.m = m, c.n = n, c.k = k;
  c.lda = lda, c.ldb = ldb, c.ldc = ldc;
  c.batch = batch;
  c.a_type = c.b_type = c.c_type = type;
  c.alpha = alpha, c.beta = beta;
  return c;
}

// A GEMM of cublasGemm*Ex.
blas::GemmCall Ex(const char* op, int transa, int transb, int m, int n, int k,
                  const void* alpha, int a_type, int lda, int b_type, int ldb,
                  const void* beta, int c_type, int ldc, int batch,
                  int compute) {
  blas::GemmCall c = Typed(op, transa, transb, m, n, k, alpha, lda, ldb, beta,
                           ldc, batch, a_type);
  c.b_type = b_type;
  c.c_type = c_type;
  c.compute = compute;
  return c;
}

// The operands of a single or strided-batched GEMM.
blas::GemmCall On(blas::GemmCall c, const void* a, const void* b, void* out,
                  long long stride_a = 0, long long stride_b = 0,
                  long long stride_c = 0) {
  c.a = a, c.b = b, c.c = out;
  c.stride_a = stride_a, c.stride_b = stride_b, c.stride_c = stride_c;
  return c;
}
// The operands of a batch of pointers.
template <typename T>
blas::GemmCall OnArrays(blas::GemmCall c, const T* const* a, const T* const* b,
                        T* const* out) {
  c.a_array = reinterpret_cast<const void* const*>(a);
  c.b_array = reinterpret_cast<const void* const*>(b);
  c.c_array = reinterpret_cast<void* const*>(out);
  return c;
}
}  // namespace

int cublasCreate_v2(void** handle) {
  COLO_BLAS(cublasCreate_v2, blas::Create(handle), handle);
}
int cublasDestroy_v2(void* handle) {
  COLO_BLAS(cublasDestroy_v2, blas::Destroy(handle), handle);
}
int cublasSetStream_v2(void* handle, void* stream) {
  COLO_BLAS(cublasSetStream_v2, blas::SetStream(handle, stream), handle,
            stream);
}
int cublasGetStream_v2(void* handle, void** stream) {
  COLO_BLAS(cublasGetStream_v2, blas::GetStream(handle, stream), handle,
            stream);
}
int cublasSetMathMode(void* handle, int mode) {
  COLO_BLAS(cublasSetMathMode, blas::SetMathMode(handle, mode), handle, mode);
}
int cublasGetMathMode(void* handle, int* mode) {
  COLO_BLAS(cublasGetMathMode, blas::GetMathMode(handle, mode), handle, mode);
}
int cublasSetPointerMode_v2(void* handle, int mode) {
  COLO_BLAS(cublasSetPointerMode_v2, blas::SetPointerMode(handle, mode), handle,
            mode);
}
int cublasGetPointerMode_v2(void* handle, int* mode) {
  COLO_BLAS(cublasGetPointerMode_v2, blas::GetPointerMode(handle, mode), handle,
            mode);
}
int cublasSetWorkspace_v2(void* handle, void* workspace, size_t bytes) {
  COLO_BLAS(cublasSetWorkspace_v2, blas::SetWorkspace(handle, workspace, bytes),
            handle, workspace, bytes);
}

int cublasSgemm_v2(void* handle, int transa, int transb, int m, int n, int k,
                   const float* alpha, const float* a, int lda, const float* b,
                   int ldb, const float* beta, float* c, int ldc) {
  COLO_BLAS(
      cublasSgemm_v2,
      blas::Gemm(handle, On(Typed("cublasSgemm", transa, transb, m, n, k, alpha,
                                  lda, ldb, beta, ldc, 1, kDataR32F),
                            a, b, c)),
      handle, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
int cublasDgemm_v2(void* handle, int transa, int transb, int m, int n, int k,
                   const double* alpha, const double* a, int lda,
                   const double* b, int ldb, const double* beta, double* c,
                   int ldc) {
  COLO_BLAS(
      cublasDgemm_v2,
      blas::Gemm(handle, On(Typed("cublasDgemm", transa, transb, m, n, k, alpha,
                                  lda, ldb, beta, ldc, 1, kDataR64F),
                            a, b, c)),
      handle, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
int cublasHgemm(void* handle, int transa, int transb, int m, int n, int k,
                const unsigned short* alpha, const unsigned short* a, int lda,
                const unsigned short* b, int ldb, const unsigned short* beta,
                unsigned short* c, int ldc) {
  COLO_BLAS(
      cublasHgemm,
      blas::Gemm(handle, On(Typed("cublasHgemm", transa, transb, m, n, k, alpha,
                                  lda, ldb, beta, ldc, 1, kDataR16F),
                            a, b, c)),
      handle, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
int cublasGemmEx(void* handle, int transa, int transb, int m, int n, int k,
                 const void* alpha, const void* a, int a_type, int lda,
                 const void* b, int b_type, int ldb, const void* beta, void* c,
                 int c_type, int ldc, int compute, int algo) {
  COLO_BLAS(cublasGemmEx,
            blas::Gemm(handle, On(Ex("cublasGemmEx", transa, transb, m, n, k,
                                     alpha, a_type, lda, b_type, ldb, beta,
                                     c_type, ldc, 1, compute),
                                  a, b, c)),
            handle, transa, transb, m, n, k, alpha, a, a_type, lda, b, b_type,
            ldb, beta, c, c_type, ldc, compute, algo);
}

int cublasSgemmStridedBatched(void* handle, int transa, int transb, int m,
                              int n, int k, const float* alpha, const float* a,
                              int lda, long long stride_a, const float* b,
                              int ldb, long long stride_b, const float* beta,
                              float* c, int ldc, long long stride_c,
                              int batch) {
  COLO_BLAS(cublasSgemmStridedBatched,
            blas::Gemm(handle,
                       Typed("cublasSgemmStridedBatched", transa, transb, m, n,
                             k, alpha, lda, ldb, beta, ldc, batch, kDataR32F)),
            handle, transa, transb, m, n, k, alpha, a, lda, stride_a, b, ldb,
            stride_b, beta, c, ldc, stride_c, batch);
}
int cublasDgemmStridedBatched(void* handle, int transa, int transb, int m,
                              int n, int k, const double* alpha,
                              const double* a, int lda, long long stride_a,
                              const double* b, int ldb, long long stride_b,
                              const double* beta, double* c, int ldc,
                              long long stride_c, int batch) {
  COLO_BLAS(cublasDgemmStridedBatched,
            blas::Gemm(handle,
                       Typed("cublasDgemmStridedBatched", transa, transb, m, n,
                             k, alpha, lda, ldb, beta, ldc, batch, kDataR64F)),
            handle, transa, transb, m, n, k, alpha, a, lda, stride_a, b, ldb,
            stride_b, beta, c, ldc, stride_c, batch);
}
int cublasHgemmStridedBatched(void* handle, int transa, int transb, int m,
                              int n, int k, const unsigned short* alpha,
                              const unsigned short* a, int lda,
                              long long stride_a, const unsigned short* b,
                              int ldb, long long stride_b,
                              const unsigned short* beta, unsigned short* c,
                              int ldc, long long stride_c, int batch) {
  COLO_BLAS(cublasHgemmStridedBatched,
            blas::Gemm(handle,
                       Typed("cublasHgemmStridedBatched", transa, transb, m, n,
                             k, alpha, lda, ldb, beta, ldc, batch, kDataR16F)),
            handle, transa, transb, m, n, k, alpha, a, lda, stride_a, b, ldb,
            stride_b, beta, c, ldc, stride_c, batch);
}
int cublasGemmStridedBatchedEx(void* handle, int transa, int transb, int m,
                               int n, int k, const void* alpha, const void* a,
                               int a_type, int lda, long long stride_a,
                               const void* b, int b_type, int ldb,
                               long long stride_b, const void* beta, void* c,
                               int c_type, int ldc, long long stride_c,
                               int batch, int compute, int algo) {
  COLO_BLAS(
      cublasGemmStridedBatchedEx,
      blas::Gemm(handle, On(Ex("cublasGemmStridedBatchedEx", transa, transb, m,
                               n, k, alpha, a_type, lda, b_type, ldb, beta,
                               c_type, ldc, batch, compute),
                            a, b, c, stride_a, stride_b, stride_c)),
      handle, transa, transb, m, n, k, alpha, a, a_type, lda, stride_a, b,
      b_type, ldb, stride_b, beta, c, c_type, ldc, stride_c, batch, compute,
      algo);
}

int cublasSgemmBatched(void* handle, int transa, int transb, int m, int n,
                       int k, const float* alpha, const float* const a[],
                       int lda, const float* const b[], int ldb,
                       const float* beta, float* const c[], int ldc,
                       int batch) {
  COLO_BLAS(cublasSgemmBatched,
            blas::Gemm(handle, OnArrays(Typed("cublasSgemmBatched", transa,
                                              transb, m, n, k, alpha, lda, ldb,
                                              beta, ldc, batch, kDataR32F),
                                        a, b, c)),
            handle, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
            ldc, batch);
}
int cublasDgemmBatched(void* handle, int transa, int transb, int m, int n,
                       int k, const double* alpha, const double* const a[],
                       int lda, const double* const b[], int ldb,
                       const double* beta, double* const c[], int ldc,
                       int batch) {
  COLO_BLAS(cublasDgemmBatched,
            blas::Gemm(handle, OnArrays(Typed("cublasDgemmBatched", transa,
                                              transb, m, n, k, alpha, lda, ldb,
                                              beta, ldc, batch, kDataR64F),
                                        a, b, c)),
            handle, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
            ldc, batch);
}
int cublasGemmBatchedEx(void* handle, int transa, int transb, int m, int n,
                        int k, const void* alpha, const void* const a[],
                        int a_type, int lda, const void* const b[], int b_type,
                        int ldb, const void* beta, void* const c[], int c_type,
                        int ldc, int batch, int compute, int algo) {
  COLO_BLAS(
      cublasGemmBatchedEx,
      blas::Gemm(handle, OnArrays(Ex("cublasGemmBatchedEx", transa, transb, m,
                                     n, k, alpha, a_type, lda, b_type, ldb,
                                     beta, c_type, ldc, batch, compute),
                                  a, b, c)),
      handle, transa, transb, m, n, k, alpha, a, a_type, lda, b, b_type, ldb,
      beta, c, c_type, ldc, batch, compute, algo);
}

int cublasSgemv_v2(void* handle, int trans, int m, int n, const float* alpha,
                   const float* a, int lda, const float* x, int incx,
                   const float* beta, float* y, int incy) {
  COLO_BLAS(cublasSgemv_v2,
            blas::Gemv(handle, "cublasSgemv", trans, m, n, alpha, lda, incx,
                       beta, incy, kDataR32F, {a, x, y}),
            handle, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}
int cublasDgemv_v2(void* handle, int trans, int m, int n, const double* alpha,
                   const double* a, int lda, const double* x, int incx,
                   const double* beta, double* y, int incy) {
  COLO_BLAS(cublasDgemv_v2,
            blas::Gemv(handle, "cublasDgemv", trans, m, n, alpha, lda, incx,
                       beta, incy, kDataR64F, {a, x, y}),
            handle, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

// Moving vectors and matrices between host and device memory: strided
// rows of elements, as 2D copies (a vector's elements `inc` apart are rows
// of one element). The synchronous forms on the legacy default stream,
// the Async ones on `stream`. A copy CUDA refuses is
// CUBLAS_STATUS_MAPPING_ERROR, as cuBLAS reports it.
namespace {

int Moved(int cuda_error) {
  return cuda_error == colo::cuda::kCudaSuccess ? colo::cuda::kBlasSuccess
                                                : colo::cuda::kBlasMappingError;
}

int CopyMatrix(int rows, int cols, int elem, const void* src, int lds,
               void* dst, int ldd, void* stream, bool async) {
  if (rows < 0 || cols < 0 || elem <= 0 || lds <= 0 || ldd <= 0 || lds < rows ||
      ldd < rows)
    return colo::cuda::kBlasInvalidValue;
  if (rows == 0 || cols == 0) return colo::cuda::kBlasSuccess;
  const size_t e = static_cast<size_t>(elem);
  const size_t width = static_cast<size_t>(rows) * e;
  const size_t dpitch = static_cast<size_t>(ldd) * e;
  const size_t spitch = static_cast<size_t>(lds) * e;
  constexpr int kDefault = 4;  // cudaMemcpyDefault: the pointers say which
  return Moved(async ? cs::Memcpy2DAsync(dst, dpitch, src, spitch, width,
                                         static_cast<size_t>(cols), kDefault,
                                         cs::OwnStream(stream))
                     : cs::Memcpy2D(dst, dpitch, src, spitch, width,
                                    static_cast<size_t>(cols), kDefault));
}

int CopyVector(int n, int elem, const void* src, int incs, void* dst, int incd,
               void* stream, bool async) {
  if (n < 0 || elem <= 0 || incs <= 0 || incd <= 0)
    return colo::cuda::kBlasInvalidValue;
  // n rows of one element, `inc` elements apart.
  return CopyMatrix(1, n, elem, src, incs, dst, incd, stream, async);
}

}  // namespace

int cublasSetVector(int n, int elem, const void* x, int incx, void* y,
                    int incy) {
  COLO_BLAS(cublasSetVector,
            CopyVector(n, elem, x, incx, y, incy, nullptr, false), n, elem, x,
            incx, y, incy);
}
int cublasGetVector(int n, int elem, const void* x, int incx, void* y,
                    int incy) {
  COLO_BLAS(cublasGetVector,
            CopyVector(n, elem, x, incx, y, incy, nullptr, false), n, elem, x,
            incx, y, incy);
}
int cublasSetVectorAsync(int n, int elem, const void* x, int incx, void* y,
                         int incy, void* stream) {
  COLO_BLAS(cublasSetVectorAsync,
            CopyVector(n, elem, x, incx, y, incy, stream, true), n, elem, x,
            incx, y, incy, stream);
}
int cublasGetVectorAsync(int n, int elem, const void* x, int incx, void* y,
                         int incy, void* stream) {
  COLO_BLAS(cublasGetVectorAsync,
            CopyVector(n, elem, x, incx, y, incy, stream, true), n, elem, x,
            incx, y, incy, stream);
}
int cublasSetMatrix(int rows, int cols, int elem, const void* a, int lda,
                    void* b, int ldb) {
  COLO_BLAS(cublasSetMatrix,
            CopyMatrix(rows, cols, elem, a, lda, b, ldb, nullptr, false), rows,
            cols, elem, a, lda, b, ldb);
}
int cublasGetMatrix(int rows, int cols, int elem, const void* a, int lda,
                    void* b, int ldb) {
  COLO_BLAS(cublasGetMatrix,
            CopyMatrix(rows, cols, elem, a, lda, b, ldb, nullptr, false), rows,
            cols, elem, a, lda, b, ldb);
}
int cublasSetMatrixAsync(int rows, int cols, int elem, const void* a, int lda,
                         void* b, int ldb, void* stream) {
  COLO_BLAS(cublasSetMatrixAsync,
            CopyMatrix(rows, cols, elem, a, lda, b, ldb, stream, true), rows,
            cols, elem, a, lda, b, ldb, stream);
}
int cublasGetMatrixAsync(int rows, int cols, int elem, const void* a, int lda,
                         void* b, int ldb, void* stream) {
  COLO_BLAS(cublasGetMatrixAsync,
            CopyMatrix(rows, cols, elem, a, lda, b, ldb, stream, true), rows,
            cols, elem, a, lda, b, ldb, stream);
}

// cuBLAS-XT drives devices from threads of its own, with host-memory
// operands it stages itself: colo cannot gate that on a simulated GPU, so
// sim mode refuses it, announced (it used to crash inside cuBLAS). Gate
// mode forwards it (its kernels reach the driver hooks).
int cublasXtCreate(void** handle) {
  COLO_BLAS(cublasXtCreate,
            cs::AnnounceRefused("cublasXtCreate",
                                "cuBLAS-XT drives devices from its own "
                                "threads, which the simulated GPU cannot "
                                "serve",
                                colo::cuda::kBlasNotSupported),
            handle);
}
