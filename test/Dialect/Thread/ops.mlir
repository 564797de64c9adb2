// Every th op round-trips through the custom and the generic form.
// RUN: mirage-opt %s | mirage-opt | FileCheck %s
// RUN: mirage-opt %s --mlir-print-op-generic | mirage-opt | FileCheck %s

// The post-loop chain of RMSNorm + Linear (Mirage v3 Fig. 3b) fused into a
// thread graph: C = B / sqrt(A / 4096), one element per thread.
// CHECK-LABEL: func.func @rms_epilogue
func.func @rms_epilogue(%x: tensor<2x4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<2x6144xf16> {
  %z = kn.kernel(%x, %w) {
    tb.graph grid [96] threads 128 forloop 64 {
    ^bb0(%xd: tensor<2x4096xf16>, %wd: tensor<4096x6144xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<2x4096xf16> -> !tb.tile<2x64xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x6144xf16> -> !tb.tile<64x64xf16>
      %sq = tb.square %xt : !tb.tile<2x64xf16>
      %ss = tb.reduce_sum %sq dim 1 : !tb.tile<2x64xf16>
      %a = tb.accum_sum %ss : !tb.tile<2x1xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<2x64xf16>, !tb.tile<64x64xf16>
      %b = tb.accum_sum %p : !tb.tile<2x64xf16>
      // CHECK: %[[C:.*]] = th.graph(%{{.*}}, %{{.*}}) threads [2, 64] forloop 1 {
      %c = th.graph(%a, %b) threads [2, 64] forloop 1 {
      ^bb0(%at: !tb.tile<2x1xf16>, %bt: !tb.tile<2x64xf16>):
        // CHECK: th.input_iterator %{{.*}} imap <x -> 0, y -> replica> fmap <i -> replica> : !tb.tile<2x1xf16> -> !th.frag<1x1xf16>
        %af = th.input_iterator %at imap <x -> 0, y -> replica> fmap <i -> replica> : !tb.tile<2x1xf16> -> !th.frag<1x1xf16>
        %bf = th.input_iterator %bt imap <x -> 0, y -> 1> fmap <i -> replica> : !tb.tile<2x64xf16> -> !th.frag<1x1xf16>
        // CHECK: th.mul_scalar %{{.*}}, 2.44140625E-4 : !th.frag<1x1xf16>
        %mean = th.mul_scalar %af, 2.44140625e-4 : !th.frag<1x1xf16>
        // CHECK: th.sqrt
        %rms = th.sqrt %mean : !th.frag<1x1xf16>
        // CHECK: th.div %{{.*}}, %{{.*}} : !th.frag<1x1xf16>, !th.frag<1x1xf16>
        %q = th.div %bf, %rms : !th.frag<1x1xf16>, !th.frag<1x1xf16>
        // CHECK: th.output_saver %{{.*}} omap <x -> 0, y -> 1> : !th.frag<1x1xf16> -> !tb.tile<2x64xf16>
        %ct = th.output_saver %q omap <x -> 0, y -> 1> : !th.frag<1x1xf16> -> !tb.tile<2x64xf16>
        // CHECK: th.yield %{{.*}} : !tb.tile<2x64xf16>
        th.yield %ct : !tb.tile<2x64xf16>
      // CHECK: } : (!tb.tile<2x1xf16>, !tb.tile<2x64xf16>) -> !tb.tile<2x64xf16>
      } : (!tb.tile<2x1xf16>, !tb.tile<2x64xf16>) -> !tb.tile<2x64xf16>
      // CHECK: tb.output_saver %[[C]]
      %out = tb.output_saver %c omap <x -> 1> : !tb.tile<2x64xf16> -> tensor<2x6144xf16>
      tb.yield %out : tensor<2x6144xf16>
    }
  } : (tensor<2x4096xf16>, tensor<4096x6144xf16>) -> tensor<2x6144xf16>
  return %z : tensor<2x6144xf16>
}

// A looped thread graph: each thread walks its row in 4 iterations, with the
// remaining th compute ops, the three accumulators and a register matmul.
// CHECK-LABEL: func.func @looped_thread_graph
func.func @looped_thread_graph(%x: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16x1xf32>, tensor<16x1xf32>) {
  %z:3 = kn.kernel(%x) {
    tb.graph grid [1] threads 32 forloop 1 {
    ^bb0(%xd: tensor<16x64xf32>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> replica> : tensor<16x64xf32> -> !tb.tile<16x64xf32>
      // CHECK: th.graph(%{{.*}}) threads [16] forloop 4 {
      %r:3 = th.graph(%xt) threads [16] forloop 4 {
      ^bb0(%t: !tb.tile<16x64xf32>):
        %f = th.input_iterator %t imap <x -> 0> fmap <i -> 1> : !tb.tile<16x64xf32> -> !th.frag<1x16xf32>
        %0 = th.exp %f : !th.frag<1x16xf32>
        %1 = th.sqrt %0 : !th.frag<1x16xf32>
        %2 = th.square %1 : !th.frag<1x16xf32>
        %3 = th.silu %2 : !th.frag<1x16xf32>
        // CHECK: th.sigmoid
        %sg = th.sigmoid %3 : !th.frag<1x16xf32>
        %4 = th.gelu %sg : !th.frag<1x16xf32>
        %5 = th.relu %4 : !th.frag<1x16xf32>
        %n = th.neg %5 : !th.frag<1x16xf32>
        // CHECK: th.tanh
        %tanh = th.tanh %n : !th.frag<1x16xf32>
        // CHECK: th.rsqrt
        %rsqrt = th.rsqrt %tanh : !th.frag<1x16xf32>
        // CHECK: th.maximum
        %6 = th.maximum %rsqrt, %n : !th.frag<1x16xf32>, !th.frag<1x16xf32>
        %7 = th.add_scalar %6, 1.0 : !th.frag<1x16xf32>
        %8 = th.add %7, %f : !th.frag<1x16xf32>, !th.frag<1x16xf32>
        %9 = th.sub %8, %f : !th.frag<1x16xf32>, !th.frag<1x16xf32>
        %10 = th.mul %9, %f : !th.frag<1x16xf32>, !th.frag<1x16xf32>
        %11 = th.pow %10, %f : !th.frag<1x16xf32>, !th.frag<1x16xf32>
        // CHECK: th.accum_concat %{{.*}} dim 1 : !th.frag<1x16xf32> -> !th.frag<1x64xf32>
        %row = th.accum_concat %11 dim 1 : !th.frag<1x16xf32> -> !th.frag<1x64xf32>
        // CHECK: th.reduce_sum %{{.*}} dim 1 : !th.frag<1x16xf32>
        %s = th.reduce_sum %f dim 1 : !th.frag<1x16xf32>
        // CHECK: th.accum_sum %{{.*}} : !th.frag<1x1xf32>
        %sum = th.accum_sum %s : !th.frag<1x1xf32>
        // CHECK: th.reduce_max %{{.*}} dim 1 : !th.frag<1x16xf32>
        %m = th.reduce_max %f dim 1 : !th.frag<1x16xf32>
        // CHECK: th.accum_max %{{.*}} : !th.frag<1x1xf32>
        %max = th.accum_max %m : !th.frag<1x1xf32>
        // CHECK: th.matmul %{{.*}}, %{{.*}} : !th.frag<1x1xf32>, !th.frag<1x1xf32>
        %prod = th.matmul %sum, %max : !th.frag<1x1xf32>, !th.frag<1x1xf32>
        %o0 = th.output_saver %row omap <x -> 0> : !th.frag<1x64xf32> -> !tb.tile<16x64xf32>
        %o1 = th.output_saver %prod omap <x -> 0> : !th.frag<1x1xf32> -> !tb.tile<16x1xf32>
        %o2 = th.output_saver %max omap <x -> 0> : !th.frag<1x1xf32> -> !tb.tile<16x1xf32>
        th.yield %o0, %o1, %o2 : !tb.tile<16x64xf32>, !tb.tile<16x1xf32>, !tb.tile<16x1xf32>
      } : (!tb.tile<16x64xf32>) -> (!tb.tile<16x64xf32>, !tb.tile<16x1xf32>, !tb.tile<16x1xf32>)
      %a = tb.output_saver %r#0 omap <x -> 0> : !tb.tile<16x64xf32> -> tensor<16x64xf32>
      %b = tb.output_saver %r#1 omap <x -> 0> : !tb.tile<16x1xf32> -> tensor<16x1xf32>
      %c = tb.output_saver %r#2 omap <x -> 0> : !tb.tile<16x1xf32> -> tensor<16x1xf32>
      tb.yield %a, %b, %c : tensor<16x64xf32>, tensor<16x1xf32>, tensor<16x1xf32>
    }
  } : (tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16x1xf32>, tensor<16x1xf32>)
  return %z#0, %z#1, %z#2 : tensor<16x64xf32>, tensor<16x1xf32>, tensor<16x1xf32>
}
