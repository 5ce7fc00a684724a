// Divergence and early returns for the interpreter's tests. Every thread
// clears its shared slot and meets the others at a first barrier; threads
// past n, and threads whose input is negative (after writing -1), return;
// the rest count the Collatz steps of their input (a loop whose trip count
// differs per lane, at most 1000), stage the count, meet at a second
// barrier that the returned threads no longer hold, and write
// steps * 1000 + the right neighbour's staged count (0 for a returned
// thread or past the block's end).
extern "C" __global__ void early_return(const int* in, int* out, int n) {
  __shared__ int staged[1024];
  int t = threadIdx.x;
  int g = blockIdx.x * blockDim.x + t;
  staged[t] = 0;
  __syncthreads();
  if (g >= n) return;
  int v = in[g];
  if (v < 0) {
    out[g] = -1;
    return;
  }
  int steps = 0;
  for (unsigned x = v; x > 1 && steps < 1000; ++steps)
    x = (x & 1) ? 3 * x + 1 : x / 2;
  staged[t] = steps;
  __syncthreads();
  int right = t + 1 < static_cast<int>(blockDim.x) ? staged[t + 1] : 0;
  out[g] = steps * 1000 + right;
}
