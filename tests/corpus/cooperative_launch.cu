// A grid-wide sync needs cudaLaunchCooperativeKernel, which colo refuses
// (it cannot keep every block of such a grid resident beside other
// clients): the launch returns error 801 and the program says so.
#include <cooperative_groups.h>

#include "corpus_check.h"

namespace cg = cooperative_groups;

__global__ void TwoPhase(int* p) {
  cg::grid_group grid = cg::this_grid();
  p[grid.thread_rank()] = 1;
  grid.sync();
  if (grid.thread_rank() == 0) p[0] = 2;
}

int main() {
  int supported = 0;
  CUDA_CHECK(
      cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeLaunch, 0));
  int* p;
  CUDA_CHECK(cudaMalloc(&p, 64 * sizeof(int)));
  void* args[] = {&p};
  CUDA_CHECK(cudaLaunchCooperativeKernel((void*)TwoPhase, dim3(2), dim3(32),
                                         args, 0, 0));
  CUDA_CHECK(cudaDeviceSynchronize());
  return CorpusOk();
}
