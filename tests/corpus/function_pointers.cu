// Function pointers in device code: a __device__ table of operations
// indexed per thread (the lanes of a warp call different functions at
// once), a pointer chosen in one kernel and stored for another, and a
// pointer read back to the host with cudaMemcpyFromSymbol and passed to a
// kernel as an argument, as plug-in style CUDA code does.
#include <vector>

#include "corpus_check.h"

typedef float (*UnaryOp)(float);

__device__ float Square(float x) { return x * x; }
__device__ float Negate(float x) { return -x; }
__device__ float Halve(float x) { return 0.5f * x; }
__device__ float AddOne(float x) { return x + 1.0f; }

__device__ UnaryOp g_table[4] = {Square, Negate, Halve, AddOne};
__device__ UnaryOp g_chosen;

__noinline__ __device__ float Apply(UnaryOp op, float x) { return op(x); }

__global__ void ApplyTable(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = Apply(g_table[i % 4], in[i]);
}

__global__ void Choose(int which) { g_chosen = g_table[which]; }

__global__ void ApplyChosen(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = g_chosen(in[i]);
}

__global__ void ApplyArgument(UnaryOp op, const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = op(in[i]);
}

float HostOp(int which, float x) {
  switch (which) {
    case 0:
      return x * x;
    case 1:
      return -x;
    case 2:
      return 0.5f * x;
    default:
      return x + 1.0f;
  }
}

int main() {
  const int n = 3000;
  std::vector<float> in(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = 0.25f * (i % 101) - 7.0f;
  float *d_in, *d_out;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  CUDA_CHECK(
      cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  const int threads = 128, blocks = (n + threads - 1) / threads;

  ApplyTable<<<blocks, threads>>>(d_in, d_out, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(
      cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) EXPECT(out[i] == HostOp(i % 4, in[i]));

  for (int which = 0; which < 4; ++which) {
    Choose<<<1, 1>>>(which);
    ApplyChosen<<<blocks, threads>>>(d_in, d_out, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(float),
                          cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) EXPECT(out[i] == HostOp(which, in[i]));
  }

  UnaryOp table[4];
  CUDA_CHECK(cudaMemcpyFromSymbol(table, g_table, sizeof(table)));
  ApplyArgument<<<blocks, threads>>>(table[2], d_in, d_out, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(
      cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) EXPECT(out[i] == HostOp(2, in[i]));

  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  return CorpusOk();
}
