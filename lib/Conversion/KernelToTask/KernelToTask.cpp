//===- KernelToTask.cpp - Kernel graphs to task graphs --------------------===//
//
// mirage-build-task-graph: buffers, kernels and one task per block of every
// kernel with the regions it reads and writes, then the dependency analysis
// of mirage/TaskGraph on those regions (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/Passes.h"
#include "mirage/Conversion/Frontend/Guard.h"

#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/Dialect/Task/Transforms/TaskGraphIO.h"
#include "mirage/IR/GraphUtils.h"
#include "mirage/IR/SemanticsOpInterface.h"
#include "mirage/Semantics/Evaluation.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

namespace mirage {
#define GEN_PASS_DEF_BUILDTASKGRAPH
#include "mirage/Conversion/Passes.h.inc"
} // namespace mirage

using namespace mlir;
using namespace mirage;
namespace tgc = mirage::taskgraph;

namespace {

MemRefType getBufferType(Value value) {
  auto tensor = cast<RankedTensorType>(value.getType());
  return MemRefType::get(tensor.getShape(), tensor.getElementType());
}

/// The box of `shape` covering `a` and `b`.
tgc::Box unite(const tgc::Box &a, const tgc::Box &b) {
  tgc::Box box;
  for (size_t d = 0; d < a.offsets.size(); ++d) {
    int64_t low = std::min(a.offsets[d], b.offsets[d]);
    int64_t high =
        std::max(a.offsets[d] + a.sizes[d], b.offsets[d] + b.sizes[d]);
    box.offsets.push_back(low);
    box.sizes.push_back(high - low);
  }
  return box;
}

/// The boxes one block of `graph` reads per input (over all iterations)
/// and writes per output.
void getBlockRegions(tb::GraphOp graph, ArrayRef<int64_t> block,
                     SmallVector<tgc::Box> &reads,
                     SmallVector<tgc::Box> &writes) {
  Block &body = graph.getBodyBlock();
  SmallVector<std::optional<tgc::Box>> read(body.getNumArguments());
  int64_t iterations = static_cast<int64_t>(graph.getForloopRange());
  for (auto iterator : body.getOps<tb::InputIteratorOp>()) {
    auto arg = cast<BlockArgument>(iterator.getInput());
    ArrayRef<int64_t> shape =
        cast<ShapedType>(iterator.getInput().getType()).getShape();
    Shape tile(cast<ShapedType>(iterator.getResult().getType()).getShape());
    TilingParams tiling =
        cast<SemanticsOpInterface>(*iterator).getOpParams().tiling;
    // The loop walks its dim contiguously: the first and last iterations
    // bound the region.
    for (int64_t it : {int64_t(0), iterations - 1}) {
      tgc::Box box{getInputTileOffsets(tiling, block, it, shape), tile};
      unsigned index = arg.getArgNumber();
      read[index] = read[index] ? unite(*read[index], box) : box;
    }
  }
  for (auto [index, arg] : llvm::enumerate(body.getArguments()))
    reads.push_back(read[index].value_or(
        tgc::Box{Shape(cast<ShapedType>(arg.getType()).getRank(), 0),
                 Shape(cast<ShapedType>(arg.getType()).getShape())}));
  for (Value output : body.getTerminator()->getOperands()) {
    auto saver = output.getDefiningOp<tb::OutputSaverOp>();
    Shape tile(cast<ShapedType>(saver.getInput().getType()).getShape());
    TilingParams tiling =
        cast<SemanticsOpInterface>(*saver).getOpParams().tiling;
    writes.push_back({getOutputTileOffsets(tiling, block, tile), tile});
  }
}

/// The kernel's name: its position and its first computing operator.
std::string getKernelName(tb::GraphOp graph, unsigned index) {
  for (Operation &op : graph.getBodyBlock())
    if (!op.hasTrait<mirage::OpTrait::IsInputIterator>())
      return llvm::formatv("k{0}_{1}", index, op.getName().stripDialect())
          .str();
  return llvm::formatv("k{0}", index).str();
}

class TaskGraphBuilder {
public:
  TaskGraphBuilder(func::FuncOp function, bool pairwise)
      : function(function), pairwise(pairwise) {}

  LogicalResult build() {
    for (Operation &op : function.getBody().front().without_terminator()) {
      if (!isa<kn::KernelOp, kn::ReshapeOp>(op) && !kn::isConcatView(&op))
        return op.emitOpError()
               << "must be a graph-defined kernel (kn.kernel), a reshape or "
                  "a concatenation view to become tasks; run "
                  "kn-default-block-graphs first";
    }
    OpBuilder b(function);
    b.setInsertionPointAfter(function);
    std::string name = (function.getSymName() + "_tasks").str();
    graph =
        tg::GraphOp::create(b, function.getLoc(), name,
                            FlatSymbolRefAttr::get(function), nullptr, false);
    b.setInsertionPointToStart(&graph.getBody().emplaceBlock());
    if (failed(createBuffers(b)))
      return failure();
    createKernels(b);
    tgc::TaskGraph tasks = getTasks();
    if (llvm::Error error = tgc::addDependencies(tasks, pairwise))
      return function.emitError() << "cannot build a task graph: "
                                  << llvm::toString(std::move(error));
    tg::exportGraph(graph, tasks);
    return success();
  }

private:
  LogicalResult createBuffers(OpBuilder &b) {
    Location loc = function.getLoc();
    // Each group of values sharing storage gets one buffer: the output a
    // member is returned as, else the argument at its root, else a temp.
    auto terminator = function.getBody().front().getTerminator();
    llvm::DenseMap<Value, unsigned> returnedAs;
    for (auto [index, value] : llvm::enumerate(terminator->getOperands())) {
      if (!returnedAs.try_emplace(value, index).second)
        return terminator->emitOpError()
               << "returns one value twice; a task graph writes every output "
                  "once";
    }
    llvm::DenseMap<Value, Value> storage;      // root -> storage buffer
    llvm::DenseMap<Value, Value> storageValue; // root -> value it holds
    SmallVector<Value> values(function.getArguments());
    for (Operation &op : function.getBody().front().without_terminator())
      llvm::append_range(values, op.getResults());
    for (Value value : values) {
      auto returned = returnedAs.find(value);
      if (returned == returnedAs.end())
        continue;
      Value root = kn::getReshapeRoot(value);
      if (isa<BlockArgument>(root))
        return function.emitOpError()
               << "returns argument #"
               << cast<BlockArgument>(root).getArgNumber()
               << (root == value ? "" : " reshaped") << " as result #"
               << returned->second
               << "; a task graph writes every output with tasks";
      if (storage.count(root))
        return function.emitOpError()
               << "returns result #" << returned->second
               << " as a view of another result; a task graph gives each "
                  "output its own storage";
      storage[root] = tg::BufferOp::create(
          b, loc, getBufferType(value), tg::BufferRole::Output,
          b.getI64IntegerAttr(returned->second));
      storageValue[root] = value;
    }
    for (Value value : values) {
      // A concatenation view joins its parts' buffers (defined before it).
      if (kn::ConcatOp view = kn::getConcatView(value)) {
        SmallVector<Value> parts;
        for (Value part : view.getInputs())
          parts.push_back(buffers.lookup(part));
        buffers[value] = tg::ConcatOp::create(b, loc, getBufferType(value),
                                              parts, view.getDim());
        continue;
      }
      Value root = kn::getReshapeRoot(value);
      if (!storage.count(root)) {
        auto arg = dyn_cast<BlockArgument>(root);
        storage[root] = tg::BufferOp::create(
            b, loc, getBufferType(root),
            arg ? tg::BufferRole::Input : tg::BufferRole::Temp,
            arg ? b.getI64IntegerAttr(arg.getArgNumber()) : IntegerAttr());
        storageValue[root] = root;
      }
      Value buffer = storage[root];
      if (storageValue[root] != value)
        buffer = tg::ViewOp::create(b, loc, getBufferType(value), buffer);
      buffers[value] = buffer;
    }
    return success();
  }

  void createKernels(OpBuilder &b) {
    for (auto kernel : function.getBody().getOps<kn::KernelOp>()) {
      SmallVector<Value> inputs, outputs;
      for (Value input : kernel.getInputs())
        inputs.push_back(buffers.lookup(input));
      for (Value result : kernel.getResults())
        outputs.push_back(buffers.lookup(result));
      tb::GraphOp blockGraph = kernel.getBlockGraph();
      auto op = tg::KernelOp::create(
          b, kernel.getLoc(), getKernelName(blockGraph, kernelCount++), inputs,
          outputs,
          kernel->hasAttr(kn::KernelDialect::getDataDependentAttrName()));
      OpBuilder inner(op.getContext());
      inner.setInsertionPointToStart(&op.getBody().emplaceBlock());
      inner.clone(*blockGraph);
    }
  }

  /// One task per block of every kernel, with its regions and no events.
  tgc::TaskGraph getTasks() {
    DeviceModel device = *DeviceModel::get("h100");
    tg::ImportedGraph imported = tg::importGraph(graph, device);
    llvm::DenseMap<Value, uint32_t> bufferIndex;
    for (auto [index, value] : llvm::enumerate(imported.buffers))
      bufferIndex[value] = index;
    tgc::TaskGraph &tasks = imported.graph;
    for (auto [index, kernel] : llvm::enumerate(imported.kernels)) {
      auto blockGraph = cast<tb::GraphOp>(kernel.getBlockGraph());
      ArrayRef<int64_t> grid = blockGraph.getGrid();
      for (int64_t linear = 0; linear < tasks.kernels[index].blocks; ++linear) {
        tgc::Task &task = tasks.tasks.emplace_back();
        task.kind = tgc::TaskKind::Compute;
        task.kernel = static_cast<int32_t>(index);
        task.block = unflattenIndex(linear, grid);
        SmallVector<tgc::Box> reads, writes;
        getBlockRegions(blockGraph, task.block, reads, writes);
        for (auto [buffer, box] : llvm::zip(kernel.getInputs(), reads))
          task.reads.push_back({bufferIndex.lookup(buffer), box});
        for (auto [buffer, box] : llvm::zip(kernel.getOutputs(), writes))
          task.writes.push_back({bufferIndex.lookup(buffer), box});
      }
    }
    return std::move(tasks);
  }

  func::FuncOp function;
  bool pairwise;
  tg::GraphOp graph;
  llvm::DenseMap<Value, Value> buffers;
  unsigned kernelCount = 0;
};

struct BuildTaskGraph
    : public mirage::impl::BuildTaskGraphBase<BuildTaskGraph> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<func::FuncOp> functions;
    for (auto function : getOperation().getOps<func::FuncOp>()) {
      if (function.isExternal())
        continue;
      // linalg or tosa input is converted first, not passed through.
      if (failed(checkNoFrontendOps(function, getArgument())))
        return signalPassFailure();
      bool hasKernelOps = false;
      function.walk([&](Operation *op) {
        hasKernelOps |=
            op->getDialect() && isa<kn::KernelDialect>(op->getDialect());
      });
      if (hasKernelOps)
        functions.push_back(function);
    }
    for (func::FuncOp function : functions)
      if (failed(TaskGraphBuilder(function, pairwiseEvents).build()))
        return signalPassFailure();
  }
};

} // namespace
