//===- Elementwise.cpp - Fused elementwise expressions on tiles -----------===//
//
// An elementwise expression is computed in one pass over the result tile:
// each thread takes runs of 8 contiguous elements (or single elements where
// a layout splits runs), reads the leaves it needs from shared memory (or
// global memory, for input tiles given no shared-memory tile),
// evaluates the operators in registers and stores the result. A concat read
// in place evaluates every part at the run (its indices moved into the
// part, clamped into it where the run lies elsewhere) and selects the one
// that holds the run: no branch, and all loads still issued first.
//
//===----------------------------------------------------------------------===//

#include "Codegen.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::codegen;

TileView TileView::identity(ArrayRef<int64_t> shape) {
  TileView view{Shape(shape), {}, SmallVector<int64_t>(shape.size(), 0)};
  for (int64_t dim = 0, rank = shape.size(); dim < rank; ++dim)
    view.fromDim.push_back(dim);
  return view;
}

TileView TileView::compose(ArrayRef<int64_t> result, ArrayRef<int64_t> from,
                           ArrayRef<int64_t> shift) const {
  TileView composed{Shape(result), {}, {}};
  for (auto [dim, base] : llvm::zip(fromDim, offset)) {
    bool unit = dim < 0 || from[dim] < 0;
    composed.fromDim.push_back(unit ? -1 : from[dim]);
    composed.offset.push_back(base + (dim < 0 ? 0 : shift[dim]));
  }
  return composed;
}

/// The shape of a leaf's tile.
static ArrayRef<int64_t> getTileShape(const ElementExpr &leaf) {
  return leaf.tile ? ArrayRef<int64_t>(leaf.tile->layout.shape)
                   : ArrayRef<int64_t>(leaf.global->shape);
}

/// The shape an expression sees a leaf with.
static ArrayRef<int64_t> getLeafShape(const ElementExpr &leaf) {
  return leaf.view ? ArrayRef<int64_t>(leaf.view->shape) : getTileShape(leaf);
}

bool GlobalTile::hasRuns(int64_t width) const {
  auto type = cast<MemRefType>(memref.getType());
  return shape.back() % width == 0 && type.getShape().back() % width == 0 &&
         width * type.getElementTypeBitWidth() == 128;
}

SmallVector<Value> GlobalTile::at(KernelBuilder &kb, ValueRange indices) const {
  SmallVector<Value> result;
  for (auto [offset, index] : llvm::zip(offsets, indices))
    result.push_back(kb.add(offset, index));
  return result;
}

/// Whether runs of `width` elements along a leaf tile's last dim, starting
/// at multiples of `width`, are contiguous and 16-byte aligned.
static bool tileHasRuns(const ElementExpr &leaf, int64_t width) {
  return leaf.tile ? leaf.tile->layout.hasContiguousRuns(width)
                   : leaf.global->hasRuns(width);
}

/// Whether runs of `width` elements along a leaf's last dim (as the
/// expression sees it) are runs along its tile's last dim.
static bool viewKeepsRuns(const ElementExpr &leaf, int64_t width) {
  if (!leaf.view)
    return true;
  const TileView &view = *leaf.view;
  return view.fromDim.back() == static_cast<int64_t>(view.shape.size()) - 1 &&
         view.offset.back() % width == 0;
}

/// Whether a concat along its last dim keeps runs of `width` within a part.
static bool isConcatAlongRuns(const ElementExpr &expr) {
  return expr.kind == OpKind::Concat &&
         expr.params.dim == static_cast<int64_t>(expr.shape.size()) - 1;
}

bool codegen::leavesHaveRuns(const ElementExpr &expr, int64_t width) {
  if (expr.isLeaf())
    return getLeafShape(expr).back() == 1 ||
           (tileHasRuns(expr, width) && viewKeepsRuns(expr, width));
  if (isConcatAlongRuns(expr) &&
      llvm::any_of(expr.params.ints,
                   [&](int64_t size) { return size % width != 0; }))
    return false;
  return llvm::all_of(expr.operands, [&](const ElementExpr &operand) {
    return leavesHaveRuns(operand, width);
  });
}

/// The elements of leaf `expr` the run of `width` elements starting at
/// `indices` of a result of `shape` reads, as stored: one element where the
/// leaf is broadcast along the last dim, else `width`.
static Value loadLeaf(KernelBuilder &kb, const ElementExpr &expr,
                      ValueRange indices, ArrayRef<int64_t> shape,
                      int64_t width) {
  ArrayRef<int64_t> leafShape = getLeafShape(expr);
  SmallVector<Value> at = kb.broadcastIndices(indices, leafShape, shape);
  if (expr.view) {
    SmallVector<Value> inTile;
    for (auto [dim, offset] : llvm::zip(expr.view->fromDim, expr.view->offset))
      inTile.push_back(dim < 0 ? kb.index(offset) : kb.add(at[dim], offset));
    at = std::move(inTile);
  }
  int64_t runs = leafShape.back() == 1 ? 1 : width;
  Value memref;
  Type element;
  if (expr.tile) {
    memref = expr.tile->buffer;
    element = expr.tile->layout.elementType;
    at = {kb.getElementOffset(expr.tile->layout, at)};
  } else {
    memref = expr.global->memref;
    element = cast<MemRefType>(memref.getType()).getElementType();
    at = expr.global->at(kb, at);
  }
  if (runs == 1)
    return memref::LoadOp::create(kb.b, kb.loc, memref, at);
  return vector::LoadOp::create(kb.b, kb.loc, VectorType::get({runs}, element),
                                memref, at, /*nontemporal=*/false,
                                llvm::Align(16));
}

namespace {
/// What an expression's evaluation at one run loaded: each leaf's elements,
/// and per concat whether the run lies before the end of each of its parts
/// but the last.
struct LoadedLeaves {
  llvm::DenseMap<const ElementExpr *, Value> values;
  llvm::DenseMap<const ElementExpr *, SmallVector<Value>> beforePartEnds;
};
} // namespace

/// Loads every leaf of `expr` first, so that all of a thread's loads are in
/// flight together: warps issue in order, and a conversion or an operator
/// waiting for one load would hold back the loads after it.
static void loadLeaves(KernelBuilder &kb, const ElementExpr &expr,
                       ValueRange indices, ArrayRef<int64_t> shape,
                       int64_t width, LoadedLeaves &loaded) {
  if (expr.isLeaf()) {
    loaded.values[&expr] = loadLeaf(kb, expr, indices, shape, width);
    return;
  }
  if (expr.kind == OpKind::Concat) {
    // The concat's own indices: its user may broadcast it (numpy-style,
    // right-aligned) from a lower rank or along size-1 dims.
    SmallVector<Value> own = kb.broadcastIndices(indices, expr.shape, shape);
    int64_t dim = expr.params.dim, offset = 0;
    int64_t run = isConcatAlongRuns(expr) ? width : 1;
    Value index = own[dim];
    for (auto [part, size] : llvm::zip(expr.operands, expr.params.ints)) {
      SmallVector<Value> at(own);
      Value shifted = index;
      if (offset > 0)
        shifted = arith::SelectOp::create(
            kb.b, kb.loc, kb.lessThan(index, offset), kb.index(0),
            arith::SubIOp::create(kb.b, kb.loc, index, kb.index(offset)));
      at[dim] = kb.min(shifted, size - run);
      Shape partShape(expr.shape);
      partShape[dim] = size;
      loadLeaves(kb, part, at, partShape, width, loaded);
      offset += size;
      if (&part != &expr.operands.back())
        loaded.beforePartEnds[&expr].push_back(kb.lessThan(index, offset));
    }
    return;
  }
  for (const ElementExpr &operand : expr.operands)
    loadLeaves(kb, operand, indices, shape, width, loaded);
}

/// `expr` in f32 on its loaded leaves (scalars, or vectors of `width`).
static Value compute(KernelBuilder &kb, const ElementExpr &expr, int64_t width,
                     const LoadedLeaves &loaded) {
  if (expr.kind == OpKind::Concat && !expr.isLeaf()) {
    // The last part, unless the run lies before the end of an earlier one.
    ArrayRef<Value> before = loaded.beforePartEnds.at(&expr);
    Value value = compute(kb, expr.operands.back(), width, loaded);
    for (int64_t part = static_cast<int64_t>(before.size()) - 1; part >= 0;
         --part)
      value = arith::SelectOp::create(
          kb.b, kb.loc, before[part],
          compute(kb, expr.operands[part], width, loaded), value);
    return value;
  }
  if (expr.isLeaf()) {
    Value value = kb.convert(loaded.values.lookup(&expr), kb.b.getF32Type());
    if (width > 1 && !isa<VectorType>(value.getType()))
      value = vector::BroadcastOp::create(
          kb.b, kb.loc, VectorType::get({width}, kb.b.getF32Type()), value);
    return value;
  }
  SmallVector<Value> operands;
  for (const ElementExpr &operand : expr.operands)
    operands.push_back(compute(kb, operand, width, loaded));
  return emitScalarOp(kb.b, kb.loc, expr.kind, expr.params, operands);
}

Value codegen::evaluateAt(KernelBuilder &kb, const ElementExpr &expr,
                          ValueRange indices, ArrayRef<int64_t> shape,
                          int64_t width) {
  LoadedLeaves loaded;
  loadLeaves(kb, expr, indices, shape, width, loaded);
  return compute(kb, expr, width, loaded);
}

bool TileSinks::allowRuns(int64_t width) const {
  if (tile && !tile->layout.hasContiguousRuns(width))
    return false;
  return llvm::all_of(
      outputs, [&](const GlobalTile &output) { return output.hasRuns(width); });
}

void TileSinks::store(KernelBuilder &kb, ValueRange indices,
                      Value value) const {
  bool run = isa<VectorType>(value.getType());
  if (tile) {
    if (run)
      kb.storeVectorF32(*tile, indices, value);
    else
      kb.storeF32(*tile, indices, value);
  }
  for (const GlobalTile &output : outputs) {
    SmallVector<Value> at = output.at(kb, indices);
    Value data = kb.convert(
        value, cast<MemRefType>(output.memref.getType()).getElementType());
    if (run)
      vector::StoreOp::create(kb.b, kb.loc, data, output.memref, at,
                              /*nontemporal=*/false, llvm::Align(16));
    else
      memref::StoreOp::create(kb.b, kb.loc, data, output.memref, at);
  }
}

void codegen::emitElementwise(KernelBuilder &kb, const ElementExpr &expr,
                              ArrayRef<int64_t> shape, const TileSinks &sinks) {
  int64_t width = shape.back() % kVectorWidth == 0 &&
                          sinks.allowRuns(kVectorWidth) &&
                          leavesHaveRuns(expr, kVectorWidth)
                      ? kVectorWidth
                      : 1;
  Shape runs(shape);
  runs.back() /= width;
  kb.forEachStrided(getNumElements(runs), [&](Value run) {
    SmallVector<Value> indices = kb.delinearize(run, runs);
    indices.back() = kb.mul(indices.back(), width);
    sinks.store(kb, indices, evaluateAt(kb, expr, indices, shape, width));
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
