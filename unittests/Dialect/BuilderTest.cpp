//===- BuilderTest.cpp - Building and checking IR through the C++ API -----===//
//
// The dialects as another MLIR compiler embeds them: build ops with the C++
// builders (result types inferred by the shape rules), read operator records
// through SemanticsOpInterface, and get diagnostics for invalid IR.
//
//===----------------------------------------------------------------------===//

#include "mirage/InitAllDialects.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <set>
#include <string>

using namespace mlir;
using namespace mirage;

namespace {

class BuilderTest : public ::testing::Test {
protected:
  BuilderTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  RankedTensorType tensor(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, Float16Type::get(&context));
  }

  MLIRContext context;
};

TEST_F(BuilderTest, KernelOpsInferResultTypesFromShapeRules) {
  OpBuilder builder(&context);
  Location loc = builder.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  auto function = func::FuncOp::create(
      builder, loc, "rmsnorm_linear",
      builder.getFunctionType(
          {tensor({2, 4096}), tensor({4096}), tensor({4096, 6144})},
          {tensor({2, 6144})}));
  Block *entry = function.addEntryBlock();
  builder.setInsertionPointToStart(entry);

  auto norm = kn::RmsNormOp::create(builder, loc, entry->getArgument(0),
                                    entry->getArgument(1),
                                    builder.getF64FloatAttr(1e-6));
  auto matmul =
      kn::MatmulOp::create(builder, loc, norm, entry->getArgument(2));
  EXPECT_EQ(matmul.getType(), tensor({2, 6144}));
  auto sum = kn::ReduceSumOp::create(builder, loc, matmul,
                                     builder.getI64IntegerAttr(1));
  EXPECT_EQ(sum.getType(), tensor({2, 1}));
  func::ReturnOp::create(builder, loc, matmul.getResult());
  EXPECT_TRUE(succeeded(verify(*module)));

  auto semantics = cast<SemanticsOpInterface>(matmul.getOperation());
  EXPECT_EQ(semantics.getOpKind(), OpKind::Matmul);
  auto reduce = cast<SemanticsOpInterface>(sum.getOperation());
  EXPECT_EQ(reduce.getOpParams().dim, 1);
  EXPECT_TRUE(reduce.getOpParams().keepDim);
}

TEST_F(BuilderTest, EveryOpBindsToTheRecordOfItsMnemonic) {
  // kn.exp, tb.exp and th.exp must all bind to the "exp" record, and so on:
  // a wrong OpKind in a multiclass entry would give an op another's meaning.
  int bound = 0;
  std::set<std::string> levels;
  for (RegisteredOperationName name : context.getRegisteredOperations()) {
    auto *semantics = name.getInterface<SemanticsOpInterface>();
    if (!semantics)
      continue;
    ++bound;
    levels.insert(name.getDialectNamespace().str());
    StringRef mnemonic = name.stripDialect();
    EXPECT_EQ(getOpInfo(semantics->getOpKind()).name, mnemonic)
        << name.getStringRef().str();
  }
  EXPECT_EQ(levels, std::set<std::string>({"kn", "tb", "th"}));
  // 27 kn + 33 tb + 25 th ops carry an operator record.
  EXPECT_EQ(bound, 85);
}

TEST_F(BuilderTest, FactoryBuildsTheOpOfEveryKindAtEachLevel) {
  // createOperatorOp finds, from each dialect's generated op list, the op
  // that binds to a kind: the same ops as the registered ones, no more.
  OpBuilder builder(&context);
  Location loc = builder.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  using Factory = decltype(&createOperatorOp<kn::KernelDialect>);
  std::pair<StringRef, Factory> levels[] = {
      {"kn", createOperatorOp<kn::KernelDialect>},
      {"tb", createOperatorOp<tb::BlockDialect>},
      {"th", createOperatorOp<th::ThreadDialect>}};
  int built = 0;
  for (auto [level, create] : levels) {
    for (unsigned i = 0; i < kNumOpKinds; ++i) {
      auto kind = static_cast<OpKind>(i);
      std::string name = (level + "." + getOpInfo(kind).name).str();
      bool registered =
          RegisteredOperationName::lookup(name, &context).has_value();
      FailureOr<Operation *> op = create(builder, loc, kind, {}, {}, {});
      ASSERT_EQ(succeeded(op), registered) << name;
      if (failed(op))
        continue;
      ++built;
      EXPECT_EQ((*op)->getName().getStringRef(), name);
      EXPECT_EQ(cast<SemanticsOpInterface>(*op).getOpKind(), kind) << name;
      (*op)->erase();
    }
  }
  // Every op bound to a record (EveryOpBindsToTheRecordOfItsMnemonic).
  EXPECT_EQ(built, 85);
}

TEST_F(BuilderTest, FactoryOpsTakeTheRecordsAttributes) {
  OpBuilder builder(&context);
  Location loc = builder.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  auto function = func::FuncOp::create(
      builder, loc, "f", builder.getFunctionType({tensor({4, 8})}, {}));
  Block *entry = function.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  OpParams params;
  params.dim = 1;
  params.ints = {2, 6};
  FailureOr<Operation *> split = createOperatorOp<kn::KernelDialect>(
      builder, loc, OpKind::Split, entry->getArgument(0),
      {tensor({4, 2}), tensor({4, 6})},
      getOpAttributes(OpKind::Split, params, builder));
  ASSERT_TRUE(succeeded(split));
  func::ReturnOp::create(builder, loc);
  EXPECT_TRUE(succeeded(verify(*module)));
  OpParams read = cast<SemanticsOpInterface>(*split).getOpParams();
  EXPECT_EQ(read.dim, 1);
  EXPECT_EQ(read.ints, params.ints);
}

TEST_F(BuilderTest, FailedInferenceReportsTheShapeRuleMessage) {
  OpBuilder builder(&context);
  Location loc = builder.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  auto function = func::FuncOp::create(
      builder, loc, "f",
      builder.getFunctionType({tensor({2, 64}), tensor({32, 8})}, {}));
  Block *entry = function.addEntryBlock();

  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  SmallVector<Type> types;
  EXPECT_TRUE(failed(kn::MatmulOp::inferReturnTypes(
      &context, loc, entry->getArguments(), builder.getDictionaryAttr({}),
      /*properties=*/nullptr, /*regions=*/{}, types)));
  EXPECT_EQ(message, "'kn.matmul' op contraction dims differ: lhs dim 1 has "
                     "size 64 but rhs dim 0 has size 32");
}

TEST_F(BuilderTest, BlockGraphReportsSharedMemoryAndTiling) {
  const char *source = R"mlir(
    func.func @f(%x: tensor<2x4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<2x6144xf16> {
      %z = kn.kernel(%x, %w) {
        tb.graph grid [96] threads 128 forloop 64 {
        ^bb0(%xd: tensor<2x4096xf16>, %wd: tensor<4096x6144xf16>):
          %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<2x4096xf16> -> !tb.tile<2x64xf16>
          %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x6144xf16> -> !tb.tile<64x64xf16>
          %p = tb.matmul %xt, %wt : !tb.tile<2x64xf16>, !tb.tile<64x64xf16>
          %acc = tb.accum_sum %p : !tb.tile<2x64xf16>
          %out = tb.output_saver %acc omap <x -> 1> : !tb.tile<2x64xf16> -> tensor<2x6144xf16>
          tb.yield %out : tensor<2x6144xf16>
        }
      } : (tensor<2x4096xf16>, tensor<4096x6144xf16>) -> tensor<2x6144xf16>
      return %z : tensor<2x6144xf16>
    })mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  tb::GraphOp graph;
  module->walk([&](tb::GraphOp op) { graph = op; });
  ASSERT_TRUE(graph);
  // At the matmul, x 2x64, w 64x64 and the product 2x64 are live at 2 bytes
  // an element, and the accumulator 2x64 (live for the whole loop) at 4, as
  // the code keeps sums in f32.
  PeakMemory use = graph.getLiveTileMemory();
  EXPECT_EQ(use.bytes, (128 + 4096 + 128) * 2 + 128 * 4);
  ASSERT_EQ(use.liveAtPeak.size(), 4u);
  EXPECT_TRUE(isa<tb::InputIteratorOp>(use.liveAtPeak[0])); // w, the largest
  auto iterator = cast<tb::InputIteratorOp>(*graph.getBodyBlock().begin());
  TilingParams tiling = iterator.getOpParams().tiling;
  EXPECT_EQ(ArrayRef<int64_t>(tiling.grid), ArrayRef<int64_t>({96}));
  EXPECT_EQ(tiling.forloopRange, 64);
  EXPECT_EQ(tiling.loopMap, 1);
  EXPECT_EQ(tiling.gridMap[0], kReplica);
}

} // namespace
