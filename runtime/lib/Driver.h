//===- Driver.h - CUDA driver pieces shared by the runner and executables -===//
//
// Part of the Mirage MLIR project.
//
// What running a bundle's steps needs, whoever owns the buffers and the
// stream: driver errors as Status, owned handles, loading the bundle's
// module, binding its buffers (allocating those the caller does not give),
// encoding tensor maps and enqueueing launch and copy steps. The Runner
// (mirage-run: generated inputs, checks, timing, mega-kernels) and the
// Executable (a bundle on the caller's tensors and stream) both use them.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_RUNTIME_LIB_DRIVER_H
#define MIRAGE_RUNTIME_LIB_DRIVER_H

#include "mirage_runtime/Manifest.h"
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
                   CUstream stream, bool pdl, bool firstInSequence);

} // namespace mirage::runtime::driver

#endif // MIRAGE_RUNTIME_LIB_DRIVER_H
