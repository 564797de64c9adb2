//===- Elementwise.cpp - Elementwise operators ----------------------------===//
//
// The operators defined by formulas (OpInfo::formula): exp, sqrt, silu, ...
// and the broadcasting add, sub, mul, ... . Every facet follows from the
// formula through the primitives' meanings (Primitives.cpp).
//
//===----------------------------------------------------------------------===//

#include "Primitives.h"
#include "Records.h"

#include "mirage/Semantics/Parallel.h"

#include <cmath>

using namespace mirage;
using namespace mirage::detail;
using llvm::SmallVectorImpl;

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

Expected<Shapes> detail::unaryShape(OperandShapes in, const OpParams &) {
  return single(in[0]);
}

Expected<Shapes> detail::binaryShape(OperandShapes in, const OpParams &) {
  auto shape = broadcastShapes(in[0], in[1]);
  if (!shape)
    return shape.takeError();
  return Shapes{*shape};
}

//===----------------------------------------------------------------------===//
// Formulas as programs
//===----------------------------------------------------------------------===//

namespace {

/// One primitive application of a formula, its operands earlier steps.
struct Step {
  Primitive primitive;
  /// Null for leaves.
  const PrimitiveRecord *record = nullptr;
  SmallVector<unsigned, 3> operands;
  /// Constant (and the scalar `s`): the number.
  double constant = 0.0;
  /// Operand: 0 for x0, 1 for x1.
  unsigned index = 0;
  /// Whether the step's value depends on an operand.
  bool varies = false;
};

/// A formula flattened in evaluation order; the last step is the result.
struct Program {
  SmallVector<Step, 8> steps;
  /// Affine in the operands (sums, negations, products with at most one
  /// varying factor): the slopes are the same everywhere.
  bool affine = true;
};

unsigned compile(const Formula &formula, double scalar, Program &program) {
  Step step{formula.primitive, nullptr, {}, formula.value, formula.index};
  if (formula.primitive == Primitive::Scalar) {
    step.primitive = Primitive::Constant;
    step.constant = scalar;
  }
  unsigned varying = 0;
  for (const Formula &operand : formula.operands) {
    step.operands.push_back(compile(operand, scalar, program));
    varying += program.steps.back().varies;
  }
  if (step.primitive == Primitive::Operand) {
    step.varies = true;
  } else if (step.primitive != Primitive::Constant) {
    step.record = &getPrimitiveRecord(step.primitive);
    step.varies = varying > 0;
    bool linear = step.primitive == Primitive::Add ||
                  step.primitive == Primitive::Neg ||
                  (step.primitive == Primitive::Mul && varying <= 1);
    program.affine &= linear || !step.varies;
  }
  program.steps.push_back(std::move(step));
  return program.steps.size() - 1;
}

Program compile(OpKind kind, const OpParams &params) {
  const Formula *formula = getOpFormula(kind);
  assert(formula && "elementwise operators have formulas");
  Program program;
  compile(*formula, params.scalar, program);
  return program;
}

/// A value and its partial derivatives by x0 and x1.
template <typename T>
struct Dual {
  T value;
  T slope[2];
};

template <typename T>
const ScalarMeaning<T> &getMeaning(const PrimitiveRecord &record);
template <>
const ScalarMeaning<long double> &getMeaning(const PrimitiveRecord &record) {
  return record.scalar.extended;
}
template <>
const ScalarMeaning<double> &getMeaning(const PrimitiveRecord &record) {
  return record.scalar.f64;
}

/// The value and slopes of every step of the program at `x`.
template <typename T>
void runDual(const Program &program, ArrayRef<T> x,
             SmallVectorImpl<Dual<T>> &duals) {
  duals.resize(program.steps.size());
  SmallVector<T, 4> args;
  for (auto [i, step] : llvm::enumerate(program.steps)) {
    Dual<T> &out = duals[i];
    if (!step.record) {
      bool operand = step.primitive == Primitive::Operand;
      out = {operand ? x[step.index] : T(step.constant), {0, 0}};
      if (operand)
        out.slope[step.index] = 1;
      continue;
    }
    args.clear();
    for (unsigned operand : step.operands)
      args.push_back(duals[operand].value);
    const ScalarMeaning<T> &meaning = getMeaning<T>(*step.record);
    out.value = meaning.value(args);
    out.slope[0] = out.slope[1] = 0;
    for (auto [j, operand] : llvm::enumerate(step.operands)) {
      const Dual<T> &in = duals[operand];
      if (!program.steps[operand].varies)
        continue;
      T partial = meaning.partial(args, out.value, j);
      out.slope[0] += partial * in.slope[0];
      out.slope[1] += partial * in.slope[1];
    }
  }
}

/// NaN (no bound) becomes +inf.
inline double orInfinity(double bound) {
  return std::isnan(bound) ? std::numeric_limits<double>::infinity() : bound;
}

/// Elements evaluated together, primitive by primitive.
constexpr size_t kBlock = 256;

/// Evaluates a program in double over blocks of up to kBlock elements: each
/// step runs its primitive's loop over the block (ScalarMeaning::values),
/// and with slopes, its partial derivatives' loops. One per thread: it keeps
/// its arrays.
class BlockEvaluator {
public:
  BlockEvaluator(const Program &program, unsigned arity)
      : program(program), arity(arity), values(program.steps.size() * kBlock),
        slopes(2 * program.steps.size() * kBlock), partial(kBlock) {}

  /// Every step's values at the points (x[0][k], x[1][k]), k < n, and with
  /// `withSlopes` their partial derivatives by x0 and x1.
  void run(const double *const *x, size_t n, bool withSlopes) {
    SmallVector<const double *, 4> operands;
    for (auto [s, step] : llvm::enumerate(program.steps)) {
      double *out = value(s);
      if (!step.record) {
        bool operand = step.primitive == Primitive::Operand;
        if (operand)
          std::copy_n(x[step.index], n, out);
        else
          std::fill_n(out, n, step.constant);
        if (withSlopes)
          for (unsigned i = 0; i < arity; ++i)
            std::fill_n(slope(s, i), n, operand && step.index == i ? 1.0 : 0.0);
        continue;
      }
      operands.clear();
      for (unsigned operand : step.operands)
        operands.push_back(value(operand));
      const ScalarMeaning<double> &meaning = step.record->scalar.f64;
      meaning.values(operands, out, n);
      if (!withSlopes)
        continue;
      for (unsigned i = 0; i < arity; ++i)
        std::fill_n(slope(s, i), n, 0.0);
      for (auto [j, operand] : llvm::enumerate(step.operands)) {
        if (!program.steps[operand].varies)
          continue;
        meaning.partials(operands, out, j, partial.data(), n);
        for (unsigned i = 0; i < arity; ++i) {
          double *d = slope(s, i);
          const double *in = slope(operand, i);
          for (size_t k = 0; k < n; ++k)
            d[k] += partial[k] * in[k];
        }
      }
    }
  }

  double *value(size_t step) { return &values[step * kBlock]; }
  double *slope(size_t step, unsigned i) {
    return &slopes[(2 * step + i) * kBlock];
  }
  double *result() { return value(program.steps.size() - 1); }
  double *resultSlope(unsigned i) { return slope(program.steps.size() - 1, i); }

private:
  const Program &program;
  unsigned arity;
  std::vector<double> values, slopes, partial;
};

/// Bounds |f(x') - f(x)| over |x'_i - x_i| <= e_i for blocks of elements:
/// the largest sum of |slope_i| e_i at the center and the ends (one operand)
/// or corners (two) of the box, or +inf where a primitive's pole falls
/// inside it. An affine formula has the same slopes everywhere, found once.
class SlopeBound {
public:
  SlopeBound(const Program &program, unsigned arity)
      : program(program), arity(arity), evaluator(program, arity) {
    for (auto [s, step] : llvm::enumerate(program.steps))
      if (step.record && step.record->poleAtZero && step.varies)
        poleOperands.push_back(step.operands[0]);
    if (program.affine) {
      double origin[2] = {0, 0};
      SmallVector<Dual<double>, 8> duals;
      runDual(program, ArrayRef<double>(origin, arity), duals);
      affineSlopes[0] = std::fabs(duals.back().slope[0]);
      affineSlopes[1] = std::fabs(duals.back().slope[1]);
    }
  }

  /// out[k] = the bound at (x[0][k], x[1][k]) with errors e[i][k], k < n.
  void operator()(const double *const *x, const double *const *e, size_t n,
                  double *out) {
    if (program.affine) {
      for (size_t k = 0; k < n; ++k)
        out[k] = orInfinity(affineSlopes[0] * e[0][k] +
                            (arity == 2 ? affineSlopes[1] * e[1][k] : 0.0));
      return;
    }
    std::fill_n(out, n, 0.0);
    low.assign(poleOperands.size() * kBlock,
               std::numeric_limits<double>::infinity());
    high.assign(poleOperands.size() * kBlock,
                -std::numeric_limits<double>::infinity());
    static constexpr int kUnary[][2] = {{0, 0}, {-1, 0}, {1, 0}};
    static constexpr int kBinary[][2] = {
        {0, 0}, {-1, -1}, {-1, 1}, {1, -1}, {1, 1}};
    ArrayRef<int[2]> signs =
        arity == 1 ? ArrayRef<int[2]>(kUnary) : ArrayRef<int[2]>(kBinary);
    double point[2][kBlock];
    const double *points[2] = {point[0], point[1]};
    for (const int *sign : signs) {
      for (unsigned i = 0; i < arity; ++i)
        for (size_t k = 0; k < n; ++k)
          point[i][k] = x[i][k] + sign[i] * e[i][k];
      evaluator.run(points, n, /*withSlopes=*/true);
      for (size_t k = 0; k < n; ++k) {
        double sum = 0;
        for (unsigned i = 0; i < arity; ++i)
          sum += std::fabs(evaluator.resultSlope(i)[k]) * e[i][k];
        out[k] = std::isnan(sum) ? std::numeric_limits<double>::infinity()
                                 : std::max(out[k], sum);
      }
      for (auto [p, operand] : llvm::enumerate(poleOperands)) {
        const double *v = evaluator.value(operand);
        for (size_t k = 0; k < n; ++k) {
          low[p * kBlock + k] = std::min(low[p * kBlock + k], v[k]);
          high[p * kBlock + k] = std::max(high[p * kBlock + k], v[k]);
        }
      }
    }
    for (size_t p = 0; p < poleOperands.size(); ++p)
      for (size_t k = 0; k < n; ++k)
        if (low[p * kBlock + k] <= 0 && high[p * kBlock + k] >= 0)
          out[k] = std::numeric_limits<double>::infinity();
  }

private:
  const Program &program;
  unsigned arity;
  BlockEvaluator evaluator;
  /// The steps whose values a pole (recip) reads.
  SmallVector<unsigned> poleOperands;
  std::vector<double> low, high;
  double affineSlopes[2] = {0, 0};
};

bool isBinary(OpKind kind) { return getOpInfo(kind).minOperands == 2; }

/// The offsets each operand of a broadcasting op reads for every element of
/// `result`; empty when the operand already has the result's shape.
std::vector<int64_t> operandMap(ArrayRef<int64_t> operand,
                                ArrayRef<int64_t> result) {
  if (operand == result)
    return {};
  return broadcastGather(operand, result);
}

inline int64_t at(const std::vector<int64_t> &map, int64_t i) {
  return map.empty() ? i : map[i];
}

} // namespace

FormulaPoint mirage::evaluateFormula(const Formula &formula,
                                     ArrayRef<long double> x, double s) {
  Program program;
  compile(formula, s, program);
  SmallVector<Dual<long double>, 8> duals;
  runDual(program, x, duals);
  const Dual<long double> &result = duals.back();
  return {result.value, {result.slope[0], result.slope[1]}};
}

//===----------------------------------------------------------------------===//
// Float64
//===----------------------------------------------------------------------===//

Expected<F64Tensors> detail::elementwiseF64(OpKind kind, F64Operands in,
                                            const OpParams &params) {
  Program program = compile(kind, params);
  Shape shape = in[0]->shape;
  if (isBinary(kind))
    shape = cantFail(broadcastShapes(in[0]->shape, in[1]->shape));
  SmallVector<std::vector<int64_t>, 2> maps;
  for (const F64Tensor *operand : in)
    maps.push_back(operandMap(operand->shape, shape));
  F64Tensor out(shape);
  parallelChunks(out.size(), [&](int64_t begin, int64_t end) {
    BlockEvaluator evaluator(program, in.size());
    double operand[2][kBlock];
    const double *operands[2] = {operand[0], operand[1]};
    for (int64_t block = begin; block < end; block += kBlock) {
      size_t n = std::min<int64_t>(kBlock, end - block);
      for (auto [i, tensor] : llvm::enumerate(in))
        for (size_t k = 0; k < n; ++k)
          operand[i][k] = tensor->data[at(maps[i], block + k)];
      evaluator.run(operands, n, /*withSlopes=*/false);
      std::copy_n(evaluator.result(), n, &out.data[block]);
    }
  });
  return F64Tensors{std::move(out)};
}

/// Propagated errors by the formula's slopes over the operands' error box,
/// plus the operator's own rounding of `roundingUlps` units of 2^-53.
Expected<F64Tensors> detail::elementwiseErrors(OpKind kind, F64Operands values,
                                               F64Operands errors,
                                               ArrayRef<F64Tensor> results,
                                               const OpParams &params) {
  Program program = compile(kind, params);
  const F64Tensor &result = results[0];
  double rounding = getOpInfo(kind).roundingUlps * kUnitRoundoff;
  SmallVector<std::vector<int64_t>, 2> maps;
  for (const F64Tensor *operand : values)
    maps.push_back(operandMap(operand->shape, result.shape));
  F64Tensor out(result.shape);
  parallelChunks(out.size(), [&](int64_t begin, int64_t end) {
    SlopeBound propagated(program, values.size());
    double operand[2][kBlock], error[2][kBlock], moved[kBlock];
    const double *operands[2] = {operand[0], operand[1]};
    const double *operandErrors[2] = {error[0], error[1]};
    for (int64_t block = begin; block < end; block += kBlock) {
      size_t n = std::min<int64_t>(kBlock, end - block);
      bool exact = true;
      for (unsigned i = 0; i < values.size(); ++i)
        for (size_t k = 0; k < n; ++k) {
          int64_t j = at(maps[i], block + k);
          operand[i][k] = values[i]->data[j];
          error[i][k] = errors[i]->data[j];
          exact &= !(error[i][k] > 0.0);
        }
      if (!exact)
        propagated(operands, operandErrors, n, moved);
      for (size_t k = 0; k < n; ++k) {
        // Exact operands move nothing (even where the slope is infinite).
        bool exactHere = !(error[0][k] > 0.0) &&
                         (values.size() == 1 || !(error[1][k] > 0.0));
        out.data[block + k] = (exact || exactHere ? 0.0 : moved[k]) +
                              rounding * std::fabs(result.data[block + k]);
      }
    }
  });
  return F64Tensors{std::move(out)};
}

//===----------------------------------------------------------------------===//
// Fingerprints
//===----------------------------------------------------------------------===//

namespace {

struct FFEvaluator {
  OpKind kind;
  const OpParams &params;
  const Fingerprinter &fp;
  SmallVector<FFTensor, 2> operands;

  Expected<FFTensor> eval(const Formula &formula) const {
    if (formula.primitive == Primitive::Operand)
      return operands[formula.index];
    if (formula.primitive == Primitive::Scalar ||
        formula.primitive == Primitive::Constant) {
      double value = formula.primitive == Primitive::Scalar ? params.scalar
                                                            : formula.value;
      FFTensor constant(Shape{}, /*withQ=*/true);
      constant.p[0] = fp.fieldP().fromDouble(value);
      constant.q[0] = fp.fieldQ().fromDouble(value);
      return constant;
    }
    const PrimitiveRecord &record = getPrimitiveRecord(formula.primitive);
    llvm::StringRef name = getOpInfo(kind).name;
    if (!record.ff)
      return makeError(name + " has no finite-field semantics (outside the "
                              "Lax fragment)");
    SmallVector<FFTensor, 3> args;
    for (const Formula &operand : formula.operands) {
      Expected<FFTensor> value = eval(operand);
      if (!value)
        return value.takeError();
      args.push_back(std::move(*value));
    }
    SmallVector<const FFTensor *, 3> pointers;
    for (const FFTensor &arg : args)
      pointers.push_back(&arg);
    return record.ff(pointers, fp, name);
  }
};

} // namespace

Expected<FFTensors> detail::elementwiseFF(OpKind kind, FFOperands in,
                                          const OpParams &params,
                                          const Fingerprinter &fp) {
  Shape shape = in[0]->shape;
  if (isBinary(kind))
    shape = cantFail(broadcastShapes(in[0]->shape, in[1]->shape));
  FFEvaluator evaluator{kind, params, fp, {}};
  for (const FFTensor *operand : in) {
    std::vector<int64_t> map = operandMap(operand->shape, shape);
    evaluator.operands.push_back(
        map.empty() ? *operand : gatherTensor(*operand, map, shape));
  }
  Expected<FFTensor> out = evaluator.eval(*getOpFormula(kind));
  if (!out)
    return out.takeError();
  out->shape = shape;
  return FFTensors{std::move(*out)};
}

//===----------------------------------------------------------------------===//
// Degrees and abstract expressions, primitive by primitive
//===----------------------------------------------------------------------===//

namespace {

Degree formulaDegree(const Formula &formula, ArrayRef<Degree> in) {
  if (formula.primitive == Primitive::Operand)
    return in[formula.index];
  if (formula.primitive == Primitive::Scalar ||
      formula.primitive == Primitive::Constant)
    return Degree{0, 0};
  SmallVector<Degree, 3> args;
  for (const Formula &operand : formula.operands)
    args.push_back(formulaDegree(operand, in));
  return getPrimitiveRecord(formula.primitive).degree(args);
}

ExprId formulaExpr(const Formula &formula, ArrayRef<ExprId> in,
                   const OpParams &params, ExprContext &context) {
  if (formula.primitive == Primitive::Operand)
    return in[formula.index];
  if (formula.primitive == Primitive::Scalar)
    return context.constant(params.scalar);
  if (formula.primitive == Primitive::Constant)
    return context.constant(formula.value);
  auto build = [&](const Formula &operand) {
    return formulaExpr(operand, in, params, context);
  };
  // A product with reciprocals is a quotient: a * recip(b) is div(a, b).
  if (formula.primitive == Primitive::Mul)
    return foldChain<ExprId>(
        formula, build, [&](ExprId acc, ExprId x, bool inverse) {
          return inverse ? context.div(acc, x) : context.mul(acc, x);
        });
  SmallVector<ExprId, 3> args;
  for (const Formula &operand : formula.operands)
    args.push_back(build(operand));
  return getPrimitiveRecord(formula.primitive).expr(args, context);
}

bool isTranscendental(const Formula &formula) {
  return getPrimitiveInfo(formula.primitive).transcendental ||
         llvm::any_of(formula.operands, isTranscendental);
}

} // namespace

Degree detail::elementwiseDegree(OpKind kind, ArrayRef<Degree> in,
                                 OperandShapes, const OpParams &) {
  return formulaDegree(*getOpFormula(kind), in);
}

ExprId detail::elementwiseExpr(OpKind kind, ArrayRef<ExprId> in,
                               OperandShapes, const OpParams &params,
                               ExprContext &context) {
  switch (getOpInfo(kind).abstractForm) {
  case AbstractForm::Formula:
    return formulaExpr(*getOpFormula(kind), in, params, context);
  case AbstractForm::Uninterpreted:
    return context.opaque(getOpInfo(kind).name, in);
  case AbstractForm::Silu:
    return context.silu(in[0]);
  }
  llvm_unreachable("covered switch");
}

OpWork detail::elementwiseWork(OpKind kind, OperandShapes, ArrayRef<int64_t> out,
                               const OpParams &) {
  bool transcendental = isTranscendental(*getOpFormula(kind));
  OpWork work;
  work.elementOps =
      (transcendental ? 4.0 : 1.0) * static_cast<double>(getNumElements(out));
  return work;
}

DimMap detail::rightAlignedMap(OperandShapes in, ArrayRef<int64_t> out) {
  DimMap map;
  map.space = Shape(out);
  int64_t rank = map.space.size();
  map.kinds.assign(rank, SpaceDimKind::Parallel);
  for (ArrayRef<int64_t> shape : in) {
    auto &dims = map.operands.emplace_back();
    int64_t skip = rank - static_cast<int64_t>(shape.size());
    for (auto [d, size] : llvm::enumerate(shape)) {
      int64_t s = static_cast<int64_t>(d) + skip;
      if (s < 0)
        dims.push_back(kWholeDim);
      else if (size == map.space[s])
        dims.push_back(s);
      else
        dims.push_back(size == 1 ? kBroadcastDim : kWholeDim);
    }
  }
  auto &result = map.results.emplace_back();
  for (int64_t d = 0; d < rank; ++d)
    result.push_back(d);
  return map;
}

std::optional<DimMap> detail::elementwiseMap(OpKind, OperandShapes in,
                                             ArrayRef<int64_t> out,
                                             const OpParams &) {
  // The space is the (broadcast) result.
  for (ArrayRef<int64_t> shape : in)
    if (shape.size() > out.size())
      return std::nullopt;
  return rightAlignedMap(in, out);
}
