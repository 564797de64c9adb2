//===- MuGraphIO.cpp - Between kernel-graph IR and search µGraphs ---------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Search/MuGraphIO.h"

#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/IR/SemanticsOpInterface.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::search;

std::string search::getUnsearchableReason(Operation *op) {
  if (isa<kn::KernelOp>(op))
    return "it is already a graph-defined kernel";
  auto semantics = dyn_cast<SemanticsOpInterface>(op);
  if (!semantics || op->getDialect()->getNamespace() != "kn")
    return "it is not a kernel-graph operator";
  const OpInfo &info = getOpInfo(semantics.getOpKind());
  if (info.fingerprint == FingerprintClass::Outside)
    return ("'" + info.name + "' is outside the fragment the verifier proves")
        .str();
  if (semantics.getOpKind() == OpKind::AllReduce)
    return "it is a collective";
  if (op->getNumResults() != 1)
    return "it has several results";
  return "";
}

void search::Subprogram::collectInputs() {
  llvm::SmallPtrSet<Operation *, 8> inRun(ops.begin(), ops.end());
  llvm::SetVector<Value> read;
  for (Operation *op : ops)
    for (Value operand : op->getOperands())
      if (!inRun.contains(operand.getDefiningOp()))
        read.insert(operand);
  inputs.assign(read.begin(), read.end());
}

SmallVector<Subprogram> search::splitIntoSubprograms(func::FuncOp function,
                                                     unsigned maxOps) {
  SmallVector<Subprogram> subprograms;
  Subprogram current;
  // Exponentials on the longest path from the current run's inputs.
  DenseMap<Value, unsigned> exponentials;

  auto finish = [&] {
    if (current.ops.size() >= 2) {
      current.collectInputs();
      llvm::SmallPtrSet<Operation *, 8> inRun(current.ops.begin(),
                                              current.ops.end());
      for (Operation *op : current.ops)
        for (Value result : op->getResults())
          if (llvm::any_of(result.getUsers(), [&](Operation *user) {
                return !inRun.contains(user);
              }))
            current.outputs.push_back(result);
      subprograms.push_back(std::move(current));
    }
    current = Subprogram();
    exponentials.clear();
  };

  for (Operation &op : function.getBody().getOps()) {
    if (!getUnsearchableReason(&op).empty()) {
      finish();
      continue;
    }
    auto kind = cast<SemanticsOpInterface>(op).getOpKind();
    bool exponential =
        getOpInfo(kind).fingerprint == FingerprintClass::Exponential;
    auto depthOf = [&](Operation &o) {
      unsigned depth = 0;
      for (Value operand : o.getOperands())
        depth = std::max(depth, exponentials.lookup(operand));
      return depth;
    };
    if (current.ops.size() >= maxOps ||
        (exponential && depthOf(op) >= 1))
      finish();
    current.ops.push_back(&op);
    exponentials[op.getResult(0)] = depthOf(op) + (exponential ? 1 : 0);
  }
  finish();
  return subprograms;
}

llvm::Expected<Problem> search::importSubprogram(const Subprogram &subprogram,
                                                 ExprContext &context) {
  Problem problem;
  MuGraph &graph = problem.reference;
  DenseMap<Value, unsigned> ids;
  Type elementType;
  auto unsupported = [](const Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
  };
  auto addTensor = [&](Value value, ExprId expr) -> llvm::Error {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !type.hasStaticShape())
      return unsupported("a value is not a static tensor");
    if (elementType && type.getElementType() != elementType) {
      std::string types;
      llvm::raw_string_ostream os(types);
      os << "it mixes element types '" << elementType << "' and '"
         << type.getElementType() << "'";
      return unsupported(types);
    }
    elementType = type.getElementType();
    ids[value] = graph.tensors.size();
    graph.tensors.push_back(KernelTensor{Shape(type.getShape()), expr});
    return llvm::Error::success();
  };
  for (auto [index, input] : llvm::enumerate(subprogram.inputs))
    if (llvm::Error error = addTensor(input, context.var(index)))
      return std::move(error);
  graph.numInputs = subprogram.inputs.size();
  for (Operation *op : subprogram.ops) {
    std::string reason = getUnsearchableReason(op);
    if (!reason.empty())
      return unsupported("'" + op->getName().getStringRef() + "' " + reason);
    auto semantics = cast<SemanticsOpInterface>(op);
    KernelOp kernelOp;
    kernelOp.kind = semantics.getOpKind();
    kernelOp.params = semantics.getOpParams();
    SmallVector<ExprId, 3> exprs;
    SmallVector<ArrayRef<int64_t>, 3> shapes;
    for (Value operand : op->getOperands()) {
      unsigned id = ids.lookup(operand);
      kernelOp.operands.push_back(id);
      exprs.push_back(graph.tensors[id].expr);
      shapes.push_back(graph.tensors[id].shape);
    }
    ExprId expr = getAbstractExpr(kernelOp.kind, exprs, shapes,
                                  kernelOp.params, context);
    kernelOp.results.push_back(graph.tensors.size());
    if (llvm::Error error = addTensor(op->getResult(0), expr))
      return std::move(error);
    graph.ops.push_back(std::move(kernelOp));
  }
  for (Value output : subprogram.outputs)
    graph.outputs.push_back(ids.lookup(output));
  problem.elementBytes = elementType.getIntOrFloatBitWidth() / 8;
  return problem;
}

namespace {

/// The op of operator `kind` in `Dialect` (kn or tb) with the operator's
/// attributes. The search uses operators that exist at both levels, so this
/// does not fail.
template <typename Dialect>
Value createComputeOp(OpBuilder &builder, Location loc, OpKind kind,
                      const OpParams &params, ValueRange operands,
                      Type resultType) {
  FailureOr<Operation *> op =
      createOperatorOp<Dialect>(builder, loc, kind, operands, resultType,
                                getOpAttributes(kind, params, builder));
  if (failed(op))
    llvm_unreachable("the search used an operator its level lacks");
  return (*op)->getResult(0);
}

SmallVector<Value> buildKernel(OpBuilder &builder, Location loc,
                               const MuGraph &graph, const KernelOp &op,
                               ValueRange operands, Type elementType) {
  MLIRContext *context = builder.getContext();
  const BlockSkeleton &skeleton = *op.skeleton;
  const Schedule &schedule = op.schedule;
  SmallVector<Type> resultTypes;
  for (unsigned result : op.results)
    resultTypes.push_back(
        RankedTensorType::get(graph.tensors[result].shape, elementType));
  auto kernel = kn::KernelOp::create(builder, loc, resultTypes, operands);

  OpBuilder::InsertionGuard guard(builder);
  builder.createBlock(&kernel.getBody());
  auto blockGraph = tb::GraphOp::create(builder, loc, schedule.grid,
                                        schedule.threads,
                                        schedule.forloopRange);
  SmallVector<Location> locs(operands.size(), loc);
  Block *body = builder.createBlock(&blockGraph.getBody(), {},
                                    operands.getTypes(), locs);
  SmallVector<Value> nodes;
  for (auto [index, node] : llvm::enumerate(skeleton.nodes)) {
      auto tileType = tb::TileType::get(context, schedule.tiles[index],
                                      elementType);
    switch (node.phase) {
    case Phase::Input:
      nodes.push_back(tb::InputIteratorOp::create(
          builder, loc, tileType, body->getArgument(index),
          tb::GridMapAttr::get(context, schedule.imaps[index]),
          tb::LoopMapAttr::get(context, schedule.fmaps[index])));
      break;
    case Phase::Accum:
      nodes.push_back(tb::AccumSumOp::create(builder, loc,
                                             nodes[node.operands[0]]));
      break;
    case Phase::Body:
    case Phase::Post: {
      SmallVector<Value, 3> in;
      for (unsigned operand : node.operands)
        in.push_back(nodes[operand]);
      nodes.push_back(createComputeOp<tb::BlockDialect>(
          builder, loc, node.kind, node.params, in, tileType));
      break;
    }
    }
  }
  SmallVector<Value> saved;
  for (auto [output, omap, type] :
       llvm::zip(skeleton.outputs, schedule.omaps, resultTypes))
    saved.push_back(tb::OutputSaverOp::create(
        builder, loc, type, nodes[output],
        tb::GridMapAttr::get(context, omap)));
  tb::YieldOp::create(builder, loc, saved);
  return SmallVector<Value>(kernel.getResults());
}

} // namespace

SmallVector<Value> search::buildMuGraph(OpBuilder &builder, Location loc,
                                        const MuGraph &graph,
                                        ValueRange inputs, Type elementType) {
  // Tensors are numbered inputs first, then results in op order; index them
  // by number anyway so that a malformed graph fails an assertion.
  SmallVector<Value> values(graph.tensors.size());
  llvm::copy(inputs, values.begin());
  for (const KernelOp &op : graph.ops) {
      SmallVector<Value, 4> operands;
    for (unsigned operand : op.operands) {
      assert(values[operand] && "operand used before it is defined");
      operands.push_back(values[operand]);
    }
    SmallVector<Value> results;
    if (op.isCustom()) {
      results = buildKernel(builder, loc, graph, op, operands, elementType);
    } else {
      auto type = RankedTensorType::get(
          graph.tensors[op.results.front()].shape, elementType);
      results.push_back(createComputeOp<kn::KernelDialect>(
          builder, loc, op.kind, op.params, operands, type));
    }
    for (auto [tensor, value] : llvm::zip_equal(op.results, results))
      values[tensor] = value;
  }
  SmallVector<Value> outputs;
  for (unsigned output : graph.outputs)
    outputs.push_back(values[output]);
  return outputs;
}

func::FuncOp search::buildFunction(OpBuilder &builder, Location loc,
                                   StringRef name, FunctionType type,
                                   const MuGraph &graph) {
  auto function = func::FuncOp::create(builder, loc, name, type);
  OpBuilder::InsertionGuard guard(builder);
  Block *entry = function.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  Type elementType =
      cast<RankedTensorType>(type.getInput(0)).getElementType();
  SmallVector<Value> outputs = buildMuGraph(builder, loc, graph,
                                            entry->getArguments(), elementType);
  func::ReturnOp::create(builder, loc, outputs);
  return function;
}

func::FuncOp search::cloneSubprogram(OpBuilder &builder,
                                     const Subprogram &subprogram,
                                     StringRef name) {
  SmallVector<Type> inputTypes, outputTypes;
  for (Value input : subprogram.inputs)
    inputTypes.push_back(input.getType());
  for (Value output : subprogram.outputs)
    outputTypes.push_back(output.getType());
  Location loc = subprogram.ops.front()->getLoc();
  auto function = func::FuncOp::create(
      builder, loc, name, builder.getFunctionType(inputTypes, outputTypes));
  OpBuilder::InsertionGuard guard(builder);
  Block *entry = function.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  IRMapping mapping;
  mapping.map(subprogram.inputs, entry->getArguments());
  for (Operation *op : subprogram.ops)
    builder.clone(*op, mapping);
  SmallVector<Value> outputs;
  for (Value output : subprogram.outputs)
    outputs.push_back(mapping.lookup(output));
  func::ReturnOp::create(builder, loc, outputs);
  return function;
}
