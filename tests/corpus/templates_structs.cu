// C++ on the device: a templated kernel instantiated for int and double, a
// functor argument, a struct passed by value, and a __device__ function
// with recursion through a loop.
#include "corpus_check.h"

struct Params {
  int offset;
  double scale;
  int pad[3];
};

template <typename T, typename Op>
__global__ void Apply(const T* in, T* out, int n, Params p, Op op) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = op(in[i]) * (T)p.scale + (T)p.offset + (T)p.pad[2];
}

struct Cube {
  template <typename T>
  __device__ T operator()(T x) const {
    return x * x * x;
  }
};

__device__ int Fib(int k) {
  int a = 0, b = 1;
  for (int i = 0; i < k; ++i) {
    int t = a + b;
    a = b;
    b = t;
  }
  return a;
}
__global__ void Fibs(int* out) { out[threadIdx.x] = Fib(threadIdx.x); }

int main() {
  const int n = 100;
  int *ii, *io, *fib;
  double *di, *dout;
  CUDA_CHECK(cudaMallocManaged(&ii, n * sizeof(int)));
  CUDA_CHECK(cudaMallocManaged(&io, n * sizeof(int)));
  CUDA_CHECK(cudaMallocManaged(&di, n * sizeof(double)));
  CUDA_CHECK(cudaMallocManaged(&dout, n * sizeof(double)));
  CUDA_CHECK(cudaMallocManaged(&fib, 40 * sizeof(int)));
  for (int i = 0; i < n; ++i) ii[i] = i - 50, di[i] = 0.5 * i;
  Params p{3, 2.0, {0, 0, 1}};
  Apply<<<1, 128>>>(ii, io, n, p, Cube());
  Apply<<<1, 128>>>(di, dout, n, p, Cube());
  Fibs<<<1, 40>>>(fib);
  CUDA_CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) {
    EXPECT(io[i] == (i - 50) * (i - 50) * (i - 50) * 2 + 4);
    EXPECT(dout[i] == (0.5 * i) * (0.5 * i) * (0.5 * i) * 2.0 + 4.0);
  }
  int a = 0, b = 1;
  for (int k = 0; k < 40; ++k) {
    EXPECT(fib[k] == a);
    int t = a + b;
    a = b;
    b = t;
  }
  return CorpusOk();
}
