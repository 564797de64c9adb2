//===- OpSemantics.cpp - One definition per operator ----------------------===//
//
// The operator table: one record per operator binding its static facts to
// its facets (shape rule, float64 evaluation, fingerprint, degree), which
// live together in the file of its family.
//
//===----------------------------------------------------------------------===//

#include "Records.h"

#include "mirage/Semantics/Parallel.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <string>

using namespace mirage;
using namespace mirage::detail;

namespace {

using FC = FingerprintClass;
using AF = AbstractForm;
using PF = ParamForm;
constexpr std::optional<unsigned> kVariadic = std::nullopt;

/// An elementwise operator: every facet from its formula; a finite-field
/// facet unless its formula leaves the fingerprint.
OpRecord elementwiseRecord(OpInfo info) {
  bool binary = info.minOperands == 2;
  bool fingerprinted = info.fingerprint != FC::Outside;
  return {info,
          binary ? binaryShape : unaryShape,
          elementwiseF64,
          fingerprinted ? elementwiseFF : nullptr,
          elementwiseErrors,
          elementwiseDegree,
          elementwiseExpr,
          elementwiseWork,
          elementwiseMap};
}

// Rows in OpKind order: facts {kind, name, min operands, max operands,
// elementwise, fingerprint class, float64 rounding in units of 2^-53 (of
// the formula evaluated primitive by primitive in double),
// scales, abstract form, formula (the others have none)} and, by name,
// the parameters, accumulation, data movement and commutativity;
// facets: shape, float64, fingerprint, error bound, degree, abstract
// expression, work, dimension map. Iterators, savers and
// accumulators are evaluated by the graph interpreter (Structure.cpp).
const OpRecord kRecords[] = {
    elementwiseRecord({OpKind::Exp, "exp", 1, 1, true, FC::Exponential, 2,
                       false, AF::Formula, "(exp x0)"}),
    elementwiseRecord({OpKind::Sqrt, "sqrt", 1, 1, true, FC::SquareRoot, 1,
                       false, AF::Formula, "(sqrt x0)"}),
    elementwiseRecord({OpKind::Square, "square", 1, 1, true, FC::Polynomial, 1,
                       false, AF::Formula, "(mul x0 x0)"}),
    elementwiseRecord({OpKind::Silu, "silu", 1, 1, true, FC::Exponential, 5,
                       false, AF::Silu, "(mul x0 (logistic x0))"}),
    elementwiseRecord({OpKind::Sigmoid, "sigmoid", 1, 1, true, FC::Exponential,
                       5, false, AF::Uninterpreted, "(logistic x0)"}),
    elementwiseRecord({OpKind::Gelu, "gelu", 1, 1, true, FC::Outside, 4, false,
                       AF::Uninterpreted, "(mul x0 (normal_cdf x0))"}),
    elementwiseRecord({OpKind::Relu, "relu", 1, 1, true, FC::Outside, 0, false,
                       AF::Uninterpreted, "(max x0 0)"}),
    elementwiseRecord({OpKind::Neg, "neg", 1, 1, true, FC::Polynomial, 0, false,
                       AF::Formula, "(neg x0)"}),
    elementwiseRecord({OpKind::Tanh, "tanh", 1, 1, true, FC::Outside, 4, false,
                       AF::Formula, "(tanh x0)"}),
    elementwiseRecord({OpKind::Rsqrt, "rsqrt", 1, 1, true, FC::SquareRoot, 2,
                       false, AF::Formula, "(recip (sqrt x0))"}),
    elementwiseRecord(OpInfo{OpKind::MulScalar, "mul_scalar", 1, 1, true,
                             FC::Polynomial, 1, false, AF::Formula,
                             "(mul x0 s)"}
                          .withParams(PF::Scalar)),
    elementwiseRecord(OpInfo{OpKind::AddScalar, "add_scalar", 1, 1, true,
                             FC::Polynomial, 1, false, AF::Formula,
                             "(add x0 s)"}
                          .withParams(PF::Scalar)),
    elementwiseRecord(OpInfo{OpKind::Add, "add", 2, 2, true, FC::Polynomial, 1,
                             false, AF::Formula, "(add x0 x1)"}
                          .commuting()),
    elementwiseRecord({OpKind::Sub, "sub", 2, 2, true, FC::Polynomial, 1, false,
                       AF::Formula, "(add x0 (neg x1))"}),
    elementwiseRecord(OpInfo{OpKind::Mul, "mul", 2, 2, true, FC::Polynomial, 1,
                             true, AF::Formula, "(mul x0 x1)"}
                          .commuting()),
    elementwiseRecord({OpKind::Div, "div", 2, 2, true, FC::Division, 2, true,
                       AF::Formula, "(mul x0 (recip x1))"}),
    elementwiseRecord({OpKind::Pow, "pow", 2, 2, true, FC::Outside, 2, false,
                       AF::Formula, "(pow x0 x1)"}),
    elementwiseRecord(OpInfo{OpKind::Maximum, "maximum", 2, 2, true,
                             FC::Outside, 0, false, AF::Formula, "(max x0 x1)"}
                          .commuting()),
    {{OpKind::Matmul, "matmul", 2, 2, false, FC::Polynomial, 0, false,
      AF::Formula, "(reduce_add (mul x0 x1))"},
     matmulShape,
     contractionF64,
     contractionFF,
     contractionErrors,
     contractionDegree,
     matmulExpr,
     contractionWork,
     contractionMap},
    {OpInfo{OpKind::ReduceSum, "reduce_sum", 1, 1, false, FC::Polynomial, 0,
            false, AF::Formula, "(reduce_add x0)"}
         .withParams(PF::ReduceDim),
     reduceShape, contractionF64, contractionFF, contractionErrors,
     contractionDegree, reduceSumExpr, contractionWork, contractionMap},
    {OpInfo{OpKind::ReduceMax, "reduce_max", 1, 1, false, FC::Outside, 0, false,
            AF::Formula, "(reduce_max x0)"}
         .withParams(PF::ReduceDim),
     reduceShape, contractionF64, nullptr, contractionErrors, contractionDegree,
     reduceMaxExpr, contractionWork, contractionMap},
    {OpInfo{OpKind::RmsNorm, "rms_norm", 1, 2, false, FC::SquareRoot, 0, false}
         .withParams(PF::Epsilon),
     rmsNormShape, rmsNormF64, rmsNormFF, rmsNormErrors, rmsNormDegree,
     rmsNormExpr, rmsNormWork, rmsNormMap},
    {OpInfo{OpKind::Concat, "concat", 1, kVariadic, false, FC::Polynomial, 0,
            false}
         .movingData()
         .withParams(PF::Dim),
     concatShape, dataMovementF64, dataMovementFF, dataMovementErrors,
     keepDegree, dataMovementExpr, noWork, dataMovementMap},
    {OpInfo{OpKind::Split, "split", 1, 1, false, FC::Polynomial, 0, false}
         .movingData()
         .withParams(PF::DimSizes),
     splitShape, dataMovementF64, dataMovementFF, dataMovementErrors,
     keepDegree, dataMovementExpr, noWork, dataMovementMap},
    {OpInfo{OpKind::Reshape, "reshape", 1, 1, false, FC::Polynomial, 0, false}
         .movingData()
         .withParams(PF::ResultShape),
     reshapeShape, dataMovementF64, dataMovementFF, dataMovementErrors,
     keepDegree, dataMovementExpr, noWork, dataMovementMap},
    {OpInfo{OpKind::Transpose, "transpose", 1, 1, false, FC::Polynomial, 0,
            false}
         .movingData()
         .withParams(PF::Permutation),
     transposeShape, dataMovementF64, dataMovementFF, dataMovementErrors,
     keepDegree, dataMovementExpr, noWork, dataMovementMap},
    {OpInfo{OpKind::AllReduce, "all_reduce", 1, 1, false, FC::Polynomial, 0,
            false}
         .movingData(),
     unaryShape, dataMovementF64, dataMovementFF, dataMovementErrors,
     keepDegree, dataMovementExpr, noWork, dataMovementMap},
    {OpInfo{OpKind::InputIterator, "input_iterator", 1, 1, false,
            FC::Polynomial, 0, false}
         .withParams(PF::Tiling),
     inputIteratorShape, nullptr, nullptr, nullptr, keepDegree, structureExpr,
     noWork, alignedMap},
    {OpInfo{OpKind::OutputSaver, "output_saver", 1, 1, false, FC::Polynomial, 0,
            false}
         .withParams(PF::Tiling),
     outputSaverShape, nullptr, nullptr, nullptr, keepDegree, structureExpr,
     noWork, alignedMap},
    {OpInfo{OpKind::AccumSum, "accum_sum", 1, 1, false, FC::Polynomial, 0,
            false, AF::Formula, "(reduce_add x0)"}
         .withAccumulation(Accumulation::Sum),
     unaryShape, nullptr, nullptr, nullptr, keepDegree, structureExpr, noWork,
     alignedMap},
    {OpInfo{OpKind::AccumMax, "accum_max", 1, 1, false, FC::Outside, 0, false,
            AF::Formula, "(reduce_max x0)"}
         .withAccumulation(Accumulation::Max),
     unaryShape, nullptr, nullptr, nullptr, keepDegree, structureExpr, noWork,
     alignedMap},
    {OpInfo{OpKind::AccumConcat, "accum_concat", 1, 1, false, FC::Polynomial, 0,
            false}
         .withParams(PF::Dim)
         .withAccumulation(Accumulation::Concat),
     accumConcatShape, nullptr, nullptr, nullptr, keepDegree, structureExpr,
     noWork, alignedMap},
    {OpInfo{OpKind::AccumRescaledSum, "accum_rescaled_sum", 2, 2, false,
            FC::Outside, 0, false}
         .withAccumulation(Accumulation::RescaledSum),
     accumRescaledSumShape, nullptr, nullptr, nullptr, keepDegree,
     structureExpr, noWork, alignedMap},
};

const OpRecord &getRecord(OpKind kind) {
  const OpRecord &record = kRecords[static_cast<size_t>(kind)];
  // The table is indexed by kind; keep it in enum order.
  assert(record.info.kind == kind && "operator table out of enum order");
  return record;
}

} // namespace

llvm::Error detail::checkDim(int64_t dim, size_t rank, llvm::StringRef what) {
  if (dim < 0 || dim >= static_cast<int64_t>(rank))
    return makeError(llvm::formatv("{0} {1} is out of range for rank {2}",
                                   what, dim, rank));
  return llvm::Error::success();
}

void detail::parallelChunks(int64_t count,
                            llvm::function_ref<void(int64_t, int64_t)> body) {
  constexpr int64_t kChunk = 1 << 14;
  int64_t chunks = (count + kChunk - 1) / kChunk;
  parallelFor(chunks, [&](int64_t chunk) {
    body(chunk * kChunk, std::min(count, (chunk + 1) * kChunk));
  });
}

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
    return makeError(llvm::formatv("{0} takes {1} operand(s), got {2}",
                                   info.name, expected, operandShapes.size()));
  }
  for (auto [index, shape] : llvm::enumerate(operandShapes)) {
    for (int64_t size : shape)
      if (size <= 0)
        return makeError(llvm::formatv(
            "operand #{0} has shape {1}; sizes must be static and positive",
            index, formatShape(shape)));
    if (!getCheckedNumElements(shape))
      return makeError(llvm::formatv(
          "operand #{0} has shape {1}, whose element count exceeds 2^63 - 1",
          index, formatShape(shape)));
  }
  auto results = record.shape(operandShapes, params);
  if (!results)
    return results.takeError();
  for (const Shape &shape : *results)
    if (!getCheckedNumElements(shape))
      return makeError(llvm::formatv(
          "the result shape {0} has a size that is not positive or an "
          "element count beyond 2^63 - 1",
          formatShape(shape)));
  return results;
}

Expected<F64Tensors> mirage::evaluate(OpKind kind,
                                      ArrayRef<const F64Tensor *> operands,
                                      const OpParams &params) {
  const OpRecord &record = getRecord(kind);
  if (!record.f64)
    return makeError(record.info.name +
                     " is evaluated by the graph interpreter");
  return record.f64(kind, operands, params);
}

Expected<FFTensors> mirage::evaluate(OpKind kind,
                                     ArrayRef<const FFTensor *> operands,
                                     const OpParams &params,
                                     const Fingerprinter &fingerprinter) {
  const OpRecord &record = getRecord(kind);
  if (!record.ff)
    return makeError(record.info.name +
                     " has no finite-field semantics (outside the Lax "
                     "fragment)");
  return record.ff(kind, operands, params, fingerprinter);
}

std::vector<F64Tensor> mirage::drawReals(ArrayRef<Shape> shapes,
                                         uint64_t seed,
                                         std::optional<int> maxExponent) {
  // A uniform double in [0, 1).
  auto uniform = [&] {
    return static_cast<double>(splitMix64(seed) >> 11) * 0x1.0p-53;
  };
  std::vector<F64Tensor> tensors;
  for (const Shape &shape : shapes) {
    F64Tensor tensor(shape);
    for (double &v : tensor.data) {
      if (!maxExponent) {
        v = 2.0 * uniform() - 1.0;
        continue;
      }
      double magnitude = std::exp2(-10.0 + (*maxExponent + 10.0) * uniform());
      v = uniform() < 0.5 ? -magnitude : magnitude;
    }
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

Expected<F64Tensors> mirage::boundErrors(OpKind kind,
                                         ArrayRef<const F64Tensor *> values,
                                         ArrayRef<const F64Tensor *> errors,
                                         ArrayRef<F64Tensor> results,
                                         const OpParams &params) {
  const OpRecord &record = getRecord(kind);
  if (!record.errors)
    return makeError(record.info.name +
                     " is evaluated by the graph interpreter");
  return record.errors(kind, values, errors, results, params);
}

F64Tensor detail::absolute(const F64Tensor &x) {
  F64Tensor out(x.shape);
  for (int64_t i = 0; i < x.size(); ++i)
    out.data[i] = std::fabs(x.data[i]);
  return out;
}

std::vector<FFTensor> mirage::drawResidues(ArrayRef<Shape> shapes,
                                           uint64_t seed) {
  std::vector<FFTensor> tensors;
  for (const Shape &shape : shapes) {
    FFTensor tensor(shape);
    for (uint64_t &v : tensor.p)
      v = splitMix64(seed) % kFingerprintP;
    for (uint64_t &v : tensor.q)
      v = splitMix64(seed) % kFingerprintQ;
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

Degree mirage::getDegree(OpKind kind, ArrayRef<Degree> operands,
                         ArrayRef<ArrayRef<int64_t>> operandShapes,
                         const OpParams &params) {
  return getRecord(kind).degree(kind, operands, operandShapes, params);
}

ExprId mirage::getAbstractExpr(OpKind kind, ArrayRef<ExprId> operands,
                               ArrayRef<ArrayRef<int64_t>> operandShapes,
                               const OpParams &params, ExprContext &context) {
  return getRecord(kind).expr(kind, operands, operandShapes, params, context);
}

OpWork mirage::getWork(OpKind kind, ArrayRef<ArrayRef<int64_t>> operandShapes,
                       ArrayRef<int64_t> resultShape, const OpParams &params) {
  return getRecord(kind).work(kind, operandShapes, resultShape, params);
}

std::optional<DimMap>
mirage::getDimMap(OpKind kind, ArrayRef<ArrayRef<int64_t>> operandShapes,
                  ArrayRef<int64_t> resultShape, const OpParams &params) {
  return getRecord(kind).dims(kind, operandShapes, resultShape, params);
}

std::optional<AxisSets>
mirage::inferAxisSets(OpKind kind, ArrayRef<const AxisSets *> operands,
                      ArrayRef<ArrayRef<int64_t>> operandShapes,
                      ArrayRef<int64_t> resultShape, const OpParams &params) {
  std::optional<DimMap> map =
      getDimMap(kind, operandShapes, resultShape, params);
  if (!map || map->regroups || map->results.empty())
    return std::nullopt;
  // A result axis joins the operand axes on its space dim that span it,
  // and every operand axis on a space dim it needs whole (a concatenation's
  // pieces, a norm's weight).
  AxisSets sets(resultShape.size(), 0);
  for (auto [axis, space] : llvm::enumerate(map->results.front())) {
    if (space < 0 || axis >= sets.size())
      continue;
    for (auto [dims, shape, operand] :
         llvm::zip(map->operands, operandShapes, operands))
      for (auto [d, s] : llvm::enumerate(dims))
        if (s == space && d < operand->size() && d < shape.size() &&
            (shape[d] == map->space[s] || needsWholeDim(map->kinds[s])))
          sets[axis] |= (*operand)[d];
  }
  return sets;
}

std::optional<DimMap> detail::alignedMap(OpKind, OperandShapes in,
                                         ArrayRef<int64_t> out,
                                         const OpParams &) {
  DimMap map = rightAlignedMap(in, out);
  map.tiled = false;
  return map;
}

OpWork detail::noWork(OpKind, OperandShapes, ArrayRef<int64_t>,
                      const OpParams &) {
  return {};
}

std::optional<TileDims> mirage::getTileDims(OpKind kind,
                                            ArrayRef<ArrayRef<int64_t>> in,
                                            const OpParams &params) {
  auto results = inferShapes(kind, in, params);
  if (!results) {
    llvm::consumeError(results.takeError());
    return std::nullopt;
  }
  std::optional<DimMap> map = getDimMap(kind, in, (*results)[0], params);
  if (!map || !map->tiled)
    return std::nullopt;
  // A dim on a space dim the op needs whole is kept whole like one on none.
  auto tileDims = [&](ArrayRef<int64_t> dims) {
    llvm::SmallVector<int64_t, 4> tiled;
    for (int64_t s : dims)
      tiled.push_back(s >= 0 && needsWholeDim(map->kinds[s]) ? kWholeDim : s);
    return tiled;
  };
  TileDims tiles;
  tiles.space = map->space;
  for (SpaceDimKind kind : map->kinds)
    tiles.reduced.push_back(kind == SpaceDimKind::Reduced);
  for (ArrayRef<int64_t> dims : map->operands)
    tiles.operands.push_back(tileDims(dims));
  for (ArrayRef<int64_t> dims : map->results)
    tiles.results.push_back(tileDims(dims));
  tiles.accumulator = map->accumulator;
  return tiles;
}

bool mirage::fitsTensorCoreTiles(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                                 unsigned elementBytes) {
  if (elementBytes != 2 || lhs.size() < 2 || rhs.size() < 2 ||
      lhs.back() % 16 != 0 || rhs.back() % 8 != 0)
    return false;
  ArrayRef<int64_t> batchL = lhs.drop_back(2), batchR = rhs.drop_back(2);
  return batchL.empty() || batchR.empty() || batchL == batchR;
}

int64_t mirage::getTensorCoreJobColumns(int64_t n) {
  return n % 16 == 0 ? 16 : 8;
}

int64_t mirage::getTensorCoreChains(int64_t k) {
  int64_t steps = k / 16;
  return steps % 4 == 0 ? 4 : steps % 2 == 0 ? 2 : 1;
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
      return makeError(llvm::formatv(
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

std::optional<int64_t> mirage::getCheckedNumElements(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t size : shape)
    if (size <= 0 || llvm::MulOverflow(count, size, count))
      return std::nullopt;
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
