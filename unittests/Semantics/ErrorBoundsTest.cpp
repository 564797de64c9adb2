//===- ErrorBoundsTest.cpp - Soundness of the float64 rounding bounds -----===//
//
// The verifier's float64 check accepts a candidate when it agrees with the
// reference within twice the sum of their error bounds, so each operator's
// bound must hold. Two checks per operator:
//  - propagation: for operands moved anywhere within their error bounds,
//    the float64 result moves by at most twice the bound (once for the
//    propagated error and the rounding at the original operands, once for
//    the rounding at the moved ones);
//  - rounding: with exact operands, the float64 result is within the bound
//    of a long double evaluation.
//
//===----------------------------------------------------------------------===//

#include "TestParams.h"
#include "mirage/Semantics/Evaluation.h"
#include "mirage/Semantics/Fingerprint.h"

#include "gtest/gtest.h"

#include <cmath>
#include <functional>
#include <map>

using namespace mirage;
using namespace mirage::test;

namespace {

struct Case {
  OpKind kind;
  std::vector<Shape> shapes;
  OpParams params;
  /// Operand values are drawn in [low, high), with a random sign when
  /// `signed_`.
  double low = 0.25, high = 4.0;
  bool signed_ = true;
};

/// One case per compute operator; the test fails for an operator with an
/// error facet and no case.
std::vector<Case> cases() {
  return {
      {OpKind::Exp, {{64}}, {}, 0.0, 3.0},
      {OpKind::Sqrt, {{64}}, {}, 0.05, 4.0, false},
      {OpKind::Square, {{64}}, {}},
      {OpKind::Silu, {{64}}, {}, 0.0, 6.0},
      {OpKind::Sigmoid, {{64}}, {}, 0.0, 6.0},
      {OpKind::Gelu, {{64}}, {}, 0.0, 6.0},
      {OpKind::Relu, {{64}}, {}},
      {OpKind::Neg, {{64}}, {}},
      {OpKind::Tanh, {{64}}, {}, 0.0, 5.0},
      {OpKind::Rsqrt, {{64}}, {}, 0.05, 4.0, false},
      {OpKind::MulScalar, {{64}}, withScalar(-1.5)},
      {OpKind::AddScalar, {{64}}, withScalar(0.25)},
      {OpKind::Add, {{8, 16}, {16}}, {}},
      {OpKind::Sub, {{8, 16}, {8, 1}}, {}},
      {OpKind::Mul, {{8, 16}, {16}}, {}},
      {OpKind::Div, {{8, 16}, {8, 16}}, {}, 0.5, 2.0},
      {OpKind::Pow, {{8, 16}, {8, 16}}, {}, 0.5, 2.0, false},
      {OpKind::Maximum, {{8, 16}, {16}}, {}},
      {OpKind::Matmul, {{2, 8, 64}, {64, 16}}, {}},
      {OpKind::ReduceSum, {{8, 300}}, withDim(1)},
      {OpKind::ReduceMax, {{8, 16}}, withDim(0)},
      {OpKind::RmsNorm, {{4, 64}, {64}}, withScalar(1e-6)},
      {OpKind::Concat, {{4, 8}, {2, 8}}, withDim(0)},
      {OpKind::Split, {{8, 8}}, withInts(1, {3, 5})},
      {OpKind::Reshape, {{4, 8}}, withInts(0, {32})},
      {OpKind::Transpose, {{4, 8}}, withInts(0, {1, 0})},
      {OpKind::AllReduce, {{16}}, {}},
  };
}

double uniform(uint64_t &state) {
  return static_cast<double>(splitMix64(state) >> 11) * 0x1.0p-53;
}

std::vector<F64Tensor> drawOperands(const Case &c, uint64_t &state) {
  std::vector<F64Tensor> operands;
  for (const Shape &shape : c.shapes) {
    F64Tensor t(shape);
    for (double &v : t.data) {
      v = c.low + (c.high - c.low) * uniform(state);
      if (c.signed_ && uniform(state) < 0.5)
        v = -v;
    }
    operands.push_back(std::move(t));
  }
  return operands;
}

std::vector<const F64Tensor *> pointers(const std::vector<F64Tensor> &ts) {
  std::vector<const F64Tensor *> result;
  for (const F64Tensor &t : ts)
    result.push_back(&t);
  return result;
}

TEST(ErrorBoundsTest, EveryComputeOperatorHasACase) {
  // The compute operators precede the block- and thread-graph structure in
  // OpKind; the accumulators have their own test below.
  std::vector<Case> all = cases();
  for (unsigned k = 0; k < static_cast<unsigned>(OpKind::InputIterator); ++k) {
    OpKind kind = static_cast<OpKind>(k);
    EXPECT_TRUE(llvm::any_of(all, [&](const Case &c) { return c.kind == kind; }))
        << getOpInfo(kind).name.str();
  }
}

TEST(ErrorBoundsTest, PropagatedErrorsBoundPerturbedResults) {
  uint64_t state = 42;
  for (const Case &c : cases()) {
    SCOPED_TRACE(getOpInfo(c.kind).name.str());
    std::vector<F64Tensor> values = drawOperands(c, state);
    // Errors of about 1e-7 relative: large enough for float64 to resolve
    // the moves, small enough for first-order bounds.
    std::vector<F64Tensor> errors;
    for (const F64Tensor &v : values) {
      F64Tensor e(v.shape);
      for (int64_t i = 0; i < v.size(); ++i)
        e.data[i] = 1e-7 * (std::fabs(v.data[i]) + 0.5) * uniform(state);
      errors.push_back(std::move(e));
    }
    F64Tensors results =
        cantFail(evaluate(c.kind, pointers(values), c.params));
    F64Tensors bounds = cantFail(boundErrors(
        c.kind, pointers(values), pointers(errors), results, c.params));
    ASSERT_EQ(bounds.size(), results.size());
    for (unsigned trial = 0; trial < 16; ++trial) {
      std::vector<F64Tensor> moved = values;
      for (size_t o = 0; o < moved.size(); ++o)
        for (int64_t i = 0; i < moved[o].size(); ++i) {
          // The first trials move to the corners of the error box.
          double t = trial < 4 ? ((trial >> (o & 1)) & 1 ? 1.0 : -1.0)
                               : 2.0 * uniform(state) - 1.0;
          moved[o].data[i] += t * errors[o].data[i];
        }
      F64Tensors after =
          cantFail(evaluate(c.kind, pointers(moved), c.params));
      for (size_t r = 0; r < results.size(); ++r)
        for (int64_t i = 0; i < results[r].size(); ++i) {
          double change = std::fabs(after[r].data[i] - results[r].data[i]);
          ASSERT_LE(change, 2.0 * bounds[r].data[i])
              << "result " << r << " element " << i << ", trial " << trial;
        }
    }
  }
}

TEST(ErrorBoundsTest, BoundsAreTight) {
  // A bound that is always huge would accept anything: exact operands get
  // a bound of a few roundings.
  uint64_t state = 7;
  for (const Case &c : cases()) {
    SCOPED_TRACE(getOpInfo(c.kind).name.str());
    std::vector<F64Tensor> values = drawOperands(c, state);
    std::vector<F64Tensor> zeros;
    for (const F64Tensor &v : values)
      zeros.emplace_back(v.shape);
    F64Tensors results =
        cantFail(evaluate(c.kind, pointers(values), c.params));
    F64Tensors bounds = cantFail(boundErrors(
        c.kind, pointers(values), pointers(zeros), results, c.params));
    // Sums of a few hundred terms that cancel keep bounds of gamma_n times
    // the sum of magnitudes: relative to the output's scale, below 1e-10,
    // far below the differences (1e-6 and more) the check must catch.
    for (size_t r = 0; r < results.size(); ++r) {
      double scale = 1.0;
      for (double v : results[r].data)
        scale = std::max(scale, std::fabs(v));
      for (int64_t i = 0; i < results[r].size(); ++i)
        EXPECT_LE(bounds[r].data[i], 1e-10 * scale);
    }
  }
}

TEST(ErrorBoundsTest, RoundingBoundsHoldAgainstLongDouble) {
  uint64_t state = 3;
  // A 4096-long dot product and a 4096-long sum.
  F64Tensor a({1, 4096}), b({4096, 3}), zeroA({1, 4096}), zeroB({4096, 3});
  for (double &v : a.data)
    v = 2.0 * uniform(state) - 1.0;
  for (double &v : b.data)
    v = 2.0 * uniform(state) - 1.0;
  F64Tensors product = cantFail(evaluate(OpKind::Matmul, {&a, &b}, {}));
  F64Tensors productBound = cantFail(
      boundErrors(OpKind::Matmul, {&a, &b}, {&zeroA, &zeroB}, product, {}));
  for (int64_t j = 0; j < 3; ++j) {
    long double exact = 0;
    for (int64_t k = 0; k < 4096; ++k)
      exact += static_cast<long double>(a.data[k]) * b.data[k * 3 + j];
    EXPECT_LE(std::fabs(static_cast<double>(product[0].data[j] - exact)),
              productBound[0].data[j]);
    EXPECT_GT(productBound[0].data[j], 0.0);
  }
  OpParams rows = withDim(1);
  F64Tensors sum = cantFail(evaluate(OpKind::ReduceSum, {&a}, rows));
  F64Tensors sumBound =
      cantFail(boundErrors(OpKind::ReduceSum, {&a}, {&zeroA}, sum, rows));
  long double exactSum = 0;
  for (double v : a.data)
    exactSum += v;
  EXPECT_LE(std::fabs(static_cast<double>(sum[0].data[0] - exactSum)),
            sumBound[0].data[0]);

  // Transcendentals against long double formulas.
  std::map<OpKind, std::function<long double(long double)>> exact = {
      {OpKind::Exp, [](long double x) { return std::exp(x); }},
      {OpKind::Sigmoid,
       [](long double x) { return 1.0L / (1.0L + std::exp(-x)); }},
      {OpKind::Silu, [](long double x) { return x / (1.0L + std::exp(-x)); }},
      {OpKind::Gelu,
       [](long double x) {
         return 0.5L * x * std::erfc(-x * 0.70710678118654752440L);
       }},
      {OpKind::Tanh, [](long double x) { return std::tanh(x); }},
  };
  for (auto &[kind, reference] : exact) {
    SCOPED_TRACE(getOpInfo(kind).name.str());
    F64Tensor x({256}), zero({256});
    for (int64_t i = 0; i < 256; ++i)
      x.data[i] = -12.0 + 24.0 * i / 255.0;
    F64Tensors y = cantFail(evaluate(kind, {&x}, {}));
    F64Tensors bound = cantFail(boundErrors(kind, {&x}, {&zero}, y, {}));
    for (int64_t i = 0; i < 256; ++i)
      EXPECT_LE(std::fabs(static_cast<double>(y[0].data[i] -
                                              reference(x.data[i]))),
                bound[0].data[i] + 1e-300)
          << "at x = " << x.data[i];
  }
}

TEST(ErrorBoundsTest, AccumulatorsBoundPerturbedFolds) {
  uint64_t state = 11;
  OpParams concat;
  concat.dim = 0;
  for (OpKind kind : {OpKind::AccumSum, OpKind::AccumMax, OpKind::AccumConcat,
                      OpKind::AccumRescaledSum}) {
    SCOPED_TRACE(getOpInfo(kind).name.str());
    bool rescaled = kind == OpKind::AccumRescaledSum;
    Shape operand = {4, 8}, scale = {4, 1};
    Shape result = kind == OpKind::AccumConcat ? Shape{24, 8} : operand;
    const int64_t iterations = 6;
    std::vector<BoundedTensor> xs, ms;
    for (int64_t it = 0; it < iterations; ++it) {
      BoundedTensor x(operand), m(scale);
      for (int64_t i = 0; i < x.size(); ++i) {
        x.value.data[i] = 4.0 * uniform(state) - 2.0;
        x.error.data[i] = 1e-7 * uniform(state);
      }
      for (int64_t i = 0; i < m.size(); ++i) {
        m.value.data[i] = 6.0 * uniform(state) - 3.0;
        m.error.data[i] = 1e-7 * uniform(state);
      }
      xs.push_back(std::move(x));
      ms.push_back(std::move(m));
    }
    auto bounded = cantFail(makeBoundedAccumulator(kind, concat, result));
    for (int64_t it = 0; it < iterations; ++it) {
      std::vector<const BoundedTensor *> in = {&xs[it]};
      if (rescaled)
        in.push_back(&ms[it]);
      ASSERT_FALSE(bool(bounded->fold(in, it)));
    }
    BoundedTensor total = bounded->result();
    for (unsigned trial = 0; trial < 16; ++trial) {
      auto plain = cantFail(makeAccumulator(kind, concat, result));
      for (int64_t it = 0; it < iterations; ++it) {
        F64Tensor x = xs[it].value, m = ms[it].value;
        for (int64_t i = 0; i < x.size(); ++i)
          x.data[i] += (2.0 * uniform(state) - 1.0) * xs[it].error.data[i];
        for (int64_t i = 0; i < m.size(); ++i)
          m.data[i] += (2.0 * uniform(state) - 1.0) * ms[it].error.data[i];
        std::vector<const F64Tensor *> in = {&x};
        if (rescaled)
          in.push_back(&m);
        ASSERT_FALSE(bool(plain->fold(in, it)));
      }
      F64Tensor moved = plain->result();
      for (int64_t i = 0; i < total.size(); ++i)
        ASSERT_LE(std::fabs(moved.data[i] - total.value.data[i]),
                  2.0 * total.error.data[i])
            << "element " << i << ", trial " << trial;
    }
  }
}

} // namespace
