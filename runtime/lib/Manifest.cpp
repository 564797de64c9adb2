//===- Manifest.cpp - The launch manifest of a bundle ---------------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage_runtime/Manifest.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <set>
#include <tuple>

using namespace mirage::runtime;

const char *mirage::runtime::roleName(BufferRole role) {
  switch (role) {
  case BufferRole::Input:
    return "input";
  case BufferRole::Output:
    return "output";
  case BufferRole::Intermediate:
    return "intermediate";
  case BufferRole::View:
    return "view";
  }
  return "?";
}

unsigned Manifest::storageOf(unsigned id) const {
  // Validation guarantees the chain ends.
  while (buffers[id].base)
    id = *buffers[id].base;
  return id;
}

const KernelSpec &Manifest::kernel(const std::string &name) const {
  for (const KernelSpec &spec : kernels)
    if (spec.name == name)
      return spec;
  // Validation makes every step's kernel a listed one.
  static const KernelSpec none;
  return none;
}

uint64_t Manifest::referenceElements() const {
  uint64_t total = 0;
  for (unsigned id : outputs)
    total += buffers[id].elements;
  return total;
}

TensorMapParams mirage::runtime::getTensorMapParams(const BufferSpec &buffer,
                                                    const TensorMapSpec &map) {
  TensorMapParams params;
  params.dtype = buffer.dtype;
  params.rank = unsigned(buffer.shape.size());
  params.swizzle = map.swizzle;
  uint64_t stride = dtypeSize(buffer.dtype);
  for (size_t d = buffer.shape.size(); d-- > 0;) {
    params.globalDim.push_back(uint64_t(buffer.shape[d]));
    params.boxDim.push_back(uint32_t(map.box[d]));
    params.elementStrides.push_back(1);
    stride *= uint64_t(buffer.shape[d]);
    // The stride of the next dim out, if there is one.
    if (d > 0)
      params.globalStrides.push_back(stride);
  }
  return params;
}

//===----------------------------------------------------------------------===//
// Parsing and validation
//===----------------------------------------------------------------------===//

namespace {

constexpr int64_t int64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t uint32Max = std::numeric_limits<uint32_t>::max();
constexpr int64_t int32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t int32Max = std::numeric_limits<int32_t>::max();
// Deadlines become nanoseconds in a u64 (and far beyond any useful wait).
constexpr int64_t maxDeadlineMs = int64Max / 1000000;
// Keeps byte counts far from overflow (and far above any GPU's memory).
constexpr uint64_t maxBufferBytes = uint64_t(1) << 50;
// cuTensorMapEncodeTiled's limits.
constexpr size_t maxTensorMapRank = 5;
constexpr int64_t maxTensorMapBox = 256;
constexpr uint64_t maxTensorMapDim = uint64_t(1) << 32;
constexpr uint64_t maxTensorMapStride = uint64_t(1) << 40;

std::string memberPath(const std::string &path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string indexPath(const std::string &path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

/// A value for "found ..." in messages: scalars as written, else their kind.
std::string describeValue(const JsonValue &value) {
  switch (value.kind()) {
  case JsonValue::Kind::Number:
  case JsonValue::Kind::String:
  case JsonValue::Kind::Bool:
    return writeJson(value, 0);
  default:
    return describeKind(value.kind());
  }
}

class ManifestParser {
public:
  explicit ManifestParser(std::string origin) : origin(std::move(origin)) {}

  Expected<Manifest> parse(const JsonValue &root);

private:
  Status fail(const std::string &path, const std::string &message) const {
    return Status::error(origin + ": " + (path.empty() ? "" : path + ": ") +
                         message);
  }

  Status expectKind(const JsonValue &value, const std::string &path,
                    JsonValue::Kind kind) const {
    if (value.kind() == kind)
      return Status::success();
    return fail(path, std::string("expected ") + describeKind(kind) +
                          ", found " + describeValue(value));
  }

  /// The member `key` of `object` (at `path`), which must exist.
  Status getMember(const JsonValue &object, const std::string &path,
                   std::string_view key, const JsonValue *&out) const {
    out = object.get(key);
    if (!out)
      return fail(path, "missing field \"" + std::string(key) + "\"");
    return Status::success();
  }

  /// Like getMember, also requiring `kind`.
  Status getMember(const JsonValue &object, const std::string &path,
                   std::string_view key, JsonValue::Kind kind,
                   const JsonValue *&out) const {
    if (Status status = getMember(object, path, key, out); !status.ok())
      return status;
    return expectKind(*out, memberPath(path, key), kind);
  }

  Status getString(const JsonValue &object, const std::string &path,
                   std::string_view key, std::string &out) const {
    const JsonValue *value;
    if (Status status =
            getMember(object, path, key, JsonValue::Kind::String, value);
        !status.ok())
      return status;
    out = value->getString();
    return Status::success();
  }

  Status readInteger(const JsonValue &value, const std::string &path,
                     int64_t min, int64_t max, int64_t &out) const {
    std::optional<int64_t> integer =
        value.isNumber() ? value.getInteger() : std::nullopt;
    if (integer && *integer >= min && *integer <= max) {
      out = *integer;
      return Status::success();
    }
    std::string expected;
    if (min == 0 && max == int64Max)
      expected = "a non-negative integer";
    else if (min == 1 && max == int64Max)
      expected = "a positive integer";
    else
      expected = "an integer in [" + std::to_string(min) + ", " +
                 std::to_string(max) + "]";
    return fail(path,
                "expected " + expected + ", found " + describeValue(value));
  }

  Status getInteger(const JsonValue &object, const std::string &path,
                    std::string_view key, int64_t min, int64_t max,
                    int64_t &out) const {
    const JsonValue *value;
    if (Status status = getMember(object, path, key, value); !status.ok())
      return status;
    return readInteger(*value, memberPath(path, key), min, max, out);
  }

  Status getNumber(const JsonValue &object, const std::string &path,
                   std::string_view key, double &out) const {
    const JsonValue *value;
    if (Status status =
            getMember(object, path, key, JsonValue::Kind::Number, value);
        !status.ok())
      return status;
    out = value->getNumber();
    return Status::success();
  }

  /// A buffer id at `path`, which must name an existing buffer.
  Status readBufferId(const JsonValue &value, const std::string &path,
                      unsigned &out) const {
    int64_t id;
    if (Status status = readInteger(value, path, 0, int64Max, id); !status.ok())
      return status;
    if (uint64_t(id) >= manifest.buffers.size())
      return fail(path, "buffer " + std::to_string(id) + " does not exist");
    out = unsigned(id);
    return Status::success();
  }

  Status parseHeader(const JsonValue &root);
  Status parseKernels(const JsonValue &root);
  Status parseBuffer(const JsonValue &value, size_t index, size_t count);
  Status parseBuffers(const JsonValue &root);
  Status checkViews();
  Status parseArgumentList(const JsonValue &root, std::string_view key,
                           BufferRole role, std::vector<unsigned> &out);
  Status parseStep(const JsonValue &value, size_t index);
  Status parseTensorMap(const JsonValue &arg, const std::string &argPath,
                        LaunchArg &out);
  Status parseMegaKernel(const JsonValue &value, const std::string &path,
                         Step &step);
  Status readInt32Table(const JsonValue &tables, const std::string &path,
                        std::string_view key, int64_t min,
                        std::vector<int32_t> &out);
  Status parseSteps(const JsonValue &root);
  Status parseGenerator(const JsonValue &root);
  Status parseReference(const JsonValue &root);
  Status parseProgram(const JsonValue &root);
  Status readNameList(const JsonValue &object, const std::string &path,
                      std::string_view key, std::vector<std::string> &out);

  std::string origin;
  Manifest manifest;
};

} // namespace

Expected<Manifest> ManifestParser::parse(const JsonValue &root) {
  if (Status status = expectKind(root, "", JsonValue::Kind::Object);
      !status.ok())
    return status;
  for (Status (ManifestParser::*part)(const JsonValue &) :
       {&ManifestParser::parseHeader, &ManifestParser::parseKernels,
        &ManifestParser::parseBuffers, &ManifestParser::parseSteps,
        &ManifestParser::parseGenerator, &ManifestParser::parseReference,
        &ManifestParser::parseProgram})
    if (Status status = (this->*part)(root); !status.ok())
      return status;
  return std::move(manifest);
}

Status ManifestParser::parseHeader(const JsonValue &root) {
  // format and version first: a later version may change everything else.
  std::string format;
  if (Status status = getString(root, "", "format", format); !status.ok())
    return status;
  if (format != "mirage-bundle")
    return fail("format",
                "expected \"mirage-bundle\", found \"" + format + "\"");
  const JsonValue *version;
  if (Status status = getMember(root, "", "version", version); !status.ok())
    return status;
  std::optional<int64_t> number =
      version->isNumber() ? version->getInteger() : std::nullopt;
  if (!number || *number < oldestManifestVersion || *number > manifestVersion)
    return fail(
        "version",
        "unsupported version " + describeValue(*version) +
            " (this runtime reads versions " +
            std::to_string(oldestManifestVersion) +
            (manifestVersion == oldestManifestVersion + 1 ? " and " : " to ") +
            std::to_string(manifestVersion) + ")");
  manifest.version = *number;

  if (Status status = getString(root, "", "name", manifest.name); !status.ok())
    return status;
  if (Status status = getString(root, "", "source", manifest.source);
      !status.ok())
    return status;
  if (Status status = getString(root, "", "chip", manifest.chip); !status.ok())
    return status;

  const JsonValue *binary;
  if (Status status =
          getMember(root, "", "binary", JsonValue::Kind::Object, binary);
      !status.ok())
    return status;
  if (Status status = getString(*binary, "binary", "ptx", manifest.ptxFile);
      !status.ok())
    return status;
  const JsonValue *cubin = binary->get("cubin");
  if (cubin && !cubin->isNull()) {
    if (Status status =
            expectKind(*cubin, "binary.cubin", JsonValue::Kind::String);
        !status.ok())
      return status;
    manifest.cubinFile = cubin->getString();
  }
  return Status::success();
}

Status ManifestParser::parseKernels(const JsonValue &root) {
  const JsonValue *kernels;
  if (Status status =
          getMember(root, "", "kernels", JsonValue::Kind::Array, kernels);
      !status.ok())
    return status;
  manifest.kernelsJson = *kernels;
  std::set<std::string> names;
  for (size_t i = 0; i < kernels->getArray().size(); ++i) {
    const JsonValue &value = kernels->getArray()[i];
    std::string path = indexPath("kernels", i);
    if (Status status = expectKind(value, path, JsonValue::Kind::Object);
        !status.ok())
      return status;
    KernelSpec kernel;
    if (Status status = getString(value, path, "name", kernel.name);
        !status.ok())
      return status;
    if (!names.insert(kernel.name).second)
      return fail(path, "duplicate kernel name \"" + kernel.name + "\"");
    for (auto [key, field] :
         {std::pair{"registers", &kernel.registers},
          std::pair{"spill_bytes", &kernel.spillBytes},
          std::pair{"static_shared_bytes", &kernel.staticSharedBytes}}) {
      const JsonValue *number = value.get(key);
      if (!number || number->isNull())
        continue;
      int64_t count;
      if (Status status =
              readInteger(*number, memberPath(path, key), 0, int64Max, count);
          !status.ok())
        return status;
      *field = count;
    }
    if (const JsonValue *pdl = value.get("pdl"); pdl && !pdl->isNull()) {
      if (Status status =
              expectKind(*pdl, memberPath(path, "pdl"), JsonValue::Kind::Bool);
          !status.ok())
        return status;
      kernel.pdl = pdl->getBool();
    }
    manifest.kernels.push_back(std::move(kernel));
  }
  return Status::success();
}

Status ManifestParser::parseBuffer(const JsonValue &value, size_t index,
                                   size_t count) {
  std::string path = indexPath("buffers", index);
  if (Status status = expectKind(value, path, JsonValue::Kind::Object);
      !status.ok())
    return status;
  BufferSpec buffer;
  int64_t id;
  if (Status status = getInteger(value, path, "id", 0, int64Max, id);
      !status.ok())
    return status;
  if (uint64_t(id) != index)
    return fail(path, "id is " + std::to_string(id) + ", expected " +
                          std::to_string(index) + " (ids are 0..N-1 in order)");
  buffer.id = unsigned(index);
  if (Status status = getString(value, path, "name", buffer.name); !status.ok())
    return status;

  std::string role;
  if (Status status = getString(value, path, "role", role); !status.ok())
    return status;
  if (role == "input")
    buffer.role = BufferRole::Input;
  else if (role == "output")
    buffer.role = BufferRole::Output;
  else if (role == "intermediate")
    buffer.role = BufferRole::Intermediate;
  else if (role == "view")
    buffer.role = BufferRole::View;
  else
    return fail(memberPath(path, "role"),
                "unknown role \"" + role +
                    "\" (expected input, output, intermediate or view)");

  std::string dtype;
  if (Status status = getString(value, path, "dtype", dtype); !status.ok())
    return status;
  std::optional<DType> parsed = parseDType(dtype);
  if (!parsed)
    return fail(memberPath(path, "dtype"),
                "unknown dtype \"" + dtype + "\" (expected f16, bf16 or f32)");
  buffer.dtype = *parsed;

  const JsonValue *shape;
  if (Status status =
          getMember(value, path, "shape", JsonValue::Kind::Array, shape);
      !status.ok())
    return status;
  uint64_t maxElements = maxBufferBytes / dtypeSize(buffer.dtype);
  for (size_t d = 0; d < shape->getArray().size(); ++d) {
    int64_t dim;
    if (Status status = readInteger(shape->getArray()[d],
                                    indexPath(memberPath(path, "shape"), d), 1,
                                    int64Max, dim);
        !status.ok())
      return status;
    if (uint64_t(dim) > maxElements / buffer.elements)
      return fail(memberPath(path, "shape"),
                  "too many elements (more than 2^50 bytes)");
    buffer.shape.push_back(dim);
    buffer.elements *= uint64_t(dim);
  }
  buffer.bytes = buffer.elements * dtypeSize(buffer.dtype);

  const JsonValue *base = value.get("base");
  if (buffer.role == BufferRole::View) {
    if (!base)
      return fail(path, "missing field \"base\" (a view needs one)");
    int64_t baseId;
    if (Status status =
            readInteger(*base, memberPath(path, "base"), 0, int64Max, baseId);
        !status.ok())
      return status;
    if (uint64_t(baseId) >= count)
      return fail(path,
                  "view base " + std::to_string(baseId) + " does not exist");
    buffer.base = unsigned(baseId);
  } else if (base) {
    return fail(path, std::string("base given for a buffer of role ") +
                          roleName(buffer.role) + " (only views have one)");
  }
  manifest.buffers.push_back(std::move(buffer));
  return Status::success();
}

Status ManifestParser::parseBuffers(const JsonValue &root) {
  const JsonValue *buffers;
  if (Status status =
          getMember(root, "", "buffers", JsonValue::Kind::Array, buffers);
      !status.ok())
    return status;
  for (size_t i = 0; i < buffers->getArray().size(); ++i)
    if (Status status =
            parseBuffer(buffers->getArray()[i], i, buffers->getArray().size());
        !status.ok())
      return status;
  if (Status status = checkViews(); !status.ok())
    return status;
  if (Status status =
          parseArgumentList(root, "inputs", BufferRole::Input, manifest.inputs);
      !status.ok())
    return status;
  return parseArgumentList(root, "outputs", BufferRole::Output,
                           manifest.outputs);
}

Status ManifestParser::checkViews() {
  const std::vector<BufferSpec> &buffers = manifest.buffers;
  for (const BufferSpec &view : buffers) {
    if (!view.base)
      continue;
    std::string path = indexPath("buffers", view.id);
    const BufferSpec &base = buffers[*view.base];
    if (base.dtype != view.dtype)
      return fail(path, std::string("view dtype ") + dtypeName(view.dtype) +
                            " differs from base " + std::to_string(base.id) +
                            "'s dtype " + dtypeName(base.dtype));
    if (base.bytes != view.bytes)
      return fail(path, "view has " + std::to_string(view.bytes) +
                            " bytes, base " + std::to_string(base.id) +
                            " has " + std::to_string(base.bytes));
    // Views of views are fine as long as the chain ends in storage.
    unsigned id = view.id;
    for (size_t steps = 0; buffers[id].base; ++steps) {
      if (steps == buffers.size())
        return fail(path, "the chain of view bases loops");
      id = *buffers[id].base;
    }
  }
  return Status::success();
}

Status ManifestParser::parseArgumentList(const JsonValue &root,
                                         std::string_view key, BufferRole role,
                                         std::vector<unsigned> &out) {
  const JsonValue *list;
  if (Status status = getMember(root, "", key, JsonValue::Kind::Array, list);
      !status.ok())
    return status;
  std::vector<bool> listed(manifest.buffers.size());
  for (size_t i = 0; i < list->getArray().size(); ++i) {
    std::string path = indexPath(std::string(key), i);
    unsigned id;
    if (Status status = readBufferId(list->getArray()[i], path, id);
        !status.ok())
      return status;
    const BufferSpec &buffer = manifest.buffers[id];
    if (buffer.role != role)
      return fail(path, "buffer " + std::to_string(id) + " has role " +
                            roleName(buffer.role) + ", expected " +
                            roleName(role));
    if (listed[id])
      return fail(path, "buffer " + std::to_string(id) + " is listed twice");
    listed[id] = true;
    out.push_back(id);
  }
  for (const BufferSpec &buffer : manifest.buffers)
    if (buffer.role == role && !listed[buffer.id])
      return fail(indexPath("buffers", buffer.id),
                  std::string(roleName(role)) + " buffer is not listed in " +
                      std::string(key));
  return Status::success();
}

Status ManifestParser::parseStep(const JsonValue &value, size_t index) {
  std::string path = indexPath("steps", index);
  if (Status status = expectKind(value, path, JsonValue::Kind::Object);
      !status.ok())
    return status;
  Step step;
  std::string kind;
  if (Status status = getString(value, path, "kind", kind); !status.ok())
    return status;

  if (kind == "copy") {
    step.kind = Step::Kind::Copy;
    const JsonValue *member;
    for (auto [key, field] :
         {std::pair{"src", &step.src}, std::pair{"dst", &step.dst}}) {
      if (Status status = getMember(value, path, key, member); !status.ok())
        return status;
      if (Status status = readBufferId(*member, memberPath(path, key), *field);
          !status.ok())
        return status;
    }
    int64_t bytes;
    if (Status status = getInteger(value, path, "bytes", 0, int64Max, bytes);
        !status.ok())
      return status;
    step.bytes = uint64_t(bytes);
    for (unsigned id : {step.src, step.dst})
      if (step.bytes > manifest.buffers[id].bytes)
        return fail(path,
                    "copy of " + std::to_string(step.bytes) +
                        " bytes overruns buffer " + std::to_string(id) + " (" +
                        std::to_string(manifest.buffers[id].bytes) + " bytes)");
    manifest.steps.push_back(std::move(step));
    return Status::success();
  }

  if (kind == "megakernel") {
    if (manifest.version < megaKernelManifestVersion)
      return fail(memberPath(path, "kind"),
                  "megakernel steps need manifest version " +
                      std::to_string(megaKernelManifestVersion) +
                      ", this is version " + std::to_string(manifest.version) +
                      " (rebuild the bundle with this mirage-bundle)");
    step.kind = Step::Kind::MegaKernel;
  } else if (kind == "launch") {
    step.kind = Step::Kind::Launch;
  } else {
    return fail(memberPath(path, "kind"),
                "unknown step kind \"" + kind +
                    "\" (expected launch, copy or megakernel)");
  }
  if (Status status = getString(value, path, "kernel", step.kernel);
      !status.ok())
    return status;
  bool declared = false;
  for (const KernelSpec &kernel : manifest.kernels)
    declared |= kernel.name == step.kernel;
  if (!declared)
    return fail(path,
                "kernel \"" + step.kernel + "\" is not listed in kernels");

  for (auto [key, field] :
       {std::pair{"grid", &step.grid}, std::pair{"block", &step.block}}) {
    const JsonValue *dims;
    if (Status status =
            getMember(value, path, key, JsonValue::Kind::Array, dims);
        !status.ok())
      return status;
    std::string dimsPath = memberPath(path, key);
    if (dims->getArray().size() != 3)
      return fail(dimsPath, "expected 3 entries, found " +
                                std::to_string(dims->getArray().size()));
    for (size_t d = 0; d < 3; ++d) {
      int64_t extent;
      if (Status status =
              readInteger(dims->getArray()[d], indexPath(dimsPath, d), 1,
                          uint32Max, extent);
          !status.ok())
        return status;
      (*field)[d] = uint32_t(extent);
    }
    // The persistent kernel numbers its workers and threads along x only.
    if (step.kind == Step::Kind::MegaKernel &&
        ((*field)[1] != 1 || (*field)[2] != 1))
      return fail(dimsPath,
                  std::string("a mega-kernel's ") + key + " is [" +
                      (key == std::string("grid") ? "workers" : "threads") +
                      ", 1, 1], found [" + std::to_string((*field)[0]) + ", " +
                      std::to_string((*field)[1]) + ", " +
                      std::to_string((*field)[2]) + "]");
  }

  int64_t shared;
  if (Status status =
          getInteger(value, path, "dynamic_shared_bytes", 0, uint32Max, shared);
      !status.ok())
    return status;
  step.dynamicSharedBytes = uint32_t(shared);

  if (step.kind == Step::Kind::MegaKernel) {
    if (Status status = parseMegaKernel(value, path, step); !status.ok())
      return status;
    manifest.steps.push_back(std::move(step));
    return Status::success();
  }

  const JsonValue *args;
  if (Status status =
          getMember(value, path, "args", JsonValue::Kind::Array, args);
      !status.ok())
    return status;
  for (size_t i = 0; i < args->getArray().size(); ++i) {
    const JsonValue &arg = args->getArray()[i];
    std::string argPath = indexPath(memberPath(path, "args"), i);
    LaunchArg &launchArg = step.args.emplace_back();
    if (!arg.isObject()) {
      if (Status status = readBufferId(arg, argPath, launchArg.buffer);
          !status.ok())
        return status;
      continue;
    }
    if (Status status = parseTensorMap(arg, argPath, launchArg); !status.ok())
      return status;
  }
  manifest.steps.push_back(std::move(step));
  return Status::success();
}

Status ManifestParser::parseTensorMap(const JsonValue &arg,
                                      const std::string &argPath,
                                      LaunchArg &out) {
  if (manifest.version < 3)
    return fail(argPath,
                "tensor map arguments need manifest version 3, this is "
                "version " +
                    std::to_string(manifest.version));
  const JsonValue *map;
  if (Status status =
          getMember(arg, argPath, "tensor_map", JsonValue::Kind::Object, map);
      !status.ok())
    return status;
  const std::string path = memberPath(argPath, "tensor_map");
  // A misspelt field must not leave the runner guessing a default.
  for (const auto &entry : map->getObject())
    if (entry.first != "buffer" && entry.first != "box" &&
        entry.first != "swizzle")
      return fail(path, "unknown field \"" + entry.first +
                            "\" (expected buffer, box and swizzle)");

  const JsonValue *member;
  if (Status status = getMember(*map, path, "buffer", member); !status.ok())
    return status;
  if (Status status =
          readBufferId(*member, memberPath(path, "buffer"), out.buffer);
      !status.ok())
    return status;
  const BufferSpec &buffer = manifest.buffers[out.buffer];
  const std::string bufferName = "buffer " + std::to_string(buffer.id);
  const size_t rank = buffer.shape.size();
  if (rank < 1 || rank > maxTensorMapRank)
    return fail(path, bufferName + " has rank " + std::to_string(rank) +
                          "; a tensor map needs rank 1 to " +
                          std::to_string(maxTensorMapRank));

  TensorMapSpec spec;
  const JsonValue *box;
  if (Status status = getMember(*map, path, "box", JsonValue::Kind::Array, box);
      !status.ok())
    return status;
  const std::string boxPath = memberPath(path, "box");
  if (box->getArray().size() != rank)
    return fail(boxPath, "has " + std::to_string(box->getArray().size()) +
                             " entries, " + bufferName + " has rank " +
                             std::to_string(rank));
  for (size_t d = 0; d < rank; ++d) {
    int64_t extent;
    if (Status status = readInteger(box->getArray()[d], indexPath(boxPath, d),
                                    1, maxTensorMapBox, extent);
        !status.ok())
      return status;
    if (extent > buffer.shape[d])
      return fail(indexPath(boxPath, d),
                  "is " + std::to_string(extent) + ", larger than dim " +
                      std::to_string(d) + " of " + bufferName + " (" +
                      std::to_string(buffer.shape[d]) + ")");
    spec.box.push_back(extent);
  }

  if (Status status = getMember(*map, path, "swizzle", member); !status.ok())
    return status;
  const std::string swizzlePath = memberPath(path, "swizzle");
  std::optional<int64_t> swizzleValue =
      member->isNumber() ? member->getInteger() : std::nullopt;
  if (!swizzleValue || (*swizzleValue != 0 && *swizzleValue != 32 &&
                        *swizzleValue != 64 && *swizzleValue != 128))
    return fail(swizzlePath,
                "expected 0, 32, 64 or 128, found " + describeValue(*member));
  const int64_t swizzle = *swizzleValue;
  spec.swizzle = unsigned(swizzle);

  // cuTensorMapEncodeTiled's rules on the innermost dim.
  const uint64_t elementBytes = dtypeSize(buffer.dtype);
  const uint64_t innerBoxBytes = uint64_t(spec.box.back()) * elementBytes;
  const std::string innerBox = "the inner box is " +
                               std::to_string(innerBoxBytes) + " bytes (" +
                               std::to_string(spec.box.back()) + " " +
                               dtypeName(buffer.dtype) + " elements)";
  if (innerBoxBytes % 16 != 0)
    return fail(boxPath, innerBox + ", not a multiple of 16");
  if (swizzle > 0 && innerBoxBytes > uint64_t(swizzle))
    return fail(path, innerBox + ", more than the " + std::to_string(swizzle) +
                          "-byte swizzle span");
  // The global strides: every one is a multiple of the row's bytes.
  uint64_t stride = elementBytes;
  for (size_t d = rank; d-- > 0;) {
    if (uint64_t(buffer.shape[d]) > maxTensorMapDim)
      return fail(path, "dim " + std::to_string(d) + " of " + bufferName +
                            " is " + std::to_string(buffer.shape[d]) +
                            ", above 2^32 (the most a tensor map allows)");
    if (d + 1 == rank && rank > 1 &&
        uint64_t(buffer.shape[d]) * elementBytes % 16 != 0)
      return fail(path, bufferName + "'s rows are " +
                            std::to_string(buffer.shape[d] * elementBytes) +
                            " bytes (" + std::to_string(buffer.shape[d]) + " " +
                            dtypeName(buffer.dtype) +
                            " elements), not a multiple of 16 (a tensor "
                            "map's global strides must be)");
    if (d > 0 && stride * uint64_t(buffer.shape[d]) >= maxTensorMapStride)
      return fail(path, "dim " + std::to_string(d - 1) + " of " + bufferName +
                            " has a stride of " +
                            std::to_string(stride * uint64_t(buffer.shape[d])) +
                            " bytes, not below 2^40 (the most a tensor map "
                            "allows)");
    stride *= uint64_t(buffer.shape[d]);
  }
  out.tensorMap = std::move(spec);
  return Status::success();
}

Status ManifestParser::readInt32Table(const JsonValue &tables,
                                      const std::string &path,
                                      std::string_view key, int64_t min,
                                      std::vector<int32_t> &out) {
  const JsonValue *list;
  if (Status status =
          getMember(tables, path, key, JsonValue::Kind::Array, list);
      !status.ok())
    return status;
  std::string listPath = memberPath(path, key);
  out.reserve(list->getArray().size());
  for (size_t i = 0; i < list->getArray().size(); ++i) {
    int64_t entry;
    if (Status status = readInteger(list->getArray()[i], indexPath(listPath, i),
                                    min, int32Max, entry);
        !status.ok())
      return status;
    out.push_back(int32_t(entry));
  }
  return Status::success();
}

Status ManifestParser::parseMegaKernel(const JsonValue &value,
                                       const std::string &path, Step &step) {
  MegaKernelSpec &mega = step.mega;
  const uint32_t workers = step.grid[0];

  const JsonValue *addresses;
  if (Status status = getMember(value, path, "address_table",
                                JsonValue::Kind::Array, addresses);
      !status.ok())
    return status;
  for (size_t i = 0; i < addresses->getArray().size(); ++i) {
    unsigned id;
    if (Status status =
            readBufferId(addresses->getArray()[i],
                         indexPath(memberPath(path, "address_table"), i), id);
        !status.ok())
      return status;
    mega.addressTable.push_back(id);
  }

  if (Status status =
          readNameList(value, path, "task_kernels", mega.taskKernels);
      !status.ok())
    return status;
  if (value.get("task_kernel_buffers")) {
    if (Status status = readInt32Table(value, path, "task_kernel_buffers", 0,
                                       mega.taskKernelBuffers);
        !status.ok())
      return status;
    if (mega.taskKernelBuffers.size() != mega.taskKernels.size())
      return fail(memberPath(path, "task_kernel_buffers"),
                  "has " + std::to_string(mega.taskKernelBuffers.size()) +
                      " entries, expected " +
                      std::to_string(mega.taskKernels.size()) +
                      " (one per task_kernels entry)");
  }
  int64_t deadline;
  if (Status status =
          getInteger(value, path, "deadline_ms", 0, maxDeadlineMs, deadline);
      !status.ok())
    return status;
  mega.deadlineMs = uint64_t(deadline);

  const JsonValue *tables;
  if (Status status =
          getMember(value, path, "tables", JsonValue::Kind::Object, tables);
      !status.ok())
    return status;
  const std::string tablesPath = memberPath(path, "tables");
  for (auto [key, table, min] :
       {std::tuple{"tasks", &mega.tasks, int32Min},
        std::tuple{"queue_starts", &mega.queueStarts, int32Min},
        std::tuple{"queues", &mega.queues, int32Min},
        std::tuple{"needed", &mega.needed, int64_t(0)},
        std::tuple{"event_lists", &mega.eventLists, int64_t(0)}})
    if (Status status = readInt32Table(*tables, tablesPath, key, min, *table);
        !status.ok())
      return status;

  // Tasks: whole records.
  const std::string tasksPath = memberPath(tablesPath, "tasks");
  if (mega.tasks.size() % taskFields != 0)
    return fail(tasksPath, "has " + std::to_string(mega.tasks.size()) +
                               " entries, not a multiple of " +
                               std::to_string(taskFields) +
                               " (one record per task)");
  const size_t taskCount = mega.taskCount();

  // Queues: one per worker, then (where the graph has any) the
  // just-in-time tasks, covering every task exactly once.
  const std::string startsPath = memberPath(tablesPath, "queue_starts");
  const std::vector<int32_t> &starts = mega.queueStarts;
  if (starts.size() != size_t(workers) + 1 &&
      starts.size() != size_t(workers) + 2)
    return fail(startsPath,
                "has " + std::to_string(starts.size()) + " entries, expected " +
                    std::to_string(size_t(workers) + 1) + " (workers + 1) or " +
                    std::to_string(size_t(workers) + 2) +
                    " (workers + 2, with just-in-time tasks)");
  if (starts[0] != 0)
    return fail(indexPath(startsPath, 0),
                "is " + std::to_string(starts[0]) + ", expected 0");
  for (size_t w = 1; w < starts.size(); ++w)
    if (starts[w] < starts[w - 1])
      return fail(
          indexPath(startsPath, w),
          "is " + std::to_string(starts[w]) + ", below the entry before it (" +
              std::to_string(starts[w - 1]) + "; queue starts never decrease)");
  if (uint64_t(starts.back()) != mega.queues.size())
    return fail(indexPath(startsPath, starts.size() - 1),
                "is " + std::to_string(starts.back()) + ", expected " +
                    std::to_string(mega.queues.size()) +
                    " (the length of queues)");
  const std::string queuesPath = memberPath(tablesPath, "queues");
  std::vector<int64_t> queuedAt(taskCount, -1);
  for (size_t i = 0; i < mega.queues.size(); ++i) {
    int32_t task = mega.queues[i];
    if (task < 0 || uint64_t(task) >= taskCount)
      return fail(indexPath(queuesPath, i),
                  "task " + std::to_string(task) + " does not exist (" +
                      std::to_string(taskCount) + " tasks)");
    if (queuedAt[task] >= 0)
      return fail(indexPath(queuesPath, i),
                  "task " + std::to_string(task) +
                      " is queued twice (also at queues[" +
                      std::to_string(queuedAt[task]) + "])");
    queuedAt[task] = int64_t(i);
  }
  for (size_t task = 0; task < taskCount; ++task)
    if (queuedAt[task] < 0)
      return fail(queuesPath,
                  "task " + std::to_string(task) + " is in no queue");

  // Event lists: events.
  const int64_t events = int64_t(mega.eventCount());
  const std::string listsPath = memberPath(tablesPath, "event_lists");
  for (size_t i = 0; i < mega.eventLists.size(); ++i)
    if (mega.eventLists[i] >= events)
      return fail(indexPath(listsPath, i),
                  "event " + std::to_string(mega.eventLists[i]) +
                      " does not exist (" + std::to_string(events) +
                      (events == 1 ? " event)" : " events)"));

  // Task records.
  const int64_t kernels = int64_t(mega.taskKernels.size());
  const int64_t addressCount = int64_t(mega.addressTable.size());
  const int64_t listSize = int64_t(mega.eventLists.size());
  for (size_t task = 0; task < taskCount; ++task) {
    auto check = [&](TaskField which, const char *name, bool ok,
                     const std::string &expected) -> Status {
      if (ok)
        return Status::success();
      return fail(indexPath(tasksPath, task * taskFields + unsigned(which)),
                  "task " + std::to_string(task) + ": " + name + " is " +
                      std::to_string(mega.field(task, which)) + ", expected " +
                      expected);
    };
    int32_t body = mega.field(task, TaskField::Body);
    int32_t kernel = mega.field(task, TaskField::Kernel);
    int32_t first = mega.field(task, TaskField::FirstOperand);
    // A task with a body reads its buffers from first_operand on; one
    // without may point at the table's end.
    int64_t operandLimit = body >= 0 ? addressCount : addressCount + 1;
    std::vector<Status> checks = {
        check(TaskField::Body, "body", body >= -1, "-1 or more"),
        check(TaskField::Kernel, "kernel", kernel >= -1 && kernel < kernels,
              "-1 or an index of task_kernels in [0, " +
                  std::to_string(kernels) + ")"),
        check(TaskField::BlockX, "block_x",
              mega.field(task, TaskField::BlockX) >= 0,
              "a non-negative coordinate"),
        check(TaskField::BlockY, "block_y",
              mega.field(task, TaskField::BlockY) >= 0,
              "a non-negative coordinate"),
        check(TaskField::BlockZ, "block_z",
              mega.field(task, TaskField::BlockZ) >= 0,
              "a non-negative coordinate")};
    // Waits and triggers: a count, the first event, the others' start.
    for (auto [count, firstEvent, more, name] :
         {std::tuple{TaskField::Waits, TaskField::Wait, TaskField::MoreWaits,
                     "wait"},
          std::tuple{TaskField::Triggers, TaskField::Trigger,
                     TaskField::MoreTriggers, "trigger"}}) {
      int64_t n = mega.field(task, count), event = mega.field(task, firstEvent),
              start = mega.field(task, more);
      std::string plural = std::string(name) + "s";
      checks.push_back(check(count, plural.c_str(), n >= 0, "0 or more"));
      checks.push_back(check(
          firstEvent, name, n > 0 ? event >= 0 && event < events : event == -1,
          n > 0 ? "an event in [0, " + std::to_string(events) + ")"
                : std::string("-1 (no ") + plural + ")"));
      checks.push_back(check(
          more, ("more_" + plural).c_str(),
          start >= 0 && start + std::max<int64_t>(n - 1, 0) <= listSize,
          "an index of event_lists followed by the task's other " +
              std::to_string(std::max<int64_t>(n - 1, 0)) + " " + plural +
              " (event_lists has " + std::to_string(listSize) + " entries)"));
    }
    checks.push_back(check(TaskField::FirstOperand, "first_operand",
                           first >= 0 && first < operandLimit,
                           "an index of address_table in [0, " +
                               std::to_string(operandLimit) + ")"));
    // With the kernels' buffer counts, every buffer the task's body reads
    // must be in the table.
    if (kernel >= 0 && size_t(kernel) < mega.taskKernelBuffers.size()) {
      int64_t buffers = mega.taskKernelBuffers[size_t(kernel)];
      checks.push_back(
          check(TaskField::FirstOperand, "first_operand",
                first + buffers <= addressCount,
                "at most " + std::to_string(addressCount - buffers) + " (" +
                    mega.taskKernels[size_t(kernel)] + " takes " +
                    std::to_string(buffers) + " buffers; address_table has " +
                    std::to_string(addressCount) + " entries)"));
    }
    for (const Status &status : checks)
      if (!status.ok())
        return status;
  }
  return Status::success();
}

Status ManifestParser::parseSteps(const JsonValue &root) {
  const JsonValue *steps;
  if (Status status =
          getMember(root, "", "steps", JsonValue::Kind::Array, steps);
      !status.ok())
    return status;
  for (size_t i = 0; i < steps->getArray().size(); ++i)
    if (Status status = parseStep(steps->getArray()[i], i); !status.ok())
      return status;
  return Status::success();
}

Status ManifestParser::parseGenerator(const JsonValue &root) {
  const JsonValue *generator;
  if (Status status = getMember(root, "", "inputs_generator",
                                JsonValue::Kind::Object, generator);
      !status.ok())
    return status;
  const std::string path = "inputs_generator";
  std::string kind;
  if (Status status = getString(*generator, path, "kind", kind); !status.ok())
    return status;
  if (kind != "uniform")
    return fail(memberPath(path, "kind"),
                "unknown generator kind \"" + kind + "\" (expected uniform)");
  int64_t seed;
  if (Status status = getInteger(*generator, path, "seed", 0, int64Max, seed);
      !status.ok())
    return status;
  UniformGenerator &uniform = manifest.generator;
  uniform.seed = uint64_t(seed);
  if (Status status = getNumber(*generator, path, "low", uniform.low);
      !status.ok())
    return status;
  if (Status status = getNumber(*generator, path, "high", uniform.high);
      !status.ok())
    return status;
  if (uniform.low > uniform.high)
    return fail(path, "low (" + writeJson(uniform.low, 0) +
                          ") is above high (" + writeJson(uniform.high, 0) +
                          ")");
  // scales: optional, one positive finite factor per input.
  const JsonValue *scales = generator->get("scales");
  if (!scales)
    return Status::success();
  const std::string scalesPath = memberPath(path, "scales");
  if (Status status = expectKind(*scales, scalesPath, JsonValue::Kind::Array);
      !status.ok())
    return status;
  if (scales->getArray().size() != manifest.inputs.size())
    return fail(scalesPath,
                std::to_string(scales->getArray().size()) + " scales for " +
                    std::to_string(manifest.inputs.size()) + " inputs");
  for (size_t i = 0; i < scales->getArray().size(); ++i) {
    const JsonValue &scale = scales->getArray()[i];
    std::string elementPath = indexPath(scalesPath, i);
    if (!scale.isNumber() || !std::isfinite(scale.getNumber()) ||
        scale.getNumber() <= 0)
      return fail(elementPath, "expected a positive finite number, found " +
                                   describeValue(scale));
    uniform.scales.push_back(scale.getNumber());
  }
  return Status::success();
}

Status ManifestParser::parseReference(const JsonValue &root) {
  const JsonValue *reference = root.get("reference");
  if (!reference || reference->isNull())
    return Status::success();
  const std::string path = "reference";
  if (Status status = expectKind(*reference, path, JsonValue::Kind::Object);
      !status.ok())
    return status;
  ReferenceSpec spec;
  if (Status status = getString(*reference, path, "file", spec.file);
      !status.ok())
    return status;
  if (Status status = getString(*reference, path, "function", spec.function);
      !status.ok())
    return status;
  const JsonValue *tolerance;
  if (Status status = getMember(*reference, path, "tolerance",
                                JsonValue::Kind::Object, tolerance);
      !status.ok())
    return status;
  std::string tolerancePath = memberPath(path, "tolerance");
  if (Status status =
          getNumber(*tolerance, tolerancePath, "rel_l2", spec.relL2Tolerance);
      !status.ok())
    return status;
  if (spec.relL2Tolerance < 0)
    return fail(memberPath(tolerancePath, "rel_l2"),
                "expected a non-negative number, found " +
                    writeJson(spec.relL2Tolerance, 0));
  manifest.reference = std::move(spec);
  return Status::success();
}

Status ManifestParser::readNameList(const JsonValue &object,
                                    const std::string &path,
                                    std::string_view key,
                                    std::vector<std::string> &out) {
  const JsonValue *list;
  if (Status status =
          getMember(object, path, key, JsonValue::Kind::Array, list);
      !status.ok())
    return status;
  for (size_t i = 0; i < list->getArray().size(); ++i) {
    const JsonValue &name = list->getArray()[i];
    if (Status status = expectKind(name, indexPath(memberPath(path, key), i),
                                   JsonValue::Kind::String);
        !status.ok())
      return status;
    out.push_back(name.getString());
  }
  return Status::success();
}

Status ManifestParser::parseProgram(const JsonValue &root) {
  // The runner does not use the program; checking it here catches writer
  // bugs before a baseline script trips over them.
  const JsonValue *program;
  if (Status status = getMember(root, "", "program", program); !status.ok())
    return status;
  if (program->isNull())
    return Status::success();
  const std::string path = "program";
  if (!program->isObject())
    return fail(path,
                "expected an object or null, found " + describeValue(*program));

  std::vector<std::string> inputs, outputs;
  if (Status status = readNameList(*program, path, "inputs", inputs);
      !status.ok())
    return status;
  if (inputs.size() != manifest.inputs.size())
    return fail(memberPath(path, "inputs"),
                std::to_string(inputs.size()) + " names for " +
                    std::to_string(manifest.inputs.size()) + " inputs");
  std::set<std::string> defined(inputs.begin(), inputs.end());
  if (defined.size() != inputs.size())
    return fail(memberPath(path, "inputs"), "a name is listed twice");

  const JsonValue *types;
  if (Status status =
          getMember(*program, path, "types", JsonValue::Kind::Object, types);
      !status.ok())
    return status;
  for (const auto &[name, type] : types->getObject()) {
    std::string typePath = memberPath(memberPath(path, "types"), name);
    if (Status status = expectKind(type, typePath, JsonValue::Kind::Object);
        !status.ok())
      return status;
    std::string dtype;
    if (Status status = getString(type, typePath, "dtype", dtype); !status.ok())
      return status;
    if (!parseDType(dtype))
      return fail(memberPath(typePath, "dtype"),
                  "unknown dtype \"" + dtype +
                      "\" (expected f16, bf16 or f32)");
    const JsonValue *shape;
    if (Status status =
            getMember(type, typePath, "shape", JsonValue::Kind::Array, shape);
        !status.ok())
      return status;
    for (size_t d = 0; d < shape->getArray().size(); ++d) {
      int64_t dim;
      if (Status status = readInteger(
              shape->getArray()[d], indexPath(memberPath(typePath, "shape"), d),
              0, int64Max, dim);
          !status.ok())
        return status;
    }
  }

  const JsonValue *ops;
  if (Status status =
          getMember(*program, path, "ops", JsonValue::Kind::Array, ops);
      !status.ok())
    return status;
  for (size_t i = 0; i < ops->getArray().size(); ++i) {
    const JsonValue &op = ops->getArray()[i];
    std::string opPath = indexPath(memberPath(path, "ops"), i);
    if (Status status = expectKind(op, opPath, JsonValue::Kind::Object);
        !status.ok())
      return status;
    std::string mnemonic;
    if (Status status = getString(op, opPath, "op", mnemonic); !status.ok())
      return status;
    const JsonValue *attrs;
    if (Status status =
            getMember(op, opPath, "attrs", JsonValue::Kind::Object, attrs);
        !status.ok())
      return status;
    std::vector<std::string> operands, results;
    if (Status status = readNameList(op, opPath, "operands", operands);
        !status.ok())
      return status;
    if (Status status = readNameList(op, opPath, "results", results);
        !status.ok())
      return status;
    for (const std::string &operand : operands)
      if (!defined.count(operand))
        return fail(opPath, "operand \"" + operand + "\" is not defined");
    for (const std::string &result : results) {
      if (!defined.insert(result).second)
        return fail(opPath, "result \"" + result + "\" is defined twice");
      if (!types->get(result))
        return fail(opPath, "result \"" + result + "\" has no entry in types");
    }
  }

  if (Status status = readNameList(*program, path, "outputs", outputs);
      !status.ok())
    return status;
  if (outputs.size() != manifest.outputs.size())
    return fail(memberPath(path, "outputs"),
                std::to_string(outputs.size()) + " names for " +
                    std::to_string(manifest.outputs.size()) + " outputs");
  for (const std::string &output : outputs)
    if (!defined.count(output))
      return fail(memberPath(path, "outputs"),
                  "\"" + output + "\" is not defined");
  return Status::success();
}

Expected<Manifest> mirage::runtime::parseManifest(std::string_view text,
                                                  const std::string &origin) {
  Expected<JsonValue> root = parseJson(text);
  if (!root)
    return Status::error(origin + ": " + root.message());
  return ManifestParser(origin).parse(*root);
}

std::optional<std::string>
mirage::runtime::findArgumentOverlap(const Manifest &manifest,
                                     const std::vector<uint64_t> &inputs,
                                     const std::vector<uint64_t> &outputs) {
  struct Range {
    const char *what;
    size_t index;
    uint64_t begin, end;
  };
  std::vector<Range> ranges;
  auto add = [&](const char *what, const std::vector<unsigned> &ids,
                 const std::vector<uint64_t> &addresses) {
    for (size_t i = 0; i < ids.size() && i < addresses.size(); ++i)
      ranges.push_back({what, i, addresses[i],
                        addresses[i] + manifest.buffers[ids[i]].bytes});
  };
  add("input", manifest.inputs, inputs);
  size_t firstOutput = ranges.size();
  add("output", manifest.outputs, outputs);
  // Every pair with an output in it; inputs may share memory.
  for (size_t o = firstOutput; o < ranges.size(); ++o)
    for (size_t other = 0; other < o; ++other) {
      const Range &a = ranges[other], &b = ranges[o];
      if (a.begin < b.end && b.begin < a.end)
        return manifest.name + ": " + b.what + " " + std::to_string(b.index) +
               " overlaps " + a.what + " " + std::to_string(a.index) +
               " (outputs must not share memory with inputs or with each "
               "other: a kernel may read its inputs while the kernel before "
               "it still runs)";
    }
  return std::nullopt;
}

Expected<Manifest> mirage::runtime::loadManifest(const std::string &bundleDir) {
  std::string path =
      (std::filesystem::path(bundleDir) / "manifest.json").string();
  Expected<std::string> text = readFile(path);
  if (!text)
    return text.status();
  return parseManifest(*text, path);
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

Expected<std::string> mirage::runtime::readFile(const std::string &path) {
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file)
    return Status::error(path + ": cannot open: " + std::strerror(errno));
  std::string contents;
  char buffer[1 << 16];
  size_t count;
  while ((count = std::fread(buffer, 1, sizeof(buffer), file)) > 0)
    contents.append(buffer, count);
  int error = std::ferror(file) ? errno : 0;
  std::fclose(file);
  if (error)
    return Status::error(path + ": cannot read: " + std::strerror(error));
  return contents;
}

Status mirage::runtime::writeFile(const std::string &path, const void *data,
                                  size_t size) {
  // Written beside it, then renamed over it: a reader (or a process killed
  // mid-write) never sees half a file.
  const std::string partial = path + ".partial";
  std::FILE *file = std::fopen(partial.c_str(), "wb");
  if (!file)
    return Status::error(partial + ": cannot create: " + std::strerror(errno));
  bool failed = std::fwrite(data, 1, size, file) != size;
  failed |= std::fclose(file) != 0;
  if (failed || std::rename(partial.c_str(), path.c_str()) != 0) {
    Status error =
        Status::error(path + ": write error: " + std::strerror(errno));
    std::remove(partial.c_str());
    return error;
  }
  return Status::success();
}
