// The device's PCI address through the driver API, as monitoring agents and
// multi-GPU launchers that use the driver directly read it: after cuInit,
// cuDeviceGetPCIBusId's text, the PCI attributes of cuDeviceGetAttribute,
// and cuDeviceGetByPCIBusId back to the same device; all must agree with
// each other and with the runtime's answer, and an address no device has
// is an error.
#include <cstdio>
#include <cstring>

#include "driver_check.h"

int main() {
  CU_CHECK(cuInit(0));
  int count = 0;
  CU_CHECK(cuDeviceGetCount(&count));
  EXPECT(count >= 1);
  CUdevice device;
  CU_CHECK(cuDeviceGet(&device, 0));
  char bus_id[32] = {};
  CU_CHECK(cuDeviceGetPCIBusId(bus_id, sizeof(bus_id), device));
  unsigned domain = 0, bus = 0, dev = 0, function = 0;
  EXPECT(std::sscanf(bus_id, "%x:%x:%x.%x", &domain, &bus, &dev, &function) ==
         4);
  std::printf("device %d at %s\n", (int)device, bus_id);

  int attr = -1;
  CU_CHECK(cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, device));
  EXPECT(static_cast<unsigned>(attr) == bus);
  EXPECT(attr > 0);  // a GPU is never on the host bridge's bus 0
  CU_CHECK(
      cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, device));
  EXPECT(static_cast<unsigned>(attr) == domain);
  CU_CHECK(
      cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, device));
  EXPECT(static_cast<unsigned>(attr) == dev);

  CUdevice found = -1;
  CU_CHECK(cuDeviceGetByPCIBusId(&found, bus_id));
  EXPECT(found == device);

  // The runtime's answer is the driver's.
  char runtime_id[32] = {};
  CUDA_CHECK(cudaDeviceGetPCIBusId(runtime_id, sizeof(runtime_id), 0));
  EXPECT(std::strcmp(runtime_id, bus_id) == 0);

  CUdevice none = -1;
  EXPECT(cuDeviceGetByPCIBusId(&none, "ffff:ff:1f.7") != CUDA_SUCCESS);
  return CorpusOk();
}
