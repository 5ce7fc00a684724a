// Stream attributes as inference servers set them: an access-policy window
// for L2 persistence and the synchronization policy, read back; managed
// memory attached to a stream (cudaStreamAttachMemAsync); work still right.
#include "corpus_check.h"

__global__ void Inc(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) ++p[i];
}

int main() {
  const int n = 1024;
  int* p;
  CUDA_CHECK(cudaMallocManaged(&p, n * sizeof(int)));
  for (int i = 0; i < n; ++i) p[i] = i;
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  cudaStreamAttrValue v = {};
  v.accessPolicyWindow.base_ptr = p;
  v.accessPolicyWindow.num_bytes = n * sizeof(int);
  v.accessPolicyWindow.hitRatio = 0.6f;
  v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  CUDA_CHECK(
      cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
  cudaStreamAttrValue sync = {};
  sync.syncPolicy = cudaSyncPolicyBlockingSync;
  CUDA_CHECK(cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy,
                                    &sync));
  cudaStreamAttrValue back = {};
  CUDA_CHECK(
      cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &back));
  EXPECT(back.accessPolicyWindow.base_ptr == p);
  EXPECT(back.accessPolicyWindow.num_bytes == n * sizeof(int));
  EXPECT(back.accessPolicyWindow.hitRatio == 0.6f);
  CUDA_CHECK(cudaStreamGetAttribute(s, cudaStreamAttributeSynchronizationPolicy,
                                    &back));
  EXPECT(back.syncPolicy == cudaSyncPolicyBlockingSync);
  CUDA_CHECK(cudaStreamAttachMemAsync(s, p, 0, cudaMemAttachSingle));
  Inc<<<n / 128, 128, 0, s>>>(p, n);
  CUDA_CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i) EXPECT(p[i] == i + 1);
  CUDA_CHECK(cudaStreamDestroy(s));
  return CorpusOk();
}
