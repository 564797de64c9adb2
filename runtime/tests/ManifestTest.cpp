//===- ManifestTest.cpp - Parsing and validating manifest.json ------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage_runtime/Manifest.h"

#include "gtest/gtest.h"

using namespace mirage::runtime;

namespace {

/// A valid manifest using every feature: a view, an intermediate, a copy, a
/// kernel without ptxas numbers and a field of a later version.
const char *const validManifest = R"({
  "format": "mirage-bundle",
  "version": 1,
  "name": "f",
  "source": "examples/f.mlir",
  "chip": "sm_90a",
  "binary": {"ptx": "kernels.ptx", "cubin": "kernels.cubin"},
  "kernels": [
    {"name": "k0", "registers": 64, "spill_bytes": 0,
     "static_shared_bytes": 512},
    {"name": "k1"}
  ],
  "buffers": [
    {"id": 0, "name": "x", "role": "input", "dtype": "f16", "shape": [2, 8]},
    {"id": 1, "name": "w", "role": "input", "dtype": "bf16", "shape": [8]},
    {"id": 2, "name": "t", "role": "intermediate", "dtype": "f32",
     "shape": [2, 8]},
    {"id": 3, "name": "t2", "role": "view", "base": 2, "dtype": "f32",
     "shape": [16]},
    {"id": 4, "name": "out0", "role": "output", "dtype": "f32", "shape": [4, 4]}
  ],
  "inputs": [0, 1],
  "outputs": [4],
  "steps": [
    {"kind": "launch", "kernel": "k0", "grid": [2, 1, 1], "block": [128, 1, 1],
     "dynamic_shared_bytes": 65536, "args": [0, 1, 2]},
    {"kind": "copy", "src": 3, "dst": 4, "bytes": 64},
    {"kind": "launch", "kernel": "k1", "grid": [1, 1, 1], "block": [32, 1, 1],
     "dynamic_shared_bytes": 0, "args": [4]}
  ],
  "inputs_generator": {"kind": "uniform", "seed": 7, "low": -1.0, "high": 1.0},
  "reference": {"file": "reference.bin", "function": "f_ref",
                "tolerance": {"rel_l2": 0.01}},
  "program": {
    "inputs": ["x", "w"],
    "ops": [
      {"op": "mul", "operands": ["x", "w"], "results": ["v0"], "attrs": {}},
      {"op": "reshape", "operands": ["v0"], "results": ["v1"], "attrs": {}}
    ],
    "outputs": ["v1"],
    "types": {"v0": {"dtype": "f32", "shape": [2, 8]},
              "v1": {"dtype": "f32", "shape": [4, 4]}}
  },
  "later_field": {"ignored": true}
})";

/// A valid version 6 manifest: a mega-kernel step (two workers, four tasks,
/// one event, a task without a kernel) and a launch of a kernel marked pdl.
const char *const validMegaManifest = R"({
  "format": "mirage-bundle",
  "version": 6,
  "name": "g",
  "source": "g.mlir",
  "chip": "sm_90a",
  "binary": {"ptx": "kernels.ptx"},
  "kernels": [
    {"name": "mk", "registers": 128, "pdl": false},
    {"name": "k0", "pdl": true}
  ],
  "buffers": [
    {"id": 0, "name": "arg0", "role": "input", "dtype": "f16", "shape": [4, 8]},
    {"id": 1, "name": "tmp0", "role": "intermediate", "dtype": "f16",
     "shape": [4, 8]},
    {"id": 2, "name": "view0", "role": "view", "base": 1, "dtype": "f16",
     "shape": [32]},
    {"id": 3, "name": "out0", "role": "output", "dtype": "f16", "shape": [32]}
  ],
  "inputs": [0],
  "outputs": [3],
  "steps": [
    {"kind": "megakernel", "kernel": "mk", "grid": [2, 1, 1],
     "block": [128, 1, 1], "dynamic_shared_bytes": 4096,
     "address_table": [0, 1, 2, 3],
     "tables": {
       "tasks": [0, 0, 0, 0, 0, 0, -1, 0, 1, 0, 0, 0,
                 0, 0, 1, 0, 0, 0, -1, 0, 1, 0, 0, 1,
                 1, 1, 0, 0, 0, 1, 0, 0, 0, -1, 0, 2,
                 -1, -1, 0, 0, 0, 0, -1, 0, 0, -1, 0, 4],
       "queue_starts": [0, 2, 4],
       "queues": [0, 2, 1, 3],
       "needed": [2],
       "event_lists": []},
     "task_kernels": ["k0_add", "k1_exp"],
     "task_kernel_buffers": [2, 2],
     "deadline_ms": 2000},
    {"kind": "launch", "kernel": "k0", "grid": [1, 1, 1], "block": [32, 1, 1],
     "dynamic_shared_bytes": 0, "args": [2, 3]}
  ],
  "inputs_generator": {"kind": "uniform", "seed": 1, "low": -1.0, "high": 1.0},
  "reference": {"file": "reference.bin", "function": "g",
                "tolerance": {"rel_l2": 0.01}},
  "program": null
})";

/// A valid version 3 manifest: tensor maps over a 2-D input, a 3-D input and
/// a view, next to a plain pointer argument.
const char *const validTensorMapManifest = R"({
  "format": "mirage-bundle",
  "version": 3,
  "name": "h",
  "source": "h.mlir",
  "chip": "sm_90a",
  "binary": {"ptx": "kernels.ptx"},
  "kernels": [{"name": "k0"}],
  "buffers": [
    {"id": 0, "name": "arg0", "role": "input", "dtype": "f16",
     "shape": [64, 128]},
    {"id": 1, "name": "arg1", "role": "input", "dtype": "bf16",
     "shape": [4, 16, 64]},
    {"id": 2, "name": "tmp0", "role": "intermediate", "dtype": "f32",
     "shape": [32, 32]},
    {"id": 3, "name": "view0", "role": "view", "base": 2, "dtype": "f32",
     "shape": [8, 4, 32]},
    {"id": 4, "name": "out0", "role": "output", "dtype": "f16",
     "shape": [64, 128]}
  ],
  "inputs": [0, 1],
  "outputs": [4],
  "steps": [
    {"kind": "launch", "kernel": "k0", "grid": [2, 1, 1],
     "block": [128, 1, 1], "dynamic_shared_bytes": 32768,
     "args": [
       {"tensor_map": {"buffer": 0, "box": [64, 64], "swizzle": 128}},
       {"tensor_map": {"buffer": 1, "box": [2, 8, 32], "swizzle": 64},
        "later_field": 1},
       {"tensor_map": {"buffer": 3, "box": [1, 4, 8], "swizzle": 32}},
       {"tensor_map": {"buffer": 4, "box": [1, 8], "swizzle": 0}},
       4]}
  ],
  "inputs_generator": {"kind": "uniform", "seed": 1, "low": -1.0, "high": 1.0},
  "program": null
})";

/// `text` with `from` (which must occur once) replaced by `to`.
std::string replacedIn(const std::string &text, const std::string &from,
                       const std::string &to) {
  std::string result = text;
  size_t at = result.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(result.find(from, at + 1), std::string::npos) << from;
  if (at != std::string::npos)
    result.replace(at, from.size(), to);
  return result;
}

/// validManifest with `from` (which must occur once) replaced by `to`.
std::string replaced(const std::string &from, const std::string &to) {
  std::string text = validManifest;
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << from;
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

std::string errorOf(const std::string &text) {
  Expected<Manifest> manifest = parseManifest(text);
  EXPECT_FALSE(manifest.ok());
  return manifest ? "" : manifest.message();
}

std::string errorWith(const std::string &from, const std::string &to) {
  return errorOf(replaced(from, to));
}

/// The error of validTensorMapManifest with `from` replaced by `to`.
std::string tensorMapErrorWith(const std::string &from, const std::string &to) {
  return errorOf(replacedIn(validTensorMapManifest, from, to));
}

/// The error of validMegaManifest with `from` replaced by `to`.
std::string megaErrorWith(const std::string &from, const std::string &to) {
  return errorOf(replacedIn(validMegaManifest, from, to));
}

TEST(ManifestTest, Valid) {
  Expected<Manifest> parsed = parseManifest(validManifest);
  ASSERT_TRUE(parsed.ok()) << parsed.message();
  const Manifest &manifest = *parsed;
  EXPECT_EQ(manifest.name, "f");
  EXPECT_EQ(manifest.chip, "sm_90a");
  EXPECT_EQ(manifest.ptxFile, "kernels.ptx");
  EXPECT_EQ(manifest.cubinFile, "kernels.cubin");
  ASSERT_EQ(manifest.kernels.size(), 2u);
  EXPECT_EQ(manifest.kernels[0].registers, 64);
  EXPECT_EQ(manifest.kernels[0].staticSharedBytes, 512);
  EXPECT_EQ(manifest.kernels[1].registers, std::nullopt);
  EXPECT_EQ(writeJson(manifest.kernelsJson, 0),
            R"([{"name":"k0","registers":64,"spill_bytes":0,)"
            R"("static_shared_bytes":512},{"name":"k1"}])");

  ASSERT_EQ(manifest.buffers.size(), 5u);
  const BufferSpec &x = manifest.buffers[0];
  EXPECT_EQ(x.dtype, DType::F16);
  EXPECT_EQ(x.shape, (std::vector<int64_t>{2, 8}));
  EXPECT_EQ(x.elements, 16u);
  EXPECT_EQ(x.bytes, 32u);
  EXPECT_EQ(manifest.buffers[2].role, BufferRole::Intermediate);
  EXPECT_EQ(manifest.buffers[3].base, 2u);
  EXPECT_EQ(manifest.storageOf(3), 2u);
  EXPECT_EQ(manifest.storageOf(4), 4u);
  EXPECT_EQ(manifest.inputs, (std::vector<unsigned>{0, 1}));
  EXPECT_EQ(manifest.outputs, (std::vector<unsigned>{4}));
  EXPECT_EQ(manifest.referenceElements(), 16u);

  ASSERT_EQ(manifest.steps.size(), 3u);
  const Step &launch = manifest.steps[0];
  EXPECT_EQ(launch.kind, Step::Kind::Launch);
  EXPECT_EQ(launch.kernel, "k0");
  EXPECT_EQ(launch.grid, (std::array<uint32_t, 3>{2, 1, 1}));
  EXPECT_EQ(launch.block, (std::array<uint32_t, 3>{128, 1, 1}));
  EXPECT_EQ(launch.dynamicSharedBytes, 65536u);
  ASSERT_EQ(launch.args.size(), 3u);
  for (unsigned a = 0; a < 3; ++a) {
    EXPECT_EQ(launch.args[a].buffer, a);
    EXPECT_FALSE(launch.args[a].tensorMap);
  }
  const Step &copy = manifest.steps[1];
  EXPECT_EQ(copy.kind, Step::Kind::Copy);
  EXPECT_EQ(copy.src, 3u);
  EXPECT_EQ(copy.dst, 4u);
  EXPECT_EQ(copy.bytes, 64u);

  EXPECT_EQ(manifest.generator.seed, 7u);
  EXPECT_EQ(manifest.generator.low, -1.0);
  EXPECT_EQ(manifest.generator.high, 1.0);
  ASSERT_TRUE(manifest.reference);
  EXPECT_EQ(manifest.reference->file, "reference.bin");
  EXPECT_EQ(manifest.reference->function, "f_ref");
  EXPECT_EQ(manifest.reference->relL2Tolerance, 0.01);
}

// A kernel's speed-model record is kept as written, for the results.
TEST(ManifestTest, KernelModelKept) {
  Expected<Manifest> manifest = parseManifest(replaced(
      R"({"name": "k1"})",
      R"({"name": "k1", "model": {"estimate_us": 4.5, "threads": 512}})"));
  ASSERT_TRUE(manifest.ok()) << manifest.message();
  EXPECT_EQ(writeJson(manifest->kernelsJson, 0),
            R"([{"name":"k0","registers":64,"spill_bytes":0,)"
            R"("static_shared_bytes":512},{"name":"k1","model":)"
            R"({"estimate_us":4.5,"threads":512}}])");
}

TEST(ManifestTest, OptionalParts) {
  std::string text = replaced(R"(, "cubin": "kernels.cubin")", "");
  size_t reference = text.find(R"(  "reference")");
  size_t program = text.find(R"(  "program")");
  text.erase(reference, program - reference);
  text = text.substr(0, text.find(R"(  "program")")) + "  \"program\": null\n}";
  Expected<Manifest> manifest = parseManifest(text);
  ASSERT_TRUE(manifest.ok()) << manifest.message();
  EXPECT_EQ(manifest->cubinFile, std::nullopt);
  EXPECT_EQ(manifest->reference, std::nullopt);
}

TEST(ManifestTest, Header) {
  EXPECT_EQ(errorOf("[1]"), "manifest.json: expected an object, found an "
                            "array");
  EXPECT_EQ(errorOf("{\"format\": "),
            "manifest.json: line 1, column 12: expected a value, found end of "
            "input");
  EXPECT_EQ(errorWith(R"("format": "mirage-bundle")", R"("format": "other")"),
            "manifest.json: format: expected \"mirage-bundle\", found "
            "\"other\"");
  EXPECT_EQ(errorWith(R"("version": 1)", R"("version": 7)"),
            "manifest.json: version: unsupported version 7 (this runtime "
            "reads versions 1 to 6)");
  EXPECT_EQ(errorWith(R"("version": 1)", R"("version": 0)"),
            "manifest.json: version: unsupported version 0 (this runtime "
            "reads versions 1 to 6)");
  EXPECT_EQ(errorWith(R"("version": 1)", R"("version": "2")"),
            "manifest.json: version: unsupported version \"2\" (this "
            "runtime reads versions 1 to 6)");
  EXPECT_EQ(errorWith(R"("version": 1,)", ""),
            "manifest.json: missing field \"version\"");
  EXPECT_EQ(errorWith(R"("name": "f",)", R"("name": 3,)"),
            "manifest.json: name: expected a string, found 3");
  EXPECT_EQ(errorWith(R"("ptx": "kernels.ptx", )", ""),
            "manifest.json: binary: missing field \"ptx\"");
  EXPECT_EQ(errorWith(R"("cubin": "kernels.cubin")", R"("cubin": true)"),
            "manifest.json: binary.cubin: expected a string, found true");
}

TEST(ManifestTest, Kernels) {
  EXPECT_EQ(errorWith(R"({"name": "k1"})", R"({"name": "k0"})"),
            "manifest.json: kernels[1]: duplicate kernel name \"k0\"");
  EXPECT_EQ(errorWith(R"("registers": 64)", R"("registers": -1)"),
            "manifest.json: kernels[0].registers: expected a non-negative "
            "integer, found -1");
  EXPECT_EQ(errorWith(R"({"name": "k1"})", R"({"nom": "k1"})"),
            "manifest.json: kernels[1]: missing field \"name\"");
}

TEST(ManifestTest, Buffers) {
  EXPECT_EQ(errorWith(R"("id": 3,)", R"("id": 4,)"),
            "manifest.json: buffers[3]: id is 4, expected 3 (ids are 0..N-1 "
            "in order)");
  EXPECT_EQ(errorWith(R"("role": "intermediate")", R"("role": "scratch")"),
            "manifest.json: buffers[2].role: unknown role \"scratch\" "
            "(expected input, output, intermediate or view)");
  EXPECT_EQ(errorWith(R"("dtype": "bf16")", R"("dtype": "f64")"),
            "manifest.json: buffers[1].dtype: unknown dtype \"f64\" (expected "
            "f16, bf16 or f32)");
  EXPECT_EQ(errorWith(R"("shape": [8]})", R"("shape": [8, 0]})"),
            "manifest.json: buffers[1].shape[1]: expected a positive integer, "
            "found 0");
  EXPECT_EQ(errorWith(R"("shape": [8]})", R"("shape": 8})"),
            "manifest.json: buffers[1].shape: expected an array, found 8");
  EXPECT_EQ(
      errorWith(R"("shape": [8]})", R"("shape": [1048576, 1048576, 1048576]})"),
      "manifest.json: buffers[1].shape: too many elements (more than "
      "2^50 bytes)");
}

TEST(ManifestTest, Views) {
  EXPECT_EQ(errorWith(R"("base": 2)", R"("base": 9)"),
            "manifest.json: buffers[3]: view base 9 does not exist");
  EXPECT_EQ(errorWith(R"("base": 2, )", ""),
            "manifest.json: buffers[3]: missing field \"base\" (a view needs "
            "one)");
  EXPECT_EQ(errorWith(R"("name": "x", "role": "input",)",
                      R"("name": "x", "role": "input", "base": 1,)"),
            "manifest.json: buffers[0]: base given for a buffer of role input "
            "(only views have one)");
  EXPECT_EQ(
      errorWith(R"("base": 2, "dtype": "f32")", R"("base": 2, "dtype": "f16")"),
      "manifest.json: buffers[3]: view dtype f16 differs from base 2's "
      "dtype f32");
  EXPECT_EQ(errorWith(R"("shape": [16]})", R"("shape": [8]})"),
            "manifest.json: buffers[3]: view has 32 bytes, base 2 has 64");
  EXPECT_EQ(errorWith(R"("base": 2)", R"("base": 3)"),
            "manifest.json: buffers[3]: the chain of view bases loops");
}

TEST(ManifestTest, InputsAndOutputs) {
  EXPECT_EQ(errorWith(R"("inputs": [0, 1])", R"("inputs": [0, 7])"),
            "manifest.json: inputs[1]: buffer 7 does not exist");
  EXPECT_EQ(errorWith(R"("inputs": [0, 1])", R"("inputs": [0, 4])"),
            "manifest.json: inputs[1]: buffer 4 has role output, expected "
            "input");
  EXPECT_EQ(errorWith(R"("inputs": [0, 1])", R"("inputs": [0, 0])"),
            "manifest.json: inputs[1]: buffer 0 is listed twice");
  EXPECT_EQ(errorWith(R"("inputs": [0, 1])", R"("inputs": [0])"),
            "manifest.json: buffers[1]: input buffer is not listed in inputs");
  EXPECT_EQ(errorWith(R"("outputs": [4])", R"("outputs": [])"),
            "manifest.json: buffers[4]: output buffer is not listed in "
            "outputs");
  EXPECT_EQ(errorWith(R"("outputs": [4])", R"("outputs": [-1])"),
            "manifest.json: outputs[0]: expected a non-negative integer, "
            "found -1");
}

TEST(ManifestTest, Steps) {
  EXPECT_EQ(errorWith(R"("kind": "copy")", R"("kind": "memset")"),
            "manifest.json: steps[1].kind: unknown step kind \"memset\" "
            "(expected launch, copy or megakernel)");
  EXPECT_EQ(errorWith(R"("kernel": "k1")", R"("kernel": "k2")"),
            "manifest.json: steps[2]: kernel \"k2\" is not listed in kernels");
  EXPECT_EQ(errorWith(R"("grid": [2, 1, 1])", R"("grid": [2, 1])"),
            "manifest.json: steps[0].grid: expected 3 entries, found 2");
  EXPECT_EQ(errorWith(R"("block": [32, 1, 1])", R"("block": [32, 0, 1])"),
            "manifest.json: steps[2].block[1]: expected an integer in [1, "
            "4294967295], found 0");
  EXPECT_EQ(errorWith(R"("grid": [2, 1, 1])", R"("grid": [2.5, 1, 1])"),
            "manifest.json: steps[0].grid[0]: expected an integer in [1, "
            "4294967295], found 2.5");
  EXPECT_EQ(errorWith(R"("dynamic_shared_bytes": 65536, )", ""),
            "manifest.json: steps[0]: missing field \"dynamic_shared_bytes\"");
  EXPECT_EQ(errorWith(R"("args": [0, 1, 2])", R"("args": [0, 1, 5])"),
            "manifest.json: steps[0].args[2]: buffer 5 does not exist");
  EXPECT_EQ(errorWith(R"("src": 3)", R"("src": 8)"),
            "manifest.json: steps[1].src: buffer 8 does not exist");
  EXPECT_EQ(errorWith(R"("bytes": 64)", R"("bytes": 128)"),
            "manifest.json: steps[1]: copy of 128 bytes overruns buffer 3 (64 "
            "bytes)");
  EXPECT_EQ(errorWith(R"("steps": [)", R"("steps": 1, "unused": [)"),
            "manifest.json: steps: expected an array, found 1");
}

TEST(ManifestTest, ValidMegaKernel) {
  Expected<Manifest> parsed = parseManifest(validMegaManifest);
  ASSERT_TRUE(parsed.ok()) << parsed.message();
  const Manifest &manifest = *parsed;
  EXPECT_EQ(manifest.version, 6);
  EXPECT_FALSE(manifest.kernels[0].pdl);
  EXPECT_TRUE(manifest.kernels[1].pdl);
  EXPECT_TRUE(manifest.kernel("k0").pdl);
  ASSERT_EQ(manifest.steps.size(), 2u);
  const Step &step = manifest.steps[0];
  EXPECT_EQ(step.kind, Step::Kind::MegaKernel);
  EXPECT_EQ(step.kernel, "mk");
  EXPECT_EQ(step.grid, (std::array<uint32_t, 3>{2, 1, 1}));
  EXPECT_EQ(step.block, (std::array<uint32_t, 3>{128, 1, 1}));
  EXPECT_EQ(step.dynamicSharedBytes, 4096u);
  const MegaKernelSpec &mega = step.mega;
  EXPECT_EQ(mega.addressTable, (std::vector<unsigned>{0, 1, 2, 3}));
  EXPECT_EQ(mega.taskCount(), 4u);
  EXPECT_EQ(mega.eventCount(), 1u);
  EXPECT_EQ(mega.field(1, TaskField::BlockX), 1);
  EXPECT_EQ(mega.field(2, TaskField::Waits), 1);
  EXPECT_EQ(mega.field(2, TaskField::Wait), 0);
  EXPECT_EQ(mega.field(1, TaskField::Triggers), 1);
  EXPECT_EQ(mega.field(1, TaskField::Trigger), 0);
  EXPECT_TRUE(mega.eventLists.empty());
  EXPECT_EQ(mega.field(3, TaskField::Kernel), -1);
  EXPECT_EQ(mega.field(3, TaskField::FirstOperand), 4);
  EXPECT_EQ(mega.queueStarts, (std::vector<int32_t>{0, 2, 4}));
  EXPECT_EQ(mega.queues, (std::vector<int32_t>{0, 2, 1, 3}));
  EXPECT_EQ(mega.needed, (std::vector<int32_t>{2}));
  EXPECT_EQ(mega.taskKernels, (std::vector<std::string>{"k0_add", "k1_exp"}));
  EXPECT_EQ(mega.taskKernelBuffers, (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(mega.deadlineMs, 2000u);
  EXPECT_EQ(manifest.steps[1].kind, Step::Kind::Launch);

  // A last span of just-in-time tasks after the workers' queues: task 3
  // moves there.
  Expected<Manifest> jit = parseManifest(
      replacedIn(validMegaManifest, R"("queue_starts": [0, 2, 4],)",
                 R"("queue_starts": [0, 2, 3, 4],)"));
  ASSERT_TRUE(jit.ok()) << jit.message();
  EXPECT_EQ(jit->steps[0].mega.queueStarts, (std::vector<int32_t>{0, 2, 3, 4}));

  // Version 1 manifests parse as before, and without pdl marks.
  Expected<Manifest> old = parseManifest(validManifest);
  ASSERT_TRUE(old.ok()) << old.message();
  EXPECT_EQ(old->version, 1);
  EXPECT_FALSE(old->kernels[0].pdl);
  // A mega-kernel without tasks or events is still a valid one.
  Expected<Manifest> empty = parseManifest(
      replacedIn(replacedIn(replacedIn(validMegaManifest, R"("needed": [2])",
                                       R"("needed": [])"),
                            R"("queue_starts": [0, 2, 4],
       "queues": [0, 2, 1, 3],)",
                            R"("queue_starts": [0, 0, 0], "queues": [],)"),
                 R"([0, 0, 0, 0, 0, 0, -1, 0, 1, 0, 0, 0,
                 0, 0, 1, 0, 0, 0, -1, 0, 1, 0, 0, 1,
                 1, 1, 0, 0, 0, 1, 0, 0, 0, -1, 0, 2,
                 -1, -1, 0, 0, 0, 0, -1, 0, 0, -1, 0, 4])",
                 "[]"));
  ASSERT_TRUE(empty.ok()) << empty.message();
  EXPECT_EQ(empty->steps[0].mega.taskCount(), 0u);
}

TEST(ManifestTest, MegaKernelStep) {
  EXPECT_EQ(megaErrorWith(R"("version": 6)", R"("version": 5)"),
            "manifest.json: steps[0].kind: megakernel steps need manifest "
            "version 6, this is version 5 (rebuild the bundle with this "
            "mirage-bundle)");
  EXPECT_EQ(megaErrorWith(R"("pdl": true)", R"("pdl": "yes")"),
            "manifest.json: kernels[1].pdl: expected a boolean, found "
            "\"yes\"");
  EXPECT_EQ(megaErrorWith(R"("kernel": "mk")", R"("kernel": "mk2")"),
            "manifest.json: steps[0]: kernel \"mk2\" is not listed in "
            "kernels");
  EXPECT_EQ(megaErrorWith(R"("grid": [2, 1, 1])", R"("grid": [2, 2, 1])"),
            "manifest.json: steps[0].grid: a mega-kernel's grid is [workers, "
            "1, 1], found [2, 2, 1]");
  EXPECT_EQ(megaErrorWith(R"("block": [128, 1, 1])", R"("block": [128, 1, 2])"),
            "manifest.json: steps[0].block: a mega-kernel's block is "
            "[threads, 1, 1], found [128, 1, 2]");
  EXPECT_EQ(megaErrorWith(R"("address_table": [0, 1, 2, 3])",
                          R"("address_table": [0, 1, 2, 7])"),
            "manifest.json: steps[0].address_table[3]: buffer 7 does not "
            "exist");
  EXPECT_EQ(megaErrorWith(R"("address_table": [0, 1, 2, 3],)", ""),
            "manifest.json: steps[0]: missing field \"address_table\"");
  EXPECT_EQ(megaErrorWith(R"(["k0_add", "k1_exp"])", R"(["k0_add", 3])"),
            "manifest.json: steps[0].task_kernels[1]: expected a string, "
            "found 3");
  EXPECT_EQ(megaErrorWith(R"("deadline_ms": 2000)", R"("deadline_ms": -1)"),
            "manifest.json: steps[0].deadline_ms: expected an integer in [0, "
            "9223372036854], found -1");
  EXPECT_EQ(megaErrorWith(R"("tables": {)", R"("tables": 1, "unused": {)"),
            "manifest.json: steps[0].tables: expected an object, found 1");
  EXPECT_EQ(megaErrorWith(R"("event_lists": []})", R"("lists": []})"),
            "manifest.json: steps[0].tables: missing field \"event_lists\"");
  EXPECT_EQ(megaErrorWith(R"("needed": [2])", R"("needed": [-2])"),
            "manifest.json: steps[0].tables.needed[0]: expected an integer "
            "in [0, 2147483647], found -2");
  EXPECT_EQ(megaErrorWith(R"("queues": [0, 2, 1, 3])",
                          R"("queues": [2147483648, 2, 1, 3])"),
            "manifest.json: steps[0].tables.queues[0]: expected an integer "
            "in [-2147483648, 2147483647], found 2147483648");
}

TEST(ManifestTest, MegaKernelTables) {
  EXPECT_EQ(
      megaErrorWith("-1, -1, 0, 0, 0, 0, -1, 0, 0, -1, 0, 4]", "-1, -1, 0]"),
      "manifest.json: steps[0].tables.tasks: has 39 entries, not a "
      "multiple of 12 (one record per task)");
  EXPECT_EQ(megaErrorWith(R"("event_lists": [])", R"("event_lists": [1])"),
            "manifest.json: steps[0].tables.event_lists[0]: event 1 does not "
            "exist (1 event)");
  EXPECT_EQ(megaErrorWith(R"("event_lists": [])", R"("event_lists": [-1])"),
            "manifest.json: steps[0].tables.event_lists[0]: expected an "
            "integer in [0, 2147483647], found -1");
  EXPECT_EQ(megaErrorWith(R"("queue_starts": [0, 2, 4])",
                          R"("queue_starts": [0, 4])"),
            "manifest.json: steps[0].tables.queue_starts: has 2 entries, "
            "expected 3 (workers + 1) or 4 (workers + 2, with just-in-time "
            "tasks)");
  EXPECT_EQ(megaErrorWith(R"("queue_starts": [0, 2, 4])",
                          R"("queue_starts": [1, 2, 4])"),
            "manifest.json: steps[0].tables.queue_starts[0]: is 1, expected "
            "0");
  EXPECT_EQ(megaErrorWith(R"("queue_starts": [0, 2, 4])",
                          R"("queue_starts": [0, 5, 4])"),
            "manifest.json: steps[0].tables.queue_starts[2]: is 4, below the "
            "entry before it (5; queue starts never decrease)");
  EXPECT_EQ(megaErrorWith(R"("queue_starts": [0, 2, 4])",
                          R"("queue_starts": [0, 2, 3])"),
            "manifest.json: steps[0].tables.queue_starts[2]: is 3, expected 4 "
            "(the length of queues)");
  EXPECT_EQ(
      megaErrorWith(R"("queues": [0, 2, 1, 3])", R"("queues": [0, 2, 1, 4])"),
      "manifest.json: steps[0].tables.queues[3]: task 4 does not exist "
      "(4 tasks)");
  EXPECT_EQ(
      megaErrorWith(R"("queues": [0, 2, 1, 3])", R"("queues": [0, 2, 1, -1])"),
      "manifest.json: steps[0].tables.queues[3]: task -1 does not "
      "exist (4 tasks)");
  EXPECT_EQ(
      megaErrorWith(R"("queues": [0, 2, 1, 3])", R"("queues": [0, 2, 1, 0])"),
      "manifest.json: steps[0].tables.queues[3]: task 0 is queued twice "
      "(also at queues[0])");
  EXPECT_EQ(megaErrorWith(R"("queue_starts": [0, 2, 4],
       "queues": [0, 2, 1, 3],)",
                          R"("queue_starts": [0, 2, 3],
       "queues": [0, 2, 1],)"),
            "manifest.json: steps[0].tables.queues: task 3 is in no queue");
}

TEST(ManifestTest, MegaKernelTaskRecords) {
  // Tasks 0 and 2 (12 fields each: body, kernel, block x, y, z, waits, wait,
  // more_waits, triggers, trigger, more_triggers, first_operand); the event
  // lists are empty.
  const std::string task0 = "[0, 0, 0, 0, 0, 0, -1, 0, 1, 0, 0, 0,";
  const std::string task2 = "1, 1, 0, 0, 0, 1, 0, 0, 0, -1, 0, 2,";
  EXPECT_EQ(megaErrorWith(task0, "[-2, 0, 0, 0, 0, 0, -1, 0, 1, 0, 0, 0,"),
            "manifest.json: steps[0].tables.tasks[0]: task 0: body is -2, "
            "expected -1 or more");
  EXPECT_EQ(megaErrorWith(task2, "1, 2, 0, 0, 0, 1, 0, 0, 0, -1, 0, 2,"),
            "manifest.json: steps[0].tables.tasks[25]: task 2: kernel is 2, "
            "expected -1 or an index of task_kernels in [0, 2)");
  EXPECT_EQ(megaErrorWith(task2, "1, -3, 0, 0, 0, 1, 0, 0, 0, -1, 0, 2,"),
            "manifest.json: steps[0].tables.tasks[25]: task 2: kernel is -3, "
            "expected -1 or an index of task_kernels in [0, 2)");
  EXPECT_EQ(megaErrorWith(task0, "[0, 0, -1, 0, 0, 0, -1, 0, 1, 0, 0, 0,"),
            "manifest.json: steps[0].tables.tasks[2]: task 0: block_x is -1, "
            "expected a non-negative coordinate");
  EXPECT_EQ(megaErrorWith(task0, "[0, 0, 0, -1, 0, 0, -1, 0, 1, 0, 0, 0,"),
            "manifest.json: steps[0].tables.tasks[3]: task 0: block_y is -1, "
            "expected a non-negative coordinate");
  EXPECT_EQ(megaErrorWith(task0, "[0, 0, 0, 0, -1, 0, -1, 0, 1, 0, 0, 0,"),
            "manifest.json: steps[0].tables.tasks[4]: task 0: block_z is -1, "
            "expected a non-negative coordinate");
  EXPECT_EQ(megaErrorWith(task2, "1, 1, 0, 0, 0, -1, 0, 0, 0, -1, 0, 2,"),
            "manifest.json: steps[0].tables.tasks[29]: task 2: waits is -1, "
            "expected 0 or more");
  EXPECT_EQ(megaErrorWith(task2, "1, 1, 0, 0, 0, 1, 1, 0, 0, -1, 0, 2,"),
            "manifest.json: steps[0].tables.tasks[30]: task 2: wait is 1, "
            "expected an event in [0, 1)");
  EXPECT_EQ(megaErrorWith(task0, "[0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,"),
            "manifest.json: steps[0].tables.tasks[6]: task 0: wait is 0, "
            "expected -1 (no waits)");
  EXPECT_EQ(
      megaErrorWith(task2, "1, 1, 0, 0, 0, 2, 0, 0, 0, -1, 0, 2,"),
      "manifest.json: steps[0].tables.tasks[31]: task 2: more_waits is 0, "
      "expected an index of event_lists followed by the task's other 1 "
      "waits (event_lists has 0 entries)");
  EXPECT_EQ(megaErrorWith(task0, "[0, 0, 0, 0, 0, 0, -1, 0, -1, 0, 0, 0,"),
            "manifest.json: steps[0].tables.tasks[8]: task 0: triggers is -1, "
            "expected 0 or more");
  EXPECT_EQ(megaErrorWith(task0, "[0, 0, 0, 0, 0, 0, -1, 0, 1, 1, 0, 0,"),
            "manifest.json: steps[0].tables.tasks[9]: task 0: trigger is 1, "
            "expected an event in [0, 1)");
  EXPECT_EQ(
      megaErrorWith(task0, "[0, 0, 0, 0, 0, 0, -1, 0, 1, 0, -1, 0,"),
      "manifest.json: steps[0].tables.tasks[10]: task 0: more_triggers is -1, "
      "expected an index of event_lists followed by the task's other 0 "
      "triggers (event_lists has 0 entries)");
  // A task with a body must point into the address table; one without may
  // point at its end.
  EXPECT_EQ(megaErrorWith(task2, "1, 1, 0, 0, 0, 1, 0, 0, 0, -1, 0, 4,"),
            "manifest.json: steps[0].tables.tasks[35]: task 2: "
            "first_operand is 4, expected an index of address_table in [0, 4)");
  EXPECT_EQ(megaErrorWith("-1, -1, 0, 0, 0, 0, -1, 0, 0, -1, 0, 4]",
                          "-1, -1, 0, 0, 0, 0, -1, 0, 0, -1, 0, 5]"),
            "manifest.json: steps[0].tables.tasks[47]: task 3: "
            "first_operand is 5, expected an index of address_table in [0, 5)");
  EXPECT_EQ(
      megaErrorWith(task0, "[0, 0, 0, 0, 0, 0, -1, 0, 1, 0, 0, -1,"),
      "manifest.json: steps[0].tables.tasks[11]: task 0: "
      "first_operand is -1, expected an index of address_table in [0, 4)");
}

TEST(ManifestTest, ValidVersion3) {
  Expected<Manifest> parsed = parseManifest(validTensorMapManifest);
  ASSERT_TRUE(parsed.ok()) << parsed.message();
  const Manifest &manifest = *parsed;
  EXPECT_EQ(manifest.version, 3);
  ASSERT_EQ(manifest.steps.size(), 1u);
  const std::vector<LaunchArg> &args = manifest.steps[0].args;
  ASSERT_EQ(args.size(), 5u);
  struct Want {
    unsigned buffer;
    std::vector<int64_t> box;
    unsigned swizzle;
  };
  Want expected[] = {{0, {64, 64}, 128},
                     {1, {2, 8, 32}, 64},
                     {3, {1, 4, 8}, 32},
                     {4, {1, 8}, 0}};
  for (unsigned a = 0; a < 4; ++a) {
    SCOPED_TRACE(a);
    EXPECT_EQ(args[a].buffer, expected[a].buffer);
    ASSERT_TRUE(args[a].tensorMap);
    EXPECT_EQ(args[a].tensorMap->box, expected[a].box);
    EXPECT_EQ(args[a].tensorMap->swizzle, expected[a].swizzle);
  }
  EXPECT_EQ(args[4].buffer, 4u);
  EXPECT_FALSE(args[4].tensorMap);
}

TEST(ManifestTest, TensorMapParams) {
  Expected<Manifest> manifest = parseManifest(validTensorMapManifest);
  ASSERT_TRUE(manifest.ok()) << manifest.message();
  // bf16 [4, 16, 64], box [2, 8, 32]: the driver's order is innermost first.
  const LaunchArg &arg = manifest->steps[0].args[1];
  TensorMapParams params =
      getTensorMapParams(manifest->buffers[arg.buffer], *arg.tensorMap);
  EXPECT_EQ(params.dtype, DType::BF16);
  EXPECT_EQ(params.rank, 3u);
  EXPECT_EQ(params.globalDim, (std::vector<uint64_t>{64, 16, 4}));
  EXPECT_EQ(params.globalStrides, (std::vector<uint64_t>{64 * 2, 16 * 64 * 2}));
  EXPECT_EQ(params.boxDim, (std::vector<uint32_t>{32, 8, 2}));
  EXPECT_EQ(params.elementStrides, (std::vector<uint32_t>{1, 1, 1}));
  EXPECT_EQ(params.swizzle, 64u);

  // A view's map has the view's shape: f32 [8, 4, 32].
  const LaunchArg &view = manifest->steps[0].args[2];
  params = getTensorMapParams(manifest->buffers[view.buffer], *view.tensorMap);
  EXPECT_EQ(params.dtype, DType::F32);
  EXPECT_EQ(params.globalDim, (std::vector<uint64_t>{32, 4, 8}));
  EXPECT_EQ(params.globalStrides, (std::vector<uint64_t>{128, 512}));
  EXPECT_EQ(params.boxDim, (std::vector<uint32_t>{8, 4, 1}));

  // Rank 1: no strides.
  BufferSpec vector;
  vector.dtype = DType::F16;
  vector.shape = {256};
  TensorMapSpec map;
  map.box = {64};
  params = getTensorMapParams(vector, map);
  EXPECT_EQ(params.rank, 1u);
  EXPECT_EQ(params.globalDim, (std::vector<uint64_t>{256}));
  EXPECT_TRUE(params.globalStrides.empty());
  EXPECT_EQ(params.boxDim, (std::vector<uint32_t>{64}));
  EXPECT_EQ(params.swizzle, 0u);
}

TEST(ManifestTest, TensorMapNeedsVersion3) {
  EXPECT_EQ(tensorMapErrorWith(R"("version": 3)", R"("version": 2)"),
            "manifest.json: steps[0].args[0]: tensor map arguments need "
            "manifest version 3, this is version 2");
  EXPECT_EQ(tensorMapErrorWith(R"("version": 3)", R"("version": 1)"),
            "manifest.json: steps[0].args[0]: tensor map arguments need "
            "manifest version 3, this is version 1");
}

TEST(ManifestTest, TensorMapFields) {
  const std::string map0 = R"({"buffer": 0, "box": [64, 64], "swizzle": 128})";
  EXPECT_EQ(tensorMapErrorWith(map0, "7"),
            "manifest.json: steps[0].args[0].tensor_map: expected an object, "
            "found 7");
  EXPECT_EQ(tensorMapErrorWith(R"({"tensor_map": )" + map0,
                               R"({"tensormap": )" + map0),
            "manifest.json: steps[0].args[0]: missing field \"tensor_map\"");
  EXPECT_EQ(
      tensorMapErrorWith(map0,
                         R"({"buffer": 0, "box": [64, 64], "swizle": 128})"),
      "manifest.json: steps[0].args[0].tensor_map: unknown field \"swizle\" "
      "(expected buffer, box and swizzle)");
  EXPECT_EQ(tensorMapErrorWith(map0, R"({"buffer": 0, "box": [64, 64]})"),
            "manifest.json: steps[0].args[0].tensor_map: missing field "
            "\"swizzle\"");
  EXPECT_EQ(tensorMapErrorWith(map0, R"({"box": [64, 64], "swizzle": 128})"),
            "manifest.json: steps[0].args[0].tensor_map: missing field "
            "\"buffer\"");
  EXPECT_EQ(
      tensorMapErrorWith(map0,
                         R"({"buffer": 9, "box": [64, 64], "swizzle": 128})"),
      "manifest.json: steps[0].args[0].tensor_map.buffer: buffer 9 does not "
      "exist");
  EXPECT_EQ(
      tensorMapErrorWith(map0, R"({"buffer": 0, "box": 64, "swizzle": 128})"),
      "manifest.json: steps[0].args[0].tensor_map.box: expected an array, "
      "found 64");
}

TEST(ManifestTest, TensorMapRank) {
  // Buffer 4, the plain argument of the last map, becomes rank 0 or 6.
  const std::string out = R"("dtype": "f16",
     "shape": [64, 128]}
  ],)";
  EXPECT_EQ(tensorMapErrorWith(out, R"("dtype": "f16", "shape": []}],)"),
            "manifest.json: steps[0].args[3].tensor_map: buffer 4 has rank 0; "
            "a tensor map needs rank 1 to 5");
  EXPECT_EQ(tensorMapErrorWith(
                out, R"("dtype": "f16", "shape": [1, 1, 1, 1, 8, 1024]}],)"),
            "manifest.json: steps[0].args[3].tensor_map: buffer 4 has rank 6; "
            "a tensor map needs rank 1 to 5");
}

TEST(ManifestTest, TensorMapBox) {
  EXPECT_EQ(tensorMapErrorWith(R"("box": [64, 64])", R"("box": [1, 64, 64])"),
            "manifest.json: steps[0].args[0].tensor_map.box: has 3 entries, "
            "buffer 0 has rank 2");
  EXPECT_EQ(tensorMapErrorWith(R"("box": [64, 64])", R"("box": [0, 64])"),
            "manifest.json: steps[0].args[0].tensor_map.box[0]: expected an "
            "integer in [1, 256], found 0");
  EXPECT_EQ(tensorMapErrorWith(R"("box": [64, 64])", R"("box": [64, 512])"),
            "manifest.json: steps[0].args[0].tensor_map.box[1]: expected an "
            "integer in [1, 256], found 512");
  EXPECT_EQ(tensorMapErrorWith(R"("box": [2, 8, 32])", R"("box": [8, 8, 32])"),
            "manifest.json: steps[0].args[1].tensor_map.box[0]: is 8, larger "
            "than dim 0 of buffer 1 (4)");
  EXPECT_EQ(tensorMapErrorWith(R"("box": [64, 64])", R"("box": [64, 4])"),
            "manifest.json: steps[0].args[0].tensor_map.box: the inner box is "
            "8 bytes (4 f16 elements), not a multiple of 16");
}

TEST(ManifestTest, TensorMapSwizzle) {
  EXPECT_EQ(tensorMapErrorWith(R"("swizzle": 128)", R"("swizzle": 16)"),
            "manifest.json: steps[0].args[0].tensor_map.swizzle: expected 0, "
            "32, 64 or 128, found 16");
  EXPECT_EQ(tensorMapErrorWith(R"("swizzle": 128)", R"("swizzle": "128B")"),
            "manifest.json: steps[0].args[0].tensor_map.swizzle: expected 0, "
            "32, 64 or 128, found \"128B\"");
  EXPECT_EQ(tensorMapErrorWith(R"("swizzle": 64)", R"("swizzle": 32)"),
            "manifest.json: steps[0].args[1].tensor_map: the inner box is 64 "
            "bytes (32 bf16 elements), more than the 32-byte swizzle span");
}

TEST(ManifestTest, TensorMapStrides) {
  EXPECT_EQ(tensorMapErrorWith(R"("shape": [64, 128]},
    {"id": 1,)",
                               R"("shape": [64, 132]},
    {"id": 1,)"),
            "manifest.json: steps[0].args[0].tensor_map: buffer 0's rows are "
            "264 bytes (132 f16 elements), not a multiple of 16 (a tensor "
            "map's global strides must be)");
  EXPECT_EQ(tensorMapErrorWith(R"("shape": [4, 16, 64])",
                               R"("shape": [4, 1048576, 1048576])"),
            "manifest.json: steps[0].args[1].tensor_map: dim 0 of buffer 1 "
            "has a stride of 2199023255552 bytes, not below 2^40 (the most a "
            "tensor map allows)");
  EXPECT_EQ(tensorMapErrorWith(R"("shape": [64, 128]},
    {"id": 1,)",
                               R"("shape": [64, 4294967312]},
    {"id": 1,)"),
            "manifest.json: steps[0].args[0].tensor_map: dim 1 of buffer 0 is "
            "4294967312, above 2^32 (the most a tensor map allows)");
}

TEST(ManifestTest, GeneratorAndReference) {
  EXPECT_EQ(errorWith(R"("kind": "uniform")", R"("kind": "normal")"),
            "manifest.json: inputs_generator.kind: unknown generator kind "
            "\"normal\" (expected uniform)");
  EXPECT_EQ(errorWith(R"("seed": 7)", R"("seed": -7)"),
            "manifest.json: inputs_generator.seed: expected a non-negative "
            "integer, found -7");
  EXPECT_EQ(
      errorWith(R"("low": -1.0, "high": 1.0)", R"("low": 1.0, "high": -1.0)"),
      "manifest.json: inputs_generator: low (1) is above high (-1)");
  EXPECT_EQ(errorWith(R"("high": 1.0)", R"("high": "1")"),
            "manifest.json: inputs_generator.high: expected a number, found "
            "\"1\"");
  const std::string high = R"("high": 1.0},)";
  Expected<Manifest> scaled =
      parseManifest(replaced(high, R"("high": 1.0, "scales": [1, 0.125]},)"));
  ASSERT_TRUE(scaled.ok()) << scaled.message();
  EXPECT_EQ(scaled->generator.scales, (std::vector<double>{1.0, 0.125}));
  EXPECT_EQ(scaled->generator.value(1, 0),
            0.125 * parseManifest(validManifest)->generator.value(1, 0));
  EXPECT_EQ(errorWith(high, R"("high": 1.0, "scales": [1]},)"),
            "manifest.json: inputs_generator.scales: 1 scales for 2 inputs");
  EXPECT_EQ(errorWith(high, R"("high": 1.0, "scales": [1, 0]},)"),
            "manifest.json: inputs_generator.scales[1]: expected a positive "
            "finite number, found 0");
  EXPECT_EQ(errorWith(high, R"("high": 1.0, "scales": 1},)"),
            "manifest.json: inputs_generator.scales: expected an array, found "
            "1");
  EXPECT_EQ(errorWith(R"("rel_l2": 0.01)", R"("rel_l2": -0.01)"),
            "manifest.json: reference.tolerance.rel_l2: expected a "
            "non-negative number, found -0.01");
  EXPECT_EQ(errorWith(R"("function": "f_ref",)", ""),
            "manifest.json: reference: missing field \"function\"");
}

TEST(ManifestTest, Program) {
  EXPECT_EQ(errorWith(R"("program": {)", R"("program": 1, "unused": {)"),
            "manifest.json: program: expected an object or null, found 1");
  EXPECT_EQ(errorWith(R"("inputs": ["x", "w"])", R"("inputs": ["x"])"),
            "manifest.json: program.inputs: 1 names for 2 inputs");
  EXPECT_EQ(errorWith(R"("inputs": ["x", "w"])", R"("inputs": ["x", "x"])"),
            "manifest.json: program.inputs: a name is listed twice");
  EXPECT_EQ(errorWith(R"("outputs": ["v1"])", R"("outputs": ["v1", "v0"])"),
            "manifest.json: program.outputs: 2 names for 1 outputs");
  EXPECT_EQ(errorWith(R"("operands": ["v0"])", R"("operands": ["v9"])"),
            "manifest.json: program.ops[1]: operand \"v9\" is not defined");
  EXPECT_EQ(errorWith(R"("results": ["v1"])", R"("results": ["v0"])"),
            "manifest.json: program.ops[1]: result \"v0\" is defined twice");
  EXPECT_EQ(errorWith(R"("outputs": ["v1"])", R"("outputs": ["v2"])"),
            "manifest.json: program.outputs: \"v2\" is not defined");
  EXPECT_EQ(errorWith(R"("v1": {"dtype": "f32", "shape": [4, 4]})",
                      R"("v2": {"dtype": "f32", "shape": [4, 4]})"),
            "manifest.json: program.ops[1]: result \"v1\" has no entry in "
            "types");
  EXPECT_EQ(errorWith(R"("v0": {"dtype": "f32")", R"("v0": {"dtype": "i8")"),
            "manifest.json: program.types.v0.dtype: unknown dtype \"i8\" "
            "(expected f16, bf16 or f32)");
  EXPECT_EQ(errorWith(R"(, "attrs": {}},
      {"op": "reshape")",
                      R"(},
      {"op": "reshape")"),
            "manifest.json: program.ops[0]: missing field \"attrs\"");
}

TEST(ManifestTest, ArgumentOverlap) {
  Expected<Manifest> parsed = parseManifest(validManifest);
  ASSERT_TRUE(parsed.ok()) << parsed.message();
  // x: 32 bytes, w: 16, out0: 64.
  EXPECT_EQ(findArgumentOverlap(*parsed, {0x1000, 0x2000}, {0x3000}),
            std::nullopt);
  // Inputs may share memory; an output may start where an input ends.
  EXPECT_EQ(findArgumentOverlap(*parsed, {0x1000, 0x1000}, {0x1020}),
            std::nullopt);
  EXPECT_EQ(findArgumentOverlap(*parsed, {0x1000, 0x2000}, {0x1fc8}),
            "f: output 0 overlaps input 1 (outputs must not share memory "
            "with inputs or with each other: a kernel may read its inputs "
            "while the kernel before it still runs)");
  EXPECT_NE(findArgumentOverlap(*parsed, {0x1000, 0x2000}, {0x1010}),
            std::nullopt);
}

TEST(ManifestTest, Files) {
  Expected<Manifest> missing = loadManifest("/nonexistent/bundle");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.message(), "/nonexistent/bundle/manifest.json: cannot "
                               "open: No such file or directory");
  Expected<Manifest> named = parseManifest("{}", "b/manifest.json");
  ASSERT_FALSE(named.ok());
  EXPECT_EQ(named.message(), "b/manifest.json: missing field \"format\"");
}

TEST(ManifestTest, MegaKernelBufferCounts) {
  // Optional: without them only first_operand itself is checked.
  EXPECT_TRUE(parseManifest(replacedIn(validMegaManifest,
                                       R"("task_kernel_buffers": [2, 2],)",
                                       ""))
                  .ok());
  EXPECT_EQ(megaErrorWith(R"("task_kernel_buffers": [2, 2])",
                          R"("task_kernel_buffers": [2])"),
            "manifest.json: steps[0].task_kernel_buffers: has 1 entries, "
            "expected 2 (one per task_kernels entry)");
  EXPECT_EQ(megaErrorWith(R"("task_kernel_buffers": [2, 2])",
                          R"("task_kernel_buffers": [2, -1])"),
            "manifest.json: steps[0].task_kernel_buffers[1]: expected an "
            "integer in [0, 2147483647], found -1");
  // Task 2 (k1_exp, from entry 2) would read past the table's 4 entries.
  EXPECT_EQ(megaErrorWith(R"("task_kernel_buffers": [2, 2])",
                          R"("task_kernel_buffers": [2, 3])"),
            "manifest.json: steps[0].tables.tasks[35]: task 2: first_operand "
            "is 2, expected at most 1 (k1_exp takes 3 buffers; address_table "
            "has 4 entries)");
}

TEST(ManifestTest, WriteFileReplacesWholeFiles) {
  std::string path = ::testing::TempDir() + "mirage_write_file_test.json";
  ASSERT_TRUE(writeFile(path, "first", 5).ok());
  ASSERT_TRUE(writeFile(path, "second", 6).ok());
  Expected<std::string> contents = readFile(path);
  ASSERT_TRUE(contents.ok()) << contents.message();
  EXPECT_EQ(*contents, "second");
  // Nothing is left beside it.
  EXPECT_FALSE(readFile(path + ".partial").ok());
  // A file that cannot be written leaves nothing behind either.
  std::string missing = ::testing::TempDir() + "no-such-dir/results.json";
  Status failed = writeFile(missing, "x", 1);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.message().find("no-such-dir/results.json.partial: cannot "
                                  "create"),
            std::string::npos)
      << failed.message();
  std::remove(path.c_str());
}

} // namespace
