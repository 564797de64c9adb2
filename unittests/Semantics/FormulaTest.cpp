//===- FormulaTest.cpp - Operators as formulas over primitives ------------===//
//
// The operator table's formulas parse, agree with the records' facts, and
// every primitive's derivative agrees with its value; the facets an
// elementwise operator gets from its formula (abstract expression, degree,
// work) are the ones Mirage's algebra expects.
//
//===----------------------------------------------------------------------===//

#include "mirage/Semantics/Formula.h"
#include "mirage/Semantics/AbstractExpr.h"
#include "mirage/Semantics/Evaluation.h"
#include "mirage/Semantics/Fingerprint.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace mirage;

namespace {

std::string parseError(llvm::StringRef text) {
  llvm::Expected<Formula> formula = parseFormula(text);
  if (formula)
    return "(parsed)";
  return llvm::toString(formula.takeError());
}

TEST(FormulaTest, EveryElementwiseOperatorIsAFormulaWithoutReductions) {
  unsigned elementwise = 0;
  for (unsigned i = 0; i < kNumOpKinds; ++i) {
    auto kind = static_cast<OpKind>(i);
    const OpInfo &info = getOpInfo(kind);
    const Formula *formula = getOpFormula(kind);
    EXPECT_EQ(formula != nullptr, !info.formula.empty()) << info.name.str();
    if (!info.elementwise)
      continue;
    ++elementwise;
    ASSERT_NE(formula, nullptr) << info.name.str();
    EXPECT_FALSE(hasReduction(*formula)) << info.name.str();
    // The operand count the formula reads is the operator's.
    EXPECT_EQ(printFormula(*formula).find("x1") != std::string::npos,
              info.minOperands == 2)
        << info.name.str();
  }
  EXPECT_GE(elementwise, 18u);
}

TEST(FormulaTest, FingerprintClassesFollowFromTheFormulas) {
  for (unsigned i = 0; i < kNumOpKinds; ++i) {
    auto kind = static_cast<OpKind>(i);
    if (const Formula *formula = getOpFormula(kind))
      EXPECT_EQ(getOpInfo(kind).fingerprint, getFingerprintClass(*formula))
          << getOpInfo(kind).name.str() << ": " << printFormula(*formula);
  }
}

TEST(FormulaTest, ParseErrorsNameTheToken) {
  EXPECT_EQ(parseError("(frobnicate x0)"), "unknown primitive 'frobnicate'");
  EXPECT_EQ(parseError("(add x0"), "missing ')' after 'add'");
  EXPECT_EQ(parseError("(exp x0 x1)"), "'exp' takes 1 operand, not 2");
  EXPECT_EQ(parseError("(add x0)"), "'add' takes two or more operands, not 1");
  EXPECT_EQ(parseError("(max x0)"), "'max' takes 2 operands, not 1");
  EXPECT_EQ(parseError("(exp x0) x1"), "trailing text 'x1'");
  EXPECT_EQ(parseError("(x0)"), "unknown primitive 'x0'");
  EXPECT_EQ(parseError("(exp y)"), "cannot read 'y'");
  EXPECT_EQ(parseError(""), "unexpected end of formula");
}

TEST(FormulaTest, ExpansionSpellsOutNonCorePrimitives) {
  EXPECT_EQ(printFormula(expandFormula(*getOpFormula(OpKind::Silu))),
            "(mul x0 (recip (add 1 (exp (neg x0)))))");
  // Phi's product joins gelu's: one flat product.
  EXPECT_EQ(printFormula(expandFormula(*getOpFormula(OpKind::Gelu))),
            "(mul x0 0.5 (add 1 (erf (mul 0.70710678118654757 x0))))");
  EXPECT_EQ(printFormula(expandFormula(*getOpFormula(OpKind::Rsqrt))),
            "(recip (sqrt x0))");
}

// Each primitive's partial derivatives against central differences of its
// value, at points where it is smooth.
TEST(FormulaTest, PrimitiveDerivativesMatchTheirValues) {
  struct Probe {
    const char *formula;
    double x0, x1;
  };
  const Probe probes[] = {
      {"(add x0 x1 1.5)", 0.3, -1.2}, {"(mul x0 x1 x0)", 0.7, -1.3},
      {"(neg x0)", 0.4, 0},           {"(recip x0)", -0.6, 0},
      {"(exp x0)", 1.1, 0},           {"(sqrt x0)", 2.5, 0},
      {"(logistic x0)", -0.8, 0},     {"(normal_cdf x0)", 0.9, 0},
      {"(erf x0)", -0.45, 0},         {"(tanh x0)", 0.6, 0},
      {"(max x0 x1)", 0.2, 0.9},      {"(max x0 x1)", 1.4, -0.5},
      {"(pow x0 x1)", 1.7, 0.8},
  };
  for (const Probe &probe : probes) {
    SCOPED_TRACE(probe.formula);
    Formula formula = cantFail(parseFormula(probe.formula));
    long double x[2] = {probe.x0, probe.x1};
    FormulaPoint point = evaluateFormula(formula, x);
    for (unsigned i = 0; i < 2; ++i) {
      const long double h = 1e-6L;
      long double up[2] = {x[0], x[1]}, down[2] = {x[0], x[1]};
      up[i] += h;
      down[i] -= h;
      long double difference = (evaluateFormula(formula, up).value -
                                evaluateFormula(formula, down).value) /
                               (2 * h);
      EXPECT_NEAR(static_cast<double>(point.slope[i]),
                  static_cast<double>(difference), 1e-7)
          << "by x" << i;
    }
  }
  // The values themselves, where they have closed forms.
  long double half[1] = {0.5L};
  EXPECT_NEAR(
      static_cast<double>(
          evaluateFormula(cantFail(parseFormula("(normal_cdf x0)")), half)
              .value),
      0.6914624612740131, 1e-15);
  EXPECT_EQ(
      evaluateFormula(cantFail(parseFormula("(logistic x0)")), half, 0.0).value,
      1 / (1 + std::exp(-0.5L)));
}

TEST(FormulaTest, ReductionsFoldWithTheirFormulasPrimitive) {
  EXPECT_EQ(getCombine(OpKind::ReduceSum), Primitive::Add);
  EXPECT_EQ(getCombine(OpKind::AccumSum), Primitive::Add);
  EXPECT_EQ(getCombine(OpKind::Matmul), Primitive::Add);
  EXPECT_EQ(getCombine(OpKind::ReduceMax), Primitive::Max);
  EXPECT_EQ(getCombine(OpKind::AccumMax), Primitive::Max);
  EXPECT_EQ(getCombine(OpKind::Exp), std::nullopt);
  EXPECT_EQ(getCombine(OpKind::AccumConcat), std::nullopt);
  EXPECT_EQ(getPrimitiveInfo(Primitive::Add).identity, 0.0);
  EXPECT_EQ(getPrimitiveInfo(Primitive::Max).identity,
            -std::numeric_limits<double>::infinity());
  // Every folding primitive has an identity.
  for (OpKind kind : {OpKind::ReduceSum, OpKind::ReduceMax, OpKind::Matmul})
    EXPECT_TRUE(getPrimitiveInfo(*getCombine(kind)).identity.has_value());
}

TEST(FormulaTest, AbstractExpressionsKeepMiragesAlgebra) {
  ExprContext context;
  ExprId a = context.var(0), b = context.var(1);
  auto expr = [&](OpKind kind, std::vector<ExprId> in, double scalar = 0) {
    OpParams params;
    params.scalar = scalar;
    std::vector<Shape> shapes(in.size(), Shape{4});
    std::vector<llvm::ArrayRef<int64_t>> refs(shapes.begin(), shapes.end());
    return getAbstractExpr(kind, in, refs, params, context);
  };
  // a * recip(b) is a quotient; a + neg(b) a sum with an uninterpreted neg.
  EXPECT_EQ(expr(OpKind::Div, {a, b}), context.div(a, b));
  EXPECT_EQ(expr(OpKind::Sub, {a, b}),
            context.add(a, context.opaque("neg", {b})));
  EXPECT_EQ(expr(OpKind::Silu, {a}), context.silu(a));
  EXPECT_EQ(expr(OpKind::Sigmoid, {a}), context.opaque("sigmoid", {a}));
  EXPECT_EQ(expr(OpKind::MulScalar, {a}, 2.0),
            context.mul(a, context.constant(2.0)));
  EXPECT_EQ(expr(OpKind::Rsqrt, {a}),
            context.div(context.constant(1.0), context.sqrt(a)));
  EXPECT_EQ(expr(OpKind::Tanh, {a}), context.opaque("tanh", {a}));
  EXPECT_EQ(expr(OpKind::Maximum, {a, b}), context.opaque("max", {a, b}));
}

TEST(FormulaTest, DegreesAndWorkFollowTheFormulas) {
  Degree x{2, 1}, y{3, 0};
  std::vector<Shape> shapes = {{4}, {4}};
  std::vector<llvm::ArrayRef<int64_t>> two(shapes.begin(), shapes.end());
  std::vector<llvm::ArrayRef<int64_t>> one(shapes.begin(), shapes.begin() + 1);
  auto degree = [&](OpKind kind, std::vector<Degree> in) {
    return getDegree(kind, in, in.size() == 2 ? two : one, {});
  };
  // x / y over a common denominator: (2 + 0, 1 + 3).
  Degree quotient = degree(OpKind::Div, {x, y});
  EXPECT_EQ(quotient.num, 2u);
  EXPECT_EQ(quotient.den, 4u);
  // silu: x / (1 + e), e a new variable of degree 1.
  Degree silu = degree(OpKind::Silu, {x});
  EXPECT_EQ(silu.num, 2u);
  EXPECT_EQ(silu.den, 2u);
  // rsqrt: 1 / r, r a new variable.
  Degree rsqrt = degree(OpKind::Rsqrt, {x});
  EXPECT_EQ(rsqrt.num, 0u);
  EXPECT_EQ(rsqrt.den, 1u);

  Shape out = {8};
  auto work = [&](OpKind kind) {
    return getWork(kind, getOpInfo(kind).minOperands == 2 ? two : one, out, {})
        .elementOps;
  };
  EXPECT_EQ(work(OpKind::Add), 8.0);
  EXPECT_EQ(work(OpKind::Maximum), 8.0);
  EXPECT_EQ(work(OpKind::Tanh), 32.0);
  EXPECT_EQ(work(OpKind::Silu), 32.0);
}

} // namespace
