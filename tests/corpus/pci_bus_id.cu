// The device's PCI address, as multi-GPU and monitoring code reads it to
// match CUDA devices with NVML's or the system's: cudaDeviceGetPCIBusId's
// text, cudaDeviceProp's pciDomainID / pciBusID / pciDeviceID, the PCI
// device attributes, and cudaDeviceGetByPCIBusId back to the device; all
// must agree, and the same query twice gives the same address.
#include <cstdio>
#include <cstring>

#include "corpus_check.h"

int main() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  char bus_id[32] = {};
  CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), device));
  unsigned domain = 0, bus = 0, dev = 0, function = 0;
  EXPECT(std::sscanf(bus_id, "%x:%x:%x.%x", &domain, &bus, &dev, &function) ==
         4);
  std::printf("device %d at %s\n", device, bus_id);

  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  EXPECT(static_cast<unsigned>(prop.pciDomainID) == domain);
  EXPECT(static_cast<unsigned>(prop.pciBusID) == bus);
  EXPECT(static_cast<unsigned>(prop.pciDeviceID) == dev);
  // A GPU is never on bus 0 (the host bridge's) in practice.
  EXPECT(prop.pciBusID > 0);

  int attr = -1;
  CUDA_CHECK(cudaDeviceGetAttribute(&attr, cudaDevAttrPciBusId, device));
  EXPECT(attr == prop.pciBusID);
  CUDA_CHECK(cudaDeviceGetAttribute(&attr, cudaDevAttrPciDomainId, device));
  EXPECT(attr == prop.pciDomainID);
  CUDA_CHECK(cudaDeviceGetAttribute(&attr, cudaDevAttrPciDeviceId, device));
  EXPECT(attr == prop.pciDeviceID);

  int found = -1;
  CUDA_CHECK(cudaDeviceGetByPCIBusId(&found, bus_id));
  EXPECT(found == device);
  char again[32] = {};
  CUDA_CHECK(cudaDeviceGetPCIBusId(again, sizeof(again), device));
  EXPECT(std::strcmp(again, bus_id) == 0);
  return CorpusOk();
}
