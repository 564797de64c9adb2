//===- KernelToTileTest.cpp - Kernel graphs as tile programs --------------===//
//
// Each program is converted to a tile program, which the tile evaluator runs
// next to the project's interpreter on the kn function, on the same random
// inputs, at several tile sizes.
//
//===----------------------------------------------------------------------===//

#include "mirage/TileEqsat/KernelToTile.h"

#include "mirage/InitAllDialects.h"
#include "mirage/InitAllExtensions.h"
#include "mirage/Interpreter/Interpreter.h"
#include "mirage/TileEqsat/Evaluator.h"
#include "mirage/TileEqsat/Extraction.h"
#include "mirage/TileEqsat/Saturation.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::tile;

namespace {

class KernelToTileTest : public ::testing::Test {
protected:
  KernelToTileTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllExtensions(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  func::FuncOp parse(const char *source) {
    module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module);
    return module->lookupSymbol<func::FuncOp>("f");
  }

  /// Converts @f and checks the tile program against the interpreter.
  TileProgram check(const char *source, int64_t threshold) {
    func::FuncOp function = parse(source);
    KernelToTileOptions options;
    options.fullThreshold = threshold;
    auto program = convertToTileProgram(function, options);
    if (!program) {
      ADD_FAILURE() << llvm::toString(program.takeError());
      return TileProgram();
    }
    Program reference = cantFail(Program::compile(function));
    TensorStore inputs = randomInputs(*program->context, 17);
    std::vector<F64Tensor> args;
    for (const std::string &name : program->inputs)
      args.push_back(inputs[name]);
    std::vector<F64Tensor> expected = cantFail(reference.run(args));
    for (int64_t tile : {1, 2, 4, 8}) {
      TileSizes sizes;
      sizes.defaultSize = tile;
      TensorStore store = inputs;
      if (llvm::Error e =
              evaluateProgram(*program->context, program->term, store, sizes)) {
        ADD_FAILURE() << llvm::toString(std::move(e)) << "\n"
                      << program->context->toString(program->term, true);
        break;
      }
      for (auto [name, want] : llvm::zip(program->outputs, expected)) {
        const F64Tensor &got = store[name];
        EXPECT_EQ(got.shape, want.shape) << name;
        if (got.shape != want.shape)
          continue;
        double worst = 0;
        for (auto [a, b] : llvm::zip(got.data, want.data))
          worst = std::max(worst, std::fabs(a - b) / std::max(1.0, std::fabs(b)));
        EXPECT_LE(worst, 1e-9)
            << name << " at tile size " << tile << "\n"
            << program->context->toString(program->term, true);
      }
    }
    return std::move(*program);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

// Trinity's vanilla attention block, scaled down: QKV projection, head
// reshape, KV-cache append, attention, heads merged back.
const char *kVanilla = R"mlir(
func.func @f(%x: tensor<2x32xf32>, %wq: tensor<32x32xf32>, %wk: tensor<32x32xf32>,
             %wv: tensor<32x32xf32>, %kc: tensor<4x30x8xf32>, %vc: tensor<4x30x8xf32>)
    -> (tensor<2x32xf32>, tensor<4x32x8xf32>, tensor<4x32x8xf32>) {
  %q1 = kn.matmul %x, %wq : tensor<2x32xf32>, tensor<32x32xf32>
  %k1 = kn.matmul %x, %wk : tensor<2x32xf32>, tensor<32x32xf32>
  %v1 = kn.matmul %x, %wv : tensor<2x32xf32>, tensor<32x32xf32>
  %qr = kn.reshape %q1 : tensor<2x32xf32> -> tensor<2x4x8xf32>
  %kr = kn.reshape %k1 : tensor<2x32xf32> -> tensor<2x4x8xf32>
  %vr = kn.reshape %v1 : tensor<2x32xf32> -> tensor<2x4x8xf32>
  %q = kn.transpose %qr permutation [1, 0, 2] : tensor<2x4x8xf32>
  %k = kn.transpose %kr permutation [1, 0, 2] : tensor<2x4x8xf32>
  %v = kn.transpose %vr permutation [1, 0, 2] : tensor<2x4x8xf32>
  %kall = kn.concat %kc, %k dim 1 : tensor<4x30x8xf32>, tensor<4x2x8xf32>
  %vall = kn.concat %vc, %v dim 1 : tensor<4x30x8xf32>, tensor<4x2x8xf32>
  %kt = kn.transpose %kall permutation [0, 2, 1] : tensor<4x32x8xf32>
  %s = kn.matmul %q, %kt : tensor<4x2x8xf32>, tensor<4x8x32xf32>
  %e = kn.exp %s : tensor<4x2x32xf32>
  %l = kn.reduce_sum %e dim 2 : tensor<4x2x32xf32>
  %p = kn.div %e, %l : tensor<4x2x32xf32>, tensor<4x2x1xf32>
  %o = kn.matmul %p, %vall : tensor<4x2x32xf32>, tensor<4x32x8xf32>
  %ot = kn.transpose %o permutation [1, 0, 2] : tensor<4x2x8xf32>
  %out = kn.reshape %ot : tensor<2x4x8xf32> -> tensor<2x32xf32>
  return %out, %kall, %vall : tensor<2x32xf32>, tensor<4x32x8xf32>, tensor<4x32x8xf32>
}
)mlir";

TEST_F(KernelToTileTest, VanillaAttention) {
  TileProgram program = check(kVanilla, 8);
  ASSERT_TRUE(program.context);
  // The hidden axis of the projections, of the head reshapes and of the
  // output is one loop variable; the heads are iterated by element; the
  // tokens and the head dim are whole. The three projections are one loop
  // nest, a reshape and its transpose one statement (Trinity's initial IR).
  std::string text = program.context->toString(program.term);
  EXPECT_NE(text.find("(loop:c 0 32 8 (seq (store (variable:v6_transpose) "
                      "(permute (unsqueeze:1 (load (variable:v0_matmul) "
                      "(index fulltile tile:c))) 1 0 2) (index elem:c "
                      "fulltile fulltile))"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("(loop:c 0 32 8 (store (output:out0) (squeeze:1 "
                      "(permute (load (variable:v16_matmul) (index elem:c "
                      "fulltile fulltile)) 1 0 2)) (index fulltile tile:c)))"),
            std::string::npos)
      << text;
  EXPECT_EQ(getSequence(*program.context, program.term, program.term.getRoot())
                .size(),
            9u);
  ASSERT_EQ(program.vars.size(), 4u);
}

TEST_F(KernelToTileTest, PreNormAndSwiGLU) {
  check(R"mlir(
func.func @f(%x: tensor<2x32xf32>, %g: tensor<32xf32>, %w1: tensor<32x48xf32>,
             %w3: tensor<32x48xf32>, %w2: tensor<48x32xf32>) -> tensor<2x32xf32> {
  %n = kn.rms_norm %x weight %g {eps = 1.0e-6 : f64} : tensor<2x32xf32>, tensor<32xf32>
  %a = kn.matmul %n, %w1 : tensor<2x32xf32>, tensor<32x48xf32>
  %b = kn.matmul %n, %w3 : tensor<2x32xf32>, tensor<32x48xf32>
  %s = kn.silu %a : tensor<2x48xf32>
  %m = kn.mul %s, %b : tensor<2x48xf32>, tensor<2x48xf32>
  %o = kn.matmul %m, %w2 : tensor<2x48xf32>, tensor<48x32xf32>
  return %o : tensor<2x32xf32>
}
)mlir",
        8);
}

TEST_F(KernelToTileTest, QKNormScalarsAndSplit) {
  check(R"mlir(
func.func @f(%q: tensor<4x2x16xf32>, %w: tensor<16xf32>) -> (tensor<4x2x8xf32>, tensor<4x2x1xf32>) {
  %n = kn.rms_norm %q weight %w {eps = 1.0e-5 : f64} : tensor<4x2x16xf32>, tensor<16xf32>
  %a, %b = kn.split %n dim 2 sizes [8, 8] : tensor<4x2x16xf32>
  %c = kn.neg %b : tensor<4x2x8xf32>
  %d = kn.mul_scalar %a, 0.5 : tensor<4x2x8xf32>
  %e = kn.add %c, %d : tensor<4x2x8xf32>, tensor<4x2x8xf32>
  %f = kn.square %e : tensor<4x2x8xf32>
  %g = kn.reduce_sum %f dim 2 : tensor<4x2x8xf32>
  return %e, %g : tensor<4x2x8xf32>, tensor<4x2x1xf32>
}
)mlir",
        4);
}

TEST_F(KernelToTileTest, Unsupported) {
  func::FuncOp function = parse(R"mlir(
func.func @f(%x: tensor<2x32xf32>) -> tensor<2x32xf32> {
  %r = kn.relu %x : tensor<2x32xf32>
  return %r : tensor<2x32xf32>
}
)mlir");
  auto program = convertToTileProgram(function);
  ASSERT_FALSE(bool(program));
  EXPECT_NE(llvm::toString(program.takeError()).find("('relu') has no tile-IR form"),
            std::string::npos);
}

} // namespace

namespace {
// Saturation and two-pass extraction on the scaled Vanilla block find
// Trinity's fully fused kernel (Fig. 10): one kernel, one block per head,
// the projection's k loop and the attention's p loop inside it; every
// candidate extracted computes what the program computes.
TEST_F(KernelToTileTest, VanillaFullyFused) {
  func::FuncOp function = parse(kVanilla);
  KernelToTileOptions options;
  options.fullThreshold = 8;
  TileProgram program = cantFail(convertToTileProgram(function, options));
  TileEGraph egraph(*program.context);
  egraph.addProgram(program.term);
  SaturationOptions saturation;
  if (const char *only = getenv("TILE_RULES")) {
    llvm::SmallVector<llvm::StringRef> names;
    llvm::StringRef(only).split(names, ',');
    for (auto n : names)
      saturation.rules.only.push_back(n.str());
  }
  SaturationStats stats = egraph.saturate(saturation);
  EXPECT_EQ(stats.shapeConflicts, 0u);
  EXPECT_EQ(stats.iterations, 10u);
  ExtractionResult result = extractCandidates(egraph);
  EXPECT_EQ(result.structures, 512u);
  ASSERT_FALSE(result.candidates.empty());
  const Candidate &best = result.candidates.front();
  ASSERT_EQ(best.estimate.kernels.size(), 1u)
      << program.context->toString(best.term, true);
  const KernelEstimate &kernel = best.estimate.kernels.front();
  ASSERT_EQ(kernel.grid.size(), 1u);
  EXPECT_EQ(kernel.grid.front().first, "c");
  std::vector<std::string> loops;
  for (auto &[var, trips] : kernel.loops)
    loops.push_back(var);
  EXPECT_EQ(loops, (std::vector<std::string>{"b", "i"}))
      << best.estimate.describe();
  EXPECT_TRUE(kernel.spills.empty());

  TensorStore inputs = randomInputs(*program.context, 3);
  TensorStore expected = inputs;
  cantFail(evaluateProgram(*program.context, program.term, expected));
  size_t checked = 0;
  for (const Candidate &c : result.candidates) {
    if (++checked > 64)
      break;
    TensorStore got = inputs;
    if (llvm::Error e = evaluateProgram(*program.context, c.term, got)) {
      ADD_FAILURE() << llvm::toString(std::move(e));
      continue;
    }
    EXPECT_LE(compareOutputs(*program.context, got, expected), 1e-9)
        << program.context->toString(c.term, true);
  }
}
} // namespace

namespace {
// Prints the tile program of the file in TILE_FILE (for debugging).
TEST_F(KernelToTileTest, DISABLED_Print) {
  const char *path = getenv("TILE_FILE");
  ASSERT_TRUE(path);
  auto buffer = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(bool(buffer));
  module = parseSourceString<ModuleOp>((*buffer)->getBuffer(), &context);
  ASSERT_TRUE(module);
  func::FuncOp function = *module->getOps<func::FuncOp>().begin();
  KernelToTileOptions options;
  options.fullThreshold = 16;
  TileProgram program = cantFail(convertToTileProgram(function, options));
  llvm::errs() << program.context->toString(program.term, true) << "\n";
}
} // namespace

namespace {
// Saturates the file in TILE_FILE and dumps the e-graph (for debugging).
TEST_F(KernelToTileTest, DISABLED_Dump) {
  const char *path = getenv("TILE_FILE");
  ASSERT_TRUE(path);
  auto buffer = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(bool(buffer));
  module = parseSourceString<ModuleOp>((*buffer)->getBuffer(), &context);
  ASSERT_TRUE(module);
  func::FuncOp function = *module->getOps<func::FuncOp>().begin();
  KernelToTileOptions options;
  options.fullThreshold = 16;
  TileProgram program = cantFail(convertToTileProgram(function, options));
  TileEGraph egraph(*program.context);
  egraph.addProgram(program.term);
  SaturationOptions saturation;
  if (const char *it = getenv("TILE_ITERS"))
    saturation.iterations = atoi(it);
  egraph.saturate(saturation);
  egraph.getGraph().print(llvm::errs());
  llvm::errs() << "root e" << egraph.getRoot() << "\n";
}
} // namespace
