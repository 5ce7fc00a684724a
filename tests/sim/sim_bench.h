// sim_bench.h — a simulated GPU on its own event loop, for tests that submit
// kernels to a SimGpu directly and read when they end.
#pragma once

#include <gtest/gtest.h>

#include <utility>

#include "colo/gpu_spec.h"
#include "sim/event_loop.h"
#include "sim/sim_gpu.h"

namespace colo::sim::testing {

struct SimBench {
  EventLoop loop;
  SimGpu gpu;
  explicit SimBench(const GpuSpec& spec, SimGpuOptions o = {})
      : gpu(spec, loop.clock(), o) {
    loop.AddModel(&gpu);
  }
  // Submits k for `client` now; records its completion time in *done.
  void Launch(const KernelDesc& k, ClientId client, TimePoint* done,
              int priority = 0) {
    LaunchRequest r;
    r.client = client;
    r.kernel = &k;
    r.priority = priority;
    r.on_complete = [done](LaunchId, TimePoint t) { *done = t; };
    ASSERT_TRUE(gpu.Submit(std::move(r)).ok());
  }
};

}  // namespace colo::sim::testing
