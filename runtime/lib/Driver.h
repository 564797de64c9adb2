//===- Driver.h - CUDA driver pieces shared by the runner and executables -===//
//
// Part of the Mirage MLIR project.
//
// What running a bundle's steps needs, whoever owns the buffers and the
// stream: driver errors as Status, owned handles, loading the bundle's
// module, binding its buffers (allocating those the caller does not give),
// encoding tensor maps, enqueueing launch and copy steps, and a mega-kernel
// step's tables, counters and launch. The Runner (mirage-run: generated
// inputs, checks, timing) and the Executable (a bundle on the caller's
// tensors and stream) both use them.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_RUNTIME_LIB_DRIVER_H
#define MIRAGE_RUNTIME_LIB_DRIVER_H

#include "mirage_runtime/Manifest.h"
#include "mirage_runtime/MegaKernel.h"
#include "mirage_runtime/Results.h"
#include "mirage_runtime/Status.h"

#include <cuda.h>

#include <map>
#include <string>
#include <vector>

namespace mirage::runtime::driver {

/// Success, or "<what> failed: CUDA_ERROR_X (description)".
Status cuCheck(CUresult result, const std::string &what);

/// Owns a driver handle; destruction errors are ignored, as there is no one
/// left to report them to (and the first error was reported already).
template <typename Handle, CUresult (*Destroy)(Handle)>
class Owned {
public:
  Owned() = default;
  Owned(const Owned &) = delete;
  Owned &operator=(const Owned &) = delete;
  Owned(Owned &&other) : handle(other.handle) { other.handle = Handle(); }
  Owned &operator=(Owned &&other) {
    if (this != &other) {
      reset();
      handle = other.handle;
      other.handle = Handle();
    }
    return *this;
  }
  ~Owned() { reset(); }

  Handle get() const { return handle; }
  /// Where the driver stores a new handle.
  Handle *receive() {
    reset();
    return &handle;
  }

private:
  void reset() {
    if (handle)
      Destroy(handle);
    handle = Handle();
  }

  Handle handle = Handle();
};

using ModulePtr = Owned<CUmodule, cuModuleUnload>;
using StreamPtr = Owned<CUstream, cuStreamDestroy>;
using EventPtr = Owned<CUevent, cuEventDestroy>;
using GraphPtr = Owned<CUgraph, cuGraphDestroy>;
using GraphExecPtr = Owned<CUgraphExec, cuGraphExecDestroy>;
using DeviceMemory = Owned<CUdeviceptr, cuMemFree>;

/// Device memory for every buffer of a bundle: one allocation per buffer
/// with storage that the caller does not provide; views point at their base.
struct BufferSet {
  std::vector<DeviceMemory> storage; // by buffer id; empty for views
  std::vector<CUdeviceptr> pointers; // by buffer id
  /// Per mega-kernel step (in step order), its address table: the device
  /// copy and the host values it was uploaded from.
  std::vector<DeviceMemory> addressTables;
  std::vector<std::vector<uint64_t>> hostAddressTables;
  /// Every tensor map argument of every launch step, in step and argument
  /// order: the device copy (CUtensorMaps, 128 bytes each) and the host
  /// values it was uploaded from.
  DeviceMemory tensorMaps;
  std::vector<CUtensorMap> hostTensorMaps;
  /// Per step (empty for other kinds), a launch's kernel parameters: one
  /// device pointer per argument.
  std::vector<std::vector<CUdeviceptr>> launchArgs;
};

/// Bytes to allocate for `bytes` of table: at least one word, as
/// cuMemAlloc refuses zero bytes.
uint64_t allocationBytes(uint64_t bytes);
std::string describeBuffer(const BufferSpec &buffer);

/// The compute capability, SM count and limits of `device`.
Expected<DeviceInfo> queryDevice(CUdevice device);

/// A bundle's kernels loaded into the current context.
struct LoadedKernels {
  ModulePtr module;
  std::map<std::string, CUfunction> functions;
  /// "cubin" or "ptx": what was loaded.
  std::string binary;
};

/// Loads the bundle's cubin (or JIT-compiles its PTX when there is none),
/// resolves its kernels and raises their dynamic shared memory limits to
/// what its steps use.
Status loadKernels(const Manifest &manifest, const std::string &bundleDir,
                   const DeviceInfo &info, LoadedKernels &kernels);

/// Allocates `bytes` and copies `data` there on `stream`.
Status upload(DeviceMemory &memory, const void *data, uint64_t bytes,
              const std::string &what, CUstream stream);

/// Points every buffer of `set` at memory: the caller's address where
/// `given[id]` is nonzero (`given` may be shorter than the buffers), a new
/// allocation for the other buffers with storage, and its base for a view.
Status bindBuffers(const Manifest &manifest,
                   const std::vector<CUdeviceptr> &given, BufferSet &set);

/// Encodes the tensor maps of `set`'s buffers, uploads them on `stream` and
/// fills `set.launchArgs`.
Status prepareLaunchArgs(const Manifest &manifest, BufferSet &set,
                         CUstream stream);

/// Enqueues step `index` (a launch or a copy) on `stream`. With `pdl`,
/// launches that may overlap the kernel before them use programmatic
/// stream serialization.
Status enqueueStep(const Manifest &manifest, size_t index,
                   const LoadedKernels &kernels, const BufferSet &set,
                   CUstream stream, bool pdl);

/// The device side of a mega-kernel step, shared by all buffer sets: its
/// tables, its event counters and its state words.
struct MegaKernelDevice {
  size_t step = 0;
  DeviceMemory tasks, queueStarts, queues, needed, eventLists;
  DeviceMemory counters, state, trace;
  uint64_t counterBytes = 0, traceBytes = 0;
  uint64_t deadlineMs = 0;
  /// What the Deadline word is uploaded from, and the state read back.
  uint64_t deadlineNs = 0;
  MegaKernelState readBack{};
};

/// Fails with describeResidencyRefusal's message when the workers of
/// mega-kernel `step` cannot all be resident at once (they wait on each
/// other, so a worker left out would hang the rest).
Status checkResidency(const Step &step, const LoadedKernels &kernels,
                      const DeviceInfo &info);

/// Uploads the tables of mega-kernel step `device.step` and allocates and
/// resets its counters and state, on `stream` (synchronized).
Status setUpMegaKernel(const Manifest &manifest, MegaKernelDevice &device,
                       CUstream stream);

/// The trace of mega-kernel step `device.step`'s last run (tracePoints
/// words per task), on `stream` (synchronized).
Status readMegaKernelTrace(const Manifest &manifest,
                           const MegaKernelDevice &device, CUstream stream,
                           std::vector<uint64_t> &trace);

/// Zeroes the counters and state and writes the deadline (after a hang the
/// counters lag the epoch), on `stream` (synchronized).
Status resetMegaKernel(MegaKernelDevice &device, CUstream stream);

/// Uploads, per mega-kernel step (`devices`, in step order), the device
/// addresses of its address table's buffers in `set` into
/// `set.addressTables`.
Status uploadAddressTables(const Manifest &manifest,
                           const std::vector<MegaKernelDevice> &devices,
                           BufferSet &set, CUstream stream);

/// Launches mega-kernel step `device.step` with the address table at
/// `addressTable` (device memory: its buffers' addresses).
Status launchMegaKernel(const Manifest &manifest,
                        const MegaKernelDevice &device,
                        CUdeviceptr addressTable, const LoadedKernels &kernels,
                        CUstream stream, bool traced = false);

/// Reads `device`'s state back (synchronizing `stream`) into
/// `device.readBack`; `hung` tells whether a wait ran past its deadline, in
/// which case the counters and state are reset so that later runs can wait.
Status readMegaKernelState(MegaKernelDevice &device, CUstream stream,
                           bool &hung);

} // namespace mirage::runtime::driver

#endif // MIRAGE_RUNTIME_LIB_DRIVER_H
