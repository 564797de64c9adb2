// A sum kept in registers across the loop whose jobs leave warps idle
// (decode tiles: one or two jobs of 16 rows) has each job's k cut over the
// warps: warp w takes job w % (warps / slices) over k slice
// w / (warps / slices); after the loop the warps of later slices leave their
// partial sums in a shared-memory scratch, and after a barrier the first
// slice's warps add them and store.
// RUN: mirage-opt %s --split-input-file --convert-kn-to-gpu --canonicalize --cse | FileCheck %s

// One job (16 columns), 4 warps, k = 64 a step: 4 slices of 16.
// CHECK-LABEL: gpu.func @four_slices_k0
// CHECK: %[[WARP:.*]] = arith.divui %thread_id_x, %c32 : index
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1
// CHECK: %[[BEGIN:.*]] = arith.muli %[[WARP]], %c16 : index
// CHECK: %[[END:.*]] = arith.addi %[[BEGIN]], %c16 : index
// CHECK: scf.for %{{.*}} = %[[BEGIN]] to %[[END]] step %c16
// CHECK-COUNT-2: nvgpu.mma.sync
// CHECK-NOT: nvgpu.mma.sync
// CHECK: %[[LATER:.*]] = arith.cmpi ne, %[[WARP]], %c0 : index
// CHECK: scf.if %[[LATER]] {
// CHECK-COUNT-8: memref.store %{{.*}} : memref<768xf32, #gpu.address_space<workgroup>>
// CHECK: }
// CHECK-NEXT: gpu.barrier
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[WARP]], %c0 : index
// CHECK: scf.if %[[FIRST]] {
// CHECK-COUNT-24: memref.load %{{.*}} : memref<768xf32, #gpu.address_space<workgroup>>
func.func @four_slices(%x: tensor<16x128xf16>, %w: tensor<128x32xf16>) -> tensor<16x32xf16> {
  %y = kn.kernel(%x, %w) {
    tb.graph grid [2] threads 128 forloop 2 {
    ^bb0(%xd: tensor<16x128xf16>, %wd: tensor<128x32xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<16x128xf16> -> !tb.tile<16x64xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<128x32xf16> -> !tb.tile<64x16xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<16x64xf16>, !tb.tile<64x16xf16>
      %s = tb.accum_sum %p : !tb.tile<16x16xf16>
      %o = tb.output_saver %s omap <x -> 1> : !tb.tile<16x16xf16> -> tensor<16x32xf16>
      tb.yield %o : tensor<16x32xf16>
    }
  } : (tensor<16x128xf16>, tensor<128x32xf16>) -> tensor<16x32xf16>
  return %y : tensor<16x32xf16>
}

// -----

// Two jobs (32 columns), 4 warps, k = 128 a step: 2 slices of 64 (the
// first two warps sum k 0-63 of jobs 0 and 1, the last two k 64-127).
// CHECK-LABEL: gpu.func @two_slices_k0
// CHECK: %[[WARP:.*]] = arith.divui %thread_id_x, %c32 : index
// CHECK: %[[SLICE:.*]] = arith.divui %[[WARP]], %c2 : index
// CHECK: %[[BEGIN:.*]] = arith.muli %[[SLICE]], %c64 : index
// CHECK: scf.for %{{.*}} = %[[BEGIN]] to %{{.*}} step %c64
// CHECK: arith.cmpi ne, %{{.*}}, %c0 : index
// CHECK: memref<512xf32, #gpu.address_space<workgroup>>
func.func @two_slices(%x: tensor<16x256xf16>, %w: tensor<256x64xf16>) -> tensor<16x64xf16> {
  %y = kn.kernel(%x, %w) {
    tb.graph grid [2] threads 128 forloop 2 {
    ^bb0(%xd: tensor<16x256xf16>, %wd: tensor<256x64xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<16x256xf16> -> !tb.tile<16x128xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<256x64xf16> -> !tb.tile<128x32xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<16x128xf16>, !tb.tile<128x32xf16>
      %s = tb.accum_sum %p : !tb.tile<16x32xf16>
      %o = tb.output_saver %s omap <x -> 1> : !tb.tile<16x32xf16> -> tensor<16x64xf16>
      tb.yield %o : tensor<16x64xf16>
    }
  } : (tensor<16x256xf16>, tensor<256x64xf16>) -> tensor<16x64xf16>
  return %y : tensor<16x64xf16>
}

// -----

// Four jobs on 4 warps: no warp idle, no slices.
// CHECK-LABEL: gpu.func @no_idle_warp_k0
// CHECK: scf.for %{{.*}} = %c0 to %c128 step %c64
// CHECK-NOT: arith.cmpi ne
// CHECK: gpu.return
func.func @no_idle_warp(%x: tensor<16x256xf16>, %w: tensor<256x128xf16>) -> tensor<16x128xf16> {
  %y = kn.kernel(%x, %w) {
    tb.graph grid [2] threads 128 forloop 2 {
    ^bb0(%xd: tensor<16x256xf16>, %wd: tensor<256x128xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<16x256xf16> -> !tb.tile<16x128xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<256x128xf16> -> !tb.tile<128x64xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<16x128xf16>, !tb.tile<128x64xf16>
      %s = tb.accum_sum %p : !tb.tile<16x64xf16>
      %o = tb.output_saver %s omap <x -> 1> : !tb.tile<16x64xf16> -> tensor<16x128xf16>
      tb.yield %o : tensor<16x128xf16>
    }
  } : (tensor<16x256xf16>, tensor<256x128xf16>) -> tensor<16x128xf16>
  return %y : tensor<16x128xf16>
}

// -----

// k = 48 a step (3 steps of 16) divides into no 2 or 4 slices.
// CHECK-LABEL: gpu.func @indivisible_k_k0
// CHECK: scf.for %{{.*}} = %c0 to %c48 step %c16
// CHECK-NOT: arith.cmpi ne
// CHECK: gpu.return
func.func @indivisible_k(%x: tensor<16x96xf16>, %w: tensor<96x32xf16>) -> tensor<16x32xf16> {
  %y = kn.kernel(%x, %w) {
    tb.graph grid [2] threads 128 forloop 2 {
    ^bb0(%xd: tensor<16x96xf16>, %wd: tensor<96x32xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<16x96xf16> -> !tb.tile<16x48xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<96x32xf16> -> !tb.tile<48x16xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<16x48xf16>, !tb.tile<48x16xf16>
      %s = tb.accum_sum %p : !tb.tile<16x16xf16>
      %o = tb.output_saver %s omap <x -> 1> : !tb.tile<16x16xf16> -> tensor<16x32xf16>
      tb.yield %o : tensor<16x32xf16>
    }
  } : (tensor<16x96xf16>, tensor<96x32xf16>) -> tensor<16x32xf16>
  return %y : tensor<16x32xf16>
}
