// CudaGpu: the driver probe (Unavailable "no CUDA device: ..." without a
// GPU; a valid spec with one) and the gate device, which never touches the
// driver and so is tested everywhere: launches are granted through the
// sink in their form (whole; slices and persistent workers only for a
// kernel the client can cut), retreats go to the sink, completions come
// back by launch id, a persistent one with where its workers stopped.
#include "cuda/cuda_gpu.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
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
  GrantForm form;
};
class RecordingSink : public GateSink {
 public:
  void Grant(ClientId client, uint64_t tag, LaunchId id,
             const GrantForm& form) override {
    grants.push_back({client, tag, id, form});
  }
  void Retreat(ClientId, uint64_t, LaunchId id) override {
    retreats.push_back(id);
  }
  std::vector<struct Grant> grants;
  std::vector<LaunchId> retreats;
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

TEST_F(GateDeviceTest, AKernelTheClientCannotCutRunsWholeOnly) {
  kernel_.transformable = false;
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

TEST_F(GateDeviceTest, SlicesAreGrantedAsTheirBlockRange) {
  // 100 blocks cut at 40 and 80: [0, 40), [40, 80), [80, 100).
  TimePoint done = TimeZero();
  for (int64_t first : {0, 40, 80}) {
    LaunchRequest r = Request(1, 9, &done);
    r.first_block = first;
    r.end_block = std::min<int64_t>(first + 40, 100);
    Result<LaunchId> id = gpu_.Submit(std::move(r));
    ASSERT_TRUE(id.ok()) << id.status().message();
    const GrantForm& f = sink_.grants.back().form;
    EXPECT_EQ(f.kind, GrantForm::kSlice);
    EXPECT_EQ(f.first_block, first);
    EXPECT_EQ(f.end_block, std::min<int64_t>(first + 40, 100));
    ASSERT_TRUE(gpu_.Complete(*id).ok());
  }
  // Empty, backwards or past the grid: refused, nothing granted.
  for (auto [first, end] :
       {std::pair<int64_t, int64_t>{40, 40}, {50, 10}, {90, 101}, {-1, 10}}) {
    LaunchRequest r = Request(1, 9, &done);
    r.first_block = first;
    r.end_block = end;
    EXPECT_EQ(gpu_.Submit(std::move(r)).status().code(),
              StatusCode::kInvalidArgument)
        << first << " " << end;
  }
  EXPECT_EQ(sink_.grants.size(), 3u);
}

TEST_F(GateDeviceTest, PersistentWorkersRetreatAndReportWhereTheyStopped) {
  TimePoint done = TimeZero(), retreated_at = TimeZero();
  int64_t resumed_from = -1;
  auto persistent = [&](int64_t first) {
    LaunchRequest r = Request(1, 5, &done);
    r.first_block = first;
    r.persistent_workers = 16;
    r.on_retreated = [&](LaunchId, TimePoint t, int64_t next) {
      retreated_at = t;
      resumed_from = next;
    };
    return gpu_.Submit(std::move(r));
  };
  Result<LaunchId> id = persistent(0);
  ASSERT_TRUE(id.ok()) << id.status().message();
  EXPECT_EQ(sink_.grants.back().form.kind, GrantForm::kPersistent);
  EXPECT_EQ(sink_.grants.back().form.workers, 16);
  EXPECT_EQ(sink_.grants.back().form.end_block, 100);
  EXPECT_TRUE(gpu_.IsPersistent(*id));
  // Asked twice, the client is told once.
  ASSERT_TRUE(gpu_.Retreat(*id).ok());
  ASSERT_TRUE(gpu_.Retreat(*id).ok());
  EXPECT_EQ(sink_.retreats, std::vector<LaunchId>{*id});
  // A stop outside [0, 100] is nonsense: refused, the launch still runs.
  EXPECT_EQ(gpu_.Complete(*id, 101).code(), StatusCode::kInvalidArgument);
  clock_.AdvanceTo(TimeZero() + Microseconds(30));
  ASSERT_TRUE(gpu_.Complete(*id, 37).ok());
  EXPECT_EQ(resumed_from, 37);
  EXPECT_EQ(retreated_at, TimeZero() + Microseconds(30));
  EXPECT_EQ(done, TimeZero());  // not complete: blocks 37..99 remain.
  // Resumed from 37; stopping before 37 is nonsense; at 100 it is done.
  Result<LaunchId> rest = persistent(37);
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(sink_.grants.back().form.first_block, 37);
  EXPECT_EQ(gpu_.Complete(*rest, 36).code(), StatusCode::kInvalidArgument);
  clock_.AdvanceTo(TimeZero() + Microseconds(90));
  ASSERT_TRUE(gpu_.Complete(*rest, 100).ok());
  EXPECT_EQ(done, TimeZero() + Microseconds(90));
  // Without its persistent form, or without a way to resume: refused.
  kernel_.persistent_form = false;
  EXPECT_EQ(persistent(0).status().code(), StatusCode::kInvalidArgument);
  kernel_.persistent_form = true;
  LaunchRequest no_resume = Request(1, 6, &done);
  no_resume.persistent_workers = 4;
  EXPECT_EQ(gpu_.Submit(std::move(no_resume)).status().code(),
            StatusCode::kInvalidArgument);
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
  EXPECT_TRUE(sink_.retreats.empty());
  Result<KernelTiming> t = gpu_.ProfileKernel(kernel_);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->blocks, 100);
  EXPECT_EQ(t->block_time, Microseconds(7));
  EXPECT_EQ(gpu_.spec().name, GpuPreset("A100").value().name);
}

}  // namespace
}  // namespace colo::cuda
