// shim/device_queries.h — what the interposer's launches and kernel queries
// need of the device colod describes and of a kernel's binary: the launch
// checks CUDA makes, the registers and static shared memory read from the
// program's binaries, and the simulated GPU as a GpuSpec. Defined in
// device_queries.cc (with the device and kernel queries of shim_runtime.h).
//
// Thread safety: the functions taking an InterposerState REQUIRE its mutex
// held; SpecOf reads only its argument.
#pragma once

#include <cstddef>
#include <optional>

#include "colo/gpu_spec.h"
#include "ipc/wire.h"
#include "shim/fatbin.h"
#include "shim/shim_state.h"
#include "shim/thread_annotations.h"

namespace colo::shim {

// What CUDA checks when a kernel is launched, against the device colod
// describes: an empty grid or block, block dimensions (x and y within the
// device's threads per block, z within 64, their product within threads per
// block) and grid (x within 2^31 - 1, y and z within 65535) give
// cudaErrorInvalidConfiguration; a null function
// cudaErrorInvalidDeviceFunction; in sim mode, more dynamic shared memory
// than a runtime kernel may use (48 KiB less its static shared memory, or
// what cudaFuncSetAttribute allowed) cudaErrorInvalidValue.
// REQUIRES: connected.
int CheckLaunchLimits(InterposerState& s, const void* func, Dim grid, Dim block,
                      size_t shared_mem) COLO_REQUIRES(s.mu);
// The kernel's registers and static shared memory from its module image or
// fat binary, or nullopt if they cannot be read (PTX only, an unreadable
// image, an unregistered function). REQUIRES: connected.
std::optional<KernelResources> BinaryResourcesLocked(InterposerState& s,
                                                     const void* func)
    COLO_REQUIRES(s.mu);
// The simulated GPU's SM architecture (90 = sm_90): the target for reading
// the program's binaries. REQUIRES: connected.
int SimDeviceArch(const InterposerState& s) COLO_REQUIRES(s.mu);
// The simulated GPU's PCI address (cudaDeviceGetPCIBusId): "0000:01:00.0"
// for device 0, cut to len - 1 characters; cudaDeviceProp's pciBusID and
// the PCI attributes report the same (domain 0, bus 1, device 0).
// cudaErrorInvalidValue for a null or empty buffer, cudaErrorInvalidDevice
// for another device. Takes the mutex.
int DeviceGetPciBusId(char* bus_id, int len, int device);
// The device at PCI address `bus_id` ("[domain:]bus:device[.function]",
// hexadecimal): 0 for the simulated GPU's; cudaErrorInvalidDevice for any
// other, cudaErrorInvalidValue for text that is no PCI address. Takes the
// mutex.
int DeviceGetByPciBusId(int* device, const char* bus_id);
// The simulated GPU colod describes, as a GpuSpec for colo's occupancy rules:
// its preset (for the allocation granularities) with the welcome's limits.
GpuSpec SpecOf(const ipc::WelcomeMsg& w);

}  // namespace colo::shim
