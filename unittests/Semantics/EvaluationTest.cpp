//===- EvaluationTest.cpp - Operators on small hand-computed tensors ------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Semantics/Evaluation.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mirage;

namespace {

F64Tensor f64(llvm::ArrayRef<int64_t> shape, std::vector<double> data) {
  F64Tensor t(shape);
  t.data = std::move(data);
  return t;
}

FFTensor ff(llvm::ArrayRef<int64_t> shape, std::vector<uint64_t> data) {
  FFTensor t(shape);
  t.p = data;
  t.q = data;
  return t;
}

F64Tensor eval(OpKind kind, std::vector<const F64Tensor *> in,
               const OpParams &params = {}) {
  return std::move(cantFail(evaluate(kind, in, params))[0]);
}

FFTensor eval(OpKind kind, std::vector<const FFTensor *> in,
              const Fingerprinter &fp, const OpParams &params = {}) {
  return std::move(cantFail(evaluate(kind, in, params, fp))[0]);
}

TEST(EvaluationTest, Float64Operators) {
  F64Tensor a = f64({2, 2}, {1, 2, 3, 4}), b = f64({2, 2}, {5, 6, 7, 8});
  EXPECT_EQ(eval(OpKind::Matmul, {&a, &b}).data,
            (std::vector<double>{19, 22, 43, 50}));
  F64Tensor column = f64({2, 1}, {10, 20});
  EXPECT_EQ(eval(OpKind::Add, {&a, &column}).data,
            (std::vector<double>{11, 12, 23, 24}));
  OpParams rows;
  rows.dim = 1;
  F64Tensor sums = eval(OpKind::ReduceSum, {&a}, rows);
  EXPECT_EQ(sums.shape, Shape({2, 1}));
  EXPECT_EQ(sums.data, (std::vector<double>{3, 7}));
  OpParams perm;
  perm.ints = {1, 0};
  EXPECT_EQ(eval(OpKind::Transpose, {&a}, perm).data,
            (std::vector<double>{1, 3, 2, 4}));

  // rms_norm of [3, 4]: mean square 12.5.
  F64Tensor row = f64({1, 2}, {3, 4});
  F64Tensor norm = eval(OpKind::RmsNorm, {&row});
  EXPECT_NEAR(norm.data[0], 3 / std::sqrt(12.5), 1e-15);
  EXPECT_NEAR(norm.data[1], 4 / std::sqrt(12.5), 1e-15);
  F64Tensor zero = f64({1}, {0});
  EXPECT_EQ(eval(OpKind::Silu, {&zero}).data[0], 0.0);
  F64Tensor one = f64({1}, {1});
  EXPECT_NEAR(eval(OpKind::Gelu, {&one}).data[0], 0.8413447460685429, 1e-15);
  EXPECT_EQ(eval(OpKind::Sigmoid, {&zero}).data[0], 0.5);
  EXPECT_NEAR(eval(OpKind::Tanh, {&one}).data[0], 0.7615941559557649, 1e-15);
  F64Tensor four = f64({1}, {4});
  EXPECT_EQ(eval(OpKind::Rsqrt, {&four}).data[0], 0.5);
  // maximum broadcasts like the other binary operators.
  F64Tensor threshold = f64({2, 1}, {2.5, 0});
  EXPECT_EQ(eval(OpKind::Maximum, {&a, &threshold}).data,
            (std::vector<double>{2.5, 2.5, 3, 4}));
}

TEST(EvaluationTest, Float64DataMovement) {
  F64Tensor a = f64({2, 3}, {1, 2, 3, 4, 5, 6});
  OpParams split;
  split.dim = 1;
  split.ints = {1, 2};
  F64Tensors pieces = cantFail(evaluate(OpKind::Split, {&a}, split));
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[0].data, (std::vector<double>{1, 4}));
  EXPECT_EQ(pieces[1].data, (std::vector<double>{2, 3, 5, 6}));
  OpParams concat;
  concat.dim = 1;
  F64Tensor joined =
      eval(OpKind::Concat, {&pieces[1], &pieces[0]}, concat);
  EXPECT_EQ(joined.data, (std::vector<double>{2, 3, 1, 5, 6, 4}));
}

TEST(EvaluationTest, FingerprintsOfPolynomialOperators) {
  Fingerprinter fp(FingerprintMode::Homomorphic, 7);
  FFTensor a = ff({2, 2}, {1, 2, 3, 4}), b = ff({2, 2}, {5, 6, 7, 8});
  FFTensor product = eval(OpKind::Matmul, {&a, &b}, fp);
  EXPECT_EQ(product.p, (std::vector<uint64_t>{19, 22, 43, 50}));
  EXPECT_EQ(product.q, (std::vector<uint64_t>{19, 22, 43, 50}));
  FFTensor two = ff({1}, {2});
  FFTensor half = eval(OpKind::Div, {&two, &b}, fp);
  EXPECT_EQ(fp.fieldP().mul(half.p[0], 5), 2u);
  EXPECT_EQ(fp.fieldQ().mul(half.q[3], 8), 2u);
  OpParams scale;
  scale.scalar = 0.125;
  EXPECT_EQ(eval(OpKind::MulScalar, {&b}, fp, scale).p[3], 1u);
}

TEST(EvaluationTest, LargeMatmulFingerprintMatchesNaive) {
  // K = 300 exercises the 64-term lazy reductions and their remainder.
  Fingerprinter fp(FingerprintMode::Homomorphic, 1);
  uint64_t state = 9;
  FFTensor a({3, 300}), b({300, 5});
  for (uint64_t &v : a.p)
    v = splitMix64(state) % kFingerprintP;
  for (uint64_t &v : b.p)
    v = splitMix64(state) % kFingerprintP;
  for (uint64_t &v : a.q)
    v = splitMix64(state) % kFingerprintQ;
  for (uint64_t &v : b.q)
    v = splitMix64(state) % kFingerprintQ;
  FFTensor c = eval(OpKind::Matmul, {&a, &b}, fp);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) {
      uint64_t expectP = 0, expectQ = 0;
      for (int k = 0; k < 300; ++k) {
        expectP = fp.fieldP().add(
            expectP, fp.fieldP().mul(a.p[i * 300 + k], b.p[k * 5 + j]));
        expectQ = fp.fieldQ().add(
            expectQ, fp.fieldQ().mul(a.q[i * 300 + k], b.q[k * 5 + j]));
      }
      EXPECT_EQ(c.p[i * 5 + j], expectP);
      EXPECT_EQ(c.q[i * 5 + j], expectQ);
    }
}

TEST(EvaluationTest, HomomorphicExpTurnsSumsIntoProducts) {
  Fingerprinter fp(FingerprintMode::Homomorphic, 11);
  FFTensor x = ff({3}, {5, 9, 14}); // 5 + 9 = 14
  FFTensor e = eval(OpKind::Exp, {&x}, fp);
  EXPECT_FALSE(e.hasQ());
  EXPECT_EQ(fp.fieldP().mul(e.p[0], e.p[1]), e.p[2]);
  // The uninterpreted exp has no such identity.
  Fingerprinter oracle(FingerprintMode::Uninterpreted, 11);
  FFTensor u = eval(OpKind::Exp, {&x}, oracle);
  EXPECT_NE(oracle.fieldP().mul(u.p[0], u.p[1]), u.p[2]);
  // A second exponential on a path has no fingerprint.
  llvm::Expected<FFTensors> twice = evaluate(OpKind::Exp, {&e}, {}, fp);
  ASSERT_FALSE(static_cast<bool>(twice));
  EXPECT_EQ(llvm::toString(twice.takeError()),
            "exp of a value that already passed an exponential (outside the "
            "Lax fragment)");
}

TEST(EvaluationTest, SiluIsXTimesSigmoidInTheField) {
  for (FingerprintMode mode :
       {FingerprintMode::Homomorphic, FingerprintMode::Uninterpreted}) {
    Fingerprinter fp(mode, 13);
    FFTensor x = ff({3}, {0, 7, kFingerprintQ - 1});
    FFTensor silu = eval(OpKind::Silu, {&x}, fp);
    FFTensor sigmoid = eval(OpKind::Sigmoid, {&x}, fp);
    for (int i = 0; i < 3; ++i)
      EXPECT_EQ(silu.p[i], fp.fieldP().mul(x.p[i], sigmoid.p[i]));
    if (mode == FingerprintMode::Homomorphic) // exp(0) = 1: sigmoid(0) = 1/2
      EXPECT_EQ(fp.fieldP().mul(sigmoid.p[0], 2), 1u);
  }
}

TEST(EvaluationTest, RsqrtIsTheReciprocalRootInTheField) {
  Fingerprinter fp(FingerprintMode::Homomorphic, 17);
  // Squares have roots; rsqrt(x)^2 * x = 1.
  FFTensor x = ff({3}, {4, 9, 49});
  FFTensor r = eval(OpKind::Rsqrt, {&x}, fp);
  for (int i = 0; i < 3; ++i) {
    const PrimeField &p = fp.fieldP();
    EXPECT_EQ(p.mul(p.mul(r.p[i], r.p[i]), x.p[i]), 1u);
  }
}

TEST(EvaluationTest, ZeroDivisorsAndNonResiduesAskForNewInputs) {
  Fingerprinter fp(FingerprintMode::Homomorphic, 3);
  FFTensor x = ff({2}, {1, 2}), y = ff({2}, {4, 0});
  llvm::Expected<FFTensors> quotient = evaluate(OpKind::Div, {&x, &y}, {}, fp);
  ASSERT_FALSE(static_cast<bool>(quotient));
  llvm::Error error = quotient.takeError();
  EXPECT_TRUE(error.isA<ResampleError>());
  llvm::consumeError(std::move(error));

  uint64_t nonResidue = 2;
  while (fp.fieldP().isQuadraticResidue(nonResidue))
    ++nonResidue;
  FFTensor bad = ff({1}, {nonResidue});
  llvm::Expected<FFTensors> root = evaluate(OpKind::Sqrt, {&bad}, {}, fp);
  ASSERT_FALSE(static_cast<bool>(root));
  EXPECT_EQ(llvm::toString(root.takeError()),
            "sqrt of a quadratic non-residue");
  // Uninterpreted square roots are defined everywhere.
  Fingerprinter oracle(FingerprintMode::Uninterpreted, 3);
  EXPECT_TRUE(static_cast<bool>(evaluate(OpKind::Sqrt, {&bad}, {}, oracle)));
}

TEST(EvaluationTest, OperatorsOutsideTheFragmentHaveNoFingerprint) {
  Fingerprinter fp(FingerprintMode::Homomorphic, 5);
  FFTensor x = ff({1}, {3});
  for (OpKind kind :
       {OpKind::Relu, OpKind::Gelu, OpKind::Tanh, OpKind::Maximum}) {
    EXPECT_EQ(getOpInfo(kind).fingerprint, FingerprintClass::Outside);
    std::vector<const FFTensor *> operands(getOpInfo(kind).minOperands, &x);
    llvm::Expected<FFTensors> result = evaluate(kind, operands, {}, fp);
    ASSERT_FALSE(static_cast<bool>(result));
    llvm::consumeError(result.takeError());
  }
}

TEST(EvaluationTest, AccumulatorsFoldIterations) {
  OpParams concat;
  concat.dim = 1;
  auto all = cantFail(makeAccumulator(OpKind::AccumConcat, concat, {1, 4}));
  F64Tensor first = f64({1, 2}, {1, 2}), second = f64({1, 2}, {3, 4});
  cantFail(all->fold({&first}, 1)); // iteration order does not matter
  cantFail(all->fold({&second}, 0));
  EXPECT_EQ(all->result().data, (std::vector<double>{3, 4, 1, 2}));

  // sum_it x_it * exp(m_it - M) with M = max m.
  auto rescaled =
      cantFail(makeAccumulator(OpKind::AccumRescaledSum, {}, {1, 2}));
  F64Tensor m0 = f64({1, 1}, {1.0}), m1 = f64({1, 1}, {3.0});
  cantFail(rescaled->fold({&first, &m0}, 0));
  cantFail(rescaled->fold({&second, &m1}, 1));
  F64Tensor sum = rescaled->result();
  EXPECT_NEAR(sum.data[0], 1 * std::exp(1.0 - 3.0) + 3, 1e-12);
  EXPECT_NEAR(sum.data[1], 2 * std::exp(1.0 - 3.0) + 4, 1e-12);

  Fingerprinter fp(FingerprintMode::Homomorphic, 1);
  llvm::Expected<std::unique_ptr<Accumulator<FFTensor>>> max =
      makeAccumulator(OpKind::AccumMax, {}, {1}, fp);
  ASSERT_FALSE(static_cast<bool>(max));
  llvm::consumeError(max.takeError());
}

TEST(EvaluationTest, TileOffsetsFollowTheMaps) {
  // W [4096, 6144]: grid x -> dim 1 over 96 blocks, loop -> dim 0 over 64.
  TilingParams tiling =
      TilingParams::get(TilingParams::Level::Block, {96}, {1}, 64, 0);
  EXPECT_EQ(getInputTileOffsets(tiling, {5}, 7, {4096, 6144}),
            Shape({7 * 64, 5 * 64}));
  // The loop splits the chunk the grid already split.
  TilingParams same =
      TilingParams::get(TilingParams::Level::Block, {4}, {0}, 2, 0);
  EXPECT_EQ(getInputTileOffsets(same, {3}, 1, {64}), Shape({3 * 16 + 8}));
  TilingParams save =
      TilingParams::get(TilingParams::Level::Block, {2, 16}, {0, 1}, 1,
                        kReplica);
  EXPECT_EQ(getOutputTileOffsets(save, {1, 3}, {1, 16, 64}),
            Shape({1, 48, 0}));
}

TEST(EvaluationTest, DegreesBoundTheRationalFunctions) {
  Degree input{1, 0};
  // A K = 64 dot product of inputs: degree 2.
  Degree dot = getDegree(OpKind::Matmul, {input, input}, {{2, 64}, {64, 8}}, {});
  EXPECT_EQ(dot.num, 2u);
  EXPECT_EQ(dot.den, 0u);
  // (x / y) summed over 4 terms: numerator 1 + 3, denominator 4.
  Degree ratio = getDegree(OpKind::Div, {input, input}, {{4}, {4}}, {});
  OpParams reduce;
  reduce.dim = 0;
  Degree sum = getDegree(OpKind::ReduceSum, {ratio}, {{4}}, reduce);
  EXPECT_EQ(sum.num, 4u);
  EXPECT_EQ(sum.den, 4u);
  // exp results are new variables.
  EXPECT_EQ(getDegree(OpKind::Exp, {dot}, {{2, 8}}, {}).num, 1u);
}

} // namespace
