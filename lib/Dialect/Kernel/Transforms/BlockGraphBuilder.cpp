//===- BlockGraphBuilder.cpp - Building graph-defined kernels -------------===//
//
// Part of the Mirage MLIR project. See BlockGraphBuilder.h.
//
//===----------------------------------------------------------------------===//

#include "mirage/Dialect/Kernel/Transforms/BlockGraphBuilder.h"

#include "mirage/Conversion/KernelToGPU.h"
#include "mirage/IR/GraphUtils.h"
#include "mirage/IR/SemanticsOpInterface.h"
#include "mirage/Semantics/Formula.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::kn;

int64_t kn::largestDivisorAtMost(int64_t n, int64_t cap) {
  for (int64_t d = std::min(n, std::max<int64_t>(cap, 1)); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

BlockGraphBuilder::BlockGraphBuilder(OpBuilder &b, Location loc,
                                     ValueRange inputs, TypeRange resultTypes,
                                     ArrayRef<int64_t> grid, int64_t threads,
                                     int64_t forloop, Operation *diagnosticOp,
                                     StringRef what)
    : b(b), loc(loc), diagnosticOp(diagnosticOp), what(what.str()) {
  kernel = KernelOp::create(b, loc, resultTypes, inputs);
  Block *kernelBody = b.createBlock(&kernel.getBody());
  b.setInsertionPointToStart(kernelBody);
  graph = tb::GraphOp::create(b, loc, grid, threads, forloop);
  SmallVector<Location> locs(inputs.size(), loc);
  Block *graphBody =
      b.createBlock(&graph.getBody(), {}, TypeRange(inputs), locs);
  b.setInsertionPointToStart(graphBody);
}

InFlightDiagnostic BlockGraphBuilder::emitError() {
  return diagnosticOp->emitOpError() << what << ": ";
}

FailureOr<Value> BlockGraphBuilder::iterate(Value input, ArrayRef<int64_t> imap,
                                            int64_t fmap) {
  OpParams params;
  params.tiling = TilingParams::get(TilingParams::Level::Block, getGrid(),
                                    imap, getForloop(), fmap);
  auto type = cast<RankedTensorType>(input.getType());
  auto shapes = inferShapes(OpKind::InputIterator, {type.getShape()}, params);
  if (!shapes)
    return emitError() << llvm::toString(shapes.takeError());
  auto tile = tb::TileType::get(b.getContext(), (*shapes)[0],
                                type.getElementType());
  return tb::InputIteratorOp::create(
             b, loc, tile, input, tb::GridMapAttr::get(b.getContext(), imap),
             tb::LoopMapAttr::get(b.getContext(), fmap))
      .getResult();
}

FailureOr<SmallVector<Value>> BlockGraphBuilder::compute(
    OpKind kind, ValueRange operands, const OpParams &params,
    ArrayRef<NamedAttribute> attributes, Type elementType,
    std::optional<ArrayRef<Shape>> resultShapes) {
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value operand : operands)
    shapes.push_back(cast<tb::TileType>(operand.getType()).getShape());
  SmallVector<Shape, 1> results;
  if (resultShapes) {
    results.assign(resultShapes->begin(), resultShapes->end());
  } else {
    auto inferred = inferShapes(kind, shapes, params);
    if (!inferred)
      return emitError() << llvm::toString(inferred.takeError());
    results = std::move(*inferred);
  }
  SmallVector<Type> types;
  for (const Shape &shape : results)
    types.push_back(tb::TileType::get(b.getContext(), shape, elementType));
  // The kernel graph's own annotations (kn.partition, kn.data_dependent)
  // stay with its ops: a block-level op has no use for them.
  SmallVector<NamedAttribute> kept;
  for (NamedAttribute attr : attributes)
    if (!attr.getName().getValue().starts_with("kn."))
      kept.push_back(attr);
  FailureOr<Operation *> op =
      createOperatorOp<tb::BlockDialect>(b, loc, kind, operands, types, kept);
  if (failed(op))
    return emitError() << "no block-level op for operator '"
                       << getOpInfo(kind).name << "'";
  return SmallVector<Value>((*op)->getResults());
}

FailureOr<SmallVector<Value>>
BlockGraphBuilder::compute(Operation *op, ValueRange operands,
                           const OpParams &params,
                           ArrayRef<NamedAttribute> attributes) {
  auto semantics = cast<SemanticsOpInterface>(op);
  Type elementType =
      cast<ShapedType>(op->getResult(0).getType()).getElementType();
  return compute(semantics.getOpKind(), operands, params, attributes,
                 elementType);
}

Value BlockGraphBuilder::accumulate(Value tile, OpKind kind) {
  if (getCombine(kind) == Primitive::Max)
    return tb::AccumMaxOp::create(b, loc, tile);
  return tb::AccumSumOp::create(b, loc, tile);
}

Value BlockGraphBuilder::accumulateConcat(Value tile, int64_t dim) {
  auto type = cast<tb::TileType>(tile.getType());
  Shape shape(type.getShape());
  shape[dim] *= getForloop();
  return tb::AccumConcatOp::create(
      b, loc, tb::TileType::get(b.getContext(), shape, type.getElementType()),
      tile, dim);
}

Value BlockGraphBuilder::reshape(Value tile, ArrayRef<int64_t> shape) {
  auto type = cast<tb::TileType>(tile.getType());
  return tb::ReshapeOp::create(
      b, loc, tb::TileType::get(b.getContext(), shape, type.getElementType()),
      tile);
}

void BlockGraphBuilder::save(ArrayRef<Value> tiles,
                             ArrayRef<SmallVector<int64_t>> omaps) {
  SmallVector<Value> outputs;
  for (auto [tile, omap, type] :
       llvm::zip(tiles, omaps, kernel.getResultTypes()))
    outputs.push_back(tb::OutputSaverOp::create(
        b, loc, type, tile, tb::GridMapAttr::get(b.getContext(), omap)));
  tb::YieldOp::create(b, loc, outputs);
}

//===----------------------------------------------------------------------===//
// The speed model's view of a kernel
//===----------------------------------------------------------------------===//

KernelEstimate kn::estimateGraphKernel(KernelOp kernel, DeviceModel device) {
  tb::TargetAttr target = tb::TargetAttr::lookup(kernel);
  if (target.getSms() > 0)
    device.sms = target.getSms();
  KernelEstimate estimate;
  estimate.profile = getKernelProfile(kernel, device);
  estimate.time = estimateKernel(estimate.profile, device);
  estimate.loadsInFlightPerSM =
      getLoadsInFlightPerSM(kernel.getBlockGraph(), estimate.time);
  return estimate;
}

int64_t kn::getLoadsInFlightPerSM(tb::GraphOp graph,
                                  const KernelTimeBreakdown &time) {
  return getBlockGraphLoadsInFlight(graph) *
         static_cast<int64_t>(time.residentPerSM);
}

KernelProfile kn::getKernelProfile(KernelOp kernel,
                                   const DeviceModel &device) {
  return getKernelProfile(kernel.getBlockGraph(), device);
}

KernelProfile kn::getKernelProfile(tb::GraphOp graph,
                                   const DeviceModel &device) {
  KernelProfile profile;
  profile.blocks = getNumElements(graph.getGrid());
  profile.threads = static_cast<int64_t>(graph.getThreads());
  profile.iterations = static_cast<int64_t>(graph.getForloopRange());
  Block &body = graph.getBodyBlock();
  for (Type type : body.getArgumentTypes())
    profile.uniqueBytes += getByteSize(cast<ShapedType>(type));
  for (Type type : body.getTerminator()->getOperandTypes())
    profile.uniqueBytes += getByteSize(cast<ShapedType>(type));
  llvm::DenseSet<Operation *> postLoop = getPostLoopOps(body);
  for (Operation &op : body.without_terminator()) {
    if (auto iterator = dyn_cast<tb::InputIteratorOp>(op)) {
      double bytes = getByteSize(iterator.getType());
      double rows = getTileRows(iterator.getType().getShape(),
                                iterator.getInput().getType().getShape());
      bool once =
          iterator.getFmap().getDim() == kReplica || profile.iterations == 1;
      (once ? profile.onceBytes : profile.loopBytes) += bytes;
      (once ? profile.onceRows : profile.loopRows) += rows;
      continue;
    }
    if (auto saver = dyn_cast<tb::OutputSaverOp>(op)) {
      profile.outputBytes += getByteSize(saver.getInput().getType());
      continue;
    }
    if (op.hasTrait<mirage::OpTrait::IsAccumulator>())
      continue;
    auto semantics = dyn_cast<SemanticsOpInterface>(op);
    if (!semantics)
      continue;
    SmallVector<ArrayRef<int64_t>> in;
    for (Value operand : op.getOperands())
      in.push_back(cast<ShapedType>(operand.getType()).getShape());
    ArrayRef<int64_t> out =
        cast<ShapedType>(op.getResult(0).getType()).getShape();
    unsigned elementBytes =
        cast<ShapedType>(op.getResult(0).getType()).getElementTypeBitWidth() /
        8;
    OpKind kind = semantics.getOpKind();
    OpParams params = semantics.getOpParams();
    Flops flops = getFlops(kind, params, in, out, elementBytes);
    double latency = getTileOpLatencyUs(kind, params, in, out, profile.threads,
                                        elementBytes, device);
    bool after = postLoop.contains(&op);
    Flops &phase = after ? profile.postFlops : profile.bodyFlops;
    phase.tensor += flops.tensor;
    phase.simt += flops.simt;
    (after ? profile.postLatencyUs : profile.bodyLatencyUs) += latency;
  }
  profile.sharedMemoryBytes = tb::getBlockGraphMemory(graph).sharedBytes;
  return profile;
}
