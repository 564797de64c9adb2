// Splits and reshapes that only add or drop unit dims, read only by
// elementwise ops, are read in place: their users index the operand's tile
// (a piece at its offset), with no copy, no tile of their own and no
// barrier of their own. SwiGLU's gate and up halves of one 8 x 2 x 48 tile
// come from index 0 and 1 of its middle dim, 8 at a time; here the tile is
// read only by the first level's expression, so straight from global
// memory, and the product, read only by the output saver, goes straight
// back to global memory: no shared memory and no barrier at all.
// RUN: mirage-opt %s --convert-kn-to-gpu --canonicalize --cse | FileCheck %s

// CHECK-LABEL: gpu.func @gate_k0(
// CHECK-SAME: %[[IN:.*]]: memref<8x2x12288xf16>, %[[OUT:.*]]: memref<8x12288xf16>)
// CHECK-NOT: memref.view
// CHECK-NOT: gpu.barrier
// CHECK: scf.for
// CHECK: %[[COL:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: vector.load %[[IN]][%[[ROW:.*]], %c0, %[[COL]]] {{.*}} vector<8xf16>
// CHECK-NEXT: vector.load %[[IN]][%[[ROW]], %c1, %[[COL]]] {{.*}} vector<8xf16>
// CHECK: math.exp
// CHECK: vector.store %{{.*}}, %[[OUT]][%[[ROW]], %[[COL]]]
// CHECK-NOT: memref.load
// CHECK: gpu.return
func.func @gate(%gu: tensor<8x2x12288xf16>) -> tensor<8x12288xf16> {
  %0 = kn.kernel(%gu) {
    tb.graph grid [256] threads 128 forloop 1 {
    ^bb0(%a: tensor<8x2x12288xf16>):
      %1 = tb.input_iterator %a imap <x -> 2> fmap <i -> replica> : tensor<8x2x12288xf16> -> !tb.tile<8x2x48xf16>
      %2:2 = tb.split %1 dim 1 sizes [1, 1] : !tb.tile<8x2x48xf16>
      %3 = tb.reshape %2#0 : !tb.tile<8x1x48xf16> -> !tb.tile<8x48xf16>
      %4 = tb.reshape %2#1 : !tb.tile<8x1x48xf16> -> !tb.tile<8x48xf16>
      %5 = tb.silu %3 : !tb.tile<8x48xf16>
      %6 = tb.mul %5, %4 : !tb.tile<8x48xf16>, !tb.tile<8x48xf16>
      %7 = tb.output_saver %6 omap <x -> 1> : !tb.tile<8x48xf16> -> tensor<8x12288xf16>
      tb.yield %7 : tensor<8x12288xf16>
    }
  } : (tensor<8x2x12288xf16>) -> tensor<8x12288xf16>
  return %0 : tensor<8x12288xf16>
}

// A piece a reduction reads, and a reshape that regroups elements, are
// copied into tiles of their own.
// CHECK-LABEL: gpu.func @copies_k0(
// CHECK-COUNT-2: memref.store %{{.*}} : memref<384xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}} : memref<384xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.return
func.func @copies(%gu: tensor<8x2x12288xf16>) -> (tensor<8x256xf16>, tensor<16x6144xf16>) {
  %0:2 = kn.kernel(%gu) {
    tb.graph grid [256] threads 128 forloop 1 {
    ^bb0(%a: tensor<8x2x12288xf16>):
      %1 = tb.input_iterator %a imap <x -> 2> fmap <i -> replica> : tensor<8x2x12288xf16> -> !tb.tile<8x2x48xf16>
      %2:2 = tb.split %1 dim 1 sizes [1, 1] : !tb.tile<8x2x48xf16>
      %3 = tb.reduce_sum %2#0 dim 2 : !tb.tile<8x1x48xf16>
      %4 = tb.reshape %3 : !tb.tile<8x1x1xf16> -> !tb.tile<8x1xf16>
      %5 = tb.output_saver %4 omap <x -> 1> : !tb.tile<8x1xf16> -> tensor<8x256xf16>
      %6 = tb.reshape %2#1 : !tb.tile<8x1x48xf16> -> !tb.tile<16x24xf16>
      %7 = tb.exp %6 : !tb.tile<16x24xf16>
      %8 = tb.output_saver %7 omap <x -> 1> : !tb.tile<16x24xf16> -> tensor<16x6144xf16>
      tb.yield %5, %8 : tensor<8x256xf16>, tensor<16x6144xf16>
    }
  } : (tensor<8x2x12288xf16>) -> (tensor<8x256xf16>, tensor<16x6144xf16>)
  return %0#0, %0#1 : tensor<8x256xf16>, tensor<16x6144xf16>
}
