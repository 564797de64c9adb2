//===- InterpreterTest.cpp - The interpreter on hand-computed programs ----===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Interpreter/Interpreter.h"

#include "mirage/InitAllDialects.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mirage;

namespace {

class InterpreterTest : public ::testing::Test {
protected:
  InterpreterTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    registry.insert<arith::ArithDialect>(); // for an op it cannot run
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Compiles function @f of `source`.
  Program compile(const char *source) {
    module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module);
    return cantFail(Program::compile(module->lookupSymbol<func::FuncOp>("f")));
  }

  static F64Tensor tensor(llvm::ArrayRef<int64_t> shape,
                          std::vector<double> data) {
    F64Tensor t(shape);
    t.data = std::move(data);
    return t;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(InterpreterTest, KernelGraphOps) {
  Program program = compile(R"mlir(
    func.func @f(%x: tensor<2x2xf32>, %w: tensor<2x2xf32>, %b: tensor<2xf32>) -> tensor<2x2xf32> {
      %m = kn.matmul %x, %w : tensor<2x2xf32>, tensor<2x2xf32>
      %y = kn.add %m, %b : tensor<2x2xf32>, tensor<2xf32>
      return %y : tensor<2x2xf32>
    })mlir");
  auto out = cantFail(program.run(
      {tensor({2, 2}, {1, 2, 3, 4}), tensor({2, 2}, {5, 6, 7, 8}),
       tensor({2}, {100, 200})}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].data, (std::vector<double>{119, 222, 143, 250}));
}

TEST_F(InterpreterTest, StepCallbackHearsOfEachTopLevelOpOnce) {
  // The kernel's block graph has ops of its own; only the function's two
  // ops are reported, in order, before they run.
  Program program = compile(R"mlir(
    func.func @f(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
      %e = kn.exp %x : tensor<2x2xf32>
      %s = kn.kernel(%e) {
        tb.graph grid [2] threads 32 forloop 1 {
        ^bb0(%ed: tensor<2x2xf32>):
          %t = tb.input_iterator %ed imap <x -> 0> fmap <i -> 1> : tensor<2x2xf32> -> !tb.tile<1x2xf32>
          %n = tb.neg %t : !tb.tile<1x2xf32>
          %o = tb.output_saver %n omap <x -> 0> : !tb.tile<1x2xf32> -> tensor<2x2xf32>
          tb.yield %o : tensor<2x2xf32>
        }
      } : (tensor<2x2xf32>) -> tensor<2x2xf32>
      return %s : tensor<2x2xf32>
    })mlir");
  std::vector<std::string> heard;
  StepCallback onStep = [&](size_t index, size_t count, Operation *op) {
    heard.push_back(std::to_string(index) + "/" + std::to_string(count) + " " +
                    op->getName().getStringRef().str());
  };
  auto out = cantFail(program.run({tensor({2, 2}, {0, 0, 0, 0})},
                                  /*monitor=*/nullptr, &onStep));
  EXPECT_EQ(out[0].data, (std::vector<double>{-1, -1, -1, -1}));
  EXPECT_EQ(heard, (std::vector<std::string>{"0/2 kn.exp", "1/2 kn.kernel"}));
}

// Row sums of a 4x4 matrix: 2 blocks of 2 rows, 2 iterations of 2 columns.
const char *kRowSum = R"mlir(
  func.func @f(%x: tensor<4x4xf32>) -> tensor<4x1xf32> {
    %s = kn.kernel(%x) {
      tb.graph grid [2] threads 32 forloop 2 {
      ^bb0(%xd: tensor<4x4xf32>):
        %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> 1> : tensor<4x4xf32> -> !tb.tile<2x2xf32>
        %r = tb.reduce_sum %t dim 1 : !tb.tile<2x2xf32>
        %acc = tb.accum_sum %r : !tb.tile<2x1xf32>
        %o = tb.output_saver %acc omap <x -> 0> : !tb.tile<2x1xf32> -> tensor<4x1xf32>
        tb.yield %o : tensor<4x1xf32>
      }
    } : (tensor<4x4xf32>) -> tensor<4x1xf32>
    return %s : tensor<4x1xf32>
  })mlir";

TEST_F(InterpreterTest, BlockGraphIteratesAndAccumulates) {
  Program program = compile(kRowSum);
  F64Tensor x = tensor({4, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
                                14, 15, 16});
  auto out = cantFail(program.run({x}));
  EXPECT_EQ(out[0].shape, Shape({4, 1}));
  EXPECT_EQ(out[0].data, (std::vector<double>{10, 26, 42, 58}));

  // The same program as fingerprints: residues of the same small integers.
  FFTensor residues(Shape{4, 4});
  for (int i = 0; i < 16; ++i)
    residues.p[i] = residues.q[i] = i + 1;
  Fingerprinter fingerprinter(FingerprintMode::Homomorphic, 1);
  auto prints = cantFail(program.run({residues}, fingerprinter));
  EXPECT_EQ(prints[0].p, (std::vector<uint64_t>{10, 26, 42, 58}));
  EXPECT_EQ(prints[0].q, (std::vector<uint64_t>{10, 26, 42, 58}));
}

TEST_F(InterpreterTest, BoundedRunKeepsTheValuesAndBoundsTheirErrors) {
  Program program = compile(kRowSum);
  F64Tensor x = tensor({4, 4}, {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9,
                                1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6});
  auto plain = cantFail(program.run({x}));
  auto bounded = cantFail(program.run({BoundedTensor(x)}));
  EXPECT_EQ(bounded[0].value.data, plain[0].data);
  for (int64_t row = 0; row < 4; ++row) {
    long double exact = 0;
    for (int64_t col = 0; col < 4; ++col)
      exact += static_cast<long double>(x.data[row * 4 + col]);
    double error = bounded[0].error.data[row];
    // Four additions at most: a few units of roundoff, never zero here.
    EXPECT_GT(error, 0.0);
    EXPECT_LE(error, 8 * kUnitRoundoff * 6.0);
    EXPECT_LE(std::fabs(static_cast<double>(plain[0].data[row] - exact)),
              error);
  }
}

TEST_F(InterpreterTest, ProgramsTooLargeAreRefusedBeforeAllocating) {
  module = parseSourceString<ModuleOp>(R"mlir(
    func.func @f(%x: tensor<16x4294967296xf16>) -> tensor<16x4294967296xf16> {
      return %x : tensor<16x4294967296xf16>
    }
    func.func @g(%x: tensor<4294967296x4294967296x16xf16>) -> tensor<4294967296x4294967296x16xf16> {
      return %x : tensor<4294967296x4294967296x16xf16>
    })mlir",
                                      &context);
  ASSERT_TRUE(module);
  auto large = Program::compile(module->lookupSymbol<func::FuncOp>("f"));
  ASSERT_FALSE(bool(large));
  EXPECT_EQ(llvm::toString(large.takeError()),
            "the program is too large to evaluate: its tensors hold "
            "68719476736 elements (the largest, argument #0 of type "
            "tensor<16x4294967296xf16>, 68719476736), more than the limit of "
            "536870912; raise it with the option max-elements");
  // The limit is the caller's.
  EXPECT_TRUE(bool(Program::compile(module->lookupSymbol<func::FuncOp>("f"),
                                    int64_t(1) << 40)));
  // Dims whose product wraps past 2^64 never become a small tensor.
  auto wrapped = Program::compile(module->lookupSymbol<func::FuncOp>("g"));
  ASSERT_FALSE(bool(wrapped));
  EXPECT_NE(llvm::toString(wrapped.takeError())
                .find("whose element count is not positive or exceeds 2^63 - 1"),
            std::string::npos);
}

TEST_F(InterpreterTest, ConcatAccumulatorAndThreadGraph) {
  // Each block holds one row; the loop concatenates its two halves after
  // doubling them in a thread graph, one element per thread.
  Program program = compile(R"mlir(
    func.func @f(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
      %y = kn.kernel(%x) {
        tb.graph grid [2] threads 32 forloop 2 {
        ^bb0(%xd: tensor<2x4xf32>):
          %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> 1> : tensor<2x4xf32> -> !tb.tile<1x2xf32>
          %d = th.graph(%t) threads [2] forloop 1 {
          ^bb0(%tt: !tb.tile<1x2xf32>):
            %f = th.input_iterator %tt imap <x -> 1> fmap <i -> replica> : !tb.tile<1x2xf32> -> !th.frag<1x1xf32>
            %g = th.mul_scalar %f, 2.0 : !th.frag<1x1xf32>
            %h = th.output_saver %g omap <x -> 1> : !th.frag<1x1xf32> -> !tb.tile<1x2xf32>
            th.yield %h : !tb.tile<1x2xf32>
          } : (!tb.tile<1x2xf32>) -> !tb.tile<1x2xf32>
          %all = tb.accum_concat %d dim 1 : !tb.tile<1x2xf32> -> !tb.tile<1x4xf32>
          %o = tb.output_saver %all omap <x -> 0> : !tb.tile<1x4xf32> -> tensor<2x4xf32>
          tb.yield %o : tensor<2x4xf32>
        }
      } : (tensor<2x4xf32>) -> tensor<2x4xf32>
      return %y : tensor<2x4xf32>
    })mlir");
  auto out =
      cantFail(program.run({tensor({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})}));
  EXPECT_EQ(out[0].data, (std::vector<double>{2, 4, 6, 8, 10, 12, 14, 16}));
}

TEST_F(InterpreterTest, PostLoopOpsRunOnceAfterTheLoop) {
  // mean of each row: sum in the loop, scale after it.
  Program program = compile(R"mlir(
    func.func @f(%x: tensor<2x4xf32>) -> tensor<2x1xf32> {
      %y = kn.kernel(%x) {
        tb.graph grid [1] threads 32 forloop 4 {
        ^bb0(%xd: tensor<2x4xf32>):
          %t = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<2x4xf32> -> !tb.tile<2x1xf32>
          %acc = tb.accum_sum %t : !tb.tile<2x1xf32>
          %mean = tb.mul_scalar %acc, 0.25 : !tb.tile<2x1xf32>
          %o = tb.output_saver %mean omap <x -> 0> : !tb.tile<2x1xf32> -> tensor<2x1xf32>
          tb.yield %o : tensor<2x1xf32>
        }
      } : (tensor<2x4xf32>) -> tensor<2x1xf32>
      return %y : tensor<2x1xf32>
    })mlir");
  auto out =
      cantFail(program.run({tensor({2, 4}, {1, 2, 3, 4, 10, 20, 30, 40})}));
  EXPECT_EQ(out[0].data, (std::vector<double>{2.5, 25}));
}

TEST_F(InterpreterTest, ZeroDivisorsSurfaceAsResampleErrors) {
  Program program = compile(R"mlir(
    func.func @f(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
      %q = kn.div %x, %y : tensor<2xf32>, tensor<2xf32>
      return %q : tensor<2xf32>
    })mlir");
  FFTensor x(Shape{2}), y(Shape{2});
  x.p = x.q = {1, 2};
  y.p = y.q = {3, 0};
  Fingerprinter fingerprinter(FingerprintMode::Uninterpreted, 1);
  auto result = program.run({x, y}, fingerprinter);
  ASSERT_FALSE(static_cast<bool>(result));
  llvm::Error error = result.takeError();
  EXPECT_TRUE(error.isA<ResampleError>());
  llvm::consumeError(std::move(error));
}

TEST_F(InterpreterTest, StabilityMonitorSeesElementTypeOverflow) {
  Program program = compile(R"mlir(
    func.func @f(%x: tensor<2xf16>) -> tensor<2xf16> {
      %y = kn.mul_scalar %x, 1000.0 : tensor<2xf16>
      return %y : tensor<2xf16>
    })mlir");
  StabilityMonitor small, large;
  cantFail(program.run({tensor({2}, {1, 2})}, &small));
  EXPECT_TRUE(small.isStable());
  cantFail(program.run({tensor({2}, {1, 70})}, &large));
  EXPECT_FALSE(large.isStable());
  EXPECT_NE(large.describe().find("produces 7.000000e+04, beyond the largest "
                                  "value 6.550400e+04"),
            std::string::npos)
      << large.describe();
}

TEST_F(InterpreterTest, UnsupportedOpsAreReportedAtCompileTime) {
  module = parseSourceString<ModuleOp>(R"mlir(
    func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
      %c = arith.constant dense<1.0> : tensor<2xf32>
      %y = kn.add %x, %c : tensor<2xf32>, tensor<2xf32>
      return %y : tensor<2xf32>
    })mlir",
                                       &context);
  ASSERT_TRUE(module);
  auto program = Program::compile(module->lookupSymbol<func::FuncOp>("f"));
  ASSERT_FALSE(static_cast<bool>(program));
  EXPECT_EQ(llvm::toString(program.takeError()),
            "the interpreter cannot run 'arith.constant'");
}

} // namespace
