//===- OpSemantics.cpp - One definition per operator ----------------------===//
//
// The records of every operator: static facts and the shape rule. Each
// operator's facets are kept together, grouped by operator family.
//
//===----------------------------------------------------------------------===//

#include "mirage/Semantics/OpSemantics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace mirage;
using llvm::ArrayRef;
using llvm::Expected;
using llvm::SmallVector;

namespace {

llvm::Error shapeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

using Shapes = SmallVector<Shape, 1>;

Shapes single(ArrayRef<int64_t> shape) { return Shapes{Shape(shape)}; }

/// Checks that `dim` is a valid dimension index for a tensor of `rank`.
llvm::Error checkDim(int64_t dim, size_t rank, llvm::StringRef what) {
  if (dim < 0 || dim >= static_cast<int64_t>(rank))
    return shapeError(llvm::formatv("{0} {1} is out of range for rank {2}",
                                    what, dim, rank));
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

Expected<Shapes> unaryShape(ArrayRef<ArrayRef<int64_t>> in) {
  return single(in[0]);
}

Expected<Shapes> binaryShape(ArrayRef<ArrayRef<int64_t>> in) {
  auto shape = broadcastShapes(in[0], in[1]);
  if (!shape)
    return shape.takeError();
  return Shapes{*shape};
}

//===----------------------------------------------------------------------===//
// Matmul: contracts the last dim of lhs with the second-to-last of rhs; the
// leading (batch) dims broadcast.
//===----------------------------------------------------------------------===//

Expected<Shapes> matmulShape(ArrayRef<ArrayRef<int64_t>> in) {
  ArrayRef<int64_t> lhs = in[0], rhs = in[1];
  if (lhs.size() < 2 || rhs.size() < 2)
    return shapeError(llvm::formatv(
        "matmul operands must have rank >= 2, got {0} and {1}",
        formatShape(lhs), formatShape(rhs)));
  int64_t k = lhs.back(), kr = rhs[rhs.size() - 2];
  if (k != kr)
    return shapeError(llvm::formatv(
        "contraction dims differ: lhs dim {0} has size {1} but rhs dim {2} "
        "has size {3}",
        lhs.size() - 1, k, rhs.size() - 2, kr));
  auto batch = broadcastShapes(lhs.drop_back(2), rhs.drop_back(2));
  if (!batch)
    return shapeError("batch dims do not broadcast: " +
                      llvm::toString(batch.takeError()));
  Shape result = *batch;
  result.push_back(lhs[lhs.size() - 2]);
  result.push_back(rhs.back());
  return Shapes{result};
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

Expected<Shapes> reduceShape(ArrayRef<ArrayRef<int64_t>> in,
                             const OpParams &params) {
  if (auto err = checkDim(params.dim, in[0].size(), "reduction dim"))
    return std::move(err);
  Shape result(in[0]);
  if (params.keepDim)
    result[params.dim] = 1;
  else
    result.erase(result.begin() + params.dim);
  return Shapes{result};
}

/// rms_norm(x[, w]) normalizes over the last dim of x; w, when present, is a
/// 1-D scale of that size.
Expected<Shapes> rmsNormShape(ArrayRef<ArrayRef<int64_t>> in) {
  ArrayRef<int64_t> x = in[0];
  if (x.empty())
    return shapeError("rms_norm input must have rank >= 1");
  if (in.size() == 2 && (in[1].size() != 1 || in[1][0] != x.back()))
    return shapeError(llvm::formatv(
        "rms_norm weight must have shape {0} (the normalized last dim), got {1}",
        x.back(), formatShape(in[1])));
  return single(x);
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

Expected<Shapes> concatShape(ArrayRef<ArrayRef<int64_t>> in,
                             const OpParams &params) {
  ArrayRef<int64_t> first = in[0];
  if (auto err = checkDim(params.dim, first.size(), "concat dim"))
    return std::move(err);
  Shape result(first);
  for (auto [index, shape] : llvm::enumerate(in.drop_front())) {
    if (shape.size() != first.size())
      return shapeError(llvm::formatv(
          "concat operand #{0} has rank {1} but operand #0 has rank {2}",
          index + 1, shape.size(), first.size()));
    for (size_t d = 0; d < shape.size(); ++d) {
      if (static_cast<int64_t>(d) == params.dim)
        continue;
      if (shape[d] != first[d])
        return shapeError(llvm::formatv(
            "concat operand #{0} has size {1} in dim {2} but operand #0 has "
            "size {3}; only the concat dim {4} may differ",
            index + 1, shape[d], d, first[d], params.dim));
    }
    result[params.dim] += shape[params.dim];
  }
  return Shapes{result};
}

Expected<Shapes> splitShape(ArrayRef<ArrayRef<int64_t>> in,
                            const OpParams &params) {
  ArrayRef<int64_t> shape = in[0];
  if (auto err = checkDim(params.dim, shape.size(), "split dim"))
    return std::move(err);
  if (params.ints.empty())
    return shapeError("split needs at least one size");
  int64_t total = 0;
  Shapes results;
  for (int64_t size : params.ints) {
    if (size <= 0)
      return shapeError(llvm::formatv("split size {0} must be positive", size));
    total += size;
    Shape piece(shape);
    piece[params.dim] = size;
    results.push_back(piece);
  }
  if (total != shape[params.dim])
    return shapeError(llvm::formatv(
        "split sizes sum to {0} but dim {1} has size {2}", total, params.dim,
        shape[params.dim]));
  return results;
}

Expected<Shapes> reshapeShape(ArrayRef<ArrayRef<int64_t>> in,
                              const OpParams &params) {
  for (int64_t size : params.ints)
    if (size <= 0)
      return shapeError(
          llvm::formatv("reshape size {0} must be positive", size));
  int64_t from = getNumElements(in[0]), to = getNumElements(params.ints);
  if (from != to)
    return shapeError(llvm::formatv(
        "reshape from {0} ({1} elements) to {2} ({3} elements) changes the "
        "element count",
        formatShape(in[0]), from, formatShape(params.ints), to));
  return single(params.ints);
}

Expected<Shapes> transposeShape(ArrayRef<ArrayRef<int64_t>> in,
                                const OpParams &params) {
  ArrayRef<int64_t> shape = in[0];
  ArrayRef<int64_t> perm = params.ints;
  if (perm.size() != shape.size())
    return shapeError(llvm::formatv(
        "permutation has {0} entries but the operand has rank {1}",
        perm.size(), shape.size()));
  llvm::SmallBitVector seen(shape.size());
  Shape result;
  for (int64_t p : perm) {
    if (auto err = checkDim(p, shape.size(), "permutation entry"))
      return std::move(err);
    if (seen.test(p))
      return shapeError(
          llvm::formatv("permutation repeats dim {0}", p));
    seen.set(p);
    result.push_back(shape[p]);
  }
  return Shapes{result};
}

//===----------------------------------------------------------------------===//
// Block- and thread-graph structure. imap/omap map grid dims to data dims;
// fmap maps the loop dim to a data dim. See docs/Dialects/Block.md.
//===----------------------------------------------------------------------===//

/// The words diagnostics use for the partitioned dims at each level.
struct LevelWords {
  const char *dim;     // "grid dim x"
  const char *space;   // "the grid has 2 dim(s)"
  const char *workers; // "blocks write disjoint parts"
};

LevelWords wordsFor(const TilingParams &tiling) {
  if (tiling.level == TilingParams::Level::Thread)
    return {"thread dim", "thread layout", "threads"};
  return {"grid dim", "grid", "blocks"};
}

/// Validates a grid map: one entry per grid dim, each a data dim of a tensor of
/// `rank` or kReplica (when `allowReplica`), no data dim used twice.
llvm::Error checkGridMap(const TilingParams &tiling, size_t rank,
                         llvm::StringRef mapName, bool allowReplica) {
  LevelWords words = wordsFor(tiling);
  if (tiling.gridMap.size() != tiling.grid.size())
    return shapeError(llvm::formatv(
        "{0} has {1} entries but the {2} has {3} dim(s); a map has one entry "
        "per {4}",
        mapName, tiling.gridMap.size(), words.space, tiling.grid.size(),
        words.dim));
  for (auto [g, dim] : llvm::enumerate(tiling.gridMap)) {
    if (dim == kReplica) {
      if (!allowReplica)
        return shapeError(llvm::formatv(
            "{0} maps {1} {2} to replica; every {1} must map to a data dim so "
            "that {3} write disjoint parts of the output",
            mapName, words.dim, gridDimName(g), words.workers));
      continue;
    }
    if (dim < 0 || dim >= static_cast<int64_t>(rank))
      return shapeError(llvm::formatv(
          "{0} maps {1} {2} to data dim {3}, but the tensor has rank {4}",
          mapName, words.dim, gridDimName(g), dim, rank));
    for (size_t other = 0; other < g; ++other)
      if (tiling.gridMap[other] == dim)
        return shapeError(llvm::formatv(
            "{0} maps {1}s {2} and {3} to the same data dim {4}", mapName,
            words.dim, gridDimName(other), gridDimName(g), dim));
  }
  return llvm::Error::success();
}

/// The tile an input iterator loads in one iteration of one block.
Expected<Shapes> inputIteratorShape(ArrayRef<ArrayRef<int64_t>> in,
                                    const OpParams &params) {
  const TilingParams &tiling = params.tiling;
  Shape tile(in[0]);
  if (auto err = checkGridMap(tiling, tile.size(), "imap", true))
    return std::move(err);
  for (auto [g, dim] : llvm::enumerate(tiling.gridMap)) {
    if (dim == kReplica)
      continue;
    int64_t parts = tiling.grid[g];
    if (tile[dim] % parts != 0)
      return shapeError(llvm::formatv(
          "data dim {0} (size {1}) is not divisible by {2} {3} (size {4}) "
          "that imap partitions it over",
          dim, tile[dim], wordsFor(tiling).dim, gridDimName(g), parts));
    tile[dim] /= parts;
  }
  if (tiling.loopMap != kReplica) {
    if (tiling.loopMap < 0 || tiling.loopMap >= static_cast<int64_t>(tile.size()))
      return shapeError(llvm::formatv(
          "fmap maps the loop dim to data dim {0}, but the tensor has rank {1}",
          tiling.loopMap, tile.size()));
    int64_t &size = tile[tiling.loopMap];
    if (size % tiling.forloopRange != 0)
      return shapeError(llvm::formatv(
          "data dim {0} (size {1} per {2}) is not divisible by the for-loop "
          "range {3} that fmap partitions it over",
          tiling.loopMap, size,
          tiling.level == TilingParams::Level::Thread ? "thread" : "block",
          tiling.forloopRange));
    size /= tiling.forloopRange;
  }
  return Shapes{tile};
}

/// The full output an output saver assembles from every block's tile.
Expected<Shapes> outputSaverShape(ArrayRef<ArrayRef<int64_t>> in,
                                  const OpParams &params) {
  const TilingParams &tiling = params.tiling;
  Shape result(in[0]);
  if (auto err = checkGridMap(tiling, result.size(), "omap", false))
    return std::move(err);
  for (auto [g, dim] : llvm::enumerate(tiling.gridMap))
    result[dim] *= tiling.grid[g];
  return Shapes{result};
}

Expected<Shapes> accumConcatShape(ArrayRef<ArrayRef<int64_t>> in,
                                  const OpParams &params) {
  if (auto err = checkDim(params.dim, in[0].size(), "concat dim"))
    return std::move(err);
  Shape result(in[0]);
  result[params.dim] *= params.tiling.forloopRange;
  return Shapes{result};
}

/// accum_rescaled_sum(x, m): the scale operand m must broadcast to x.
Expected<Shapes> accumRescaledSumShape(ArrayRef<ArrayRef<int64_t>> in) {
  auto shape = broadcastShapes(in[0], in[1]);
  if (!shape || ArrayRef<int64_t>(*shape) != in[0]) {
    if (!shape)
      llvm::consumeError(shape.takeError());
    return shapeError(llvm::formatv(
        "the running-max operand of shape {0} does not broadcast to the "
        "accumulated shape {1}",
        formatShape(in[1]), formatShape(in[0])));
  }
  return single(in[0]);
}

//===----------------------------------------------------------------------===//
// The operator table.
//===----------------------------------------------------------------------===//

using ShapeRule = Expected<Shapes> (*)(ArrayRef<ArrayRef<int64_t>>,
                                       const OpParams &);

struct OpRecord {
  OpInfo info;
  ShapeRule shape;
};

template <Expected<Shapes> (*Rule)(ArrayRef<ArrayRef<int64_t>>)>
Expected<Shapes> ignoringParams(ArrayRef<ArrayRef<int64_t>> in,
                                const OpParams &) {
  return Rule(in);
}

constexpr std::optional<unsigned> kVariadic = std::nullopt;

const OpRecord kRecords[] = {
    // kind, name, min operands, max operands, elementwise; shape rule
    {{OpKind::Exp, "exp", 1, 1, true}, ignoringParams<unaryShape>},
    {{OpKind::Sqrt, "sqrt", 1, 1, true}, ignoringParams<unaryShape>},
    {{OpKind::Square, "square", 1, 1, true}, ignoringParams<unaryShape>},
    {{OpKind::Silu, "silu", 1, 1, true}, ignoringParams<unaryShape>},
    {{OpKind::Gelu, "gelu", 1, 1, true}, ignoringParams<unaryShape>},
    {{OpKind::Relu, "relu", 1, 1, true}, ignoringParams<unaryShape>},
    {{OpKind::Neg, "neg", 1, 1, true}, ignoringParams<unaryShape>},
    {{OpKind::MulScalar, "mul_scalar", 1, 1, true}, ignoringParams<unaryShape>},
    {{OpKind::AddScalar, "add_scalar", 1, 1, true}, ignoringParams<unaryShape>},
    {{OpKind::Add, "add", 2, 2, true}, ignoringParams<binaryShape>},
    {{OpKind::Sub, "sub", 2, 2, true}, ignoringParams<binaryShape>},
    {{OpKind::Mul, "mul", 2, 2, true}, ignoringParams<binaryShape>},
    {{OpKind::Div, "div", 2, 2, true}, ignoringParams<binaryShape>},
    {{OpKind::Pow, "pow", 2, 2, true}, ignoringParams<binaryShape>},
    {{OpKind::Matmul, "matmul", 2, 2, false}, ignoringParams<matmulShape>},
    {{OpKind::ReduceSum, "reduce_sum", 1, 1, false}, reduceShape},
    {{OpKind::ReduceMax, "reduce_max", 1, 1, false}, reduceShape},
    {{OpKind::RmsNorm, "rms_norm", 1, 2, false}, ignoringParams<rmsNormShape>},
    {{OpKind::Concat, "concat", 1, kVariadic, false}, concatShape},
    {{OpKind::Split, "split", 1, 1, false}, splitShape},
    {{OpKind::Reshape, "reshape", 1, 1, false}, reshapeShape},
    {{OpKind::Transpose, "transpose", 1, 1, false}, transposeShape},
    {{OpKind::AllReduce, "all_reduce", 1, 1, false}, ignoringParams<unaryShape>},
    {{OpKind::InputIterator, "input_iterator", 1, 1, false}, inputIteratorShape},
    {{OpKind::OutputSaver, "output_saver", 1, 1, false}, outputSaverShape},
    {{OpKind::AccumSum, "accum_sum", 1, 1, false}, ignoringParams<unaryShape>},
    {{OpKind::AccumMax, "accum_max", 1, 1, false}, ignoringParams<unaryShape>},
    {{OpKind::AccumConcat, "accum_concat", 1, 1, false}, accumConcatShape},
    {{OpKind::AccumRescaledSum, "accum_rescaled_sum", 2, 2, false},
     ignoringParams<accumRescaledSumShape>},
};

const OpRecord &getRecord(OpKind kind) {
  const OpRecord &record = kRecords[static_cast<size_t>(kind)];
  // The table is indexed by kind; keep it in enum order.
  assert(record.info.kind == kind && "operator table out of enum order");
  return record;
}

} // namespace

const OpInfo &mirage::getOpInfo(OpKind kind) { return getRecord(kind).info; }

Expected<SmallVector<Shape, 1>>
mirage::inferShapes(OpKind kind, ArrayRef<ArrayRef<int64_t>> operandShapes,
                    const OpParams &params) {
  const OpRecord &record = getRecord(kind);
  const OpInfo &info = record.info;
  if (operandShapes.size() < info.minOperands ||
      (info.maxOperands && operandShapes.size() > *info.maxOperands)) {
    std::string expected =
        !info.maxOperands ? llvm::formatv("at least {0}", info.minOperands).str()
        : *info.maxOperands == info.minOperands
            ? std::to_string(info.minOperands)
            : llvm::formatv("{0} to {1}", info.minOperands, *info.maxOperands)
                  .str();
    return shapeError(llvm::formatv("{0} takes {1} operand(s), got {2}",
                                    info.name, expected, operandShapes.size()));
  }
  for (auto [index, shape] : llvm::enumerate(operandShapes))
    for (int64_t size : shape)
      if (size <= 0)
        return shapeError(llvm::formatv(
            "operand #{0} has shape {1}; sizes must be static and positive",
            index, formatShape(shape)));
  return record.shape(operandShapes, params);
}

Expected<Shape> mirage::broadcastShapes(ArrayRef<int64_t> lhs,
                                        ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  Shape result(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    // Walk from the innermost dim outwards.
    int64_t l = i < lhs.size() ? lhs[lhs.size() - 1 - i] : 1;
    int64_t r = i < rhs.size() ? rhs[rhs.size() - 1 - i] : 1;
    if (l != r && l != 1 && r != 1)
      return shapeError(llvm::formatv(
          "shapes {0} and {1} do not broadcast: lhs dim {2} has size {3} but "
          "rhs dim {4} has size {5}",
          formatShape(lhs), formatShape(rhs), lhs.size() - 1 - i, l,
          rhs.size() - 1 - i, r));
    result[rank - 1 - i] = l == 1 ? r : l;
  }
  return result;
}

llvm::StringRef mirage::gridDimName(unsigned index) {
  static const char *const names[] = {"x", "y", "z"};
  return index < 3 ? names[index] : "?";
}

int64_t mirage::getNumElements(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return count;
}

std::string mirage::formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(shape, os, "x");
  return text;
}
