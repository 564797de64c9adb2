//===- ThreadGraph.cpp - Thread graphs as register code -------------------===//
//
// A `th.graph` runs in the threads of its layout (x fastest: thread t has
// coordinates t % X, (t / X) % Y, t / (X Y); threads past the layout idle).
// Each thread reads its fragments from shared-memory tiles into registers,
// computes the fused body on scalars, and writes its result fragments into
// the result tiles. Fragments are small by construction (their registers are
// checked by the th verifier), so the thread loop and every fragment are
// fully unrolled: a fragment is a list of f32 SSA values.
//
//===----------------------------------------------------------------------===//

#include "Codegen.h"

#include "mirage/Dialect/Thread/IR/Thread.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::codegen;

namespace {

/// A fragment in registers: its shape and its elements in row-major order.
struct Fragment {
  Shape shape;
  SmallVector<Value> elements;
};

/// Row-major multi-index of `linear` in `shape` (static).
Shape delinearizeStatic(int64_t linear, ArrayRef<int64_t> shape) {
  Shape indices(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    indices[d] = linear % shape[d];
    linear /= shape[d];
  }
  return indices;
}

int64_t linearizeStatic(ArrayRef<int64_t> indices, ArrayRef<int64_t> shape) {
  int64_t linear = 0;
  for (auto [index, size] : llvm::zip(indices, shape))
    linear = linear * size + index;
  return linear;
}

/// The element of `fragment` that broadcasts to `indices` of `resultShape`.
Value broadcastElement(const Fragment &fragment, ArrayRef<int64_t> indices,
                       ArrayRef<int64_t> resultShape) {
  size_t skip = resultShape.size() - fragment.shape.size();
  Shape at;
  for (auto [d, size] : llvm::enumerate(fragment.shape))
    at.push_back(size == 1 ? 0 : indices[d + skip]);
  return fragment.elements[linearizeStatic(at, fragment.shape)];
}

class ThreadGraphEmitter {
public:
  ThreadGraphEmitter(KernelBuilder &kb, th::GraphOp graph)
      : kb(kb), b(kb.b), loc(kb.loc), graph(graph) {}

  LogicalResult emit(ArrayRef<SmemTile> inputs, ArrayRef<SmemTile> results);

private:
  /// Offsets of the fragment a thread reads (`iteration` >= 0) or writes.
  SmallVector<Value> fragmentOffsets(ArrayRef<int64_t> gridMap, int64_t loopMap,
                                     ArrayRef<int64_t> fragmentShape,
                                     int64_t iteration);
  LogicalResult emitOp(Operation &op, int64_t iteration);
  const Fragment &get(Value value) { return fragments[value]; }

  KernelBuilder &kb;
  OpBuilder &b;
  Location loc;
  th::GraphOp graph;
  SmallVector<Value> coordinates;
  /// The input tiles, and the result tiles each saver writes.
  llvm::DenseMap<Value, SmemTile> tiles;
  llvm::DenseMap<Value, SmallVector<SmemTile, 1>> outputs;
  llvm::DenseMap<Value, Fragment> fragments;
  /// Accumulated fragments, keyed by the accumulator op's result.
  llvm::DenseMap<Value, Fragment> accumulated;
};

} // namespace

SmallVector<Value> ThreadGraphEmitter::fragmentOffsets(
    ArrayRef<int64_t> gridMap, int64_t loopMap,
    ArrayRef<int64_t> fragmentShape, int64_t iteration) {
  SmallVector<Value> offsets(fragmentShape.size(), kb.index(0));
  for (auto [g, dim] : llvm::enumerate(gridMap))
    if (dim != kReplica)
      offsets[dim] = kb.mul(coordinates[g], fragmentShape[dim] *
                                                (loopMap == dim ? graph.getForloopRange() : 1));
  if (loopMap != kReplica && iteration >= 0)
    offsets[loopMap] =
        kb.add(offsets[loopMap], iteration * fragmentShape[loopMap]);
  return offsets;
}

LogicalResult ThreadGraphEmitter::emitOp(Operation &op, int64_t iteration) {
  if (auto iterator = dyn_cast<th::InputIteratorOp>(op)) {
    const SmemTile &tile = tiles[iterator.getInput()];
    Fragment fragment;
    fragment.shape.assign(iterator.getType().getShape());
    SmallVector<Value> offsets =
        fragmentOffsets(iterator.getImap().getDims(),
                        iterator.getFmap().getDim(), fragment.shape, iteration);
    for (int64_t e = 0, n = getNumElements(fragment.shape); e < n; ++e) {
      Shape local = delinearizeStatic(e, fragment.shape);
      SmallVector<Value> indices;
      for (auto [offset, index] : llvm::zip(offsets, local))
        indices.push_back(kb.add(offset, index));
      fragment.elements.push_back(kb.loadF32(tile, indices));
    }
    fragments[iterator.getResult()] = std::move(fragment);
    return success();
  }
  if (op.hasTrait<mirage::OpTrait::IsAccumulator>()) {
    auto semantics = cast<SemanticsOpInterface>(op);
    OpKind kind = semantics.getOpKind();
    const Fragment &input = get(op.getOperand(0));
    Value result = op.getResult(0);
    auto [it, first] = accumulated.try_emplace(result);
    Fragment &acc = it->second;
    if (kind == OpKind::AccumConcat) {
      if (first) {
        acc.shape.assign(cast<th::FragType>(result.getType()).getShape());
        acc.elements.assign(getNumElements(acc.shape), Value());
      }
      int64_t dim = semantics.getOpParams().dim;
      for (int64_t e = 0, n = input.elements.size(); e < n; ++e) {
        Shape at = delinearizeStatic(e, input.shape);
        at[dim] += iteration * input.shape[dim];
        acc.elements[linearizeStatic(at, acc.shape)] = input.elements[e];
      }
    } else if (first) {
      acc = input;
    } else {
      for (auto [total, value] : llvm::zip(acc.elements, input.elements))
        total = emitCombine(b, loc, kind, total, value);
    }
    return success();
  }
  if (auto saver = dyn_cast<th::OutputSaverOp>(op)) {
    const Fragment &fragment = get(saver.getInput());
    SmallVector<Value> offsets = fragmentOffsets(
        saver.getOmap().getDims(), kReplica, fragment.shape, -1);
    for (auto [e, value] : llvm::enumerate(fragment.elements)) {
      Shape local = delinearizeStatic(e, fragment.shape);
      SmallVector<Value> indices;
      for (auto [offset, index] : llvm::zip(offsets, local))
        indices.push_back(kb.add(offset, index));
      for (const SmemTile &tile : outputs.lookup(saver.getResult()))
        kb.storeF32(tile, indices, value);
    }
    return success();
  }
  auto semantics = dyn_cast<SemanticsOpInterface>(op);
  if (!semantics)
    return op.emitOpError() << "has no register code generation";
  OpKind kind = semantics.getOpKind();
  OpParams params = semantics.getOpParams();
  Fragment result;
  result.shape.assign(cast<th::FragType>(op.getResult(0).getType()).getShape());
  int64_t count = getNumElements(result.shape);
  if (getOpInfo(kind).elementwise) {
    for (int64_t e = 0; e < count; ++e) {
      Shape at = delinearizeStatic(e, result.shape);
      SmallVector<Value> operands;
      for (Value operand : op.getOperands())
        operands.push_back(broadcastElement(get(operand), at, result.shape));
      result.elements.push_back(emitScalarOp(b, loc, kind, params, operands));
    }
  } else if (kind == OpKind::ReduceSum || kind == OpKind::ReduceMax) {
    const Fragment &input = get(op.getOperand(0));
    for (int64_t e = 0; e < count; ++e) {
      Shape at = delinearizeStatic(e, result.shape);
      if (!params.keepDim)
        at.insert(at.begin() + params.dim, 0);
      Value total;
      for (int64_t r = 0; r < input.shape[params.dim]; ++r) {
        at[params.dim] = r;
        Value x = input.elements[linearizeStatic(at, input.shape)];
        total = total ? emitCombine(b, loc, kind, total, x) : x;
      }
      result.elements.push_back(total);
    }
  } else if (kind == OpKind::Matmul) {
    const Fragment &lhs = get(op.getOperand(0)), &rhs = get(op.getOperand(1));
    size_t rank = result.shape.size();
    int64_t k = lhs.shape.back();
    ArrayRef<int64_t> batchShape = ArrayRef<int64_t>(result.shape).drop_back(2);
    for (int64_t e = 0; e < count; ++e) {
      Shape at = delinearizeStatic(e, result.shape);
      Value total;
      for (int64_t kk = 0; kk < k; ++kk) {
        auto element = [&](const Fragment &f, int64_t row, int64_t col) {
          Shape idx;
          size_t skip = batchShape.size() - (f.shape.size() - 2);
          for (size_t d = 0; d + 2 < f.shape.size(); ++d)
            idx.push_back(f.shape[d] == 1 ? 0 : at[d + skip]);
          idx.append({row, col});
          return f.elements[linearizeStatic(idx, f.shape)];
        };
        Value product = arith::MulFOp::create(
            b, loc, element(lhs, at[rank - 2], kk),
            element(rhs, kk, at[rank - 1]));
        total = total ? arith::AddFOp::create(b, loc, total, product)
                      : product;
      }
      result.elements.push_back(total);
    }
  } else {
    return op.emitOpError() << "has no register code generation";
  }
  fragments[op.getResult(0)] = std::move(result);
  return success();
}

LogicalResult ThreadGraphEmitter::emit(ArrayRef<SmemTile> inputs,
                                       ArrayRef<SmemTile> results) {
  Block &body = graph.getBodyBlock();
  for (auto [arg, tile] : llvm::zip(body.getArguments(), inputs))
    tiles[arg] = tile;
  // A saver yielded at several positions writes each of those tiles.
  auto yield = cast<th::YieldOp>(body.getTerminator());
  for (auto [value, tile] : llvm::zip(yield.getOperands(), results))
    outputs[value].push_back(tile);

  ArrayRef<int64_t> layout = graph.getThreads();
  int64_t threads = getNumElements(layout);
  int64_t iterations = graph.getForloopRange();
  llvm::DenseSet<Operation *> postLoop = getPostLoopOps(body);
  int64_t loopOps = body.getOperations().size() - 1 - postLoop.size();
  constexpr int64_t kMaxUnrolledOps = 4096;
  if (iterations * loopOps > kMaxUnrolledOps)
    return graph.emitOpError()
           << "unrolls to " << iterations * loopOps
           << " fragment ops per thread, more than the code generator's "
           << kMaxUnrolledOps << "; use a shorter thread loop";

  OpBuilder::InsertionGuard guard(b);
  if (threads < kb.numThreads) {
    auto ifOp = scf::IfOp::create(b, loc, kb.lessThan(kb.threadId, threads));
    b.setInsertionPointToStart(ifOp.thenBlock());
  }
  Value linear = kb.threadId;
  for (int64_t size : layout) {
    coordinates.push_back(kb.rem(linear, size));
    linear = kb.div(linear, size);
  }
  for (int64_t iteration = 0; iteration < iterations; ++iteration)
    for (Operation &op : body.without_terminator())
      if (!postLoop.contains(&op) && failed(emitOp(op, iteration)))
        return failure();
  for (auto &[value, fragment] : accumulated)
    fragments[value] = fragment;
  for (Operation &op : body.without_terminator())
    if (postLoop.contains(&op) && failed(emitOp(op, -1)))
      return failure();
  return success();
}

LogicalResult codegen::emitThreadGraph(KernelBuilder &kb, Operation *graph,
                                       ArrayRef<SmemTile> inputs,
                                       ArrayRef<SmemTile> results) {
  return ThreadGraphEmitter(kb, cast<th::GraphOp>(graph)).emit(inputs, results);
}
