//===- Manifest.h - The launch manifest of a bundle -------------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// manifest.json, version 1 (docs/Bundle.md), parsed and validated: a
// Manifest that parseManifest returns is consistent (ids, roles, views,
// steps), so the runner needs no checks of its own.
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

/// The manifest version this runtime reads.
constexpr int64_t manifestVersion = 1;

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
};

struct Step {
  enum class Kind { Launch, Copy };
  Kind kind = Kind::Launch;

  // Launch.
  std::string kernel;
  std::array<uint32_t, 3> grid{};
  std::array<uint32_t, 3> block{};
  uint32_t dynamicSharedBytes = 0;
  std::vector<unsigned> args;

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
};

/// Parses and validates the text of a manifest. Messages start with
/// `origin` and name the field: "manifest.json: buffers[3]: view base 9 does
/// not exist".
Expected<Manifest> parseManifest(std::string_view text,
                                 const std::string &origin = "manifest.json");

/// Reads `bundleDir`/manifest.json.
Expected<Manifest> loadManifest(const std::string &bundleDir);

/// The contents of a file; errors name the path and the system's reason.
Expected<std::string> readFile(const std::string &path);
Status writeFile(const std::string &path, const void *data, size_t size);

} // namespace mirage::runtime

#endif // MIRAGE_RUNTIME_MANIFEST_H
