// cuBLAS-XT (multi-GPU, host-memory BLAS) is refused by colo: it drives
// devices from its own threads in ways colo cannot gate. Creating the
// handle returns CUBLAS_STATUS_NOT_SUPPORTED, announced, instead of
// crashing inside cuBLAS.
#include <cublasXt.h>

#include <cstdio>

int main() {
  cublasXtHandle_t h = nullptr;
  cublasStatus_t st = cublasXtCreate(&h);
  if (st != CUBLAS_STATUS_SUCCESS) {
    std::printf("cublas_error=%d at line %d\n", (int)st, __LINE__);
    return 3;
  }
  cublasXtDestroy(h);
  std::printf("corpus ok\n");
  return 0;
}
