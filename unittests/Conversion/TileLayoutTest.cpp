//===- TileLayoutTest.cpp - Swizzled shared-memory tile layouts -----------===//
//
// The lowering stores matmul operand tiles swizzled so that the 8 rows an
// ldmatrix reads at one column fall on 8 distinct 16-byte bank groups. The
// addresses are the folded values of KernelBuilder::getElementOffset, the
// function every tile access goes through.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Conversion/KernelToGPU/Codegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <set>

using namespace mlir;
using namespace mirage::codegen;

namespace {

class TileLayoutTest : public ::testing::Test {
protected:
  TileLayoutTest() : builder(&context) {
    context.loadDialect<arith::ArithDialect>();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
  }

  /// The element offset of [row, column] in `layout`, folded.
  int64_t getOffset(const TileLayout &layout, int64_t row, int64_t column) {
    Location loc = builder.getUnknownLoc();
    Value threadId = arith::ConstantIndexOp::create(builder, loc, 0);
    KernelBuilder kb(builder, loc, /*numThreads=*/128, threadId);
    SmallVector<Value> indices = {kb.index(row), kb.index(column)};
    Value offset = kb.getElementOffset(layout, indices);
    std::optional<int64_t> folded = getConstantIntValue(offset);
    EXPECT_TRUE(folded.has_value());
    return folded.value_or(-1);
  }

  MLIRContext context;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
};

TEST_F(TileLayoutTest, EvenChunkRowsSwizzleWithoutBankConflicts) {
  for (int64_t chunks : {2, 4, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64}) {
    SCOPED_TRACE("chunks per row: " + std::to_string(chunks));
    TileLayout layout{{16, chunks * 8}, builder.getF16Type()};
    ASSERT_TRUE(layout.canSwizzle());
    layout.swizzled = true;
    // Each row's chunks are a permutation of the row's own chunks.
    for (int64_t row = 0; row < 16; ++row) {
      std::set<int64_t> stored;
      for (int64_t chunk = 0; chunk < chunks; ++chunk) {
        int64_t offset = getOffset(layout, row, chunk * 8);
        EXPECT_EQ(offset % 8, 0);
        EXPECT_EQ(offset / (chunks * 8), row);
        stored.insert(offset / 8);
        // Elements within a chunk stay together.
        EXPECT_EQ(getOffset(layout, row, chunk * 8 + 5), offset + 5);
      }
      EXPECT_EQ(stored.size(), static_cast<size_t>(chunks));
    }
    // The 8 rows an ldmatrix reads at one chunk: 8 bank groups.
    for (int64_t first : {0, 8})
      for (int64_t chunk = 0; chunk < chunks; ++chunk) {
        std::set<int64_t> groups;
        for (int64_t row = first; row < first + 8; ++row)
          groups.insert(getOffset(layout, row, chunk * 8) / 8 % 8);
        EXPECT_EQ(groups.size(), 8u) << "chunk " << chunk;
      }
  }
}

TEST_F(TileLayoutTest, OddChunkRowsAreNotSwizzled) {
  for (int64_t columns : {8, 24, 40, 4, 12}) {
    TileLayout layout{{16, columns}, builder.getF16Type()};
    EXPECT_FALSE(layout.canSwizzle()) << columns << " columns";
  }
}

TEST(SwizzlePeriodTest, LargestPowerOfTwoDividingTheRowAtMostEight) {
  EXPECT_EQ(getSwizzlePeriod(2), 2);
  EXPECT_EQ(getSwizzlePeriod(6), 2);
  EXPECT_EQ(getSwizzlePeriod(12), 4);
  EXPECT_EQ(getSwizzlePeriod(8), 8);
  EXPECT_EQ(getSwizzlePeriod(24), 8);
  EXPECT_EQ(getSwizzlePeriod(64), 8);
}

} // namespace
