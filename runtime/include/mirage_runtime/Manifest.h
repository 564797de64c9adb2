//===- Manifest.h - The launch manifest of a bundle -------------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// manifest.json, versions 1 to 6 (docs/Bundle.md), parsed and validated: a
// Manifest that parseManifest returns is consistent (ids, roles, views,
// steps, a mega-kernel's tables, tensor maps), so the runner needs no checks
// of its own.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_RUNTIME_MANIFEST_H
#define MIRAGE_RUNTIME_MANIFEST_H

#include "mirage_runtime/DType.h"
#include "mirage_runtime/InputGenerator.h"
#include "mirage_runtime/Json.h"
#include "mirage_runtime/Status.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mirage::runtime {

/// The manifest versions this runtime reads: 1, 2 (mega-kernel steps,
/// kernels marked for programmatic dependent launch), 3 (TMA tensor maps
/// as launch arguments), 4 (the mega-kernel's trace argument), 5 (event
/// lists: a mega-kernel task waits on and signals any number of events) and
/// 6 (a trace of five times per task). Mega-kernel steps need version 6:
/// the kernels of earlier versions record three per task.
constexpr int64_t oldestManifestVersion = 1;
constexpr int64_t manifestVersion = 6;
constexpr int64_t megaKernelManifestVersion = 6;

enum class BufferRole { Input, Output, Intermediate, View };

const char *roleName(BufferRole role);

struct BufferSpec {
  unsigned id = 0;
  std::string name;
  BufferRole role = BufferRole::Input;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  /// Views: the buffer whose bytes they reinterpret.
  std::optional<unsigned> base;
  uint64_t elements = 1;
  uint64_t bytes = 0;
};

/// A kernel of the binary; the resource numbers are absent when no ptxas ran.
struct KernelSpec {
  std::string name;
  std::optional<int64_t> registers;
  std::optional<int64_t> spillBytes;
  std::optional<int64_t> staticSharedBytes;
  /// Version 2: the kernel starts with griddepcontrol.wait, so it may be
  /// launched with programmatic dependent launch.
  bool pdl = false;
};

/// The fields of a task record in a mega-kernel's task table, in order.
enum class TaskField : unsigned {
  Body,
  Kernel,
  BlockX,
  BlockY,
  BlockZ,
  /// The events to wait on: how many, the first (-1 if none), and where
  /// the others start in event_lists.
  Waits,
  Wait,
  MoreWaits,
  /// The events to signal, likewise.
  Triggers,
  Trigger,
  MoreTriggers,
  /// Where the task's kernel's buffers start in the address table.
  FirstOperand
};
constexpr unsigned taskFields = 12;

/// What a mega-kernel step adds to a launch (version 2): the tables its
/// persistent kernel reads. Validated: every index is in range and every
/// task is in exactly one queue.
struct MegaKernelSpec {
  /// Buffer ids, per kernel of the task graph its buffers (inputs, then
  /// outputs); the kernel's argument 0 holds their device addresses, and
  /// a task's first_operand indexes it.
  std::vector<unsigned> addressTable;
  /// taskFields int32 per task (TaskField order).
  std::vector<int32_t> tasks;
  /// workers + 1 entries: worker w runs queues[queueStarts[w] ..
  /// queueStarts[w + 1]); or workers + 2, where queues[queueStarts[workers]
  /// .. queueStarts[workers + 1]) lists the just-in-time tasks, which the
  /// workers claim as they go.
  std::vector<int32_t> queueStarts;
  std::vector<int32_t> queues;
  /// Per event, its trigger count in one run.
  std::vector<int32_t> needed;
  /// Event indices, per task its waits then its triggers.
  std::vector<int32_t> eventLists;
  /// The task-graph kernels by kernel index, for messages.
  std::vector<std::string> taskKernels;
  /// Optional: per task-graph kernel, how many buffers its body takes from
  /// the address table (empty when the manifest does not say).
  std::vector<int32_t> taskKernelBuffers;
  /// A wait longer than this aborts the run; 0: no limit.
  uint64_t deadlineMs = 0;

  size_t taskCount() const { return tasks.size() / taskFields; }
  size_t eventCount() const { return needed.size(); }
  int32_t field(size_t task, TaskField which) const {
    return tasks[task * taskFields + unsigned(which)];
  }
};

/// Version 3: a TMA tensor map (cuTensorMapEncodeTiled) over a buffer's
/// storage, with the buffer's own shape and dtype. Validated: the rank is 1 to
/// 5 and the box, swizzle and strides meet cuTensorMapEncodeTiled's rules.
struct TensorMapSpec {
  /// The tile a copy moves, one entry per dim of the buffer's shape,
  /// outermost first (like the shape).
  std::vector<int64_t> box;
  /// 0, 32, 64 or 128 (bytes).
  unsigned swizzle = 0;
};

/// An argument of a launch step: one device pointer, either the buffer's or
/// (version 3) that of a 128-byte tensor map over the buffer.
struct LaunchArg {
  unsigned buffer = 0;
  std::optional<TensorMapSpec> tensorMap;
};

/// cuTensorMapEncodeTiled's parameters for a tensor map, in the driver's
/// order (innermost dim first); the runner maps `dtype` to the driver's enum.
struct TensorMapParams {
  DType dtype = DType::F32;
  unsigned rank = 0;
  /// The buffer's shape, reversed.
  std::vector<uint64_t> globalDim;
  /// Byte strides of dims 1 .. rank-1 (innermost first): rank - 1 entries.
  std::vector<uint64_t> globalStrides;
  /// The box, reversed.
  std::vector<uint32_t> boxDim;
  /// All 1.
  std::vector<uint32_t> elementStrides;
  /// 0, 32, 64 or 128 (bytes).
  unsigned swizzle = 0;
};

/// The encoding parameters of a tensor map over `buffer` (validated by
/// parseManifest).
TensorMapParams getTensorMapParams(const BufferSpec &buffer,
                                   const TensorMapSpec &map);

struct Step {
  enum class Kind { Launch, Copy, MegaKernel };
  Kind kind = Kind::Launch;

  // Launch and MegaKernel (whose grid is [workers, 1, 1] and block
  // [threads, 1, 1]).
  std::string kernel;
  std::array<uint32_t, 3> grid{};
  std::array<uint32_t, 3> block{};
  uint32_t dynamicSharedBytes = 0;
  /// Launch: one device pointer per argument.
  std::vector<LaunchArg> args;

  // MegaKernel.
  MegaKernelSpec mega;

  // Copy.
  unsigned src = 0;
  unsigned dst = 0;
  uint64_t bytes = 0;
};

struct ReferenceSpec {
  std::string file;
  std::string function;
  double relL2Tolerance = 0;
};

struct Manifest {
  int64_t version = manifestVersion;
  std::string name;
  std::string source;
  std::string chip;
  std::string ptxFile;
  std::optional<std::string> cubinFile;
  std::vector<KernelSpec> kernels;
  /// `kernels` as written, for result files.
  JsonValue kernelsJson;
  std::vector<BufferSpec> buffers;
  std::vector<unsigned> inputs;
  std::vector<unsigned> outputs;
  std::vector<Step> steps;
  UniformGenerator generator;
  std::optional<ReferenceSpec> reference;

  /// The buffer holding the bytes of buffer `id`: its view base chain's end.
  unsigned storageOf(unsigned id) const;
  /// The number of float64 values in reference.bin (all outputs).
  uint64_t referenceElements() const;
  /// The kernel named `name`; it must exist (steps name listed kernels).
  const KernelSpec &kernel(const std::string &name) const;
};

/// Parses and validates the text of a manifest. Messages start with
/// `origin` and name the field: "manifest.json: buffers[3]: view base 9 does
/// not exist".
Expected<Manifest> parseManifest(std::string_view text,
                                 const std::string &origin = "manifest.json");

/// Why a caller's device addresses for `manifest`'s inputs and outputs (in
/// the manifest's order) cannot be run on, or nothing: an output that
/// overlaps an input or another output. A program's inputs are values: a
/// kernel may copy its weights before the kernel before it has finished
/// (programmatic dependent launch), so an output written in place over an
/// input would race with those reads.
std::optional<std::string>
findArgumentOverlap(const Manifest &manifest,
                    const std::vector<uint64_t> &inputs,
                    const std::vector<uint64_t> &outputs);

/// Reads `bundleDir`/manifest.json.
Expected<Manifest> loadManifest(const std::string &bundleDir);

/// The contents of a file; errors name the path and the system's reason.
Expected<std::string> readFile(const std::string &path);
/// Writes `path` whole or not at all (a temporary beside it, renamed over
/// it), so that a process killed mid-write leaves the previous contents.
Status writeFile(const std::string &path, const void *data, size_t size);

} // namespace mirage::runtime

#endif // MIRAGE_RUNTIME_MANIFEST_H
