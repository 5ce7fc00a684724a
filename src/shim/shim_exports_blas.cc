// cuBLAS entry points (shim/blas.h): the real cuBLAS in passthrough and gate
// mode (its kernels then reach the driver hooks and are gated), the
// interposer's own handles and GEMM launches in sim mode.
#include "shim/blas.h"
#include "shim/blas_forwarding.h"

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
  COLO_BLAS(cublasSgemm_v2,
            blas::Gemm(handle, Typed("cublasSgemm", transa, transb, m, n, k,
                                     alpha, lda, ldb, beta, ldc, 1, kDataR32F)),
            handle, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
            ldc);
}
int cublasDgemm_v2(void* handle, int transa, int transb, int m, int n, int k,
                   const double* alpha, const double* a, int lda,
                   const double* b, int ldb, const double* beta, double* c,
                   int ldc) {
  COLO_BLAS(cublasDgemm_v2,
            blas::Gemm(handle, Typed("cublasDgemm", transa, transb, m, n, k,
                                     alpha, lda, ldb, beta, ldc, 1, kDataR64F)),
            handle, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
            ldc);
}
int cublasHgemm(void* handle, int transa, int transb, int m, int n, int k,
                const unsigned short* alpha, const unsigned short* a, int lda,
                const unsigned short* b, int ldb, const unsigned short* beta,
                unsigned short* c, int ldc) {
  COLO_BLAS(cublasHgemm,
            blas::Gemm(handle, Typed("cublasHgemm", transa, transb, m, n, k,
                                     alpha, lda, ldb, beta, ldc, 1, kDataR16F)),
            handle, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
            ldc);
}
int cublasGemmEx(void* handle, int transa, int transb, int m, int n, int k,
                 const void* alpha, const void* a, int a_type, int lda,
                 const void* b, int b_type, int ldb, const void* beta, void* c,
                 int c_type, int ldc, int compute, int algo) {
  COLO_BLAS(cublasGemmEx,
            blas::Gemm(handle, Ex("cublasGemmEx", transa, transb, m, n, k,
                                  alpha, a_type, lda, b_type, ldb, beta, c_type,
                                  ldc, 1, compute)),
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
  COLO_BLAS(cublasGemmStridedBatchedEx,
            blas::Gemm(handle, Ex("cublasGemmStridedBatchedEx", transa, transb,
                                  m, n, k, alpha, a_type, lda, b_type, ldb,
                                  beta, c_type, ldc, batch, compute)),
            handle, transa, transb, m, n, k, alpha, a, a_type, lda, stride_a, b,
            b_type, ldb, stride_b, beta, c, c_type, ldc, stride_c, batch,
            compute, algo);
}

int cublasSgemmBatched(void* handle, int transa, int transb, int m, int n,
                       int k, const float* alpha, const float* const a[],
                       int lda, const float* const b[], int ldb,
                       const float* beta, float* const c[], int ldc,
                       int batch) {
  COLO_BLAS(
      cublasSgemmBatched,
      blas::Gemm(handle, Typed("cublasSgemmBatched", transa, transb, m, n, k,
                               alpha, lda, ldb, beta, ldc, batch, kDataR32F)),
      handle, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
      batch);
}
int cublasDgemmBatched(void* handle, int transa, int transb, int m, int n,
                       int k, const double* alpha, const double* const a[],
                       int lda, const double* const b[], int ldb,
                       const double* beta, double* const c[], int ldc,
                       int batch) {
  COLO_BLAS(
      cublasDgemmBatched,
      blas::Gemm(handle, Typed("cublasDgemmBatched", transa, transb, m, n, k,
                               alpha, lda, ldb, beta, ldc, batch, kDataR64F)),
      handle, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
      batch);
}
int cublasGemmBatchedEx(void* handle, int transa, int transb, int m, int n,
                        int k, const void* alpha, const void* const a[],
                        int a_type, int lda, const void* const b[], int b_type,
                        int ldb, const void* beta, void* const c[], int c_type,
                        int ldc, int batch, int compute, int algo) {
  COLO_BLAS(cublasGemmBatchedEx,
            blas::Gemm(handle, Ex("cublasGemmBatchedEx", transa, transb, m, n,
                                  k, alpha, a_type, lda, b_type, ldb, beta,
                                  c_type, ldc, batch, compute)),
            handle, transa, transb, m, n, k, alpha, a, a_type, lda, b, b_type,
            ldb, beta, c, c_type, ldc, batch, compute, algo);
}

int cublasSgemv_v2(void* handle, int trans, int m, int n, const float* alpha,
                   const float* a, int lda, const float* x, int incx,
                   const float* beta, float* y, int incy) {
  COLO_BLAS(cublasSgemv_v2,
            blas::Gemv(handle, "cublasSgemv", trans, m, n, alpha, lda, incx,
                       beta, incy, kDataR32F),
            handle, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}
int cublasDgemv_v2(void* handle, int trans, int m, int n, const double* alpha,
                   const double* a, int lda, const double* x, int incx,
                   const double* beta, double* y, int incy) {
  COLO_BLAS(cublasDgemv_v2,
            blas::Gemv(handle, "cublasDgemv", trans, m, n, alpha, lda, incx,
                       beta, incy, kDataR64F),
            handle, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}
