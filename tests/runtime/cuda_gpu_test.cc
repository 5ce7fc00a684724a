// CudaGpu today: a probe of the driver. Without a GPU (CI) it reports
// Unavailable with the reason; with one, FailedPrecondition (gate mode is not
// implemented). Either way it never crashes and never returns a Device.
#include "cuda/cuda_gpu.h"

#include <gtest/gtest.h>

namespace colo::cuda {
namespace {

TEST(CudaGpuTest, ProbeSaysWhyThereIsNoUsableGpu) {
  Result<CudaProbe> probe = ProbeCudaDriver();
  if (probe.ok()) {
    EXPECT_GT(probe->device_count, 0);
    Result<std::unique_ptr<Device>> gpu = OpenCudaGpu(0);
    EXPECT_EQ(gpu.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(gpu.status().message().find("gate mode is not implemented"),
              std::string::npos);
    return;
  }
  EXPECT_EQ(probe.status().code(), StatusCode::kUnavailable);
  EXPECT_FALSE(probe.status().message().empty());
  EXPECT_EQ(OpenCudaGpu(0).status().code(), StatusCode::kUnavailable);
}

TEST(CudaGpuTest, AProbedGpuThatDoesNotExistIsBadInput) {
  Result<CudaProbe> probe = ProbeCudaDriver();
  if (!probe.ok()) GTEST_SKIP() << "needs a GPU: " << probe.status().message();
  EXPECT_EQ(OpenCudaGpu(probe->device_count).status().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace colo::cuda
