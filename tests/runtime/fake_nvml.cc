// A stand-in libnvidia-ml.so.1 for tests/runtime/nvml_reader_test: the NVML
// functions colod's NvmlReader calls, answering figures the test can
// predict, on a machine without a GPU or a driver.
//
//  * nvmlDeviceGetUtilizationRates: gpu 88, memory 7; memory info 80 GiB
//    total, 3 GiB used.
//  * GPM (absent when built with FAKE_NVML_NO_GPM): a sample records the
//    sequence number of the nvmlGpmSampleGet call that filled it (1, 2,
//    ...). nvmlGpmMetricsGet answers SM utilization 40 + the first sample's
//    number, SM occupancy 20 + the second's, and NVML_ERROR_NOT_SUPPORTED
//    for every other metric. The environment variable
//    FAKE_NVML_GPM_UNSUPPORTED=1 makes nvmlGpmQueryDeviceSupport say the
//    device has no GPM.
//  * fake_nvml_live_samples(): samples allocated and not yet freed.
#include <cstdlib>
#include <cstring>

namespace {

constexpr int kSuccess = 0;
constexpr int kInvalidArgument = 2;
constexpr int kNotSupported = 3;

struct Sample {
  int sequence = 0;
};
int g_live_samples = 0;
int g_device_token = 0;

struct GpmMetric {
  unsigned metric_id;
  int nvml_return;
  double value;
  char* names[3];
};
struct GpmMetricsGet {
  unsigned version;
  unsigned num_metrics;
  Sample* sample1;
  Sample* sample2;
  GpmMetric metrics[512];  // num_metrics of them used.
};
struct GpmSupport {
  unsigned version;
  unsigned is_supported_device;
};

}  // namespace

extern "C" {

int nvmlInit_v2() { return kSuccess; }
int nvmlShutdown() { return kSuccess; }

int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** device) {
  if (index != 0) return kInvalidArgument;
  *device = &g_device_token;
  return kSuccess;
}

int nvmlDeviceGetUtilizationRates(void* device, unsigned* rates) {
  if (device != &g_device_token) return kInvalidArgument;
  rates[0] = 88;  // gpu
  rates[1] = 7;   // memory
  return kSuccess;
}

int nvmlDeviceGetMemoryInfo(void* device, unsigned long long* memory) {
  if (device != &g_device_token) return kInvalidArgument;
  memory[0] = 80ULL << 30;            // total
  memory[2] = 3ULL << 30;             // used
  memory[1] = memory[0] - memory[2];  // free
  return kSuccess;
}

int fake_nvml_live_samples() { return g_live_samples; }

#ifndef FAKE_NVML_NO_GPM
namespace {
int g_sample_gets = 0;
}  // namespace

int nvmlGpmQueryDeviceSupport(void* device, GpmSupport* support) {
  if (device != &g_device_token || support->version != 1)
    return kInvalidArgument;
  const char* off = std::getenv("FAKE_NVML_GPM_UNSUPPORTED");
  support->is_supported_device = off && std::strcmp(off, "1") == 0 ? 0 : 1;
  return kSuccess;
}

int nvmlGpmSampleAlloc(Sample** sample) {
  *sample = new Sample();
  ++g_live_samples;
  return kSuccess;
}

int nvmlGpmSampleFree(Sample* sample) {
  delete sample;
  --g_live_samples;
  return kSuccess;
}

int nvmlGpmSampleGet(void* device, Sample* sample) {
  if (device != &g_device_token || sample == nullptr) return kInvalidArgument;
  sample->sequence = ++g_sample_gets;
  return kSuccess;
}

int nvmlGpmMetricsGet(GpmMetricsGet* request) {
  if (request->version != 1 || request->sample1 == nullptr ||
      request->sample2 == nullptr)
    return kInvalidArgument;
  for (unsigned i = 0; i < request->num_metrics; ++i) {
    GpmMetric& m = request->metrics[i];
    m.nvml_return = kSuccess;
    if (m.metric_id == 2) {
      m.value = 40 + request->sample1->sequence;
    } else if (m.metric_id == 3) {
      m.value = 20 + request->sample2->sequence;
    } else {
      m.nvml_return = kNotSupported;
    }
  }
  return kSuccess;
}
#endif

}  // extern "C"
