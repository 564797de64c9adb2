//===- DataMovement.cpp - concat, split, reshape, transpose, all_reduce ---===//
//
// Operators that only move elements: one implementation over either tensor
// type, since a fingerprint moves its components exactly like a float.
//
//===----------------------------------------------------------------------===//

#include "Records.h"
#include "mirage/Semantics/OpKindCases.h"

#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/MathExtras.h"

using namespace mirage;
using namespace mirage::detail;

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

Expected<Shapes> detail::concatShape(OperandShapes in, const OpParams &params) {
  ArrayRef<int64_t> first = in[0];
  if (auto err = checkDim(params.dim, first.size(), "concat dim"))
    return std::move(err);
  Shape result(first);
  for (auto [index, shape] : llvm::enumerate(in.drop_front())) {
    if (shape.size() != first.size())
      return makeError(llvm::formatv(
          "concat operand #{0} has rank {1} but operand #0 has rank {2}",
          index + 1, shape.size(), first.size()));
    for (size_t d = 0; d < shape.size(); ++d) {
      if (static_cast<int64_t>(d) == params.dim)
        continue;
      if (shape[d] != first[d])
        return makeError(llvm::formatv(
            "concat operand #{0} has size {1} in dim {2} but operand #0 has "
            "size {3}; only the concat dim {4} may differ",
            index + 1, shape[d], d, first[d], params.dim));
    }
    if (llvm::AddOverflow(result[params.dim], shape[params.dim],
                          result[params.dim]))
      return makeError(llvm::formatv(
          "concat sizes along dim {0} overflow a 64-bit size", params.dim));
  }
  return Shapes{result};
}

Expected<Shapes> detail::splitShape(OperandShapes in, const OpParams &params) {
  ArrayRef<int64_t> shape = in[0];
  if (auto err = checkDim(params.dim, shape.size(), "split dim"))
    return std::move(err);
  if (params.ints.empty())
    return makeError("split needs at least one size");
  int64_t total = 0;
  Shapes results;
  for (int64_t size : params.ints) {
    if (size <= 0)
      return makeError(llvm::formatv("split size {0} must be positive", size));
    if (llvm::AddOverflow(total, size, total))
      return makeError("split sizes overflow a 64-bit size");
    Shape piece(shape);
    piece[params.dim] = size;
    results.push_back(piece);
  }
  if (total != shape[params.dim])
    return makeError(llvm::formatv("split sizes sum to {0} but dim {1} has "
                                   "size {2}",
                                   total, params.dim, shape[params.dim]));
  return results;
}

Expected<Shapes> detail::reshapeShape(OperandShapes in,
                                      const OpParams &params) {
  for (int64_t size : params.ints)
    if (size <= 0)
      return makeError(llvm::formatv("reshape size {0} must be positive", size));
  int64_t from = getNumElements(in[0]), to = getNumElements(params.ints);
  if (from != to)
    return makeError(llvm::formatv(
        "reshape from {0} ({1} elements) to {2} ({3} elements) changes the "
        "element count",
        formatShape(in[0]), from, formatShape(params.ints), to));
  return single(params.ints);
}

Expected<Shapes> detail::transposeShape(OperandShapes in,
                                        const OpParams &params) {
  ArrayRef<int64_t> shape = in[0];
  ArrayRef<int64_t> perm = params.ints;
  if (perm.size() != shape.size())
    return makeError(llvm::formatv(
        "permutation has {0} entries but the operand has rank {1}",
        perm.size(), shape.size()));
  llvm::SmallBitVector seen(shape.size());
  Shape result;
  for (int64_t p : perm) {
    if (auto err = checkDim(p, shape.size(), "permutation entry"))
      return std::move(err);
    if (seen.test(p))
      return makeError(llvm::formatv("permutation repeats dim {0}", p));
    seen.set(p);
    result.push_back(shape[p]);
  }
  return Shapes{result};
}

//===----------------------------------------------------------------------===//
// Evaluation, for either tensor type
//===----------------------------------------------------------------------===//

namespace {
template <typename TensorT>
llvm::SmallVector<TensorT, 1> moveData(OpKind kind,
                                       ArrayRef<const TensorT *> in,
                                       const OpParams &params) {
  const TensorT &x = *in[0];
  switch (kind) {
  case OpKind::AllReduce: // one device: the sum over the group is the input
    return {x};
  case OpKind::Reshape: {
    TensorT out = x;
    out.shape.assign(params.ints.begin(), params.ints.end());
    return {std::move(out)};
  }
  case OpKind::Transpose: {
    Shape shape = cantFail(transposeShape({x.shape}, params))[0];
    return {gatherTensor(x, transposeGather(x.shape, params.ints), shape)};
  }
  case OpKind::Concat: {
    llvm::SmallVector<ArrayRef<int64_t>> shapes;
    bool withQ = true;
    for (const TensorT *operand : in) {
      shapes.push_back(operand->shape);
      if constexpr (std::is_same_v<TensorT, FFTensor>)
        withQ &= operand->hasQ();
    }
    Shape shape = cantFail(concatShape(shapes, params))[0];
    TensorT out = [&] {
      if constexpr (std::is_same_v<TensorT, FFTensor>)
        return TensorT(shape, withQ);
      else
        return TensorT(shape);
    }();
    Shape offsets(shape.size(), 0);
    for (const TensorT *operand : in) {
      scatterTile(out, offsets, *operand);
      offsets[params.dim] += operand->shape[params.dim];
    }
    return {std::move(out)};
  }
  case OpKind::Split: {
    llvm::SmallVector<TensorT, 1> pieces;
    Shape offsets(x.shape.size(), 0);
    for (const Shape &piece : cantFail(splitShape({x.shape}, params))) {
      pieces.push_back(extractTile(x, offsets, piece));
      offsets[params.dim] += piece[params.dim];
    }
    return pieces;
  }
  // Only data movement operators have these facets (the operator table).
  MIRAGE_ELEMENTWISE_OP_KIND_CASES:
  case OpKind::Matmul:
  case OpKind::ReduceSum:
  case OpKind::ReduceMax:
  case OpKind::RmsNorm:
  MIRAGE_GRAPH_STRUCTURE_OP_KIND_CASES:
    break;
  }
  llvm_unreachable("not a data movement operator");
}
} // namespace

Expected<F64Tensors> detail::dataMovementF64(OpKind kind, F64Operands in,
                                             const OpParams &params) {
  return moveData<F64Tensor>(kind, in, params);
}

Expected<FFTensors> detail::dataMovementFF(OpKind kind, FFOperands in,
                                           const OpParams &params,
                                           const Fingerprinter &) {
  return moveData<FFTensor>(kind, in, params);
}

/// Moving elements moves their errors and rounds nothing.
Expected<F64Tensors> detail::dataMovementErrors(OpKind kind, F64Operands,
                                                F64Operands errors,
                                                ArrayRef<F64Tensor>,
                                                const OpParams &params) {
  return moveData<F64Tensor>(kind, errors, params);
}

Degree detail::keepDegree(OpKind, ArrayRef<Degree> in, OperandShapes,
                          const OpParams &) {
  Degree result;
  for (Degree d : in)
    result = {std::max(result.num, d.num), std::max(result.den, d.den)};
  return result;
}

//===----------------------------------------------------------------------===//
// Abstract expressions
//===----------------------------------------------------------------------===//

/// Moving elements does not change what they are; a concatenation of
/// several tensors is uninterpreted.
ExprId detail::dataMovementExpr(OpKind kind, ArrayRef<ExprId> in,
                                OperandShapes, const OpParams &,
                                ExprContext &context) {
  if (kind == OpKind::Concat && in.size() > 1)
    return context.opaque("concat", in);
  return in[0];
}

std::optional<DimMap> detail::dataMovementMap(OpKind kind, OperandShapes in,
                                              ArrayRef<int64_t> out,
                                              const OpParams &params) {
  DimMap map;
  // The identity over `rank` dims.
  auto identity = [](int64_t rank) {
    llvm::SmallVector<int64_t, 4> dims;
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(d);
    return dims;
  };
  switch (kind) {
  case OpKind::Concat:
  case OpKind::Split: {
    // The concatenated or split dim is needed whole; the others line up.
    map.space = kind == OpKind::Concat ? Shape(out) : Shape(in[0]);
    int64_t rank = map.space.size();
    if (params.dim < 0 || params.dim >= rank)
      return std::nullopt;
    map.kinds.assign(rank, SpaceDimKind::Parallel);
    map.kinds[params.dim] = SpaceDimKind::Whole;
    for (size_t i = 0; i < in.size(); ++i)
      map.operands.push_back(identity(rank));
    size_t results = kind == OpKind::Split ? params.ints.size() : 1;
    for (size_t i = 0; i < results; ++i)
      map.results.push_back(identity(rank));
    break;
  }
  case OpKind::Transpose: {
    // Result dim i is operand dim permutation[i].
    map.space = Shape(out);
    int64_t rank = map.space.size();
    if (static_cast<int64_t>(params.ints.size()) != rank)
      return std::nullopt;
    llvm::SmallVector<int64_t, 4> dims(rank, kWholeDim);
    for (int64_t i = 0; i < rank; ++i) {
      if (params.ints[i] < 0 || params.ints[i] >= rank)
        return std::nullopt;
      dims[params.ints[i]] = i;
    }
    map.kinds.assign(rank, SpaceDimKind::Parallel);
    map.operands.push_back(dims);
    map.results.push_back(identity(rank));
    break;
  }
  case OpKind::Reshape: {
    // Row-major regrouping: walk both shapes in runs of equal element
    // count; a run of one dim on each side lines up, the dims of any other
    // run index nothing (size-1 dims trivially so).
    ArrayRef<int64_t> from = in[0];
    ArrayRef<int64_t> to = out;
    map.space = Shape(to);
    map.kinds.assign(to.size(), SpaceDimKind::Parallel);
    map.regroups = true;
    llvm::SmallVector<int64_t, 4> fromDims(from.size(), kWholeDim),
        toDims(to.size(), kWholeDim);
    std::optional<int64_t> fromElements = getCheckedNumElements(from),
                           toElements = getCheckedNumElements(to);
    if (!fromElements || !toElements || *fromElements != *toElements ||
        *fromElements <= 0)
      return std::nullopt;
    size_t i = 0, j = 0;
    auto skipOnes = [](ArrayRef<int64_t> shape, size_t &k) {
      while (k < shape.size() && shape[k] == 1)
        ++k;
    };
    skipOnes(from, i);
    skipOnes(to, j);
    while (i < from.size() && j < to.size()) {
      size_t i0 = i, j0 = j;
      int64_t a = from[i++], b = to[j++];
      while (a != b) {
        if (a < b)
          a *= from[i++];
        else
          b *= to[j++];
      }
      if (i - i0 == 1 && j - j0 == 1) {
        fromDims[i0] = static_cast<int64_t>(j0);
        toDims[j0] = static_cast<int64_t>(j0);
      }
      skipOnes(from, i);
      skipOnes(to, j);
    }
    map.operands.push_back(fromDims);
    map.results.push_back(toDims);
    break;
  }
  case OpKind::AllReduce:
    // A collective: each element stays where it is, but no tile is
    // computed on its own.
    map.space = Shape(in[0]);
    map.kinds.assign(map.space.size(), SpaceDimKind::Parallel);
    map.operands.push_back(identity(map.space.size()));
    map.results.push_back(identity(map.space.size()));
    map.tiled = false;
    break;
  // Not data movement: the operator table gives these their own facets.
  MIRAGE_ELEMENTWISE_OP_KIND_CASES:
  case OpKind::Matmul:
  case OpKind::ReduceSum:
  case OpKind::ReduceMax:
  case OpKind::RmsNorm:
  MIRAGE_GRAPH_STRUCTURE_OP_KIND_CASES:
    return std::nullopt;
  }
  return map;
}

bool mirage::swapsLastTwoDims(ArrayRef<int64_t> permutation) {
  int64_t rank = permutation.size();
  if (rank < 2)
    return false;
  for (int64_t d = 0; d < rank; ++d)
    if (permutation[d] != (d + 2 < rank ? d : 2 * rank - 3 - d))
      return false;
  return true;
}
