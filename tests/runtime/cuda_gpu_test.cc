// CudaGpu: the driver probe (Unavailable "no CUDA device: ..." without a
// GPU; a valid spec with one) and the gate device, which never touches the
// driver and so is tested everywhere: whole launches are granted through
// the sink, completions come back by launch id.
#include "cuda/cuda_gpu.h"

#include <gtest/gtest.h>

#include <vector>

#include "colo/clock.h"

namespace colo::cuda {
namespace {

TEST(CudaGpuTest, ProbeSaysWhyThereIsNoUsableGpu) {
  Result<CudaProbe> probe = ProbeCudaDriver();
  if (probe.ok()) {
    EXPECT_GT(probe->device_count, 0);
    Result<GpuSpec> spec = QueryCudaGpuSpec(0);
    ASSERT_TRUE(spec.ok()) << spec.status().message();
    EXPECT_GT(spec->sm_count, 0);
    EXPECT_TRUE(spec->Validate().ok());
    return;
  }
  EXPECT_EQ(probe.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(probe.status().message().rfind("no CUDA device: ", 0), 0u)
      << probe.status().message();
  Result<GpuSpec> spec = QueryCudaGpuSpec(0);
  EXPECT_EQ(spec.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(spec.status().message().rfind("no CUDA device: ", 0), 0u);
}

TEST(CudaGpuTest, AProbedGpuThatDoesNotExistIsBadInput) {
  Result<CudaProbe> probe = ProbeCudaDriver();
  if (!probe.ok()) GTEST_SKIP() << "needs a GPU: " << probe.status().message();
  EXPECT_EQ(QueryCudaGpuSpec(probe->device_count).status().code(),
            StatusCode::kInvalidArgument);
}

struct Grant {
  ClientId client;
  uint64_t tag;
  LaunchId id;
};
class RecordingSink : public GateSink {
 public:
  void Grant(ClientId client, uint64_t tag, LaunchId id) override {
    grants.push_back({client, tag, id});
  }
  std::vector<struct Grant> grants;
};

class GateDeviceTest : public ::testing::Test {
 protected:
  GateDeviceTest()
      : gpu_(GpuPreset("A100").value(), clock_, sink_,
             [](const KernelDesc& k) -> Result<KernelTiming> {
               KernelTiming t;
               t.blocks = k.Blocks();
               t.blocks_per_wave = 864;
               t.block_time = Microseconds(7);
               return t;
             }) {
    kernel_.name = "k";
    kernel_.grid = Dim3{100, 1, 1};
    kernel_.block = Dim3{256, 1, 1};
    kernel_.solo_duration = Microseconds(10);
  }
  LaunchRequest Request(ClientId client, uint64_t tag, TimePoint* done_at) {
    LaunchRequest r;
    r.client = client;
    r.kernel = &kernel_;
    r.tag = tag;
    r.on_complete = [done_at](LaunchId, TimePoint t) { *done_at = t; };
    return r;
  }

  SimClock clock_;
  RecordingSink sink_;
  CudaGpu gpu_;
  KernelDesc kernel_;
};

TEST_F(GateDeviceTest, AWholeLaunchIsGrantedAndEndsWhenTheClientSaysSo) {
  TimePoint done = TimeZero() - Seconds(1);
  Result<LaunchId> id = gpu_.Submit(Request(3, 77, &done));
  ASSERT_TRUE(id.ok()) << id.status().message();
  ASSERT_EQ(sink_.grants.size(), 1u);
  EXPECT_EQ(sink_.grants[0].client, 3);
  EXPECT_EQ(sink_.grants[0].tag, 77u);
  EXPECT_EQ(sink_.grants[0].id, *id);
  EXPECT_EQ(gpu_.running(), 1u);
  clock_.AdvanceTo(TimeZero() + Microseconds(250));
  EXPECT_EQ(done, TimeZero() - Seconds(1));  // not before the report.
  ASSERT_TRUE(gpu_.Complete(*id).ok());
  EXPECT_EQ(done, TimeZero() + Microseconds(250));
  EXPECT_EQ(gpu_.running(), 0u);
  // A second report of the same launch, or of one never granted: NotFound.
  EXPECT_EQ(gpu_.Complete(*id).code(), StatusCode::kNotFound);
  EXPECT_EQ(gpu_.Complete(*id + 100).code(), StatusCode::kNotFound);
}

TEST_F(GateDeviceTest, SlicesAndPersistentLaunchesAreRefused) {
  TimePoint done;
  LaunchRequest slice = Request(1, 1, &done);
  slice.end_block = 50;
  EXPECT_EQ(gpu_.Submit(std::move(slice)).status().code(),
            StatusCode::kInvalidArgument);
  LaunchRequest tail = Request(1, 2, &done);
  tail.first_block = 10;
  EXPECT_EQ(gpu_.Submit(std::move(tail)).status().code(),
            StatusCode::kInvalidArgument);
  LaunchRequest persistent = Request(1, 3, &done);
  persistent.persistent_workers = 8;
  EXPECT_EQ(gpu_.Submit(std::move(persistent)).status().code(),
            StatusCode::kInvalidArgument);
  LaunchRequest whole_range = Request(1, 4, &done);
  whole_range.end_block = kernel_.Blocks();  // the whole grid, spelled out.
  EXPECT_TRUE(gpu_.Submit(std::move(whole_range)).ok());
  EXPECT_EQ(sink_.grants.size(), 1u);
  EXPECT_EQ(sink_.grants[0].tag, 4u);
}

TEST_F(GateDeviceTest, AnAbandonedClientsLaunchesEndAndOnlyTheirs) {
  TimePoint a = TimeZero(), b = TimeZero(), c = TimeZero();
  ASSERT_TRUE(gpu_.Submit(Request(1, 1, &a)).ok());
  ASSERT_TRUE(gpu_.Submit(Request(2, 2, &b)).ok());
  ASSERT_TRUE(gpu_.Submit(Request(1, 3, &c)).ok());
  clock_.AdvanceTo(TimeZero() + Milliseconds(1));
  EXPECT_EQ(gpu_.AbandonClient(1), 2);
  EXPECT_EQ(a, TimeZero() + Milliseconds(1));
  EXPECT_EQ(c, TimeZero() + Milliseconds(1));
  EXPECT_EQ(b, TimeZero());
  EXPECT_EQ(gpu_.running(), 1u);
  EXPECT_EQ(gpu_.AbandonClient(1), 0);
}

TEST_F(GateDeviceTest, RetreatAndProfile) {
  TimePoint done;
  Result<LaunchId> id = gpu_.Submit(Request(1, 1, &done));
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(gpu_.Retreat(*id).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(gpu_.Retreat(*id + 1).code(), StatusCode::kNotFound);
  Result<KernelTiming> t = gpu_.ProfileKernel(kernel_);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->blocks, 100);
  EXPECT_EQ(t->block_time, Microseconds(7));
  EXPECT_EQ(gpu_.spec().name, GpuPreset("A100").value().name);
}

}  // namespace
}  // namespace colo::cuda
