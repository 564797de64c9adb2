// Reductions in a block graph's kernel. Lanes of a warp fold a result and
// combine by shuffles; with fewer results than warps, the warps of a result
// fold slices of it and combine their partials through shared scratch after
// a barrier. Elementwise chains feeding a reduction are folded as they are
// read, and per-row values (last dim 1) are recomputed inside the
// elementwise ops that broadcast them, so neither gets a level of its own.
// Input tiles read only by the first level's reductions and elementwise
// ops are read by them from global memory (no shared-memory tile).
// RUN: mirage-opt %s --split-input-file --convert-kn-to-gpu --canonicalize --cse | FileCheck %s

// One row of 4096 over 16 warps: each warp folds one vector a lane (a
// 4096-column step), its first lane leaves the warp's partial in a 16-float
// scratch, and after a barrier one thread sums the 16 partials.
// CHECK-LABEL: gpu.func @split_row_k0
// CHECK-SAME: (%[[X:[^:]*]]: memref<8x4096xf16>
// CHECK: %[[SCRATCH:.*]] = memref.view {{.*}} to memref<16xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4096 step %c4096 iter_args
// CHECK: vector.load %[[X]]{{.*}} : memref<8x4096xf16>, vector<8xf16>
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: memref.store %{{.*}}, %[[SCRATCH]]
// CHECK: gpu.barrier
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %c1 step %c512 {
// CHECK-COUNT-16: memref.load %[[SCRATCH]]
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @split_row(%x: tensor<8x4096xf16>) -> tensor<8x1xf16> {
  %y = kn.kernel(%x) {
    tb.graph grid [8] threads 512 forloop 1 {
    ^bb0(%xd: tensor<8x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x4096xf16> -> !tb.tile<1x4096xf16>
      %s = tb.reduce_sum %xt dim 1 : !tb.tile<1x4096xf16>
      %o = tb.output_saver %s omap <x -> 0> : !tb.tile<1x1xf16> -> tensor<8x1xf16>
      tb.yield %o : tensor<8x1xf16>
    }
  } : (tensor<8x4096xf16>) -> tensor<8x1xf16>
  return %y : tensor<8x1xf16>
}

// -----

// As many rows as warps: a warp per row, no scratch and no extra barrier;
// the maximum is taken by shuffles.
// CHECK-LABEL: gpu.func @warp_per_row_k0
// CHECK-NOT: memref<{{[0-9]+}}xf32
// CHECK: scf.for %{{.*}} = %{{.*}} to %c1024 step %c256 iter_args
// CHECK-COUNT-5: arith.maximumf
// CHECK-NOT: gpu.barrier
// CHECK: scf.if
// CHECK: memref.store
func.func @warp_per_row(%x: tensor<64x1024xf16>) -> tensor<64x1xf16> {
  %y = kn.kernel(%x) {
    tb.graph grid [16] threads 128 forloop 1 {
    ^bb0(%xd: tensor<64x1024xf16>):
      %xt = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<64x1024xf16> -> !tb.tile<4x1024xf16>
      %m = tb.reduce_max %xt dim 1 : !tb.tile<4x1024xf16>
      %o = tb.output_saver %m omap <x -> 0> : !tb.tile<4x1xf16> -> tensor<64x1xf16>
      tb.yield %o : tensor<64x1xf16>
    }
  } : (tensor<64x1024xf16>) -> tensor<64x1xf16>
  return %y : tensor<64x1xf16>
}

// -----

// The variance of a layer norm: the mean (a per-row value) is recomputed
// inside the subtraction, and the subtraction and the square are folded by
// the reduction as it reads x: one level for all four ops, no tile for any
// intermediate, nor for x and the mean, read from global memory (only the
// scratch and the result are in shared memory).
// CHECK-LABEL: gpu.func @variance_k0
// CHECK-NOT: memref<4096xf16, #gpu.address_space<workgroup>>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4096 step %c4096 iter_args
// CHECK: vector.load %{{.*}} : memref<8x4096xf16>, vector<8xf16>
// CHECK: arith.subf {{.*}} : vector<8xf32>
// CHECK: arith.mulf {{.*}} : vector<8xf32>
// CHECK: vector.reduction <add>
func.func @variance(%x: tensor<8x4096xf16>, %mean: tensor<8x1xf16>) -> tensor<8x1xf16> {
  %y = kn.kernel(%x, %mean) {
    tb.graph grid [8] threads 512 forloop 1 {
    ^bb0(%xd: tensor<8x4096xf16>, %md: tensor<8x1xf16>):
      %xt = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x4096xf16> -> !tb.tile<1x4096xf16>
      %mt = tb.input_iterator %md imap <x -> 0> fmap <i -> replica> : tensor<8x1xf16> -> !tb.tile<1x1xf16>
      %ms = tb.mul_scalar %mt, 2.0 : !tb.tile<1x1xf16>
      %c = tb.sub %xt, %ms : !tb.tile<1x4096xf16>, !tb.tile<1x1xf16>
      %sq = tb.square %c : !tb.tile<1x4096xf16>
      %v = tb.reduce_sum %sq dim 1 : !tb.tile<1x4096xf16>
      %o = tb.output_saver %v omap <x -> 0> : !tb.tile<1x1xf16> -> tensor<8x1xf16>
      tb.yield %o : tensor<8x1xf16>
    }
  } : (tensor<8x4096xf16>, tensor<8x1xf16>) -> tensor<8x1xf16>
  return %y : tensor<8x1xf16>
}

// -----

// A value that two ops read keeps its tile: only single-use chains are
// computed inside their user.
// CHECK-LABEL: gpu.func @shared_operand_k0
// CHECK: vector.store %{{.*}} : memref<4096xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: gpu.barrier
// CHECK: vector.reduction <add>
func.func @shared_operand(%x: tensor<8x4096xf16>) -> (tensor<8x4096xf16>, tensor<8x1xf16>) {
  %y:2 = kn.kernel(%x) {
    tb.graph grid [8] threads 512 forloop 1 {
    ^bb0(%xd: tensor<8x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x4096xf16> -> !tb.tile<1x4096xf16>
      %e = tb.exp %xt : !tb.tile<1x4096xf16>
      %s = tb.reduce_sum %e dim 1 : !tb.tile<1x4096xf16>
      %o1 = tb.output_saver %e omap <x -> 0> : !tb.tile<1x4096xf16> -> tensor<8x4096xf16>
      %o2 = tb.output_saver %s omap <x -> 0> : !tb.tile<1x1xf16> -> tensor<8x1xf16>
      tb.yield %o1, %o2 : tensor<8x4096xf16>, tensor<8x1xf16>
    }
  } : (tensor<8x4096xf16>) -> (tensor<8x4096xf16>, tensor<8x1xf16>)
  return %y#0, %y#1 : tensor<8x4096xf16>, tensor<8x1xf16>
}

// -----

// x is read by the reduction and again by the subtraction two levels
// later: it is loaded once into a tile (cp.async), and the later read is
// from shared memory rather than global memory again.
// CHECK-LABEL: gpu.func @two_passes_k0
// CHECK: %[[XT:.*]] = memref.view {{.*}} to memref<4096xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy {{.*}}, %[[XT]]
// CHECK: vector.load %[[XT]]
// CHECK: gpu.barrier
// CHECK: vector.load %[[XT]]
// CHECK: arith.subf
func.func @two_passes(%x: tensor<8x4096xf16>) -> tensor<8x4096xf16> {
  %y = kn.kernel(%x) {
    tb.graph grid [8] threads 512 forloop 1 {
    ^bb0(%xd: tensor<8x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x4096xf16> -> !tb.tile<1x4096xf16>
      %m = tb.reduce_max %xt dim 1 : !tb.tile<1x4096xf16>
      %c = tb.sub %xt, %m : !tb.tile<1x4096xf16>, !tb.tile<1x1xf16>
      %o = tb.output_saver %c omap <x -> 0> : !tb.tile<1x4096xf16> -> tensor<8x4096xf16>
      tb.yield %o : tensor<8x4096xf16>
    }
  } : (tensor<8x4096xf16>) -> tensor<8x4096xf16>
  return %y : tensor<8x4096xf16>
}

// -----

// Many results over a short reduced dim that is not the last (KeyFormer's
// score summed over 8 new tokens, a result per cached position): more
// results than threads, neighbouring results in neighbouring elements, so
// each thread folds its own, with no shuffles (8 lanes a result took 32
// trips of shuffles: the task 15.7 us on an H200, the KeyFormer mega-kernel
// 89.0 us against 66.1 now, docs/results/2026-11-27-h200-trinity.md).
// Over the last dim the lanes of a result keep reading its runs side by
// side (a thread per row would read rows 8 KB apart, in one bank: the GQA
// softmax at batch 1 was 15% slower that way).
// CHECK-LABEL: gpu.func @many_short_k0
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return
func.func @many_short(%x: tensor<32x8x1024xf16>) -> tensor<32x1x1024xf16> {
  %y = kn.kernel(%x) {
    tb.graph grid [32] threads 128 forloop 1 {
    ^bb0(%xd: tensor<32x8x1024xf16>):
      %xt = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<32x8x1024xf16> -> !tb.tile<1x8x1024xf16>
      %s = tb.reduce_sum %xt dim 1 : !tb.tile<1x8x1024xf16>
      %o = tb.output_saver %s omap <x -> 0> : !tb.tile<1x1x1024xf16> -> tensor<32x1x1024xf16>
      tb.yield %o : tensor<32x1x1024xf16>
    }
  } : (tensor<32x8x1024xf16>) -> tensor<32x1x1024xf16>
  return %y : tensor<32x1x1024xf16>
}
