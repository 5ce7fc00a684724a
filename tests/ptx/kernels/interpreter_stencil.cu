// A 3-point stencil for the interpreter's tests: each block stages its
// slice of the input and a one-element halo on each side in dynamic shared
// memory, meets at a barrier, and writes
//   out[i] = fmaf(w2, x[i+1], fmaf(w1, x[i], w0 * x[i-1]))
// with x zero outside [0, n).
extern "C" __global__ void stencil3(const float* in, float* out, int n,
                                    float w0, float w1, float w2) {
  extern __shared__ float tile[];  // blockDim.x + 2 floats
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int l = threadIdx.x + 1;
  tile[l] = g < n ? in[g] : 0.0f;
  if (threadIdx.x == 0) tile[0] = (g > 0 && g - 1 < n) ? in[g - 1] : 0.0f;
  if (threadIdx.x == blockDim.x - 1) tile[l + 1] = g + 1 < n ? in[g + 1] : 0.0f;
  __syncthreads();
  if (g < n)
    out[g] = fmaf(w2, tile[l + 1], fmaf(w1, tile[l], w0 * tile[l - 1]));
}
