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

// A concat read only by elementwise ops is read in place too: RoPE's
// rotate_half (concat(-x2, x1)) computes each part at the run, moved into
// the part and clamped into it, and selects the part that holds the run;
// -x2 is computed inside it. Everything is read from global memory by the
// one expression: no tile, no barrier before the store.
// CHECK-LABEL: gpu.func @rope_k0(
// CHECK-NOT: memref.view
// CHECK-NOT: gpu.barrier
// CHECK: scf.for
// CHECK: arith.minui %{{.*}}, %c56 : index
// CHECK: vector.load
// CHECK: arith.cmpi ult, %{{.*}}, %c64 : index
// CHECK: arith.select %{{.*}}, %c0, %{{.*}} : index
// CHECK: arith.minui %{{.*}}, %c56 : index
// CHECK: arith.negf {{.*}} : vector<8xf32>
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: vector.store
// CHECK: gpu.return
func.func @rope(%q: tensor<256x128xf16>, %cos: tensor<256x128xf16>, %sin: tensor<256x128xf16>) -> tensor<256x128xf16> {
  %0 = kn.kernel(%q, %cos, %sin) {
    tb.graph grid [64] threads 128 forloop 1 {
    ^bb0(%a: tensor<256x128xf16>, %c: tensor<256x128xf16>, %s: tensor<256x128xf16>):
      %1 = tb.input_iterator %a imap <x -> 0> fmap <i -> replica> : tensor<256x128xf16> -> !tb.tile<4x128xf16>
      %2 = tb.input_iterator %c imap <x -> 0> fmap <i -> replica> : tensor<256x128xf16> -> !tb.tile<4x128xf16>
      %3 = tb.input_iterator %s imap <x -> 0> fmap <i -> replica> : tensor<256x128xf16> -> !tb.tile<4x128xf16>
      %4:2 = tb.split %1 dim 1 sizes [64, 64] : !tb.tile<4x128xf16>
      %5 = tb.neg %4#1 : !tb.tile<4x64xf16>
      %6 = tb.concat %5, %4#0 dim 1 : !tb.tile<4x64xf16>, !tb.tile<4x64xf16>
      %7 = tb.mul %1, %2 : !tb.tile<4x128xf16>, !tb.tile<4x128xf16>
      %8 = tb.mul %6, %3 : !tb.tile<4x128xf16>, !tb.tile<4x128xf16>
      %9 = tb.add %7, %8 : !tb.tile<4x128xf16>, !tb.tile<4x128xf16>
      %10 = tb.output_saver %9 omap <x -> 0> : !tb.tile<4x128xf16> -> tensor<256x128xf16>
      tb.yield %10 : tensor<256x128xf16>
    }
  } : (tensor<256x128xf16>, tensor<256x128xf16>, tensor<256x128xf16>) -> tensor<256x128xf16>
  return %0 : tensor<256x128xf16>
}

// A concat that a reduction reads keeps its tile: its parts are copied in.
// CHECK-LABEL: gpu.func @concat_copies_k0(
// CHECK: memref.view {{.*}} to memref<512xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: gpu.return
func.func @concat_copies(%x: tensor<256x64xf16>, %y: tensor<256x64xf16>) -> tensor<256x1xf16> {
  %0 = kn.kernel(%x, %y) {
    tb.graph grid [64] threads 128 forloop 1 {
    ^bb0(%a: tensor<256x64xf16>, %b: tensor<256x64xf16>):
      %1 = tb.input_iterator %a imap <x -> 0> fmap <i -> replica> : tensor<256x64xf16> -> !tb.tile<4x64xf16>
      %2 = tb.input_iterator %b imap <x -> 0> fmap <i -> replica> : tensor<256x64xf16> -> !tb.tile<4x64xf16>
      %3 = tb.concat %1, %2 dim 1 : !tb.tile<4x64xf16>, !tb.tile<4x64xf16>
      %4 = tb.reduce_sum %3 dim 1 : !tb.tile<4x128xf16>
      %5 = tb.output_saver %4 omap <x -> 0> : !tb.tile<4x1xf16> -> tensor<256x1xf16>
      tb.yield %5 : tensor<256x1xf16>
    }
  } : (tensor<256x64xf16>, tensor<256x64xf16>) -> tensor<256x1xf16>
  return %0 : tensor<256x1xf16>
}

// A concat of lower rank than its user, broadcast along the user's rows:
// the part is chosen by the concat's own dim, the user's columns.
// CHECK-LABEL: gpu.func @broadcast_concat_k0(
// CHECK: vector.load %arg0[%{{.*}}, %[[COL:.*]]] {{.*}} vector<8xf16>
// CHECK: arith.cmpi ult, %[[COL]], %c32 : index
// CHECK: gpu.return
func.func @broadcast_concat(%x: tensor<256x64xf16>, %a: tensor<32xf16>, %b: tensor<32xf16>) -> tensor<256x64xf16> {
  %0 = kn.kernel(%x, %a, %b) {
    tb.graph grid [64] threads 128 forloop 1 {
    ^bb0(%xd: tensor<256x64xf16>, %ad: tensor<32xf16>, %bd: tensor<32xf16>):
      %1 = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<256x64xf16> -> !tb.tile<4x64xf16>
      %2 = tb.input_iterator %ad imap <x -> replica> fmap <i -> replica> : tensor<32xf16> -> !tb.tile<32xf16>
      %3 = tb.input_iterator %bd imap <x -> replica> fmap <i -> replica> : tensor<32xf16> -> !tb.tile<32xf16>
      %4 = tb.neg %3 : !tb.tile<32xf16>
      %5 = tb.concat %2, %4 dim 0 : !tb.tile<32xf16>, !tb.tile<32xf16>
      %6 = tb.mul %1, %5 : !tb.tile<4x64xf16>, !tb.tile<64xf16>
      %7 = tb.output_saver %6 omap <x -> 0> : !tb.tile<4x64xf16> -> tensor<256x64xf16>
      tb.yield %7 : tensor<256x64xf16>
    }
  } : (tensor<256x64xf16>, tensor<32xf16>, tensor<32xf16>) -> tensor<256x64xf16>
  return %0 : tensor<256x64xf16>
}

// An elementwise epilogue candidate of a matmul that feeds a concat read in
// place by two users is computed inside the concat, not as an epilogue.
// CHECK-LABEL: gpu.func @matmul_concat_k0(
// CHECK: nvgpu.mma.sync
// CHECK: math.exp
// CHECK: gpu.return
func.func @matmul_concat(%a: tensor<16x64xf16>, %b: tensor<64x64xf16>, %y: tensor<16x64xf16>) -> (tensor<16x128xf16>, tensor<16x128xf16>) {
  %0:2 = kn.kernel(%a, %b, %y) {
    tb.graph grid [2] threads 128 forloop 1 {
    ^bb0(%ad: tensor<16x64xf16>, %bd: tensor<64x64xf16>, %yd: tensor<16x64xf16>):
      %1 = tb.input_iterator %ad imap <x -> 0> fmap <i -> replica> : tensor<16x64xf16> -> !tb.tile<8x64xf16>
      %2 = tb.input_iterator %bd imap <x -> replica> fmap <i -> replica> : tensor<64x64xf16> -> !tb.tile<64x64xf16>
      %3 = tb.input_iterator %yd imap <x -> 0> fmap <i -> replica> : tensor<16x64xf16> -> !tb.tile<8x64xf16>
      %4 = tb.matmul %1, %2 : !tb.tile<8x64xf16>, !tb.tile<64x64xf16>
      %5 = tb.silu %4 : !tb.tile<8x64xf16>
      %6 = tb.concat %5, %3 dim 1 : !tb.tile<8x64xf16>, !tb.tile<8x64xf16>
      %7 = tb.exp %6 : !tb.tile<8x128xf16>
      %8 = tb.neg %6 : !tb.tile<8x128xf16>
      %9 = tb.output_saver %7 omap <x -> 0> : !tb.tile<8x128xf16> -> tensor<16x128xf16>
      %10 = tb.output_saver %8 omap <x -> 0> : !tb.tile<8x128xf16> -> tensor<16x128xf16>
      tb.yield %9, %10 : tensor<16x128xf16>, tensor<16x128xf16>
    }
  } : (tensor<16x64xf16>, tensor<64x64xf16>, tensor<16x64xf16>) -> (tensor<16x128xf16>, tensor<16x128xf16>)
  return %0#0, %0#1 : tensor<16x128xf16>, tensor<16x128xf16>
}
