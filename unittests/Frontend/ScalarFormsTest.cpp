//===- ScalarFormsTest.cpp - The operators' scalar forms ------------------===//
//
// The scalar forms in the operator records are what convert-linalg-to-kn and
// convert-tosa-to-kn recognize operators by, so each must compute what its
// operator computes: every form is evaluated against the record's float64
// evaluation on random inputs. Then the expression normalization and the
// matching the conversions rely on.
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/Frontend/FrontendConversion.h"

#include "mirage/Semantics/Evaluation.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace mirage;
using namespace mirage::frontend;
using llvm::SmallVector;

namespace {

std::vector<OpKind> allComputeKinds() {
  std::vector<OpKind> kinds;
  for (unsigned i = 0;; ++i) {
    auto kind = static_cast<OpKind>(i);
    kinds.push_back(kind);
    if (kind == OpKind::AccumRescaledSum)
      break;
  }
  return kinds;
}

TEST(ScalarForms, EveryElementwiseOperatorHasOne) {
  for (OpKind kind : allComputeKinds()) {
    const OpInfo &info = getOpInfo(kind);
    if (info.elementwise)
      EXPECT_FALSE(info.formula.empty())
          << info.name.str() << " is elementwise but has no scalar form, so "
          << "the linalg and tosa conversions cannot produce it";
  }
}

TEST(ScalarForms, AllParse) {
  for (OpKind kind : allComputeKinds()) {
    const OpInfo &info = getOpInfo(kind);
    if (info.formula.empty())
      continue;
    std::string error;
    EXPECT_TRUE(parseScalarForm(info.formula, error).has_value())
        << info.name.str() << ": " << error;
  }
  std::string error;
  EXPECT_FALSE(parseScalarForm("(frobnicate x0)", error));
  EXPECT_EQ(error, "unknown primitive 'frobnicate'");
  EXPECT_FALSE(parseScalarForm("(add x0", error));
  EXPECT_FALSE(parseScalarForm("(exp x0 x1)", error));
}

// Each form computes its operator: compared with the record's float64
// evaluation at random points (and at the scalar parameter's value).
TEST(ScalarForms, ComputeTheirOperators) {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> value(-3.0, 3.0);
  std::uniform_real_distribution<double> positive(0.1, 3.0);
  unsigned checked = 0;
  for (const auto &[kind, form] : getElementwiseForms()) {
    const OpInfo &info = getOpInfo(kind);
    for (int trial = 0; trial < 64; ++trial) {
      // pow and the roots are compared where they are real.
      bool needsPositive =
          kind == OpKind::Pow || kind == OpKind::Sqrt || kind == OpKind::Rsqrt;
      double x0 = needsPositive ? positive(random) : value(random);
      double x1 = value(random);
      OpParams params;
      params.scalar = value(random);
      F64Tensor a({1}, x0), b({1}, x1);
      SmallVector<const F64Tensor *, 2> operands = {&a};
      if (info.minOperands == 2)
        operands.push_back(&b);
      auto expected = evaluate(kind, operands, params);
      ASSERT_TRUE(static_cast<bool>(expected)) << info.name.str();
      double want = (*expected)[0].data[0];
      double got = evaluateScalarForm(form, {x0, x1}, params.scalar);
      EXPECT_NEAR(got, want, 1e-12 * std::max(1.0, std::fabs(want)))
          << info.name.str() << " at x0=" << x0 << " x1=" << x1
          << " s=" << params.scalar;
    }
    ++checked;
  }
  EXPECT_GE(checked, 15u);
}

TEST(ScalarForms, ReductionsAndContraction) {
  EXPECT_EQ(getReductionOperator(ExprKind::ReduceAdd), OpKind::ReduceSum);
  EXPECT_EQ(getReductionOperator(ExprKind::ReduceMax), OpKind::ReduceMax);
  auto contraction = getContractionOperator();
  ASSERT_TRUE(contraction.has_value());
  EXPECT_EQ(contraction->first, OpKind::Matmul);
  EXPECT_EQ(contraction->second->kind, ExprKind::Mul);
}

class ExprGraphTest : public ::testing::Test {
protected:
  ExprGraphTest() {
    context.loadDialect<mlir::func::FuncDialect>();
    mlir::OpBuilder builder(&context);
    auto type = mlir::RankedTensorType::get({4, 8}, builder.getF32Type());
    auto function = mlir::func::FuncOp::create(
        builder.getUnknownLoc(), "f", builder.getFunctionType({type, type}, {}));
    module = mlir::ModuleOp::create(builder.getUnknownLoc());
    module->push_back(function);
    mlir::Block *entry = function.addEntryBlock();
    x = graph.identityLeaf(entry->getArgument(0));
    y = graph.identityLeaf(entry->getArgument(1));
    f32 = builder.getF32Type();
  }

  /// Whether the form of `kind` matches `expr`.
  bool matches(OpKind kind, ExprId expr, Binding *binding = nullptr) {
    for (const auto &[formKind, form] : getElementwiseForms())
      if (formKind == kind) {
        bool found = false;
        matchPattern(graph, form, expr, f32, [&](const Binding &b) {
          if (!found && binding)
            *binding = b;
          found = true;
        });
        return found;
      }
    return false;
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  ExprGraph graph;
  ExprId x, y;
  mlir::Type f32;
};

TEST_F(ExprGraphTest, Normalizes) {
  // Hash-consed and order-free.
  EXPECT_EQ(graph.add({x, y}, nullptr), graph.add({y, x}, nullptr));
  EXPECT_EQ(graph.mul({x, graph.mul({y, x}, nullptr)}, nullptr),
            graph.mul({graph.mul({x, x}, nullptr), y}, nullptr));
  // a - b and a / b.
  EXPECT_EQ(graph.sub(x, y, nullptr),
            graph.add({x, graph.neg(y, nullptr)}, nullptr));
  EXPECT_EQ(graph.div(x, y, nullptr),
            graph.mul({x, graph.recip(y, nullptr)}, nullptr));
  // Constants fold; identities vanish; -1 * x is -x.
  EXPECT_EQ(graph.add({x, graph.constant(0.0)}, nullptr), x);
  EXPECT_EQ(graph.mul({graph.constant(2.0), graph.constant(0.25), x},
                      nullptr),
            graph.mul({x, graph.constant(0.5)}, nullptr));
  EXPECT_EQ(graph.mul({x, graph.constant(-1.0)}, nullptr),
            graph.neg(x, nullptr));
  EXPECT_EQ(graph.div(x, graph.constant(4.0), nullptr),
            graph.mul({x, graph.constant(0.25)}, nullptr));
  EXPECT_EQ(graph.neg(graph.neg(x, nullptr), nullptr), x);
  EXPECT_EQ(graph.recip(graph.recip(x, nullptr), nullptr), x);
  // pow by 2 and 0.5.
  EXPECT_EQ(graph.pow(x, graph.constant(2.0), nullptr),
            graph.mul({x, x}, nullptr));
  EXPECT_EQ(graph.pow(x, graph.constant(0.5), nullptr),
            graph.sqrt(x, nullptr));
  EXPECT_EQ(graph.rsqrt(x, nullptr),
            graph.recip(graph.sqrt(x, nullptr), nullptr));
}

TEST_F(ExprGraphTest, MatchesForms) {
  auto sigmoidOf = [&](ExprId v) {
    return graph.recip(
        graph.add({graph.constant(1.0),
                   graph.exp(graph.neg(v, nullptr), nullptr)},
                  nullptr),
        nullptr);
  };
  Binding binding;
  EXPECT_TRUE(matches(OpKind::Sigmoid, sigmoidOf(x), &binding));
  EXPECT_EQ(binding.operands[0], x);
  // silu is x * sigmoid(x), not x * sigmoid(y).
  EXPECT_TRUE(matches(OpKind::Silu, graph.mul({x, sigmoidOf(x)}, nullptr)));
  EXPECT_FALSE(matches(OpKind::Silu, graph.mul({x, sigmoidOf(y)}, nullptr)));
  // sub is a + (-b), in either order of the sum.
  EXPECT_TRUE(matches(OpKind::Sub, graph.sub(y, x, nullptr), &binding));
  EXPECT_EQ(binding.operands[0], y);
  EXPECT_EQ(binding.operands[1], x);
  // mul_scalar binds the constant; a tensor never binds it.
  EXPECT_TRUE(matches(OpKind::MulScalar,
                      graph.mul({x, graph.constant(3.0)}, nullptr), &binding));
  EXPECT_EQ(binding.scalar, 3.0);
  EXPECT_FALSE(matches(OpKind::MulScalar, graph.mul({x, y}, nullptr)));
  // relu is max(x, 0) only.
  EXPECT_TRUE(matches(OpKind::Relu, graph.max(x, graph.constant(0.0),
                                              nullptr)));
  EXPECT_FALSE(matches(OpKind::Relu, graph.max(x, graph.constant(1.0),
                                               nullptr)));
  // The GELU constant matches within the element type's precision only.
  auto gelu = [&](double c) {
    return graph.mul(
        {graph.constant(0.5), x,
         graph.add({graph.constant(1.0),
                    graph.erf(graph.mul({x, graph.constant(c)}, nullptr),
                              nullptr)},
                   nullptr)},
        nullptr);
  };
  EXPECT_TRUE(matches(OpKind::Gelu, gelu(0.70710677f)));
  EXPECT_FALSE(matches(OpKind::Gelu, gelu(0.7071)));
}

TEST_F(ExprGraphTest, Remaps) {
  // A leaf read through dims (1, 0) and back.
  ExprId swapped = graph.remap(x, {1, 0});
  EXPECT_NE(swapped, x);
  EXPECT_EQ(graph.getLeaf(swapped).dims, (SmallVector<int64_t, 4>{1, 0}));
  EXPECT_EQ(graph.remap(swapped, {1, 0}), x);
  EXPECT_EQ(graph.support(graph.remap(x, {-1, 1})),
            (SmallVector<int64_t, 4>{1}));
}

} // namespace
