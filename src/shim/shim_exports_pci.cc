// The extern "C" layer for the device's PCI address: cudaDeviceGetPCIBusId,
// cudaDeviceGetByPCIBusId and their driver twins. Sim mode answers from
// the simulated GPU's address (device_queries.h); gate mode forwards, so a
// program sees the real GPU's.
#include "cuda/cuda_abi.h"
#include "shim/device_queries.h"
#include "shim/export_forwarding.h"
#include "shim/shim_state.h"

using colo::cuda::kCudaErrorSharedObjectSymbolNotFound;
using colo::cuda::kCuErrorNotFound;

namespace cq = colo::shim;

int cudaDeviceGetPCIBusId(char* bus_id, int len, int device) {
  COLO_FORWARD_IF_NEEDED(cudaDeviceGetPCIBusId,
                         kCudaErrorSharedObjectSymbolNotFound, bus_id, len,
                         device);
  COLO_FORWARD_IN_GATE(cudaDeviceGetPCIBusId,
                       kCudaErrorSharedObjectSymbolNotFound, bus_id, len,
                       device);
  return Safe([&] { return cq::DeviceGetPciBusId(bus_id, len, device); });
}

int cudaDeviceGetByPCIBusId(int* device, const char* bus_id) {
  COLO_FORWARD_IF_NEEDED(cudaDeviceGetByPCIBusId,
                         kCudaErrorSharedObjectSymbolNotFound, device, bus_id);
  COLO_FORWARD_IN_GATE(cudaDeviceGetByPCIBusId,
                       kCudaErrorSharedObjectSymbolNotFound, device, bus_id);
  return Safe([&] { return cq::DeviceGetByPciBusId(device, bus_id); });
}

// The driver's errors here (invalid value 1, invalid device 101) have the
// runtime's numbers.
int cuDeviceGetPCIBusId(char* bus_id, int len, int device) {
  COLO_FORWARD_IF_NEEDED(cuDeviceGetPCIBusId, kCuErrorNotFound, bus_id, len,
                         device);
  COLO_FORWARD_IN_GATE(cuDeviceGetPCIBusId, kCuErrorNotFound, bus_id, len,
                       device);
  return CuSafe([&] { return cq::DeviceGetPciBusId(bus_id, len, device); });
}

int cuDeviceGetByPCIBusId(int* device, const char* bus_id) {
  COLO_FORWARD_IF_NEEDED(cuDeviceGetByPCIBusId, kCuErrorNotFound, device,
                         bus_id);
  COLO_FORWARD_IN_GATE(cuDeviceGetByPCIBusId, kCuErrorNotFound, device, bus_id);
  return CuSafe([&] { return cq::DeviceGetByPciBusId(device, bus_id); });
}
