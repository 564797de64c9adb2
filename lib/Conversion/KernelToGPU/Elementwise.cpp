//===- Elementwise.cpp - Fused elementwise expressions on tiles -----------===//
//
// An elementwise expression is computed in one pass over the result tile:
// each thread takes runs of 8 contiguous elements (or single elements where
// a layout splits runs), reads the leaves it needs from shared memory,
// evaluates the operators in registers and stores the result.
//
//===----------------------------------------------------------------------===//

#include "Codegen.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::codegen;

/// Whether every leaf that varies along the last dim holds runs of `width`
/// contiguous elements (the others are broadcast along it).
static bool leavesHaveRuns(const ElementExpr &expr, int64_t width) {
  if (expr.isLeaf())
    return expr.tile->layout.shape.back() == 1 ||
           expr.tile->layout.hasContiguousRuns(width);
  return llvm::all_of(expr.operands, [&](const ElementExpr &operand) {
    return leavesHaveRuns(operand, width);
  });
}

/// The value of `expr` at the run of `width` elements (1: a scalar)
/// starting at `indices` of a result of `shape`.
static Value evaluateAt(KernelBuilder &kb, const ElementExpr &expr,
                        ValueRange indices, ArrayRef<int64_t> shape,
                        int64_t width) {
  if (expr.isLeaf()) {
    const SmemTile &tile = *expr.tile;
    SmallVector<Value> at =
        kb.broadcastIndices(indices, tile.layout.shape, shape);
    if (width == 1)
      return kb.loadF32(tile, at);
    if (tile.layout.shape.back() == 1)
      return vector::BroadcastOp::create(
          kb.b, kb.loc, VectorType::get({width}, kb.b.getF32Type()),
          kb.loadF32(tile, at));
    return kb.loadVectorF32(tile, at, width);
  }
  SmallVector<Value> operands;
  for (const ElementExpr &operand : expr.operands)
    operands.push_back(evaluateAt(kb, operand, indices, shape, width));
  return emitScalarOp(kb.b, kb.loc, expr.kind, expr.params, operands);
}

void codegen::emitElementwise(KernelBuilder &kb, const ElementExpr &expr,
                              const SmemTile &result) {
  ArrayRef<int64_t> shape = result.layout.shape;
  int64_t width = result.layout.hasContiguousRuns(kVectorWidth) &&
                          leavesHaveRuns(expr, kVectorWidth)
                      ? kVectorWidth
                      : 1;
  Shape runs(shape);
  runs.back() /= width;
  kb.forEachStrided(getNumElements(runs), [&](Value run) {
    SmallVector<Value> indices = kb.delinearize(run, runs);
    indices.back() = kb.mul(indices.back(), width);
    Value value = evaluateAt(kb, expr, indices, shape, width);
    if (width > 1)
      kb.storeVectorF32(result, indices, value);
    else
      kb.storeF32(result, indices, value);
  });
}

Value codegen::evaluateOnValue(KernelBuilder &kb, const ElementExpr &expr,
                               Value leafValue) {
  if (expr.isLeaf())
    return leafValue;
  SmallVector<Value> operands;
  for (const ElementExpr &operand : expr.operands)
    operands.push_back(evaluateOnValue(kb, operand, leafValue));
  return emitScalarOp(kb.b, kb.loc, expr.kind, expr.params, operands);
}
