// Every tb op round-trips through the custom and the generic form.
// RUN: mirage-opt %s | mirage-opt | FileCheck %s
// RUN: mirage-opt %s --mlir-print-op-generic | mirage-opt | FileCheck %s

// Elementwise ops in the loop body; the loop concatenates per-iteration tiles.
// CHECK-LABEL: func.func @loop_body_elementwise
func.func @loop_body_elementwise(%x: tensor<64x256xf32>, %c: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %z = kn.kernel(%x, %c) {
    // CHECK: tb.graph grid [16] threads 128 forloop 4 {
    tb.graph grid [16] threads 128 forloop 4 {
    ^bb0(%xd: tensor<64x256xf32>, %cd: tensor<64x256xf32>):
      // CHECK: %[[X:.*]] = tb.input_iterator %{{.*}} imap <x -> 0> fmap <i -> 1> : tensor<64x256xf32> -> !tb.tile<4x64xf32>
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> 1> : tensor<64x256xf32> -> !tb.tile<4x64xf32>
      // CHECK: %[[C:.*]] = tb.input_iterator %{{.*}} imap <x -> 0> fmap <i -> 1>
      %u = tb.input_iterator %cd imap <x -> 0> fmap <i -> 1> : tensor<64x256xf32> -> !tb.tile<4x64xf32>
      // CHECK: tb.exp %[[X]] : !tb.tile<4x64xf32>
      %0 = tb.exp %t : !tb.tile<4x64xf32>
      // CHECK: tb.sqrt
      %1 = tb.sqrt %0 : !tb.tile<4x64xf32>
      // CHECK: tb.square
      %2 = tb.square %1 : !tb.tile<4x64xf32>
      // CHECK: tb.silu
      %3 = tb.silu %2 : !tb.tile<4x64xf32>
      // CHECK: tb.sigmoid
      %s = tb.sigmoid %3 : !tb.tile<4x64xf32>
      // CHECK: tb.gelu
      %4 = tb.gelu %s : !tb.tile<4x64xf32>
      // CHECK: tb.relu
      %5 = tb.relu %4 : !tb.tile<4x64xf32>
      // CHECK: tb.neg
      %6 = tb.neg %5 : !tb.tile<4x64xf32>
      // CHECK: tb.tanh
      %tanh = tb.tanh %6 : !tb.tile<4x64xf32>
      // CHECK: tb.rsqrt
      %rsqrt = tb.rsqrt %tanh : !tb.tile<4x64xf32>
      // CHECK: tb.maximum %{{.*}}, %{{.*}} : !tb.tile<4x64xf32>, !tb.tile<4x64xf32>
      %max = tb.maximum %rsqrt, %6 : !tb.tile<4x64xf32>, !tb.tile<4x64xf32>
      // CHECK: tb.mul_scalar %{{.*}}, 2.000000e+00 : !tb.tile<4x64xf32>
      %7 = tb.mul_scalar %max, 2.0 : !tb.tile<4x64xf32>
      // CHECK: tb.add_scalar %{{.*}}, 1.000000e+00 : !tb.tile<4x64xf32>
      %8 = tb.add_scalar %7, 1.0 : !tb.tile<4x64xf32>
      // CHECK: tb.add %{{.*}}, %[[C]] : !tb.tile<4x64xf32>, !tb.tile<4x64xf32>
      %9 = tb.add %8, %u : !tb.tile<4x64xf32>, !tb.tile<4x64xf32>
      // CHECK: tb.sub
      %10 = tb.sub %9, %u : !tb.tile<4x64xf32>, !tb.tile<4x64xf32>
      // CHECK: tb.mul
      %11 = tb.mul %10, %u : !tb.tile<4x64xf32>, !tb.tile<4x64xf32>
      // CHECK: tb.div
      %12 = tb.div %11, %u : !tb.tile<4x64xf32>, !tb.tile<4x64xf32>
      // CHECK: tb.pow
      %13 = tb.pow %12, %u : !tb.tile<4x64xf32>, !tb.tile<4x64xf32>
      // CHECK: %[[ACC:.*]] = tb.accum_concat %{{.*}} dim 1 : !tb.tile<4x64xf32> -> !tb.tile<4x256xf32>
      %acc = tb.accum_concat %13 dim 1 : !tb.tile<4x64xf32> -> !tb.tile<4x256xf32>
      // CHECK: %[[OUT:.*]] = tb.output_saver %[[ACC]] omap <x -> 0> : !tb.tile<4x256xf32> -> tensor<64x256xf32>
      %out = tb.output_saver %acc omap <x -> 0> : !tb.tile<4x256xf32> -> tensor<64x256xf32>
      // CHECK: tb.yield %[[OUT]] : tensor<64x256xf32>
      tb.yield %out : tensor<64x256xf32>
    }
  } : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<64x256xf32>
  return %z : tensor<64x256xf32>
}

// Sum and max accumulators, then post-loop contractions, normalization and
// data movement on the accumulated tiles; two outputs.
// CHECK-LABEL: func.func @post_loop_ops
func.func @post_loop_ops(%x: tensor<32x512xf16>, %w: tensor<512x64xf16>) -> (tensor<32x64xf16>, tensor<32x16xf16>) {
  %z:2 = kn.kernel(%x, %w) {
    tb.graph grid [2] threads 256 forloop 8 {
    ^bb0(%xd: tensor<32x512xf16>, %wd: tensor<512x64xf16>):
      %xt = tb.input_iterator %xd imap <x -> 0> fmap <i -> 1> : tensor<32x512xf16> -> !tb.tile<16x64xf16>
      %wt = tb.input_iterator %wd imap <x -> replica> fmap <i -> 0> : tensor<512x64xf16> -> !tb.tile<64x64xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<16x64xf16>, !tb.tile<64x64xf16>
      // CHECK: tb.accum_sum %{{.*}} : !tb.tile<16x64xf16>
      %acc = tb.accum_sum %p : !tb.tile<16x64xf16>
      // CHECK: tb.accum_max %{{.*}} : !tb.tile<16x64xf16>
      %mx = tb.accum_max %xt : !tb.tile<16x64xf16>
      // CHECK: tb.reduce_sum %{{.*}} dim 1 : !tb.tile<16x64xf16>
      %rs = tb.reduce_sum %acc dim 1 : !tb.tile<16x64xf16>
      // CHECK: tb.reduce_max %{{.*}} dim 1 keepdim = false : !tb.tile<16x64xf16>
      %rm = tb.reduce_max %mx dim 1 keepdim = false : !tb.tile<16x64xf16>
      // CHECK: tb.rms_norm %{{.*}} : !tb.tile<16x64xf16>
      %n = tb.rms_norm %acc : !tb.tile<16x64xf16>
      // CHECK: tb.div %{{.*}}, %{{.*}} : !tb.tile<16x64xf16>, !tb.tile<16x1xf16>
      %d = tb.div %n, %rs : !tb.tile<16x64xf16>, !tb.tile<16x1xf16>
      // CHECK: tb.transpose %{{.*}} permutation [1, 0] : !tb.tile<16x64xf16>
      %t = tb.transpose %d permutation [1, 0] : !tb.tile<16x64xf16>
      // CHECK: tb.reshape %{{.*}} : !tb.tile<64x16xf16> -> !tb.tile<1024xf16>
      %r = tb.reshape %t : !tb.tile<64x16xf16> -> !tb.tile<1024xf16>
      // CHECK: tb.split %{{.*}} dim 0 sizes [512, 512] : !tb.tile<1024xf16>
      %s:2 = tb.split %r dim 0 sizes [512, 512] : !tb.tile<1024xf16>
      // CHECK: tb.concat %{{.*}}, %{{.*}} dim 0 : !tb.tile<512xf16>, !tb.tile<512xf16>
      %c = tb.concat %s#1, %s#0 dim 0 : !tb.tile<512xf16>, !tb.tile<512xf16>
      %c2 = tb.reshape %c : !tb.tile<1024xf16> -> !tb.tile<16x64xf16>
      %o1 = tb.output_saver %c2 omap <x -> 0> : !tb.tile<16x64xf16> -> tensor<32x64xf16>
      %rm2 = tb.reshape %rm : !tb.tile<16xf16> -> !tb.tile<16x1xf16>
      %b = tb.mul %rm2, %rs : !tb.tile<16x1xf16>, !tb.tile<16x1xf16>
      %bb = tb.concat %b, %b, %b, %b, %b, %b, %b, %b, %b, %b, %b, %b, %b, %b, %b, %b dim 1 : !tb.tile<16x1xf16>, !tb.tile<16x1xf16>, !tb.tile<16x1xf16>, !tb.tile<16x1xf16>, !tb.tile<16x1xf16>, !tb.tile<16x1xf16>, !tb.tile<16x1xf16>, !tb.tile<16x1xf16>, !tb.tile<16x1xf16>, !tb.tile<16x1xf16>, !tb.tile<16x1xf16>, !tb.tile<16x1xf16>, !tb.tile<16x1xf16>, !tb.tile<16x1xf16>, !tb.tile<16x1xf16>, !tb.tile<16x1xf16>
      // CHECK: tb.output_saver %{{.*}} omap <x -> 0> : !tb.tile<16x16xf16> -> tensor<32x16xf16>
      %o2 = tb.output_saver %bb omap <x -> 0> : !tb.tile<16x16xf16> -> tensor<32x16xf16>
      // CHECK: tb.yield %{{.*}}, %{{.*}} : tensor<32x64xf16>, tensor<32x16xf16>
      tb.yield %o1, %o2 : tensor<32x64xf16>, tensor<32x16xf16>
    }
  } : (tensor<32x512xf16>, tensor<512x64xf16>) -> (tensor<32x64xf16>, tensor<32x16xf16>)
  return %z#0, %z#1 : tensor<32x64xf16>, tensor<32x16xf16>
}

// Online softmax: per-iteration max, rescaled sums, division after the loop.
// CHECK-LABEL: func.func @online_softmax
func.func @online_softmax(%s: tensor<64x4096xf32>) -> tensor<64x1xf32> {
  %z = kn.kernel(%s) {
    tb.graph grid [4] threads 128 forloop 64 {
    ^bb0(%sd: tensor<64x4096xf32>):
      %st = tb.input_iterator %sd imap <x -> 0> fmap <i -> 1> : tensor<64x4096xf32> -> !tb.tile<16x64xf32>
      %m = tb.reduce_max %st dim 1 : !tb.tile<16x64xf32>
      %sh = tb.sub %st, %m : !tb.tile<16x64xf32>, !tb.tile<16x1xf32>
      %e = tb.exp %sh : !tb.tile<16x64xf32>
      %l = tb.reduce_sum %e dim 1 : !tb.tile<16x64xf32>
      // CHECK: tb.accum_rescaled_sum %{{.*}}, %{{.*}} : !tb.tile<16x1xf32>, !tb.tile<16x1xf32>
      %lacc = tb.accum_rescaled_sum %l, %m : !tb.tile<16x1xf32>, !tb.tile<16x1xf32>
      %out = tb.output_saver %lacc omap <x -> 0> : !tb.tile<16x1xf32> -> tensor<64x1xf32>
      tb.yield %out : tensor<64x1xf32>
    }
  } : (tensor<64x4096xf32>) -> tensor<64x1xf32>
  return %z : tensor<64x1xf32>
}

// A three-dim grid; the same input read twice with different maps; an
// explicit target on the function.
// CHECK-LABEL: func.func @three_dim_grid
// CHECK-SAME: attributes {tb.target = #tb.target<"sm_80", smem = 65536>}
func.func @three_dim_grid(%q: tensor<2x256x64xf16>) -> tensor<2x256x64xf16> attributes {tb.target = #tb.target<"sm_80", smem = 65536>} {
  %z = kn.kernel(%q) {
    // CHECK: tb.graph grid [2, 4, 2] threads 64 forloop 1 {
    tb.graph grid [2, 4, 2] threads 64 forloop 1 {
    ^bb0(%qd: tensor<2x256x64xf16>):
      // CHECK: imap <x -> 0, y -> 1, z -> 2> fmap <i -> replica>
      %a = tb.input_iterator %qd imap <x -> 0, y -> 1, z -> 2> fmap <i -> replica> : tensor<2x256x64xf16> -> !tb.tile<1x64x32xf16>
      %b = tb.input_iterator %qd imap <x -> 0, y -> 1, z -> replica> fmap <i -> replica> : tensor<2x256x64xf16> -> !tb.tile<1x64x64xf16>
      %s = tb.reduce_sum %b dim 2 : !tb.tile<1x64x64xf16>
      %d = tb.div %a, %s : !tb.tile<1x64x32xf16>, !tb.tile<1x64x1xf16>
      // An unlooped graph may save without an accumulator.
      %out = tb.output_saver %d omap <x -> 0, y -> 1, z -> 2> : !tb.tile<1x64x32xf16> -> tensor<2x256x64xf16>
      tb.yield %out : tensor<2x256x64xf16>
    }
  } : (tensor<2x256x64xf16>) -> tensor<2x256x64xf16>
  return %z : tensor<2x256x64xf16>
}

// Target attributes on a module, with a chip the table does not know.
// CHECK-LABEL: func.func @custom_chip
// CHECK-SAME: #tb.target<"sm_999", smem = 1024, regs = 128, threads = 256, sms = 16>
func.func @custom_chip() attributes {tb.target = #tb.target<"sm_999", smem = 1024, regs = 128, threads = 256, sms = 16>} {
  return
}
