//===- FusionTest.cpp - Fused kernels are equivalent to their programs ----===//
//
// kn-fuse on one program per fusion pattern, small enough for the
// interpreter: the fused function has the expected number of kernels and
// the equivalence verifier proves it (or, outside the Lax fragment, tests
// it in float64) against the original. Both Qwen3-shaped decoders are
// checked end to end the same way: the small one (two layers) and the
// Qwen3-8B-sized layer, in bf16 (in f16 its down projection's sum passes
// 65504 on the verifier's inputs in [-1, 1), fused or not, which the
// verifier reports as numerically unstable); the latter takes about 8 s and
// 3 GB.
//
//===----------------------------------------------------------------------===//

#include "mirage/Dialect/Kernel/Transforms/Passes.h"

#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/InitAllDialects.h"
#include "mirage/InitAllExtensions.h"
#include "mirage/Verify/Equivalence.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mirage;

namespace {

struct Case {
  const char *name;
  /// Kernels of @f after kn-fuse and kn-default-block-graphs.
  int kernels;
  const char *program;
};

class FusionTest : public ::testing::Test {
protected:
  FusionTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllExtensions(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Fuses a copy of `original` and checks @`name` against it; returns the
  /// fused function's kernel count (-1 on failure).
  int fuseAndVerify(ModuleOp original, StringRef name) {
    OwningOpRef<ModuleOp> fused = original.clone();
    PassManager pm(&context);
    pm.addNestedPass<func::FuncOp>(kn::createKnFuse());
    pm.addNestedPass<func::FuncOp>(kn::createKnDefaultBlockGraphs());
    if (failed(pm.run(*fused))) {
      ADD_FAILURE() << "the passes failed";
      return -1;
    }
    auto candidate = fused->lookupSymbol<func::FuncOp>(name);
    auto reference = original.lookupSymbol<func::FuncOp>(name);
    int kernels = 0;
    for (Operation &op : candidate.getBody().front()) {
      kernels += isa<kn::KernelOp>(op);
      // Every op is in a kernel but views: reshapes and concatenations that
      // their readers' kernels resolve.
      EXPECT_TRUE((isa<kn::KernelOp, kn::ReshapeOp, func::ReturnOp>(op) ||
                   op.hasAttr(kn::KernelDialect::getViewAttrName())))
          << op.getName().getStringRef().str();
    }
    auto result =
        checkEquivalence(candidate, reference, EquivalenceOptions());
    if (!result) {
      ADD_FAILURE() << llvm::toString(result.takeError());
      return -1;
    }
    EXPECT_TRUE(result->verdict == Verdict::Proven ||
                result->verdict == Verdict::Tested)
        << describe(*result, name);
    return kernels;
  }

  MLIRContext context;
};

class FusionPatternTest : public FusionTest,
                          public ::testing::WithParamInterface<Case> {};

TEST_P(FusionPatternTest, EquivalentToTheOriginal) {
  OwningOpRef<ModuleOp> original =
      parseSourceString<ModuleOp>(GetParam().program, &context);
  ASSERT_TRUE(original);
  EXPECT_EQ(fuseAndVerify(*original, "f"), GetParam().kernels);
}

INSTANTIATE_TEST_SUITE_P(
    Patterns, FusionPatternTest,
    ::testing::Values(
        Case{"ElementwiseChain", 1,
             R"mlir(func.func @f(%a: tensor<64x256xf32>, %b: tensor<256xf32>, %r: tensor<64x1xf32>) -> tensor<64x256xf32> {
          %e = kn.exp %a : tensor<64x256xf32>
          %s = kn.mul_scalar %e, 0.5 : tensor<64x256xf32>
          %c = kn.add %s, %b : tensor<64x256xf32>, tensor<256xf32>
          %d = kn.mul %c, %r : tensor<64x256xf32>, tensor<64x1xf32>
          %g = kn.gelu %d : tensor<64x256xf32>
          return %g : tensor<64x256xf32>
        })mlir"},
        Case{"SafeSoftmax", 1,
             R"mlir(func.func @f(%x: tensor<4x16x512xf16>) -> tensor<4x16x512xf16> {
          %m = kn.reduce_max %x dim 2 : tensor<4x16x512xf16>
          %d = kn.sub %x, %m : tensor<4x16x512xf16>, tensor<4x16x1xf16>
          %e = kn.exp %d : tensor<4x16x512xf16>
          %s = kn.reduce_sum %e dim 2 : tensor<4x16x512xf16>
          %p = kn.div %e, %s : tensor<4x16x512xf16>, tensor<4x16x1xf16>
          return %p : tensor<4x16x512xf16>
        })mlir"},
        Case{"ResidualNorm", 1,
             R"mlir(func.func @f(%x: tensor<8x1024xf16>, %h: tensor<8x1024xf16>, %w: tensor<1024xf16>) -> (tensor<8x1024xf16>, tensor<8x1024xf16>) {
          %r = kn.add %x, %h : tensor<8x1024xf16>, tensor<8x1024xf16>
          %n = kn.rms_norm %r weight %w {eps = 1.0e-6 : f64} : tensor<8x1024xf16>, tensor<1024xf16>
          return %r, %n : tensor<8x1024xf16>, tensor<8x1024xf16>
        })mlir"},
        Case{"MeanAndVariance", 1,
             R"mlir(func.func @f(%x: tensor<16x768xf32>, %g: tensor<768xf32>, %b: tensor<768xf32>) -> tensor<16x768xf32> {
          %s = kn.reduce_sum %x dim 1 : tensor<16x768xf32>
          %mean = kn.mul_scalar %s, 0.0013020833333333333 : tensor<16x1xf32>
          %c = kn.sub %x, %mean : tensor<16x768xf32>, tensor<16x1xf32>
          %sq = kn.square %c : tensor<16x768xf32>
          %v = kn.reduce_sum %sq dim 1 : tensor<16x768xf32>
          %var = kn.mul_scalar %v, 0.0013020833333333333 : tensor<16x1xf32>
          %ve = kn.add_scalar %var, 1.0e-5 : tensor<16x1xf32>
          %sd = kn.sqrt %ve : tensor<16x1xf32>
          %n = kn.div %c, %sd : tensor<16x768xf32>, tensor<16x1xf32>
          %y = kn.mul %n, %g : tensor<16x768xf32>, tensor<768xf32>
          %z = kn.add %y, %b : tensor<16x768xf32>, tensor<768xf32>
          return %z : tensor<16x768xf32>
        })mlir"},
        Case{"Rope", 1,
             R"mlir(func.func @f(%q: tensor<16x128xf16>, %cos: tensor<1x128xf16>, %sin: tensor<1x128xf16>) -> tensor<16x128xf16> {
          %h1, %h2 = kn.split %q dim 1 sizes [64, 64] : tensor<16x128xf16>
          %n = kn.neg %h2 : tensor<16x64xf16>
          %rot = kn.concat %n, %h1 dim 1 : tensor<16x64xf16>, tensor<16x64xf16>
          %a = kn.mul %q, %cos : tensor<16x128xf16>, tensor<1x128xf16>
          %b = kn.mul %rot, %sin : tensor<16x128xf16>, tensor<1x128xf16>
          %r = kn.add %a, %b : tensor<16x128xf16>, tensor<16x128xf16>
          return %r : tensor<16x128xf16>
        })mlir"},
        Case{"MatmulEpilogue", 1,
             R"mlir(func.func @f(%x: tensor<32x512xf16>, %w: tensor<512x256xf16>) -> tensor<32x256xf16> {
          %y = kn.matmul %x, %w : tensor<32x512xf16>, tensor<512x256xf16>
          %s = kn.mul_scalar %y, 0.125 : tensor<32x256xf16>
          %a = kn.silu %s : tensor<32x256xf16>
          return %a : tensor<32x256xf16>
        })mlir"},
        // Wide enough (4096 columns) to fill the GPU unsplit, so the
        // residual arrives in slices over the k loop (accum_concat).
        Case{"MatmulResidual", 1,
             R"mlir(func.func @f(%x: tensor<1x2048xf16>, %w: tensor<2048x4096xf16>, %h: tensor<1x4096xf16>) -> tensor<1x4096xf16> {
          %y = kn.matmul %x, %w : tensor<1x2048xf16>, tensor<2048x4096xf16>
          %r = kn.add %h, %y : tensor<1x4096xf16>, tensor<1x4096xf16>
          return %r : tensor<1x4096xf16>
        })mlir"},
        Case{"MatmulPrologue", 1,
             R"mlir(func.func @f(%x: tensor<16x1024xf16>, %g: tensor<1024xf16>, %w: tensor<1024x512xf16>) -> tensor<16x512xf16> {
          %s = kn.silu %x : tensor<16x1024xf16>
          %m = kn.mul %s, %g : tensor<16x1024xf16>, tensor<1024xf16>
          %y = kn.matmul %m, %w : tensor<16x1024xf16>, tensor<1024x512xf16>
          return %y : tensor<16x512xf16>
        })mlir"},
        Case{"NormBeforeMatmul", 1,
             R"mlir(func.func @f(%x: tensor<1x1024xf16>, %g: tensor<1024xf16>, %w: tensor<1024x2048xf16>) -> tensor<1x2048xf16> {
          %n = kn.rms_norm %x weight %g {eps = 1.0e-6 : f64} : tensor<1x1024xf16>, tensor<1024xf16>
          %y = kn.matmul %n, %w : tensor<1x1024xf16>, tensor<1024x2048xf16>
          return %y : tensor<1x2048xf16>
        })mlir"},
        Case{"GatedMlp", 1,
             R"mlir(func.func @f(%x: tensor<8x512xf16>, %w1: tensor<512x512xf16>, %w2: tensor<512x512xf16>) -> tensor<8x512xf16> {
          %a = kn.matmul %x, %w1 : tensor<8x512xf16>, tensor<512x512xf16>
          %b = kn.matmul %x, %w2 : tensor<8x512xf16>, tensor<512x512xf16>
          %g = kn.silu %a : tensor<8x512xf16>
          %o = kn.mul %g, %b : tensor<8x512xf16>, tensor<8x512xf16>
          return %o : tensor<8x512xf16>
        })mlir"},
        Case{"GateUpSplitDown", 2,
             R"mlir(func.func @f(%x: tensor<1x256xf16>, %wgu: tensor<256x1536xf16>, %wd: tensor<768x256xf16>, %h: tensor<1x256xf16>) -> tensor<1x256xf16> {
          %gu = kn.matmul %x, %wgu : tensor<1x256xf16>, tensor<256x1536xf16>
          %g, %u = kn.split %gu dim 1 sizes [768, 768] : tensor<1x1536xf16>
          %s = kn.silu %g : tensor<1x768xf16>
          %a = kn.mul %s, %u : tensor<1x768xf16>, tensor<1x768xf16>
          %d = kn.matmul %a, %wd : tensor<1x768xf16>, tensor<768x256xf16>
          %r = kn.add %h, %d : tensor<1x256xf16>, tensor<1x256xf16>
          return %r : tensor<1x256xf16>
        })mlir"},
        Case{"SharedInput", 1,
             R"mlir(func.func @f(%x: tensor<64x512xf32>) -> (tensor<64x512xf32>, tensor<64x512xf32>, tensor<64x1xf32>) {
          %e = kn.exp %x : tensor<64x512xf32>
          %n = kn.neg %x : tensor<64x512xf32>
          %s = kn.reduce_sum %x dim 1 : tensor<64x512xf32>
          return %e, %n, %s : tensor<64x512xf32>, tensor<64x512xf32>, tensor<64x1xf32>
        })mlir"},
        Case{"SoftmaxThenMatmul", 1,
             R"mlir(func.func @f(%s: tensor<2x16x256xf16>, %v: tensor<2x256x64xf16>) -> tensor<2x16x64xf16> {
          %e = kn.exp %s : tensor<2x16x256xf16>
          %l = kn.reduce_sum %e dim 2 : tensor<2x16x256xf16>
          %p = kn.div %e, %l : tensor<2x16x256xf16>, tensor<2x16x1xf16>
          %o = kn.matmul %p, %v : tensor<2x16x256xf16>, tensor<2x256x64xf16>
          return %o : tensor<2x16x64xf16>
        })mlir"},
        Case{"ReshapeBetween", 1,
             R"mlir(func.func @f(%x: tensor<4x256xf16>, %w: tensor<64xf16>) -> tensor<4x256xf16> {
          %e = kn.exp %x : tensor<4x256xf16>
          %h = kn.reshape %e : tensor<4x256xf16> -> tensor<16x64xf16>
          %n = kn.rms_norm %h weight %w {eps = 1.0e-6 : f64} : tensor<16x64xf16>, tensor<64xf16>
          %o = kn.reshape %n : tensor<16x64xf16> -> tensor<4x256xf16>
          %a = kn.add %o, %x : tensor<4x256xf16>, tensor<4x256xf16>
          return %a : tensor<4x256xf16>
        })mlir"},
        // Split-K: a router matmul with 64 output columns becomes partial
        // products over slices of k and their sum, which fuses into the
        // softmax's kernel; a decode projection's sum fuses with its
        // residual add.
        Case{"SplitKRouter", 2,
             R"mlir(func.func @f(%x: tensor<8x4096xf16>, %w: tensor<4096x64xf16>) -> tensor<8x64xf16> {
          %l = kn.matmul %x, %w : tensor<8x4096xf16>, tensor<4096x64xf16>
          %m = kn.reduce_max %l dim 1 : tensor<8x64xf16>
          %d = kn.sub %l, %m : tensor<8x64xf16>, tensor<8x1xf16>
          %e = kn.exp %d : tensor<8x64xf16>
          %s = kn.reduce_sum %e dim 1 : tensor<8x64xf16>
          %p = kn.div %e, %s : tensor<8x64xf16>, tensor<8x1xf16>
          return %p : tensor<8x64xf16>
        })mlir"},
        // The same with nn.Linear's [n, k] weight: k sliced in place, n
        // moved last inside the products' kernel; no copy of the weight.
        Case{"SplitKLinearWeight", 2,
             R"mlir(func.func @f(%x: tensor<1x16384xf16>, %w: tensor<512x16384xf16>) -> tensor<1x512xf16> {
          %t = kn.transpose %w permutation [1, 0] : tensor<512x16384xf16>
          %y = kn.matmul %x, %t : tensor<1x16384xf16>, tensor<16384x512xf16>
          %r = kn.silu %y : tensor<1x512xf16>
          return %r : tensor<1x512xf16>
        })mlir"},
        Case{"SplitKResidual", 2,
             R"mlir(func.func @f(%x: tensor<1x8192xf16>, %w: tensor<8192x256xf16>, %h: tensor<1x256xf16>) -> tensor<1x256xf16> {
          %y = kn.matmul %x, %w : tensor<1x8192xf16>, tensor<8192x256xf16>
          %r = kn.add %h, %y : tensor<1x256xf16>, tensor<1x256xf16>
          return %r : tensor<1x256xf16>
        })mlir"},
        // Projections of one x side by side: one kernel computing the same
        // columns of each (their N dims cut together).
        Case{"SiblingProjections", 1,
             R"mlir(func.func @f(%x: tensor<16x1024xf16>, %wq: tensor<1024x1024xf16>, %wk: tensor<1024x1024xf16>, %wv: tensor<1024x1024xf16>) -> (tensor<16x1024xf16>, tensor<16x1024xf16>, tensor<16x1024xf16>) {
          %q = kn.matmul %x, %wq : tensor<16x1024xf16>, tensor<1024x1024xf16>
          %k = kn.matmul %x, %wk : tensor<16x1024xf16>, tensor<1024x1024xf16>
          %v = kn.matmul %x, %wv : tensor<16x1024xf16>, tensor<1024x1024xf16>
          return %q, %k, %v : tensor<16x1024xf16>, tensor<16x1024xf16>, tensor<16x1024xf16>
        })mlir"},
        // What must not fuse: a reduction over rows too long for shared
        // memory keeps its consumer, which needs the rows again after the
        // sums, in a kernel of its own.
        Case{"RowTooLong", 2,
             R"mlir(func.func @f(%x: tensor<2x131072xf32>) -> tensor<2x131072xf32> {
          %s = kn.reduce_sum %x dim 1 : tensor<2x131072xf32>
          %y = kn.div %x, %s : tensor<2x131072xf32>, tensor<2x1xf32>
          return %y : tensor<2x131072xf32>
        })mlir"}),
    [](const ::testing::TestParamInfo<Case> &info) {
      return std::string(info.param.name);
    });

/// The Qwen3-shaped decoders, end to end: fused and verified.
TEST_F(FusionTest, SmallDecoderIsFusedAndEquivalent) {
  auto buffer = llvm::MemoryBuffer::getFile(MIRAGE_EXAMPLES_DIR
                                            "/decoder_small.mlir");
  ASSERT_TRUE(static_cast<bool>(buffer));
  OwningOpRef<ModuleOp> original =
      parseSourceString<ModuleOp>((*buffer)->getBuffer(), &context);
  ASSERT_TRUE(original);
  // 74 operators in two layers: 8 kernels.
  EXPECT_EQ(fuseAndVerify(*original, "decoder_small"), 8);
}

TEST_F(FusionTest, Qwen3LayerIsFusedAndEquivalent) {
  auto buffer = llvm::MemoryBuffer::getFile(MIRAGE_EXAMPLES_DIR
                                            "/qwen3_decode.mlir");
  ASSERT_TRUE(static_cast<bool>(buffer));
  std::string text = (*buffer)->getBuffer().str();
  for (size_t at = text.find("xf16"); at != std::string::npos;
       at = text.find("xf16", at))
    text.replace(at, 4, "xbf16");
  OwningOpRef<ModuleOp> original = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(original);
  // 37 operators: 9 kernels (issue 19 asks for at most 12); the KV-cache
  // appends are views the attention kernels read in place. The RMSNorms
  // stay out of the projections: with them a block would have to walk all
  // 4096 of k at once, which the speed model (and the GPU) rank below a
  // norm kernel and a pipelined matmul.
  EXPECT_EQ(fuseAndVerify(*original, "qwen3_decode"), 9);
}

} // namespace
