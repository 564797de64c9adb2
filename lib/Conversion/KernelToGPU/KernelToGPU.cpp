//===- KernelToGPU.cpp - The convert-kn-to-gpu pass -----------------------===//
//
// Host side of the lowering: each kernel-graph function becomes a host
// function over memrefs that launches one gpu.func per kn.kernel, in
// program order, on buffers it allocates for the intermediates. The device
// side of each kernel is built by lowerBlockGraph (BlockGraph.cpp).
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/Passes.h"

#include "Codegen.h"
#include "mirage/Conversion/Frontend/Guard.h"
#include "mirage/Conversion/KernelToGPU.h"
#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/IR/OptionChecks.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

namespace mirage {
#define GEN_PASS_DEF_CONVERTKERNELTOGPU
#include "mirage/Conversion/Passes.h.inc"
} // namespace mirage

using namespace mlir;
using namespace mirage;

bool mirage::hasWarpgroupMma(llvm::StringRef chip) { return chip == "sm_90a"; }

std::string mirage::getKernelName(llvm::StringRef function, int64_t index) {
  return (function + "_k" + llvm::Twine(index)).str();
}

static MemRefType getBufferType(Type tensor) {
  auto type = cast<RankedTensorType>(tensor);
  return MemRefType::get(type.getShape(), type.getElementType());
}

/// `source` seen with the shape of `type`: the same contiguous bytes,
/// collapsed to one dim and expanded to the new shape.
static Value createReshapeView(OpBuilder &b, Location loc, Value source,
                               MemRefType type) {
  auto sourceType = cast<MemRefType>(source.getType());
  Value flat = source;
  if (sourceType.getRank() != 1) {
    ReassociationIndices all;
    for (int64_t d = 0; d < sourceType.getRank(); ++d)
      all.push_back(d);
    flat = memref::CollapseShapeOp::create(b, loc, source,
                                           ArrayRef<ReassociationIndices>{all});
  }
  if (type.getRank() == 1)
    return flat;
  ReassociationIndices all;
  for (int64_t d = 0; d < type.getRank(); ++d)
    all.push_back(d);
  return memref::ExpandShapeOp::create(b, loc, type, flat,
                                       ArrayRef<ReassociationIndices>{all});
}

namespace {

class FunctionLowering {
public:
  FunctionLowering(func::FuncOp function, const codegen::Options &options)
      : function(function), options(options) {}

  LogicalResult lower();

private:
  LogicalResult checkOps();
  LogicalResult lowerKernel(OpBuilder &b, kn::KernelOp kernel);

  func::FuncOp function;
  codegen::Options options;
  gpu::GPUModuleOp kernels;
  /// The buffer holding each tensor value of the function.
  llvm::DenseMap<Value, Value> buffers;
  /// Kernel results written straight into an output argument.
  llvm::DenseMap<Value, Value> destinations;
  int64_t kernelCount = 0;
};

} // namespace

LogicalResult FunctionLowering::checkOps() {
  for (Operation &op : function.getBody().getOps()) {
    if (isa<kn::KernelOp, kn::ReshapeOp, func::ReturnOp>(op) ||
        kn::isConcatView(&op))
      continue;
    if (isa<kn::AllReduceOp>(op))
      return op.emitOpError()
             << "needs a multi-GPU runtime, which the GPU lowering does not "
                "target yet";
    if (op.getDialect() && isa<kn::KernelDialect>(op.getDialect()))
      return op.emitOpError()
             << "must be a graph-defined kernel (kn.kernel) before lowering "
                "to the GPU; run kn-default-block-graphs first";
    return op.emitOpError() << "cannot be lowered to the GPU inside a kernel "
                               "graph function";
  }
  if (!function.getBody().hasOneBlock())
    return function.emitOpError()
           << "must have a single block to be lowered to the GPU";
  // Device code indexes with 32-bit integers.
  auto checkSize = [&](Type type, Location loc) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return success();
    std::optional<int64_t> count = getCheckedNumElements(tensor.getShape());
    if (!count)
      return emitError(loc) << "a tensor of type " << tensor
                            << " has an element count beyond 2^63 - 1";
    if (*count > std::numeric_limits<int32_t>::max())
      return emitError(loc) << "a tensor of " << *count
                            << " elements is too large for the GPU lowering, "
                               "which indexes with 32-bit integers";
    return success();
  };
  for (BlockArgument arg : function.getArguments())
    if (failed(checkSize(arg.getType(), arg.getLoc())))
      return failure();
  for (Operation &op : function.getBody().getOps())
    for (Value result : op.getResults())
      if (failed(checkSize(result.getType(), op.getLoc())))
        return failure();
  return success();
}

LogicalResult FunctionLowering::lowerKernel(OpBuilder &b,
                                            kn::KernelOp kernel) {
  Location loc = kernel.getLoc();
  tb::GraphOp graph = kernel.getBlockGraph();
  SmallVector<Type> argTypes;
  SmallVector<Value> args;
  // A concatenation view passes its first operand's buffer in the input's
  // place and the others after the outputs.
  SmallVector<codegen::ConcatInput> concats;
  SmallVector<Value> extraParts;
  for (auto [position, input] : llvm::enumerate(kernel.getInputs())) {
    kn::ConcatOp concat = kn::getConcatView(input);
    if (!concat) {
      argTypes.push_back(getBufferType(input.getType()));
      args.push_back(buffers.lookup(input));
      continue;
    }
    concats.push_back(codegen::ConcatInput::get(
        position, static_cast<int64_t>(concat.getDim()),
        concat.getInputs().getTypes()));
    Value first = concat.getInputs().front();
    argTypes.push_back(getBufferType(first.getType()));
    args.push_back(buffers.lookup(first));
    llvm::append_range(extraParts, concat.getInputs().drop_front());
  }
  for (Value result : kernel.getResults()) {
    MemRefType type = getBufferType(result.getType());
    Value buffer = destinations.lookup(result);
    if (!buffer)
      buffer = memref::AllocOp::create(b, loc, type);
    buffers[result] = buffer;
    argTypes.push_back(type);
    args.push_back(buffer);
  }
  for (Value part : extraParts) {
    argTypes.push_back(getBufferType(part.getType()));
    args.push_back(buffers.lookup(part));
  }

  // CUDA's launch limits: 2^31 - 1 blocks along x, 65535 along y and z.
  for (auto [g, size] : llvm::enumerate(graph.getGrid())) {
    int64_t limit = g == 0 ? std::numeric_limits<int32_t>::max() : 65535;
    if (size > limit)
      return kernel.emitOpError()
             << "grid dim " << gridDimName(g) << " has " << size
             << " blocks, more than CUDA launches (" << limit << ")";
  }

  OpBuilder kernelBuilder = OpBuilder::atBlockEnd(kernels.getBody());
  std::string name = getKernelName(function.getSymName(), kernelCount++);
  auto gpuFunc = gpu::GPUFuncOp::create(kernelBuilder, loc, name,
                                        b.getFunctionType(argTypes, {}));
  gpuFunc->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  kernelBuilder.setInsertionPointToEnd(&gpuFunc.getBody().front());
  gpu::ReturnOp::create(kernelBuilder, loc);
  // The function's arguments (through reshapes, every part of a view): no
  // kernel writes them.
  auto isArgument = [&](Value value) {
    while (auto reshape = value.getDefiningOp<kn::ReshapeOp>())
      value = reshape.getInput();
    auto arg = dyn_cast<BlockArgument>(value);
    return arg && arg.getOwner()->getParentOp() == function;
  };
  SmallVector<unsigned> readOnly;
  for (auto [position, input] : llvm::enumerate(kernel.getInputs())) {
    kn::ConcatOp view = kn::getConcatView(input);
    if (view ? llvm::all_of(view.getInputs(), isArgument) : isArgument(input))
      readOnly.push_back(position);
  }
  FailureOr<codegen::LoweredKernel> lowered =
      codegen::lowerBlockGraph(graph, gpuFunc, options, readOnly, concats);
  if (failed(lowered))
    return failure();
  int32_t threads = static_cast<int32_t>(lowered->blockThreads);
  gpuFunc.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({threads, 1, 1}));
  // With the block size alone, ptxas aims at an occupancy of its own and
  // spills for it (lora_bs1's kernel: 80 registers and a spill, where its
  // one block per SM may have 255).
  gpuFunc->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                   b.getI32IntegerAttr(lowered->residentBlocks));
  // Tensor maps over the input buffers the copy engine reads, each with the
  // box (the tile, outermost dim first) that its descriptor type names.
  for (const codegen::TensorMapUse &use : lowered->tensorMaps) {
    Value buffer = args[use.input];
    auto type = cast<MemRefType>(buffer.getType());
    Value unranked = memref::CastOp::create(
        b, loc, UnrankedMemRefType::get(type.getElementType(), Attribute()),
        buffer);
    SmallVector<Value> box;
    for (int64_t dim : use.type.getTensor().getShape())
      box.push_back(arith::ConstantIndexOp::create(b, loc, dim));
    args.push_back(
        nvgpu::TmaCreateDescriptorOp::create(b, loc, use.type, unranked, box));
  }

  auto dim = [&](size_t g) {
    ArrayRef<int64_t> grid = graph.getGrid();
    return arith::ConstantIndexOp::create(b, loc, g < grid.size() ? grid[g] : 1)
        .getResult();
  };
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value threadCount = arith::ConstantIndexOp::create(b, loc, threads);
  Value shared = arith::ConstantIntOp::create(b, loc, lowered->sharedBytes, 32);
  gpu::LaunchFuncOp::create(b, loc, gpuFunc, {dim(0), dim(1), dim(2)},
                            {threadCount, one, one}, shared, args);
  return success();
}

LogicalResult FunctionLowering::lower() {
  if (failed(checkOps()))
    return failure();
  Location loc = function.getLoc();
  auto module = function->getParentOfType<ModuleOp>();
  OpBuilder b(module.getContext());
  b.setInsertionPointAfter(function);
  kernels = gpu::GPUModuleOp::create(
      b, loc, (function.getSymName() + "_kernels").str());
  // Device indices are 32-bit: every tensor has fewer than 2^31 elements,
  // and 64-bit integer arithmetic costs the GPU twice the instructions.
  MLIRContext *context = b.getContext();
  kernels->setAttr(DLTIDialect::kDataLayoutAttrName,
                   DataLayoutSpecAttr::get(
                       context, {DataLayoutEntryAttr::get(
                                    IndexType::get(context),
                                    b.getI32IntegerAttr(32))}));

  // The host function: inputs, then one buffer per result.
  SmallVector<Type> argTypes;
  for (Type type : function.getArgumentTypes())
    argTypes.push_back(getBufferType(type));
  for (Type type : function.getResultTypes())
    argTypes.push_back(getBufferType(type));
  b.setInsertionPoint(function);
  auto host = func::FuncOp::create(b, loc, function.getSymName(),
                                   b.getFunctionType(argTypes, {}));
  if (auto reference = function->getAttrOfType<FlatSymbolRefAttr>(
          kn::KernelDialect::getReferenceAttrName()))
    host->setAttr("mirage.reference", b.getStringAttr(reference.getValue()));
  Block *entry = host.addEntryBlock();
  unsigned numInputs = function.getNumArguments();
  for (auto [arg, buffer] :
       llvm::zip(function.getArguments(), entry->getArguments()))
    buffers[arg] = buffer;

  // Each kernel result returned first at some position is written straight
  // into that output; anything else returned is copied there at the end.
  auto ret = cast<func::ReturnOp>(function.getBody().front().getTerminator());
  SmallVector<std::pair<Value, Value>> copies;
  for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
    Value output = entry->getArgument(numInputs + index);
    if (isa_and_nonnull<kn::KernelOp>(value.getDefiningOp()) &&
        !destinations.count(value))
      destinations[value] = output;
    else
      copies.push_back({value, output});
  }

  b.setInsertionPointToStart(entry);
  for (Operation &op : function.getBody().front().without_terminator()) {
    if (auto kernel = dyn_cast<kn::KernelOp>(op)) {
      if (failed(lowerKernel(b, kernel)))
        return failure();
      continue;
    }
    // A view's readers take its parts' buffers.
    if (kn::isConcatView(&op))
      continue;
    auto reshape = cast<kn::ReshapeOp>(op);
    buffers[reshape.getResult()] =
        createReshapeView(b, reshape.getLoc(), buffers.lookup(reshape.getInput()),
                          getBufferType(reshape.getType()));
  }
  for (auto [value, output] : copies)
    memref::CopyOp::create(b, loc, buffers.lookup(value), output);
  func::ReturnOp::create(b, loc);
  function.erase();
  return success();
}

namespace {

struct ConvertKernelToGPU
    : public mirage::impl::ConvertKernelToGPUBase<ConvertKernelToGPU> {
  using Base::Base;

  std::optional<std::string> checkOptions() const {
    if (wgmma && !hasWarpgroupMma(chip))
      return formatBadOptionValue("convert-kn-to-gpu", "chip", chip,
                                  "sm_90a with wgmma");
    if (warpSpecialize && !tma)
      return std::string("convert-kn-to-gpu: warp-specialize gives the copies "
                         "of TMA kernels their own warps: it needs tma=true");
    if (warpSpecialize && !hasWarpgroupMma(chip))
      return formatBadOptionValue("convert-kn-to-gpu", "chip", chip,
                                  "sm_90a with warp-specialize (setmaxnreg)");
    if (chip.empty())
      return std::nullopt;
    return checkOptionValue("convert-kn-to-gpu", "chip", chip,
                            tb::TargetAttr::getKnownChips());
  }
  MIRAGE_CHECK_PASS_OPTIONS_AT_PARSE

  void runOnOperation() override {
    ModuleOp module = getOperation();
    codegen::Options options;
    if (!chip.empty())
      options.chipSharedMemory =
          tb::TargetAttr::getKnown(module.getContext(), chip).getSmemPerBlock();
    options.pipelineStages = pipelineStages;
    options.tensorCores = tensorCores;
    options.asyncCopy = asyncCopy;
    options.dependentLaunch = dependentLaunch;
    options.preload = preload;
    options.tma = tma;
    options.wgmma = wgmma;
    options.warpSpecialize = warpSpecialize;
    SmallVector<func::FuncOp> functions;
    for (auto function : module.getOps<func::FuncOp>()) {
      // linalg or tosa input is converted first, not passed through.
      if (failed(checkNoFrontendOps(function, getArgument())))
        return signalPassFailure();
      bool hasKernelOps = false;
      function.walk([&](Operation *op) {
        hasKernelOps |= op->getDialect() &&
                        isa<kn::KernelDialect>(op->getDialect());
      });
      if (hasKernelOps)
        functions.push_back(function);
    }
    if (functions.empty())
      return;
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(module.getContext()));
    for (func::FuncOp function : functions)
      if (failed(FunctionLowering(function, options).lower()))
        return signalPassFailure();
  }
};

} // namespace
