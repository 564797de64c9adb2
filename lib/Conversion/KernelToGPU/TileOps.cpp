//===- TileOps.cpp - Block-level operators on shared-memory tiles ---------===//
//
// SIMT code for one non-elementwise block-graph operator: the block's
// threads share the elements of the result (thread t takes elements t, t +
// threads, ...) and read their operands from shared memory. Reductions give
// each result element to a group of lanes (a power of two up to 32; over
// another dim than the last, no more than leave a result per thread),
// which combine by shuffles, or, with fewer results than warps, to several
// warps that combine through shared scratch; runs of 8 contiguous elements
// are read as vectors. The caller places a barrier after each level of
// operators.
//
//===----------------------------------------------------------------------===//

#include "Codegen.h"
#include "mirage/Semantics/OpKindCases.h"

#include "mirage/Semantics/Formula.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::codegen;

/// The input indices of reduced element `r` for the result element at
/// `resultIndices` (whose dim `dim` is size 1, or absent without keepdim).
static SmallVector<Value> reducedIndices(ValueRange resultIndices,
                                         int64_t dim, bool keepDim, Value r) {
  SmallVector<Value> indices(resultIndices);
  if (keepDim)
    indices[dim] = r;
  else
    indices.insert(indices.begin() + dim, r);
  return indices;
}

/// Folds `x` (a scalar, or a vector reduced first) into `acc`.
static Value combineInto(KernelBuilder &kb, OpKind kind, Value acc, Value x) {
  if (auto vector = dyn_cast<VectorType>(x.getType()))
    x = vector::ReductionOp::create(kb.b, kb.loc,
                                    getCombine(kind) == Primitive::Max
                                        ? vector::CombiningKind::MAXIMUMF
                                        : vector::CombiningKind::ADD,
                                    x);
  return emitCombine(kb.b, kb.loc, kind, acc, x);
}

/// Folds the values `load(position)` (scalars or vectors) for positions
/// [first, extent) of a reduced dim, `step` apart.
static Value emitFoldLoop(KernelBuilder &kb, OpKind kind, Value first,
                          int64_t extent, int64_t step,
                          function_ref<Value(Value)> load) {
  OpBuilder &b = kb.b;
  auto loop = scf::ForOp::create(b, kb.loc, first, kb.index(extent),
                                 kb.index(step),
                                 ValueRange{kb.f32(getCombineIdentity(kind))});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value folded = combineInto(kb, kind, loop.getRegionIterArg(0),
                             load(loop.getInductionVar()));
  scf::YieldOp::create(b, kb.loc, folded);
  return loop.getResult(0);
}

int64_t codegen::getWarpsPerReduction(int64_t outputs, int64_t extent,
                                      int64_t warps) {
  if (outputs <= 0 || outputs >= warps)
    return 1;
  return std::max<int64_t>(
      1, std::min(warps / outputs, extent / (32 * kVectorWidth)));
}

int64_t codegen::getReductionScratchBytes(int64_t outputs, int64_t extent,
                                          int64_t warps) {
  int64_t warpsPer = getWarpsPerReduction(outputs, extent, warps);
  return warpsPer > 1 ? outputs * warpsPer * 4 : 0;
}

/// Where the warps of a split reduction leave their partials: warp w at
/// element w.
static void storePartial(KernelBuilder &kb, const SmemTile &scratch,
                         Value partial) {
  OpBuilder &b = kb.b;
  Value isFirstLane = b.createOrFold<arith::CmpIOp>(
      kb.loc, arith::CmpIPredicate::eq, kb.laneId, kb.index(0));
  auto ifOp = scf::IfOp::create(b, kb.loc, isFirstLane);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  kb.storeF32(scratch, ValueRange{kb.warpId}, partial);
}

/// The combination of the `warpsPer` partials of result `output`.
static Value combinePartials(KernelBuilder &kb, OpKind kind,
                             const SmemTile &scratch, Value output,
                             int64_t warpsPer) {
  Value first = kb.mul(output, warpsPer);
  Value total = kb.f32(getCombineIdentity(kind));
  for (int64_t w = 0; w < warpsPer; ++w)
    total = emitCombine(kb.b, kb.loc, kind, total,
                        kb.loadF32(scratch, ValueRange{kb.add(first, w)}));
  return total;
}

/// Runs `body` in the first `warps` warps of the block only. It must hold
/// no barrier.
static void inFirstWarps(KernelBuilder &kb, int64_t warps,
                         function_ref<void()> body) {
  if (warps >= kb.getNumWarps()) {
    body();
    return;
  }
  auto ifOp = scf::IfOp::create(kb.b, kb.loc, kb.lessThan(kb.warpId, warps));
  OpBuilder::InsertionGuard guard(kb.b);
  kb.b.setInsertionPointToStart(ifOp.thenBlock());
  body();
}

/// Runs `body` for each of `count` results, one per aligned group of
/// `lanes` lanes (a power of two up to `maxLanes`, no more than `runs`, the
/// pieces a result's fold is shared in). Groups walk the results in block-wide
/// steps with a warp-uniform trip count, so that every lane takes part in
/// every shuffle. `body` gets the result (the last one for a group past the
/// end, which must write nothing), the lane's place in its group, `lanes`,
/// and whether the result is real (null where every group always has one).
static void
forEachLaneGroup(KernelBuilder &kb, int64_t count, int64_t runs,
                 function_ref<void(Value, Value, int64_t, Value)> body,
                 int64_t maxLanes = 32) {
  OpBuilder &b = kb.b;
  int64_t lanes = 1;
  while (lanes * 2 <= std::min({runs, maxLanes, int64_t(32)}))
    lanes *= 2;
  int64_t groupsPerWarp = 32 / lanes;
  int64_t step = kb.getNumWarps() * groupsPerWarp;
  Value first =
      kb.add(kb.mul(kb.warpId, groupsPerWarp), kb.div(kb.laneId, lanes));
  auto loop =
      scf::ForOp::create(b, kb.loc, kb.index(0),
                         kb.index(llvm::divideCeil(count, step)), kb.index(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value result = kb.add(first, kb.mul(loop.getInductionVar(), step));
  Value lane = kb.rem(kb.laneId, lanes);
  if (count % step == 0) {
    body(result, lane, lanes, Value());
    return;
  }
  body(kb.min(result, count - 1), lane, lanes, kb.lessThan(result, count));
}

/// Each result element is folded by a group of lanes (a power of two up to
/// 32, no more than the runs to fold, and over another dim than the
/// innermost no more than leave a result per thread): lanes stride over
/// the reduced dim,
/// then combine by shuffles. Groups walk the result elements in warp-wide
/// steps so that every lane of a warp takes part in every shuffle. With
/// fewer results than warps and `scratch`, several warps share a result
/// (getWarpsPerReduction): each folds a slice of it, and after a barrier a
/// thread per result combines their partials.
void codegen::emitReduce(KernelBuilder &kb, OpKind kind, const OpParams &params,
                         const ElementExpr &input, ArrayRef<int64_t> inputShape,
                         const SmemTile &result,
                         const std::optional<SmemTile> &scratch) {
  OpBuilder &b = kb.b;
  int64_t extent = inputShape[params.dim];
  ArrayRef<int64_t> shape = result.layout.shape;
  int64_t outputs = result.layout.getNumElements();
  // Over the last dim, contiguous runs are read as vectors.
  bool lastDim = params.dim + 1 == static_cast<int64_t>(inputShape.size());
  int64_t width = lastDim && extent % kVectorWidth == 0 &&
                          leavesHaveRuns(input, kVectorWidth)
                      ? kVectorWidth
                      : 1;
  auto fold = [&](ArrayRef<Value> indices, Value first, int64_t step) {
    return emitFoldLoop(kb, kind, first, extent, step, [&](Value r) {
      SmallVector<Value> at =
          reducedIndices(indices, params.dim, params.keepDim, r);
      return evaluateAt(kb, input, at, inputShape, width);
    });
  };
  int64_t warpsPer =
      scratch ? getWarpsPerReduction(outputs, extent, kb.getNumWarps()) : 1;
  if (warpsPer > 1) {
    inFirstWarps(kb, outputs * warpsPer, [&] {
      SmallVector<Value> indices =
          kb.delinearize(kb.div(kb.warpId, warpsPer), shape);
      Value slice = kb.rem(kb.warpId, warpsPer);
      Value first = kb.mul(kb.add(kb.mul(slice, 32), kb.laneId), width);
      Value partial = fold(indices, first, 32 * width * warpsPer);
      storePartial(kb, *scratch, kb.warpReduce(partial, kind));
    });
    kb.barrier();
    kb.forEachStrided(outputs, [&](Value output) {
      kb.storeF32(result, kb.delinearize(output, shape),
                  combinePartials(kb, kind, *scratch, output, warpsPer));
    });
    return;
  }

  // Over another dim than the innermost (unit dims aside), neighbouring
  // results are neighbouring elements: lanes beyond one result per thread
  // would only add shuffles (KeyFormer's score, 1024 results of 8 terms
  // each: its mega-kernel 89.0 -> 66.1 us on an H200), while over the
  // innermost dim the lanes of a result read its contiguous runs side by
  // side, without bank conflicts.
  bool innermost = llvm::all_of(inputShape.drop_front(params.dim + 1),
                                [](int64_t size) { return size == 1; });
  int64_t maxLanes =
      innermost ? 32 : std::max<int64_t>(1, kb.getNumWarps() * 32 / outputs);
  forEachLaneGroup(
      kb, outputs, extent / width,
      [&](Value output, Value lane, int64_t lanes, Value real) {
        SmallVector<Value> indices = kb.delinearize(output, shape);
        Value total = kb.warpReduce(
            fold(indices, kb.mul(lane, width), lanes * width), kind, lanes);
        Value store = b.createOrFold<arith::CmpIOp>(
            kb.loc, arith::CmpIPredicate::eq, lane, kb.index(0));
        if (real)
          store = b.createOrFold<arith::AndIOp>(kb.loc, store, real);
        auto ifOp = scf::IfOp::create(b, kb.loc, store);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        kb.storeF32(result, indices, total);
      },
      maxLanes);
}

void codegen::emitRmsNorm(KernelBuilder &kb, const OpParams &params,
                          ArrayRef<SmemTile> operands, const TileSinks &result,
                          const std::optional<SmemTile> &scratch) {
  OpBuilder &b = kb.b;
  const SmemTile &input = operands[0];
  ArrayRef<int64_t> shape = input.layout.shape;
  int64_t width = shape.back();
  int64_t rows = input.layout.getNumElements() / width;
  bool vectorize =
      llvm::all_of(operands,
                   [](const SmemTile &tile) {
                     return tile.layout.hasContiguousRuns(kVectorWidth);
                   }) &&
      result.allowRuns(kVectorWidth);
  int64_t run = vectorize ? kVectorWidth : 1;
  auto at = [&](ArrayRef<Value> rowIndices, Value column) {
    SmallVector<Value> indices(rowIndices);
    indices.push_back(column);
    return indices;
  };
  auto load = [&](const SmemTile &tile, ValueRange indices) {
    return run > 1 ? kb.loadVectorF32(tile, indices, run)
                   : kb.loadF32(tile, indices);
  };
  auto rowIndicesOf = [&](Value row) {
    return kb.delinearize(row, ArrayRef<int64_t>(shape).drop_back());
  };
  // The sum of squares over columns first, first + step, ... of the lanes
  // of an aligned group of `lanes` (all of them get it).
  auto sumSquares = [&](Value row, Value first, int64_t step,
                        int64_t lanes = 32) {
    SmallVector<Value> rowIndices = rowIndicesOf(row);
    Value partial = emitFoldLoop(
        kb, OpKind::ReduceSum, first, width, step, [&](Value column) {
          Value x = load(input, at(rowIndices, column));
          return arith::MulFOp::create(b, kb.loc, x, x).getResult();
        });
    return kb.warpReduce(partial, OpKind::ReduceSum, lanes);
  };
  auto writeRow = [&](Value row, Value sum, Value first, int64_t step) {
    SmallVector<Value> rowIndices = rowIndicesOf(row);
    Value mean = arith::MulFOp::create(b, kb.loc, sum, kb.f32(1.0 / width));
    Value rms = math::SqrtOp::create(
        b, kb.loc,
        arith::AddFOp::create(b, kb.loc, mean, kb.f32(params.scalar)));
    // One division per row, a product per element.
    Value inverse = emitDivide(b, kb.loc, kb.f32(1.0), rms);
    if (run > 1)
      inverse = vector::BroadcastOp::create(
          b, kb.loc, VectorType::get({run}, b.getF32Type()), inverse);
    auto writeLoop =
        scf::ForOp::create(b, kb.loc, first, kb.index(width), kb.index(step));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(writeLoop.getBody());
    Value column = writeLoop.getInductionVar();
    Value y = arith::MulFOp::create(
        b, kb.loc, load(input, at(rowIndices, column)), inverse);
    if (operands.size() > 1)
      y = arith::MulFOp::create(b, kb.loc, y,
                                load(operands[1], ValueRange{column}));
    result.store(kb, at(rowIndices, column), y);
  };
  int64_t warpsPerRow =
      scratch ? getWarpsPerReduction(rows, width, kb.getNumWarps()) : 1;
  if (warpsPerRow == 1) {
    // A group of lanes per row, so that rows shorter than a warp's step
    // keep every lane busy.
    forEachLaneGroup(kb, rows, width / run,
                     [&](Value row, Value lane, int64_t lanes, Value real) {
                       Value first = kb.mul(lane, run);
                       Value sum = sumSquares(row, first, lanes * run, lanes);
                       OpBuilder::InsertionGuard guard(b);
                       if (real)
                         b.setInsertionPointToStart(
                             scf::IfOp::create(b, kb.loc, real).thenBlock());
                       writeRow(row, sum, first, lanes * run);
                     });
    return;
  }
  // One row per group of warps, each warp on a slice of the columns.
  int64_t step = 32 * run * warpsPerRow;
  auto sliceStart = [&] {
    Value slice = kb.rem(kb.warpId, warpsPerRow);
    return kb.mul(kb.add(kb.mul(slice, 32), kb.laneId), run);
  };
  inFirstWarps(kb, rows * warpsPerRow, [&] {
    storePartial(
        kb, *scratch,
        sumSquares(kb.div(kb.warpId, warpsPerRow), sliceStart(), step));
  });
  kb.barrier();
  inFirstWarps(kb, rows * warpsPerRow, [&] {
    Value row = kb.div(kb.warpId, warpsPerRow);
    writeRow(row,
             combinePartials(kb, OpKind::ReduceSum, *scratch, row, warpsPerRow),
             sliceStart(), step);
  });
}

/// Copies every element of `from` to `to`, where `map` gives the `to`
/// indices of the `from` element at the given indices.
static void emitCopy(KernelBuilder &kb, const SmemTile &from,
                     const SmemTile &to,
                     function_ref<SmallVector<Value>(ValueRange)> map) {
  kb.forEachStrided(from.layout.getNumElements(), [&](Value linear) {
    SmallVector<Value> indices = kb.delinearize(linear, from.layout.shape);
    kb.storeF32(to, map(indices), kb.loadF32(from, indices));
  });
}

static SmallVector<Value> shifted(KernelBuilder &kb, ValueRange indices,
                                  int64_t dim, int64_t offset) {
  SmallVector<Value> result(indices);
  result[dim] = kb.add(result[dim], offset);
  return result;
}

/// out = lhs @ rhs over the two innermost dims, a thread per result element.
static void emitSimtMatmul(KernelBuilder &kb, const SmemTile &lhs,
                           const SmemTile &rhs, const SmemTile &result) {
  OpBuilder &b = kb.b;
  ArrayRef<int64_t> shape = result.layout.shape;
  ArrayRef<int64_t> lhsShape = lhs.layout.shape, rhsShape = rhs.layout.shape;
  int64_t k = lhsShape.back();
  size_t rank = shape.size();
  kb.forEachStrided(result.layout.getNumElements(), [&](Value linear) {
    SmallVector<Value> indices = kb.delinearize(linear, shape);
    // Batch dims broadcast like an elementwise op.
    ValueRange batch = ValueRange(indices).take_front(rank - 2);
    ArrayRef<int64_t> batchShape = shape.drop_back(2);
    SmallVector<Value> lhsIndices = kb.broadcastIndices(
        batch, lhsShape.drop_back(2), batchShape);
    SmallVector<Value> rhsIndices = kb.broadcastIndices(
        batch, rhsShape.drop_back(2), batchShape);
    auto loop = scf::ForOp::create(b, kb.loc, kb.index(0), kb.index(k),
                                   kb.index(1), ValueRange{kb.f32(0.0)});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value kk = loop.getInductionVar();
      SmallVector<Value> a(lhsIndices), w(rhsIndices);
      a.append({indices[rank - 2], kk});
      w.append({kk, indices[rank - 1]});
      Value product = arith::MulFOp::create(b, kb.loc, kb.loadF32(lhs, a),
                                            kb.loadF32(rhs, w));
      scf::YieldOp::create(
          b, kb.loc,
          arith::AddFOp::create(b, kb.loc, loop.getRegionIterArg(0), product)
              .getResult());
    }
    kb.storeF32(result, indices, loop.getResult(0));
  });
}

LogicalResult codegen::emitTileOp(KernelBuilder &kb, Operation *op, OpKind kind,
                                  const OpParams &params,
                                  ArrayRef<SmemTile> operands,
                                  ArrayRef<SmemTile> results) {
  switch (kind) {
  case OpKind::Matmul:
    emitSimtMatmul(kb, operands[0], operands[1], results[0]);
    return success();
  case OpKind::Concat: {
    int64_t offset = 0;
    for (const SmemTile &operand : operands) {
      emitCopy(kb, operand, results[0], [&](ValueRange indices) {
        return shifted(kb, indices, params.dim, offset);
      });
      offset += operand.layout.shape[params.dim];
    }
    return success();
  }
  case OpKind::Split: {
    int64_t offset = 0;
    for (const SmemTile &result : results) {
      // Walk the piece's elements and read them from the input.
      kb.forEachStrided(result.layout.getNumElements(), [&](Value linear) {
        SmallVector<Value> indices =
            kb.delinearize(linear, result.layout.shape);
        kb.storeF32(result, indices,
                    kb.loadF32(operands[0],
                               shifted(kb, indices, params.dim, offset)));
      });
      offset += result.layout.shape[params.dim];
    }
    return success();
  }
  case OpKind::Reshape:
    emitCopy(kb, operands[0], results[0], [&](ValueRange indices) {
      Value linear = kb.linearize(indices, operands[0].layout.shape);
      return kb.delinearize(linear, results[0].layout.shape);
    });
    return success();
  case OpKind::Transpose:
    emitCopy(kb, operands[0], results[0], [&](ValueRange indices) {
      // Result dim i is input dim permutation[i].
      SmallVector<Value> out;
      for (int64_t from : params.ints)
        out.push_back(indices[from]);
      return out;
    });
    return success();
  // Elementwise ops, reductions and rms_norm are emitted from expressions
  // (emitStep); structure ops and all_reduce have no tile code. Listed, not
  // defaulted, so that a new operator must be placed here.
  MIRAGE_ELEMENTWISE_OP_KIND_CASES:
  case OpKind::ReduceSum:
  case OpKind::ReduceMax:
  case OpKind::RmsNorm:
  case OpKind::AllReduce:
  MIRAGE_GRAPH_STRUCTURE_OP_KIND_CASES:
    break;
  }
  return op->emitOpError() << "has no shared-memory code generation";
}
