//===- WarpSpecializationTest.cpp - Registers of warp-specialized kernels -===//
//
// getConsumerRegisters is what a warp-specialized kernel's consumers ask for
// with setmaxnreg.inc. ptxas allocates every thread of the block the cap of
// the register file at the kernel's resident blocks (checked with ptxas -v
// in test/Target/warp-specialize-bundle.mlir), so the block's pool holds
// threads x cap registers; an increase past what the producers' decrease
// frees would wait forever. CUTLASS's Hopper GEMM (two consumer warpgroups,
// one producer at 40) asks for 232: the same rule gives it.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Conversion/KernelToGPU/Codegen.h"

#include "gtest/gtest.h"

using namespace mirage::codegen;

namespace {

/// Whether the consumers' and producers' counts fit the pool ptxas gives a
/// block of `threads` threads at `residentBlocks` blocks per SM.
bool fitsPool(int64_t threads, int64_t residentBlocks) {
  int64_t cap =
      std::min<int64_t>(248, 65536 / (threads * residentBlocks) / 8 * 8);
  int64_t consumers = threads - kProducerThreads;
  return consumers * getConsumerRegisters(threads, residentBlocks) +
             kProducerThreads * kProducerRegisters <=
         threads * cap;
}

TEST(WarpSpecializationTest, OneConsumerWarpgroupTakesTheMaximum) {
  // 256 threads at one block: the cap, 248, is already the most a thread
  // may have.
  EXPECT_EQ(getConsumerRegisters(256, 1), 248);
}

TEST(WarpSpecializationTest, TwoConsumerWarpgroupsAsCutlass) {
  // 384 threads: cap floor8(170) = 168; (384 * 168 - 128 * 40) / 256 = 232.
  EXPECT_EQ(getConsumerRegisters(384, 1), 232);
}

TEST(WarpSpecializationTest, SeveralBlocksShareTheRegisterFile) {
  // Four blocks of 256: cap 64; (256 * 64 - 128 * 40) / 128 = 88.
  EXPECT_EQ(getConsumerRegisters(256, 4), 88);
  EXPECT_EQ(getConsumerRegisters(256, 2), 216);
}

TEST(WarpSpecializationTest, NeverAsksForMoreThanThePool) {
  for (int64_t threads : {256, 384, 512, 640, 768, 1024})
    for (int64_t blocks = 1; blocks * threads * 64 <= 65536; ++blocks) {
      EXPECT_TRUE(fitsPool(threads, blocks)) << threads << " x " << blocks;
      EXPECT_GE(getConsumerRegisters(threads, blocks), kProducerRegisters);
    }
}

} // namespace
