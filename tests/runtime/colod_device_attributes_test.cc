// Every device attribute of CUDA 13, through the runtime and the driver, in
// sim mode: tests/cuda_programs/device_attributes.cu under the interposer
// against colod with each preset GPU. CUDA programs choose a device and size
// their work by these (the usual device-selection helper asks
// cudaDevAttrComputeMode, which cudaDeviceProp no longer has).
#include <gtest/gtest.h>

#include "colo/gpu_spec.h"
#include "colod_harness.h"

namespace colo::testing {
namespace {

using std::chrono::seconds;

TEST(ColodIntegrationTest, EveryDeviceAttributeIsAnsweredAsThePropsSay) {
  // For each preset: none of the 147 numbers is refused by either API; the
  // attributes with a cudaDeviceProp field (over 100 of them) read that
  // field; the driver reads what the runtime reads; compute mode is
  // cudaComputeModeDefault (0), GPU overlap, concurrent kernels and ECC 1,
  // 64 KiB of constant memory; 0 and the enums' Max are
  // cudaErrorInvalidValue / CUDA_ERROR_INVALID_VALUE (1); cuDeviceGetName
  // gives the properties' name, cut to 4 characters in a 5-byte buffer.
  SKIP_WITHOUT_PROGRAMS();
  for (const char* gpu : {"V100", "A100", "H100"}) {
    SCOPED_TRACE(gpu);
    Result<GpuSpec> spec = GpuPreset(gpu);
    ASSERT_TRUE(spec.ok());
    TempDir dir;
    Colod colod(dir, std::string("gpu: ") + gpu + "\n");
    ASSERT_TRUE(colod.ready()) << colod.Log();
    auto p = colod.Run(dir, "attrs", {Program("device_attributes")});
    ASSERT_EQ(p->Wait(seconds(20)), 0) << p->Output();
    const std::string out = p->Output();
    EXPECT_EQ(ValueOf(out, "runtime_refused"), 0) << out;
    EXPECT_EQ(ValueOf(out, "driver_refused"), 0) << out;
    EXPECT_EQ(ValueOf(out, "first_refused"), 0) << out;
    EXPECT_GT(ValueOf(out, "compared"), 100) << out;
    EXPECT_EQ(ValueOf(out, "prop_mismatches"), 0) << out;
    EXPECT_EQ(ValueOf(out, "driver_mismatches"), 0) << out;
    const std::pair<const char*, long> expected[] = {
        {"compute_mode", 0},
        {"gpu_overlap", 1},
        {"concurrent_kernels", 1},
        {"ecc", 1},
        {"total_const_mem", 65536},
        {"cu_compute_mode_error", 0},
        {"cu_compute_mode", 0},
        {"undefined_runtime", 1},
        {"undefined_runtime_max", 1},
        {"undefined_driver", 1},
        {"name_error", 0},
        {"name_matches", 1},
        {"short_name_error", 0},
        {"short_name_len", 4},
        // The preset's SMs and compute capability (V100 7.0, A100 8.0,
        // H100 9.0), and its clock in kHz.
        {"attr_16", spec->sm_count},
        {"attr_75", std::string(gpu) == "V100"   ? 7
                    : std::string(gpu) == "A100" ? 8
                                                 : 9},
        {"attr_76", 0},
        {"attr_13", spec->sm_clock_mhz * 1000L}};
    for (const auto& [key, value] : expected)
      EXPECT_EQ(ValueOf(out, key), value) << key << "\n" << out;
  }
}

}  // namespace
}  // namespace colo::testing
