// The CUDA 13 structs the interposer edits in gate mode (cuda/cuda_abi.h),
// checked against the toolkit's own headers.
#include "cuda/cuda_abi.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>

namespace colo::cuda {
namespace {

TEST(CudaAbiTest, HidingUngatedFeaturesClearsThemAndNothingElse) {
  cudaDeviceProp real;
  std::memset(&real, 0, sizeof(real));
  std::strcpy(real.name, "NVIDIA H100 80GB HBM3");
  real.multiProcessorCount = 132;
  real.memoryPoolsSupported = 1;
  real.cooperativeLaunch = 1;
  real.managedMemory = 1;
  real.clusterLaunch = 1;
  cudaDeviceProp hidden = real;
  HideUngatedFeatures(&hidden);
  EXPECT_EQ(hidden.memoryPoolsSupported, 0);
  EXPECT_EQ(hidden.cooperativeLaunch, 0);
  hidden.memoryPoolsSupported = 1;
  hidden.cooperativeLaunch = 1;
  EXPECT_EQ(std::memcmp(&hidden, &real, sizeof(real)), 0)
      << "only the two fields change";
}

TEST(CudaAbiTest, TheUngatedAttributesAreThePoolAndCooperativeOnes) {
  EXPECT_TRUE(IsUngatedFeatureAttribute(cudaDevAttrMemoryPoolsSupported));
  EXPECT_TRUE(IsUngatedFeatureAttribute(cudaDevAttrCooperativeLaunch));
  EXPECT_FALSE(IsUngatedFeatureAttribute(cudaDevAttrMultiProcessorCount));
  EXPECT_FALSE(IsUngatedFeatureAttribute(cudaDevAttrManagedMemory));
}

TEST(CudaAbiTest, ACooperativeLaunchIsFoundAmongTheAttributes) {
  cudaLaunchAttribute attrs[2] = {};
  attrs[0].id = cudaLaunchAttributePriority;
  attrs[0].val.priority = 1;
  attrs[1].id = cudaLaunchAttributeCooperative;
  attrs[1].val.cooperative = 1;
  cudaLaunchConfig_t config = {};
  EXPECT_FALSE(AsksForCooperativeLaunch(&config)) << "no attributes";
  config.attrs = attrs;
  config.numAttrs = 1;
  EXPECT_FALSE(AsksForCooperativeLaunch(&config)) << "a priority only";
  config.numAttrs = 2;
  EXPECT_TRUE(AsksForCooperativeLaunch(&config));
  attrs[1].val.cooperative = 0;
  EXPECT_FALSE(AsksForCooperativeLaunch(&config)) << "asked not to be";
}

TEST(CudaAbiTest, FlagsAndErrorsAreTheToolkitsValues) {
  EXPECT_EQ(kStreamNonBlocking, static_cast<unsigned>(cudaStreamNonBlocking));
  EXPECT_EQ(kEventDisableTiming, static_cast<unsigned>(cudaEventDisableTiming));
  EXPECT_EQ(kCudaErrorStreamCaptureUnsupported,
            static_cast<int>(cudaErrorStreamCaptureUnsupported));
}

}  // namespace
}  // namespace colo::cuda
