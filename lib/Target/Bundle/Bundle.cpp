//===- Bundle.cpp - Writing GPU bundles -----------------------------------===//
//
// One function becomes one bundle directory (docs/Bundle.md):
//
//   1. reference.bin: the float64 interpreter runs the function's reference
//      (its kn.reference, or itself) on the inputs of the shared generator;
//   2. kernels.ptx: a copy of the module holding only the function goes
//      through mirage-to-ptx; the PTX is taken from its gpu.binary;
//   3. kernels.cubin: ptxas assembles the PTX and reports each kernel's
//      registers and spills;
//   4. manifest.json: buffers and launch steps are read off the host
//      function (memref arguments, allocs, views, gpu.launch_func, copies).
//
//===----------------------------------------------------------------------===//

#include "mirage/Target/Bundle.h"

#include "mirage/Conversion/KernelToGPU.h"
#include "mirage/Conversion/MegaKernel.h"
#include "mirage/Conversion/Pipelines.h"
#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/Dialect/Kernel/Transforms/BlockGraphBuilder.h"
#include "mirage/Dialect/Task/IR/Task.h"
#include "mirage/Dialect/Task/Transforms/TaskGraphIO.h"
#include "mirage/IR/SemanticsOpInterface.h"
#include "mirage/Interpreter/Interpreter.h"
#include "mirage/Semantics/OpSemantics.h"
#include "mirage/Semantics/Parallel.h"
#include "mirage_runtime/InputGenerator.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"

#include <chrono>

using namespace mlir;
using namespace mirage;
namespace json = llvm::json;
namespace rt = mirage::runtime;

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Gathers the diagnostics MLIR reports while a step runs, so that a failed
/// step can say why.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *context)
      : handler(context, [this](Diagnostic &diagnostic) {
          llvm::raw_string_ostream os(messages);
          os << "\n  " << diagnostic.getLocation() << ": "
             << diagnostic.str();
          return success();
        }) {}

  llvm::Error fail(const llvm::Twine &what) {
    return makeError(what + messages);
  }

private:
  std::string messages;
  ScopedDiagnosticHandler handler;
};

std::optional<rt::DType> getDType(Type type) {
  if (type.isF16())
    return rt::DType::F16;
  if (type.isBF16())
    return rt::DType::BF16;
  if (type.isF32())
    return rt::DType::F32;
  return std::nullopt;
}

json::Array toJson(ArrayRef<int64_t> values) {
  json::Array array;
  for (int64_t value : values)
    array.push_back(value);
  return array;
}

llvm::Error writeFile(const llvm::Twine &path, llvm::StringRef contents) {
  std::error_code error;
  llvm::raw_fd_ostream os(path.str(), error);
  if (error)
    return makeError("cannot write " + path + ": " + error.message());
  os << contents;
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Reference outputs and the program
//===----------------------------------------------------------------------===//

/// The terms each result element of `op` sums (a contraction's fan-in, from
/// its record's work facet), or 1 for an operator that multiplies nothing.
static double getFanIn(Operation *op) {
  auto semantics = dyn_cast<SemanticsOpInterface>(op);
  if (!semantics || op->getNumResults() != 1)
    return 1;
  SmallVector<ArrayRef<int64_t>> operands;
  for (Value operand : op->getOperands())
    operands.push_back(cast<ShapedType>(operand.getType()).getShape());
  ArrayRef<int64_t> result =
      cast<ShapedType>(op->getResult(0).getType()).getShape();
  OpWork work =
      getWork(semantics.getOpKind(), operands, result, semantics.getOpParams());
  return std::max(1.0, work.multiplyAdds / double(getNumElements(result)));
}

static double getWeightFanIn(Value value);

/// Whether `product`, a tile contraction's result in a block graph, is
/// summed over the for-loop's iterations: it reaches an accumulating sum
/// through no other contraction.
static bool isSummedOverLoop(Value product) {
  SmallVector<Value> work{product};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value tile = work.pop_back_val();
    if (!seen.insert(tile).second)
      continue;
    for (Operation *user : tile.getUsers()) {
      if (isa<tb::AccumSumOp, tb::AccumRescaledSumOp>(user))
        return true;
      if (!user->hasTrait<mirage::OpTrait::IsAccumulator>() &&
          getFanIn(user) <= 1)
        llvm::append_range(work, user->getResults());
    }
  }
  return false;
}

/// The fan-in of the contractions a graph-defined kernel feeds with its
/// operand `index` (a pre-fused program, a tile-eqsat candidate): in its
/// block graph, a tile contraction sums the tile's k, times the iterations
/// where the for-loop walks the weight's contracted dim (it is the right
/// operand of a matmul, not moved before) and the products are summed.
static double getKernelWeightFanIn(kn::KernelOp kernel, unsigned index) {
  tb::GraphOp graph = kernel.getBlockGraph();
  if (!graph || index >= graph.getBodyBlock().getNumArguments())
    return 1;
  BlockArgument weight = graph.getBodyBlock().getArgument(index);
  int64_t contracted = cast<ShapedType>(weight.getType()).getRank() - 2;
  double fanIn = 1;
  for (Operation *user : weight.getUsers()) {
    auto iterator = dyn_cast<tb::InputIteratorOp>(user);
    if (!iterator)
      continue;
    Value tile = iterator.getResult();
    fanIn = std::max(fanIn, getWeightFanIn(tile));
    if (contracted < 0 || iterator.getFmap().getDim() != contracted)
      continue;
    for (OpOperand &use : tile.getUses())
      if (isa<tb::MatmulOp>(use.getOwner()) && use.getOperandNumber() == 1 &&
          isSummedOverLoop(use.getOwner()->getResult(0)))
        fanIn = std::max(fanIn, getFanIn(use.getOwner()) *
                                    double(graph.getForloopRange()));
  }
  return fanIn;
}

/// The largest fan-in of the contractions that take `value` as their right
/// operand, directly or through operators that only move its elements
/// (a weight stored [out, in] and transposed), or in the block graph of a
/// kernel that reads it, or 1 when none does.
static double getWeightFanIn(Value value) {
  double fanIn = 1;
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (auto kernel = dyn_cast<kn::KernelOp>(user)) {
      fanIn = std::max(fanIn,
                       getKernelWeightFanIn(kernel, use.getOperandNumber()));
      continue;
    }
    auto semantics = dyn_cast<SemanticsOpInterface>(user);
    if (semantics && user->getNumOperands() == 1 &&
        user->getNumResults() == 1 &&
        getOpInfo(semantics.getOpKind()).movesData)
      fanIn = std::max(fanIn, getWeightFanIn(user->getResult(0)));
    else if (use.getOperandNumber() == 1)
      fanIn = std::max(fanIn, getFanIn(user));
  }
  return fanIn;
}

/// The input generator of the bundles of `reference`: a weight (an argument
/// that is the right operand of a contraction, or moved into one) is scaled by
/// 1/sqrt(fan-in), so that the contraction's sums keep the scale of the
/// activations; activations, caches and norm weights keep [-1, 1). Otherwise a
/// model-sized program overflows f16 (a Qwen3-8B-shaped layer sums 12288
/// products of two [-1, 1) values). Without `options.scaleWeights`, every
/// input is in [-1, 1).
rt::UniformGenerator getInputGenerator(func::FuncOp reference,
                                       const BundleOptions &options) {
  rt::UniformGenerator generator;
  generator.seed = options.seed;
  for (BlockArgument arg : reference.getArguments()) {
    double fanIn = options.scaleWeights ? getWeightFanIn(arg) : 1;
    generator.scales.push_back(1.0 / std::sqrt(fanIn));
  }
  return generator;
}

/// The reference outputs, concatenated, as little-endian float64 bytes.
/// Outputs that are not finite are an error: such a program tests nothing.
llvm::Expected<std::string>
computeReference(func::FuncOp reference, const rt::UniformGenerator &generator,
                 llvm::raw_ostream &log) {
  auto program = Program::compile(reference);
  if (!program)
    return program.takeError();
  // Progress: a line at most every two seconds, so that a reference of many
  // seconds (a model-sized layer, a 36-layer step) shows how far it got;
  // the estimate of what remains assumes the rest of the phase (inputs by
  // elements, then ops) goes as fast as what is done.
  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now(), lastLine = start;
  auto report = [&](size_t done, size_t total, const llvm::Twine &what) {
    Clock::time_point now = Clock::now();
    if (done == 0 || now - lastLine < std::chrono::seconds(2))
      return;
    lastLine = now;
    double elapsed = std::chrono::duration<double>(now - start).count();
    log << llvm::formatv("  reference: {0}; {1:f0} s so far, about {2:f0} s "
                         "left\n",
                         what.str(), elapsed,
                         elapsed * double(total - done) / double(done));
    log.flush();
  };

  // Inputs are drawn in parallel chunks: a Qwen3-8B-sized layer has 200
  // million weights, 9 s one element at a time.
  std::vector<F64Tensor> inputs;
  ArrayRef<Type> types = reference.getArgumentTypes();
  auto elementsOf = [](Type type) {
    return size_t(cast<RankedTensorType>(type).getNumElements());
  };
  size_t drawn = 0, toDraw = 0;
  for (Type type : types)
    toDraw += elementsOf(type);
  for (size_t index = 0; index < types.size(); ++index) {
    Type type = types[index];
    report(drawn, toDraw,
           llvm::formatv("{0} of {1} inputs drawn", index, types.size()));
    drawn += elementsOf(type);
    auto tensor = cast<RankedTensorType>(type);
    F64Tensor input(tensor.getShape());
    rt::DType dtype = *getDType(tensor.getElementType());
    size_t count = input.data.size();
    constexpr size_t chunk = size_t(1) << 16;
    parallelFor((count + chunk - 1) / chunk, [&](int64_t c) {
      size_t begin = size_t(c) * chunk;
      generator.values(index, dtype, begin, std::min(count, begin + chunk),
                       input.data.data() + begin);
    });
    inputs.push_back(std::move(input));
  }
  StabilityMonitor monitor;
  start = Clock::now();
  StepCallback onStep = [&](size_t index, size_t count, Operation *op) {
    report(index, count,
           llvm::formatv("{0} of {1} ops done, next {2}", index, count,
                         op->getName().getStringRef()));
  };
  auto outputs = program->run(inputs, &monitor, &onStep);
  if (!outputs)
    return outputs.takeError();
  if (!monitor.isStable())
    log << "warning: @" << reference.getSymName()
        << " leaves its element types' range on the bundle inputs: "
        << monitor.describe() << "\n";
  for (auto [index, output] : llvm::enumerate(*outputs)) {
    int64_t nonFinite = llvm::count_if(
        output.data, [](double value) { return !std::isfinite(value); });
    if (nonFinite)
      return makeError(llvm::formatv("output {0} has {1} non-finite elements "
                                     "of {2} on the bundle inputs",
                                     index, nonFinite, output.data.size())
                           .str());
  }
  std::string bytes;
  for (const F64Tensor &output : *outputs)
    for (double value : output.data) {
      char raw[sizeof(double)];
      std::memcpy(raw, &value, sizeof(double));
      if (llvm::sys::IsBigEndianHost)
        std::reverse(std::begin(raw), std::end(raw));
      bytes.append(raw, sizeof(double));
    }
  return bytes;
}

/// The reference as a list of kn ops for framework baselines, or null when
/// it holds graph-defined kernels.
json::Value describeProgram(func::FuncOp reference) {
  llvm::DenseMap<Value, std::string> names;
  json::Array inputs, ops, outputs;
  json::Object types;
  for (auto [index, arg] : llvm::enumerate(reference.getArguments())) {
    names[arg] = "arg" + std::to_string(index);
    inputs.push_back(names[arg]);
  }
  int64_t count = 0;
  for (Operation &op : reference.getBody().front()) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (Value value : ret.getOperands())
        outputs.push_back(names[value]);
      continue;
    }
    if (!isa<kn::KernelDialect>(op.getDialect()) || op.getNumRegions() != 0)
      return nullptr;
    json::Object entry, attrs;
    entry["op"] = op.getName().stripDialect().str();
    json::Array operands, results;
    for (Value operand : op.getOperands())
      operands.push_back(names[operand]);
    for (Value result : op.getResults()) {
      names[result] = "v" + std::to_string(count++);
      results.push_back(names[result]);
      auto type = cast<RankedTensorType>(result.getType());
      types[names[result]] = json::Object{
          {"dtype", rt::dtypeName(*getDType(type.getElementType()))},
          {"shape", toJson(type.getShape())}};
    }
    for (NamedAttribute attr : op.getAttrs()) {
      Attribute value = attr.getValue();
      if (auto boolean = dyn_cast<BoolAttr>(value))
        attrs[attr.getName().str()] = boolean.getValue();
      else if (auto integer = dyn_cast<IntegerAttr>(value))
        attrs[attr.getName().str()] = integer.getInt();
      else if (auto real = dyn_cast<FloatAttr>(value))
        attrs[attr.getName().str()] = real.getValueAsDouble();
      else if (auto array = dyn_cast<DenseI64ArrayAttr>(value))
        attrs[attr.getName().str()] = toJson(array.asArrayRef());
    }
    entry["operands"] = std::move(operands);
    entry["results"] = std::move(results);
    entry["attrs"] = std::move(attrs);
    ops.push_back(std::move(entry));
  }
  return json::Object{{"inputs", std::move(inputs)},
                      {"ops", std::move(ops)},
                      {"outputs", std::move(outputs)},
                      {"types", std::move(types)}};
}

//===----------------------------------------------------------------------===//
// The manifest
//===----------------------------------------------------------------------===//

/// Reads buffers and steps off a lowered host function.
class ManifestBuilder {
public:
  llvm::Error build(func::FuncOp host, unsigned numInputs);

  json::Array buffers, inputs, outputs, steps;
  SmallVector<std::string> kernelNames;
  /// Some launch passes a tensor map (manifest version 3).
  bool hasTensorMaps = false;

private:
  int64_t addBuffer(Value value, llvm::StringRef name, llvm::StringRef role,
                    std::optional<int64_t> base = std::nullopt);
  llvm::Expected<int64_t> getConstant(Value value, llvm::StringRef what);
  llvm::Expected<json::Array> getConstants(ArrayRef<Value> values,
                                           llvm::StringRef what);

  llvm::DenseMap<Value, int64_t> ids;
  /// The manifest argument of each tensor map the host creates.
  llvm::DenseMap<Value, json::Object> tensorMaps;
  int64_t temporaries = 0, views = 0;
};

/// The manifest's swizzle, in bytes, of a tensor map's swizzle kind.
static int64_t getSwizzleBytes(nvgpu::TensorMapSwizzleKind swizzle) {
  switch (swizzle) {
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE:
    return 0;
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_32B:
    return 32;
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_64B:
    return 64;
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_128B:
    return 128;
  }
  llvm_unreachable("unknown tensor map swizzle");
}

int64_t ManifestBuilder::addBuffer(Value value, llvm::StringRef name,
                                   llvm::StringRef role,
                                   std::optional<int64_t> base) {
  auto type = cast<MemRefType>(value.getType());
  int64_t id = buffers.size();
  // json::Value keeps StringRefs by reference: copy the strings.
  json::Object buffer{{"id", id},
                      {"name", name.str()},
                      {"role", role.str()},
                      {"dtype", rt::dtypeName(*getDType(type.getElementType()))},
                      {"shape", toJson(type.getShape())}};
  if (base)
    buffer["base"] = *base;
  buffers.push_back(std::move(buffer));
  ids[value] = id;
  return id;
}

llvm::Expected<int64_t> ManifestBuilder::getConstant(Value value,
                                                     llvm::StringRef what) {
  APInt constant;
  if (!matchPattern(value, m_ConstantInt(&constant)))
    return makeError(what + " of a launch is not a constant");
  return constant.getSExtValue();
}

llvm::Expected<json::Array>
ManifestBuilder::getConstants(ArrayRef<Value> values, llvm::StringRef what) {
  json::Array array;
  for (Value value : values) {
    auto constant = getConstant(value, what);
    if (!constant)
      return constant.takeError();
    array.push_back(*constant);
  }
  return array;
}

llvm::Error ManifestBuilder::build(func::FuncOp host, unsigned numInputs) {
  for (auto [index, arg] : llvm::enumerate(host.getArguments())) {
    bool isInput = index < numInputs;
    std::string name = isInput ? "arg" + std::to_string(index)
                               : "out" + std::to_string(index - numInputs);
    int64_t id = addBuffer(arg, name, isInput ? "input" : "output");
    (isInput ? inputs : outputs).push_back(id);
  }
  for (Operation &op : host.getBody().front()) {
    if (isa<arith::ConstantOp, func::ReturnOp>(op))
      continue;
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      addBuffer(alloc, "tmp" + std::to_string(temporaries++), "intermediate");
    } else if (isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(op)) {
      // A view of a view is a view of the first one's base.
      int64_t source = ids.lookup(op.getOperand(0));
      const json::Object *sourceBuffer = buffers[source].getAsObject();
      int64_t base = sourceBuffer->getString("role") == "view"
                         ? *sourceBuffer->getInteger("base")
                         : source;
      addBuffer(op.getResult(0), "view" + std::to_string(views++), "view",
                base);
    } else if (auto unranked = dyn_cast<memref::CastOp>(op)) {
      // The unranked form a tensor map is created from: the same buffer.
      ids[unranked.getResult()] = ids.lookup(unranked.getSource());
    } else if (auto create = dyn_cast<nvgpu::TmaCreateDescriptorOp>(op)) {
      auto type = create.getTensorMap().getType();
      if (type.getInterleave() !=
              nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE ||
          type.getOob() != nvgpu::TensorMapOOBKind::OOB_ZERO ||
          type.getL2promo() != nvgpu::TensorMapL2PromoKind::L2PROMO_128B)
        return makeError("a tensor map with interleave, out-of-bounds fill "
                         "or L2 promotion other than none, zero and 128B, "
                         "which a bundle cannot express");
      auto box = getConstants(llvm::to_vector(create.getBoxDimensions()),
                              "the box of a tensor map");
      if (!box)
        return box.takeError();
      tensorMaps[create.getTensorMap()] =
          json::Object{{"buffer", ids.lookup(create.getTensor())},
                       {"box", std::move(*box)},
                       {"swizzle", getSwizzleBytes(type.getSwizzle())}};
    } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      auto type = cast<MemRefType>(copy.getSource().getType());
      steps.push_back(json::Object{
          {"kind", "copy"},
          {"src", ids.lookup(copy.getSource())},
          {"dst", ids.lookup(copy.getTarget())},
          {"bytes", type.getNumElements() *
                        (type.getElementTypeBitWidth() / 8)}});
    } else if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      auto grid = getConstants({launch.getGridSizeX(), launch.getGridSizeY(),
                                launch.getGridSizeZ()},
                               "the grid size");
      auto block = getConstants({launch.getBlockSizeX(),
                                 launch.getBlockSizeY(),
                                 launch.getBlockSizeZ()},
                                "the block size");
      if (!grid)
        return grid.takeError();
      if (!block)
        return block.takeError();
      json::Array args;
      int64_t shared = 0;
      if (Value size = launch.getDynamicSharedMemorySize()) {
        auto value = getConstant(size, "the dynamic shared memory size");
        if (!value)
          return value.takeError();
        shared = *value;
      }
      for (Value arg : launch.getKernelOperands()) {
        if (auto it = tensorMaps.find(arg); it != tensorMaps.end()) {
          args.push_back(
              json::Object{{"tensor_map", json::Object(it->second)}});
          hasTensorMaps = true;
          continue;
        }
        args.push_back(ids.lookup(arg));
      }
      std::string kernel = launch.getKernelName().str();
      if (!llvm::is_contained(kernelNames, kernel))
        kernelNames.push_back(kernel);
      steps.push_back(json::Object{{"kind", "launch"},
                                   {"kernel", kernel},
                                   {"grid", std::move(*grid)},
                                   {"block", std::move(*block)},
                                   {"dynamic_shared_bytes", shared},
                                   {"args", std::move(args)}});
    } else {
      return makeError("the host function holds '" +
                       op.getName().getStringRef() +
                       "', which a bundle cannot express");
    }
  }
  return llvm::Error::success();
}

/// Reads buffers and the one mega-kernel step off a task graph that
/// convert-tg-to-gpu lowered: buffers in graph order (so the operand
/// table's buffer indices are buffer ids: it is the address table), the
/// tables from the constants the graph names.
class MegaKernelManifestBuilder {
public:
  llvm::Error build(ModuleOp module, tg::GraphOp graph, int64_t deadlineMs);

  json::Array buffers, inputs, outputs, steps;
  std::string kernelName;

private:
  llvm::Expected<json::Array> getTable(ModuleOp module, DictionaryAttr tables,
                                       llvm::StringRef name);
};

llvm::Expected<json::Array>
MegaKernelManifestBuilder::getTable(ModuleOp module, DictionaryAttr tables,
                                    llvm::StringRef name) {
  auto symbol = tables.getAs<FlatSymbolRefAttr>(name);
  auto global = symbol
                    ? module.lookupSymbol<memref::GlobalOp>(symbol.getValue())
                    : memref::GlobalOp();
  auto values = global ? dyn_cast_if_present<DenseIntElementsAttr>(
                             global.getInitialValueAttr())
                       : DenseIntElementsAttr();
  if (!values)
    return makeError("the mega-kernel's " + name + " table is missing");
  json::Array array;
  for (const APInt &value : values.getValues<APInt>())
    array.push_back(value.getSExtValue());
  return array;
}

llvm::Error MegaKernelManifestBuilder::build(ModuleOp module, tg::GraphOp graph,
                                             int64_t deadlineMs) {
  auto info =
      graph->getAttrOfType<DictionaryAttr>(megakernel::kMegaKernelAttrName);
  if (!info)
    return makeError("@" + graph.getSymName() +
                     " was not lowered to a mega-kernel");
  auto kernel = info.getAs<SymbolRefAttr>("kernel");
  auto threads = info.getAs<IntegerAttr>("threads");
  auto shared = info.getAs<IntegerAttr>("dynamic_shared_bytes");
  auto tables = info.getAs<DictionaryAttr>("tables");
  if (!kernel || !threads || !shared || !tables)
    return makeError("@" + graph.getSymName() + " has an incomplete " +
                     megakernel::kMegaKernelAttrName + " attribute");
  kernelName = kernel.getLeafReference().str();

  SmallVector<std::pair<int64_t, int64_t>> inputIds, outputIds;
  llvm::DenseMap<Value, int64_t> ids;
  int64_t temporaries = 0, views = 0;
  for (Operation &op : graph.getBodyBlock()) {
    Value value;
    json::Object buffer;
    if (auto tgBuffer = dyn_cast<tg::BufferOp>(op)) {
      value = tgBuffer.getBuffer();
      int64_t index = tgBuffer.getIndex().value_or(0);
      switch (tgBuffer.getRole()) {
      case tg::BufferRole::Input:
        buffer["name"] = "arg" + std::to_string(index);
        buffer["role"] = "input";
        inputIds.push_back({index, static_cast<int64_t>(buffers.size())});
        break;
      case tg::BufferRole::Output:
        buffer["name"] = "out" + std::to_string(index);
        buffer["role"] = "output";
        outputIds.push_back({index, static_cast<int64_t>(buffers.size())});
        break;
      case tg::BufferRole::Temp:
        buffer["name"] = "tmp" + std::to_string(temporaries++);
        buffer["role"] = "intermediate";
        break;
      }
    } else if (auto view = dyn_cast<tg::ViewOp>(op)) {
      value = view.getView();
      int64_t source = ids.lookup(view.getSource());
      const json::Object *sourceBuffer = buffers[source].getAsObject();
      buffer["name"] = "view" + std::to_string(views++);
      buffer["role"] = "view";
      buffer["base"] = sourceBuffer->getString("role") == "view"
                           ? *sourceBuffer->getInteger("base")
                           : source;
    } else {
      continue;
    }
    auto type = cast<MemRefType>(value.getType());
    buffer["id"] = static_cast<int64_t>(buffers.size());
    buffer["dtype"] = rt::dtypeName(*getDType(type.getElementType()));
    buffer["shape"] = toJson(type.getShape());
    ids[value] = static_cast<int64_t>(buffers.size());
    buffers.push_back(std::move(buffer));
  }
  llvm::sort(inputIds);
  llvm::sort(outputIds);
  for (auto [index, id] : inputIds)
    inputs.push_back(id);
  for (auto [index, id] : outputIds)
    outputs.push_back(id);

  json::Object tableArrays;
  for (llvm::StringRef name :
       {megakernel::kTaskTable, megakernel::kQueueStartsTable,
        megakernel::kQueuesTable, megakernel::kNeededTable,
        megakernel::kEventListsTable}) {
    auto table = getTable(module, tables, name);
    if (!table)
      return table.takeError();
    tableArrays[name] = std::move(*table);
  }
  auto addressTable = getTable(module, tables, megakernel::kOperandsTable);
  if (!addressTable)
    return addressTable.takeError();
  json::Array taskKernels, taskKernelBuffers;
  for (auto taskKernel : graph.getBodyBlock().getOps<tg::KernelOp>()) {
    taskKernels.push_back(taskKernel.getSymName().str());
    taskKernelBuffers.push_back(
        static_cast<int64_t>(taskKernel.getBodyOperands().size()));
  }
  int64_t workers = static_cast<int64_t>(graph.getWorkers().value_or(0));
  steps.push_back(
      json::Object{{"kind", "megakernel"},
                   {"kernel", kernelName},
                   {"grid", json::Array{workers, 1, 1}},
                   {"block", json::Array{threads.getInt(), 1, 1}},
                   {"dynamic_shared_bytes", shared.getInt()},
                   {"address_table", std::move(*addressTable)},
                   {"tables", std::move(tableArrays)},
                   {"task_kernels", std::move(taskKernels)},
                   {"task_kernel_buffers", std::move(taskKernelBuffers)},
                   {"deadline_ms", deadlineMs}});
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// ptxas
//===----------------------------------------------------------------------===//

struct KernelResources {
  int64_t registers = -1, spillBytes = 0, staticSharedBytes = 0;
};

std::string findPtxas(const BundleOptions &options) {
  if (options.ptxas == "none")
    return "";
  if (!options.ptxas.empty())
    return options.ptxas;
  if (auto path = llvm::sys::findProgramByName("ptxas"))
    return *path;
  if (auto path = llvm::sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"}))
    return *path;
  return "";
}

/// Assembles `ptxPath` into `cubinPath`; returns each kernel's resources
/// from ptxas's verbose report.
llvm::Expected<llvm::StringMap<KernelResources>>
runPtxas(llvm::StringRef ptxas, llvm::StringRef chip, llvm::StringRef ptxPath,
         llvm::StringRef cubinPath) {
  SmallString<128> report;
  if (auto error = llvm::sys::fs::createTemporaryFile("ptxas", "txt", report))
    return makeError("cannot create a temporary file: " + error.message());
  std::string arch = ("-arch=" + chip).str();
  SmallVector<llvm::StringRef> args = {ptxas, arch, "-v", "-o", cubinPath,
                                       ptxPath};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, report.str(),
                                                report.str()};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects,
                                         0, 0, &message);
  auto text = llvm::MemoryBuffer::getFile(report);
  llvm::sys::fs::remove(report);
  std::string output = text ? (*text)->getBuffer().str() : "";
  if (status != 0)
    return makeError("ptxas failed (" +
                     (message.empty() ? "status " + std::to_string(status)
                                      : message) +
                     "):\n" + output);

  llvm::StringMap<KernelResources> resources;
  llvm::Regex entry("Compiling entry function '([^']+)'");
  llvm::Regex spills("([0-9]+) bytes spill stores, ([0-9]+) bytes spill loads");
  llvm::Regex used("Used ([0-9]+) registers");
  llvm::Regex smem("([0-9]+) bytes smem");
  KernelResources *current = nullptr;
  SmallVector<llvm::StringRef> lines, match;
  llvm::StringRef(output).split(lines, '\n');
  for (llvm::StringRef line : lines) {
    if (entry.match(line, &match))
      current = &resources[match[1]];
    else if (current && spills.match(line, &match))
      current->spillBytes = std::stoll(match[1].str()) + std::stoll(match[2].str());
    else if (current && used.match(line, &match)) {
      current->registers = std::stoll(match[1].str());
      if (smem.match(line, &match))
        current->staticSharedBytes = std::stoll(match[1].str());
    }
  }
  return resources;
}

/// Lowers by one the `.minnctapersm` of kernel `name` in `ptx`; false when
/// it has none above 1, or reallocates registers.
bool relaxMinBlocksPerSM(std::string &ptx, llvm::StringRef name) {
  size_t entry = ptx.find((".entry " + name + "(").str());
  if (entry == std::string::npos)
    return false;
  size_t body = ptx.find('{', entry);
  size_t directive = ptx.find(".minnctapersm ", entry);
  if (directive == std::string::npos || directive > body)
    return false;
  // A warp-specialized kernel's setmaxnreg counts were taken from the
  // register pool at this bound (getConsumerRegisters): at a looser one
  // ptxas gives each thread more than the consumers would ask for.
  size_t end = ptx.find(".entry ", body);
  if (llvm::StringRef(ptx).slice(body, end).contains("setmaxnreg"))
    return false;
  size_t first = directive + llvm::StringRef(".minnctapersm ").size();
  size_t last = ptx.find_first_not_of("0123456789", first);
  int64_t blocks = std::stoll(ptx.substr(first, last - first));
  if (blocks <= 1)
    return false;
  ptx.replace(first, last - first, std::to_string(blocks - 1));
  return true;
}

/// Assembles `ptx` (already written to `ptxPath`) into `cubinPath`. The
/// resident blocks per SM a kernel asks for (`.minnctapersm`,
/// getResidentBlocksPerSM) bound its registers; where ptxas spills under that
/// bound, the kernel asks for one block fewer and the file is assembled again
/// (qknorm_gqa_bs1's attention kernel: 6 blocks, 80 registers and an 8-byte
/// spill; 5 blocks, none). `ptx` is what was assembled last.
llvm::Expected<llvm::StringMap<KernelResources>>
assembleWithoutSpills(llvm::StringRef ptxas, llvm::StringRef chip,
                      std::string &ptx, llvm::StringRef ptxPath,
                      llvm::StringRef cubinPath, llvm::raw_ostream &log) {
  while (true) {
    auto resources = runPtxas(ptxas, chip, ptxPath, cubinPath);
    if (!resources)
      return resources.takeError();
    bool relaxed = false;
    for (auto &[name, kernel] : *resources)
      if (kernel.spillBytes > 0 && relaxMinBlocksPerSM(ptx, name)) {
        log << "  " << name << " spills " << kernel.spillBytes
            << " bytes: one resident block per SM fewer\n";
        relaxed = true;
      }
    if (!relaxed)
      return resources;
    if (auto error = writeFile(ptxPath, ptx))
      return std::move(error);
  }
}

/// What a lowering gives the manifest.
struct LoweredProgram {
  std::string ptx;
  json::Array buffers, inputs, outputs, steps;
  SmallVector<std::string> kernelNames;
  /// The kernels start with griddepcontrol.
  bool dependentLaunch = false;
  /// Some launch passes a tensor map.
  bool tensorMaps = false;
  /// The speed model's view of each kernel, by kernel name.
  llvm::StringMap<json::Object> kernelModels;
};

/// What the speed model estimated and the features it estimated from,
/// recorded beside what ptxas reports and the run measures.
json::Object describeEstimate(const KernelProfile &profile,
                              const KernelTimeBreakdown &time,
                              int64_t loadsInFlightPerSM) {
  return json::Object{{"estimate_us", time.us},
                      {"bound", time.getBound().str()},
                      {"memory_us", time.memoryUs},
                      {"compute_us", time.computeUs},
                      {"latency_us", time.latencyUs},
                      {"waves", time.waves},
                      {"blocks_per_sm", time.residentPerSM},
                      {"blocks", profile.blocks},
                      {"threads", profile.threads},
                      {"iterations", profile.iterations},
                      {"loop_bytes_per_block", profile.loopBytes},
                      {"once_bytes_per_block", profile.onceBytes},
                      {"output_bytes_per_block", profile.outputBytes},
                      {"unique_bytes", profile.uniqueBytes},
                      {"shared_bytes", profile.sharedMemoryBytes},
                      {"loads_in_flight_per_sm", loadsInFlightPerSM}};
}

/// The speed model's view of every kernel of `function` (a kernel graph
/// whose ops are all kn.kernel) for `device`, by the name
/// convert-kn-to-gpu gives it (getKernelName).
llvm::StringMap<json::Object> describeKernelModels(func::FuncOp function,
                                                   llvm::StringRef device) {
  llvm::StringMap<json::Object> models;
  std::optional<DeviceModel> model = DeviceModel::get(device);
  if (!model)
    return models;
  int64_t index = 0;
  for (auto kernel : function.getBody().getOps<kn::KernelOp>()) {
    kn::KernelEstimate estimate = kn::estimateGraphKernel(kernel, *model);
    json::Object described = describeEstimate(estimate.profile, estimate.time,
                                              estimate.loadsInFlightPerSM);
    described["device"] = device.str();
    models[getKernelName(function.getSymName(), index++)] =
        std::move(described);
  }
  return models;
}

/// The speed model's view of a mega-kernel for `device`: per task-graph
/// kernel, in the order of the manifest's `task_kernels`, one task's
/// estimate as tg-schedule plans it (tg::estimateTask: `task_us`, and
/// `body_us` without the fixed cost of its wait and signal, which the
/// trace's body times are read against), with the features and breakdown
/// of the whole kernel on the persistent workers it comes from.
std::optional<json::Object> describeTaskKernelModels(tg::GraphOp graph,
                                                     llvm::StringRef device) {
  std::optional<DeviceModel> model = tg::findDeviceModel(graph, device);
  if (!model)
    return std::nullopt;
  json::Array taskKernels;
  for (auto kernel : graph.getBodyBlock().getOps<tg::KernelOp>()) {
    auto blockGraph = cast<tb::GraphOp>(kernel.getBlockGraph());
    tg::TaskEstimate estimate = tg::estimateTask(blockGraph, *model);
    json::Object entry =
        describeEstimate(estimate.profile, estimate.time,
                         kn::getLoadsInFlightPerSM(blockGraph, estimate.time));
    entry["kernel"] = kernel.getSymName().str();
    entry["task_us"] = estimate.micros;
    entry["body_us"] = estimate.bodyMicros;
    taskKernels.push_back(std::move(entry));
  }
  return json::Object{{"device", device.str()},
                      {"task_kernels", std::move(taskKernels)}};
}

/// The PTX of the gpu.binary `name` of `module`.
llvm::Expected<std::string> getPTX(ModuleOp module, llvm::StringRef name,
                                   llvm::StringRef function) {
  auto binary = module.lookupSymbol<gpu::BinaryOp>(name);
  if (!binary || binary.getObjects().empty())
    return makeError("the lowering of @" + function + " produced no binary");
  auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
  return object.getObject().getValue().str();
}

/// mirage-to-ptx: one kernel per fused group, launched by a host function.
llvm::Expected<LoweredProgram>
lowerPerOperator(ModuleOp module, llvm::StringRef function, unsigned numInputs,
                 const BundleOptions &options, llvm::raw_ostream &log) {
  MirageToPTXOptions pipeline;
  pipeline.chip = options.chip;
  pipeline.ptx = options.ptx;
  pipeline.format = "isa";
  pipeline.targetBlocks = options.targetBlocks;
  pipeline.fuse = options.fuse;
  pipeline.foldNorms = options.foldNorms;
  pipeline.pipelineStages = options.pipelineStages;
  pipeline.tensorCores = options.tensorCores;
  pipeline.asyncCopy = options.asyncCopy;
  pipeline.dependentLaunch = options.dependentLaunch;
  pipeline.preload = options.preload;
  pipeline.tma = options.tma;
  pipeline.wgmma = options.wgmma;
  pipeline.warpSpecialize = options.warpSpecialize;
  log << "  lowering: mirage-to-ptx (" << options.chip << ")\n";
  // In two stages, so that the kernels are read while they are block
  // graphs: the model's view of each goes into the manifest.
  LoweredProgram lowered;
  auto run = [&](void (*build)(OpPassManager &,
                               const MirageToPTXOptions &)) -> llvm::Error {
    DiagnosticCollector diagnostics(module.getContext());
    PassManager pm(module.getContext());
    build(pm, pipeline);
    if (failed(pm.run(module)))
      return diagnostics.fail("cannot lower @" + function + ":");
    return llvm::Error::success();
  };
  if (auto error = run(buildMirageToPTXKernelStage))
    return error;
  if (auto kernelGraph = module.lookupSymbol<func::FuncOp>(function))
    lowered.kernelModels = describeKernelModels(kernelGraph, options.device);
  if (auto error = run(buildMirageToPTXGPUStage))
    return error;
  auto host = module.lookupSymbol<func::FuncOp>(function);
  if (!host)
    return makeError("the lowering of @" + function +
                     " produced no host function");
  auto ptx = getPTX(module, (function + "_kernels").str(), function);
  if (!ptx)
    return ptx.takeError();
  lowered.ptx = std::move(*ptx);
  ManifestBuilder builder;
  if (auto error = builder.build(host, numInputs))
    return error;
  lowered.buffers = std::move(builder.buffers);
  lowered.inputs = std::move(builder.inputs);
  lowered.outputs = std::move(builder.outputs);
  lowered.steps = std::move(builder.steps);
  lowered.kernelNames = std::move(builder.kernelNames);
  lowered.tensorMaps = builder.hasTensorMaps;
  lowered.dependentLaunch =
      options.dependentLaunch && hasDependentLaunch(options.chip);
  return lowered;
}

/// mirage-to-megakernel: one persistent kernel and its tables.
llvm::Expected<LoweredProgram> lowerToMegaKernel(ModuleOp module,
                                                 llvm::StringRef function,
                                                 const BundleOptions &options,
                                                 llvm::raw_ostream &log) {
  MirageToMegaKernelOptions pipeline;
  pipeline.chip = options.chip;
  pipeline.ptx = options.ptx;
  pipeline.format = "isa";
  pipeline.workers = options.workers;
  pipeline.device = options.device;
  pipeline.foldNorms = options.foldNorms;
  pipeline.pipelineStages = options.pipelineStages;
  pipeline.tensorCores = options.tensorCores;
  pipeline.asyncCopy = options.asyncCopy;
  pipeline.prefetchBytes = options.prefetchBytes;
  pipeline.prefetchAhead = options.prefetchAhead;
  pipeline.dynamicDispatch = options.dynamicDispatch;
  pipeline.preload = options.preload;
  pipeline.preloadSparesLeader = options.preloadSparesLeader;
  pipeline.preloadWarp = options.preloadWarp;
  pipeline.preloadStages = options.preloadStages;
  log << "  lowering: mirage-to-megakernel (" << options.chip << ")\n";
  {
    DiagnosticCollector diagnostics(module.getContext());
    PassManager pm(module.getContext());
    buildMirageToMegaKernelPipeline(pm, pipeline);
    if (failed(pm.run(module)))
      return diagnostics.fail("cannot lower @" + function + ":");
  }
  tg::GraphOp graph;
  for (auto candidate : module.getOps<tg::GraphOp>())
    if (candidate.getSource() == function)
      graph = candidate;
  if (!graph)
    return makeError("the lowering of @" + function +
                     " produced no task graph");
  LoweredProgram lowered;
  auto ptx =
      getPTX(module, (graph.getSymName() + "_megakernel").str(), function);
  if (!ptx)
    return ptx.takeError();
  lowered.ptx = std::move(*ptx);
  MegaKernelManifestBuilder builder;
  if (auto error = builder.build(module, graph, options.deadlineMs))
    return error;
  lowered.buffers = std::move(builder.buffers);
  lowered.inputs = std::move(builder.inputs);
  lowered.outputs = std::move(builder.outputs);
  lowered.steps = std::move(builder.steps);
  lowered.kernelNames.push_back(builder.kernelName);
  if (std::optional<json::Object> model =
          describeTaskKernelModels(graph, options.device))
    lowered.kernelModels[builder.kernelName] = std::move(*model);
  return lowered;
}

} // namespace

//===----------------------------------------------------------------------===//
// writeBundle
//===----------------------------------------------------------------------===//

std::string mirage::getBundleName(llvm::StringRef function,
                                  const BundleOptions &options) {
  if (options.megakernel)
    return (function + "_megakernel" + options.nameSuffix).str();
  bool mmaSync = !options.wgmma && hasWarpgroupMma(options.chip);
  return (function + (options.tma ? "_tma" : "") +
          (options.tma && options.warpSpecialize ? "_ws" : "") +
          (mmaSync ? "_mma" : "") + options.nameSuffix)
      .str();
}

/// The manifest version of mega-kernel bundles: 6, whose task records list
/// their events in the event_lists table, the kernel's last argument, and
/// whose kernels trace five times per task (docs/Bundle.md).
static constexpr int64_t kMegaKernelVersion = 6;

llvm::Error mirage::writeBundle(ModuleOp module, llvm::StringRef function,
                                llvm::StringRef directory,
                                const BundleOptions &options,
                                llvm::raw_ostream &log) {
  auto original = module.lookupSymbol<func::FuncOp>(function);
  if (!original)
    return makeError("no function named '" + function + "'");
  for (Type type : original.getFunctionType().getInputs())
    if (!isa<RankedTensorType>(type) ||
        !getDType(cast<RankedTensorType>(type).getElementType()))
      return makeError("@" + function +
                       " must take ranked f16, bf16 or f32 tensors");
  func::FuncOp reference = original;
  if (auto name = original->getAttrOfType<FlatSymbolRefAttr>(
          kn::KernelDialect::getReferenceAttrName()))
    reference = module.lookupSymbol<func::FuncOp>(name.getValue());
  if (auto error = llvm::sys::fs::create_directories(directory))
    return makeError("cannot create " + directory + ": " + error.message());

  json::Object manifest{
      {"format", "mirage-bundle"},
      {"version", options.megakernel ? kMegaKernelVersion : 1},
      {"name", getBundleName(function, options)},
      {"source", options.source},
      {"chip", options.chip}};
  rt::UniformGenerator generator = getInputGenerator(reference, options);
  manifest["inputs_generator"] =
      json::Object{{"kind", "uniform"},
                   {"seed", int64_t(generator.seed)},
                   {"low", generator.low},
                   {"high", generator.high},
                   {"scales", json::Array(generator.scales)}};
  manifest["program"] = describeProgram(reference);

  if (options.computeReference) {
    log << "  reference: float64 interpreter on @" << reference.getSymName()
        << "\n";
    auto bytes = computeReference(reference, generator, log);
    if (!bytes)
      return makeError("cannot compute the reference outputs of @" +
                       reference.getSymName() + ": " +
                       llvm::toString(bytes.takeError()));
    if (auto error = writeFile(directory + "/reference.bin", *bytes))
      return error;
    manifest["reference"] = json::Object{
        {"file", "reference.bin"},
        {"function", reference.getSymName().str()},
        {"tolerance", json::Object{{"rel_l2", 0.01}}}};
  }

  // Lower a copy that holds only this function.
  OwningOpRef<ModuleOp> copy = module.clone();
  for (auto other : llvm::make_early_inc_range(copy->getOps<func::FuncOp>())) {
    if (other.getSymName() != function)
      other.erase();
    else
      other->removeAttr(kn::KernelDialect::getReferenceAttrName());
  }
  auto lowered =
      options.megakernel
          ? lowerToMegaKernel(*copy, function, options, log)
          : lowerPerOperator(*copy, function, original.getNumArguments(),
                             options, log);
  if (!lowered)
    return lowered.takeError();
  std::string ptxPath = (directory + "/kernels.ptx").str();
  if (auto error = writeFile(ptxPath, lowered->ptx))
    return error;

  json::Object binaryFiles{{"ptx", "kernels.ptx"}};
  llvm::StringMap<KernelResources> resources;
  if (std::string ptxas = findPtxas(options); !ptxas.empty()) {
    std::string cubinPath = (directory + "/kernels.cubin").str();
    auto assembled = assembleWithoutSpills(ptxas, options.chip, lowered->ptx,
                                           ptxPath, cubinPath, log);
    if (!assembled)
      return assembled.takeError();
    resources = std::move(*assembled);
    binaryFiles["cubin"] = "kernels.cubin";
    log << "  assembled: " << ptxas << "\n";
  } else {
    log << "  no ptxas: the bundle holds PTX only\n";
  }
  manifest["binary"] = std::move(binaryFiles);

  json::Array kernels;
  for (const std::string &name : lowered->kernelNames) {
    json::Object kernel{{"name", name}};
    if (lowered->dependentLaunch)
      kernel["pdl"] = true;
    if (auto it = lowered->kernelModels.find(name);
        it != lowered->kernelModels.end())
      kernel["model"] = json::Object(it->second);
    if (auto it = resources.find(name); it != resources.end()) {
      kernel["registers"] = it->second.registers;
      kernel["spill_bytes"] = it->second.spillBytes;
      kernel["static_shared_bytes"] = it->second.staticSharedBytes;
      if (it->second.spillBytes > 0)
        log << "  warning: kernel " << name << " spills "
            << it->second.spillBytes << " bytes to local memory\n";
    }
    kernels.push_back(std::move(kernel));
  }
  manifest["kernels"] = std::move(kernels);
  manifest["buffers"] = std::move(lowered->buffers);
  manifest["inputs"] = std::move(lowered->inputs);
  manifest["outputs"] = std::move(lowered->outputs);
  manifest["steps"] = std::move(lowered->steps);
  if (lowered->tensorMaps)
    manifest["version"] = 3;

  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", json::Value(std::move(manifest))) << "\n";
  return writeFile(directory + "/manifest.json", text);
}
