// Every kn op round-trips through the custom and the generic form.
// RUN: mirage-opt %s | mirage-opt | FileCheck %s
// RUN: mirage-opt %s --mlir-print-op-generic | mirage-opt | FileCheck %s

// CHECK-LABEL: func.func @elementwise_unary
// CHECK-SAME: (%[[X:.*]]: tensor<2x64xf16>)
func.func @elementwise_unary(%x: tensor<2x64xf16>) -> tensor<2x64xf16> {
  // CHECK: %[[A:.*]] = kn.exp %[[X]] : tensor<2x64xf16>
  %a = kn.exp %x : tensor<2x64xf16>
  // CHECK: %[[B:.*]] = kn.sqrt %[[A]] : tensor<2x64xf16>
  %b = kn.sqrt %a : tensor<2x64xf16>
  // CHECK: %[[C:.*]] = kn.square %[[B]] : tensor<2x64xf16>
  %c = kn.square %b : tensor<2x64xf16>
  // CHECK: %[[D:.*]] = kn.silu %[[C]] : tensor<2x64xf16>
  %d = kn.silu %c : tensor<2x64xf16>
  // CHECK: %[[S:.*]] = kn.sigmoid %[[D]] : tensor<2x64xf16>
  %s = kn.sigmoid %d : tensor<2x64xf16>
  // CHECK: %[[E:.*]] = kn.gelu %[[S]] : tensor<2x64xf16>
  %e = kn.gelu %s : tensor<2x64xf16>
  // CHECK: %[[F:.*]] = kn.relu %[[E]] : tensor<2x64xf16>
  %f = kn.relu %e : tensor<2x64xf16>
  // CHECK: %[[G:.*]] = kn.neg %[[F]] : tensor<2x64xf16>
  %g = kn.neg %f : tensor<2x64xf16>
  // CHECK: %[[T:.*]] = kn.tanh %[[G]] : tensor<2x64xf16>
  %t = kn.tanh %g : tensor<2x64xf16>
  // CHECK: %[[R:.*]] = kn.rsqrt %[[T]] : tensor<2x64xf16>
  %r = kn.rsqrt %t : tensor<2x64xf16>
  // CHECK: %[[M:.*]] = kn.maximum %[[R]], %[[G]] : tensor<2x64xf16>, tensor<2x64xf16>
  %m = kn.maximum %r, %g : tensor<2x64xf16>, tensor<2x64xf16>
  // CHECK: %[[H:.*]] = kn.mul_scalar %[[M]], 1.250000e-01 : tensor<2x64xf16>
  %h = kn.mul_scalar %m, 0.125 : tensor<2x64xf16>
  // CHECK: %[[I:.*]] = kn.add_scalar %[[H]], 9.9999999999999995E-7 : tensor<2x64xf16>
  %i = kn.add_scalar %h, 1.0e-6 : tensor<2x64xf16>
  return %i : tensor<2x64xf16>
}

// CHECK-LABEL: func.func @elementwise_binary_broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<2x64xbf16>, %[[R:.*]]: tensor<2x1xbf16>, %[[C:.*]]: tensor<64xbf16>)
func.func @elementwise_binary_broadcast(%x: tensor<2x64xbf16>, %r: tensor<2x1xbf16>, %c: tensor<64xbf16>) -> tensor<2x64xbf16> {
  // CHECK: %[[A:.*]] = kn.add %[[X]], %[[R]] : tensor<2x64xbf16>, tensor<2x1xbf16>
  %a = kn.add %x, %r : tensor<2x64xbf16>, tensor<2x1xbf16>
  // CHECK: %[[B:.*]] = kn.sub %[[A]], %[[C]] : tensor<2x64xbf16>, tensor<64xbf16>
  %b = kn.sub %a, %c : tensor<2x64xbf16>, tensor<64xbf16>
  // CHECK: %[[M:.*]] = kn.mul %[[R]], %[[C]] : tensor<2x1xbf16>, tensor<64xbf16>
  %m = kn.mul %r, %c : tensor<2x1xbf16>, tensor<64xbf16>
  // CHECK: %[[D:.*]] = kn.div %[[B]], %[[M]] : tensor<2x64xbf16>, tensor<2x64xbf16>
  %d = kn.div %b, %m : tensor<2x64xbf16>, tensor<2x64xbf16>
  // CHECK: %[[P:.*]] = kn.pow %[[D]], %[[R]] : tensor<2x64xbf16>, tensor<2x1xbf16>
  %p = kn.pow %d, %r : tensor<2x64xbf16>, tensor<2x1xbf16>
  return %p : tensor<2x64xbf16>
}

// CHECK-LABEL: func.func @matmul_batched
func.func @matmul_batched(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>, %w: tensor<64x32xf16>) -> (tensor<2x256x4096xf16>, tensor<2x256x32xf16>) {
  // CHECK: kn.matmul %{{.*}}, %{{.*}} : tensor<2x256x64xf16>, tensor<2x64x4096xf16>
  %s = kn.matmul %q, %k : tensor<2x256x64xf16>, tensor<2x64x4096xf16>
  // Batch dims broadcast: a 2-D rhs applies to every batch.
  // CHECK: kn.matmul %{{.*}}, %{{.*}} : tensor<2x256x64xf16>, tensor<64x32xf16>
  %p = kn.matmul %q, %w : tensor<2x256x64xf16>, tensor<64x32xf16>
  return %s, %p : tensor<2x256x4096xf16>, tensor<2x256x32xf16>
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<2x256x4096xf32>) -> (tensor<2x256x1xf32>, tensor<2x256xf32>) {
  // CHECK: kn.reduce_sum %{{.*}} dim 2 : tensor<2x256x4096xf32>
  %s = kn.reduce_sum %x dim 2 : tensor<2x256x4096xf32>
  // CHECK: kn.reduce_max %{{.*}} dim 2 keepdim = false : tensor<2x256x4096xf32>
  %m = kn.reduce_max %x dim 2 keepdim = false : tensor<2x256x4096xf32>
  return %s, %m : tensor<2x256x1xf32>, tensor<2x256xf32>
}

// CHECK-LABEL: func.func @rms_norm
func.func @rms_norm(%x: tensor<8x4096xf16>, %g: tensor<4096xf16>) -> (tensor<8x4096xf16>, tensor<8x4096xf16>) {
  // CHECK: kn.rms_norm %{{.*}} weight %{{.*}} : tensor<8x4096xf16>, tensor<4096xf16>
  %a = kn.rms_norm %x weight %g : tensor<8x4096xf16>, tensor<4096xf16>
  // CHECK: kn.rms_norm %{{.*}} {eps = 9.9999999999999995E-7 : f64} : tensor<8x4096xf16>
  %b = kn.rms_norm %x {eps = 1.0e-6 : f64} : tensor<8x4096xf16>
  return %a, %b : tensor<8x4096xf16>, tensor<8x4096xf16>
}

// CHECK-LABEL: func.func @data_movement
func.func @data_movement(%w: tensor<256x4096xf16>, %b: tensor<16x4096xf16>) -> (tensor<4096x272xf16>, tensor<16x256xf16>) {
  // CHECK: %[[C:.*]] = kn.concat %{{.*}}, %{{.*}} dim 0 : tensor<256x4096xf16>, tensor<16x4096xf16>
  %c = kn.concat %w, %b dim 0 : tensor<256x4096xf16>, tensor<16x4096xf16>
  // CHECK: %[[S:.*]]:2 = kn.split %[[C]] dim 0 sizes [256, 16] : tensor<272x4096xf16>
  %s:2 = kn.split %c dim 0 sizes [256, 16] : tensor<272x4096xf16>
  // CHECK: %[[T:.*]] = kn.transpose %[[C]] permutation [1, 0] : tensor<272x4096xf16>
  %t = kn.transpose %c permutation [1, 0] : tensor<272x4096xf16>
  // CHECK: kn.reshape %[[S]]#0 : tensor<256x4096xf16> -> tensor<16x256x256xf16>
  %r = kn.reshape %s#0 : tensor<256x4096xf16> -> tensor<16x256x256xf16>
  // CHECK: kn.reduce_sum
  %sum = kn.reduce_sum %r dim 2 keepdim = false : tensor<16x256x256xf16>
  return %t, %sum : tensor<4096x272xf16>, tensor<16x256xf16>
}

// CHECK-LABEL: func.func @all_reduce
func.func @all_reduce(%partial: tensor<16x4096xf16>) -> tensor<16x4096xf16> {
  // CHECK: kn.all_reduce %{{.*}} : tensor<16x4096xf16>
  %s = kn.all_reduce %partial : tensor<16x4096xf16>
  return %s : tensor<16x4096xf16>
}

// CHECK-LABEL: func.func @graph_defined_kernel
// CHECK-SAME: (%[[X:.*]]: tensor<2x4096xf16>, %[[W:.*]]: tensor<4096x6144xf16>)
func.func @graph_defined_kernel(%x: tensor<2x4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<2x6144xf16> {
  // CHECK: %[[Z:.*]] = kn.kernel(%[[X]], %[[W]]) {
  // CHECK-NEXT: tb.graph grid [96] threads 128 forloop 64 {
  // CHECK: tb.yield
  // CHECK: } : (tensor<2x4096xf16>, tensor<4096x6144xf16>) -> tensor<2x6144xf16>
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
  // CHECK: return %[[Z]]
  return %z : tensor<2x6144xf16>
}
