// cuBLASLt entry points (shim/blas_lt.h): the real cuBLASLt in passthrough
// and gate mode, the interposer's own handles, descriptors and matmul
// launches in sim mode.
#include "shim/blas_forwarding.h"
#include "shim/blas_lt.h"

namespace lt = colo::shim::blas_lt;
using colo::cuda::LtHeuristicResult;
using Kind = colo::shim::blas_lt::Kind;

namespace {

lt::MatmulArgs Args(void* handle, void* desc, void* a, void* b, void* c,
                    void* d, const void* alpha = nullptr,
                    const void* beta = nullptr) {
  lt::MatmulArgs m;
  m.handle = handle, m.desc = desc;
  m.a = a, m.b = b, m.c = c, m.d = d;
  m.alpha = alpha, m.beta = beta;
  return m;
}

lt::MatmulArgs WithData(lt::MatmulArgs m, const void* a, const void* b,
                        const void* c, void* d) {
  m.a_data = a, m.b_data = b, m.c_data = c, m.d_data = d;
  return m;
}

}  // namespace

int cublasLtCreate(void** handle) {
  COLO_BLAS(cublasLtCreate, lt::Create(handle), handle);
}
int cublasLtDestroy(void* handle) {
  COLO_BLAS(cublasLtDestroy, lt::Destroy(handle), handle);
}

int cublasLtMatmulDescCreate(void** desc, int compute_type, int scale_type) {
  COLO_BLAS(cublasLtMatmulDescCreate,
            lt::MatmulDescCreate(desc, compute_type, scale_type), desc,
            compute_type, scale_type);
}
int cublasLtMatmulDescInit_internal(void* desc, size_t size, int compute_type,
                                    int scale_type) {
  COLO_BLAS(cublasLtMatmulDescInit_internal,
            lt::MatmulDescInit(desc, size, compute_type, scale_type), desc,
            size, compute_type, scale_type);
}
int cublasLtMatmulDescDestroy(void* desc) {
  COLO_BLAS(cublasLtMatmulDescDestroy,
            lt::DestroyDescriptor(Kind::kMatmul, desc), desc);
}
int cublasLtMatmulDescSetAttribute(void* desc, int attr, const void* buf,
                                   size_t size) {
  COLO_BLAS(cublasLtMatmulDescSetAttribute,
            lt::SetAttribute(Kind::kMatmul, desc, attr, buf, size), desc, attr,
            buf, size);
}
int cublasLtMatmulDescGetAttribute(void* desc, int attr, void* buf, size_t size,
                                   size_t* written) {
  COLO_BLAS(cublasLtMatmulDescGetAttribute,
            lt::GetAttribute(Kind::kMatmul, desc, attr, buf, size, written),
            desc, attr, buf, size, written);
}

int cublasLtMatrixLayoutCreate(void** layout, int type, uint64_t rows,
                               uint64_t cols, int64_t ld) {
  COLO_BLAS(cublasLtMatrixLayoutCreate,
            lt::MatrixLayoutCreate(layout, type, rows, cols, ld), layout, type,
            rows, cols, ld);
}
int cublasLtMatrixLayoutInit_internal(void* layout, size_t size, int type,
                                      uint64_t rows, uint64_t cols,
                                      int64_t ld) {
  COLO_BLAS(cublasLtMatrixLayoutInit_internal,
            lt::MatrixLayoutInit(layout, size, type, rows, cols, ld), layout,
            size, type, rows, cols, ld);
}
int cublasLtMatrixLayoutDestroy(void* layout) {
  COLO_BLAS(cublasLtMatrixLayoutDestroy,
            lt::DestroyDescriptor(Kind::kLayout, layout), layout);
}
int cublasLtMatrixLayoutSetAttribute(void* layout, int attr, const void* buf,
                                     size_t size) {
  COLO_BLAS(cublasLtMatrixLayoutSetAttribute,
            lt::SetAttribute(Kind::kLayout, layout, attr, buf, size), layout,
            attr, buf, size);
}
int cublasLtMatrixLayoutGetAttribute(void* layout, int attr, void* buf,
                                     size_t size, size_t* written) {
  COLO_BLAS(cublasLtMatrixLayoutGetAttribute,
            lt::GetAttribute(Kind::kLayout, layout, attr, buf, size, written),
            layout, attr, buf, size, written);
}

int cublasLtMatmulPreferenceCreate(void** pref) {
  COLO_BLAS(cublasLtMatmulPreferenceCreate, lt::PreferenceCreate(pref), pref);
}
int cublasLtMatmulPreferenceInit_internal(void* pref, size_t size) {
  COLO_BLAS(cublasLtMatmulPreferenceInit_internal,
            lt::PreferenceInit(pref, size), pref, size);
}
int cublasLtMatmulPreferenceDestroy(void* pref) {
  COLO_BLAS(cublasLtMatmulPreferenceDestroy,
            lt::DestroyDescriptor(Kind::kPreference, pref), pref);
}
int cublasLtMatmulPreferenceSetAttribute(void* pref, int attr, const void* buf,
                                         size_t size) {
  COLO_BLAS(cublasLtMatmulPreferenceSetAttribute,
            lt::SetAttribute(Kind::kPreference, pref, attr, buf, size), pref,
            attr, buf, size);
}
int cublasLtMatmulPreferenceGetAttribute(void* pref, int attr, void* buf,
                                         size_t size, size_t* written) {
  COLO_BLAS(cublasLtMatmulPreferenceGetAttribute,
            lt::GetAttribute(Kind::kPreference, pref, attr, buf, size, written),
            pref, attr, buf, size, written);
}

int cublasLtMatmulAlgoGetHeuristic(void* handle, void* desc, void* a, void* b,
                                   void* c, void* d, void* pref, int requested,
                                   void* results, int* returned) {
  COLO_BLAS(
      cublasLtMatmulAlgoGetHeuristic,
      lt::AlgoGetHeuristic(Args(handle, desc, a, b, c, d), pref, requested,
                           static_cast<LtHeuristicResult*>(results), returned),
      handle, desc, a, b, c, d, pref, requested, results, returned);
}
int cublasLtMatmulAlgoCheck(void* handle, void* desc, void* a, void* b, void* c,
                            void* d, const void* algo, void* result) {
  COLO_BLAS(cublasLtMatmulAlgoCheck,
            lt::AlgoCheck(Args(handle, desc, a, b, c, d), algo,
                          static_cast<LtHeuristicResult*>(result)),
            handle, desc, a, b, c, d, algo, result);
}
int cublasLtMatmul(void* handle, void* desc, const void* alpha, const void* a,
                   void* a_layout, const void* b, void* b_layout,
                   const void* beta, const void* c, void* c_layout, void* d,
                   void* d_layout, const void* algo, void* workspace,
                   size_t workspace_bytes, void* stream) {
  COLO_BLAS(cublasLtMatmul,
            lt::Matmul(WithData(Args(handle, desc, a_layout, b_layout, c_layout,
                                     d_layout, alpha, beta),
                                a, b, c, d),
                       stream),
            handle, desc, alpha, a, a_layout, b, b_layout, beta, c, c_layout, d,
            d_layout, algo, workspace, workspace_bytes, stream);
}

// Refused in sim mode (blas_lt.h).
int cublasLtMatmulAlgoGetIds(void* handle, int compute_type, int scale_type,
                             int a_type, int b_type, int c_type, int d_type,
                             int requested, int* ids, int* returned) {
  COLO_BLAS(cublasLtMatmulAlgoGetIds, colo::cuda::kBlasNotSupported, handle,
            compute_type, scale_type, a_type, b_type, c_type, d_type, requested,
            ids, returned);
}
int cublasLtMatmulAlgoInit(void* handle, int compute_type, int scale_type,
                           int a_type, int b_type, int c_type, int d_type,
                           int algo_id, void* algo) {
  COLO_BLAS(cublasLtMatmulAlgoInit, colo::cuda::kBlasNotSupported, handle,
            compute_type, scale_type, a_type, b_type, c_type, d_type, algo_id,
            algo);
}
int cublasLtMatrixTransform(void* handle, void* desc, const void* alpha,
                            const void* a, void* a_layout, const void* beta,
                            const void* b, void* b_layout, void* c,
                            void* c_layout, void* stream) {
  COLO_BLAS(cublasLtMatrixTransform, colo::cuda::kBlasNotSupported, handle,
            desc, alpha, a, a_layout, beta, b, b_layout, c, c_layout, stream);
}
