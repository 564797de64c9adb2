// RUN: mirage-opt %s --tb-report-resources --verify-diagnostics | FileCheck %s

// The pass reports and leaves the IR unchanged.
// CHECK-LABEL: func.func @with_thread_graph
// CHECK: th.graph
func.func @with_thread_graph(%x: tensor<2x4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<2x6144xf16> {
  %z = kn.kernel(%x, %w) {
    // As the lowering places it: x 2x64 and w 64x64 f16 in 8 pipeline
    // stages (8 x 8448 bytes), the two sums in f32 (512 and 8 bytes, on
    // 128-byte offsets); the matmul is summed in registers (8 a thread) and
    // written to its tile after the loop. The thread graph's fragments (3
    // live at once, 1 element each) are f32 registers: 12 bytes.
    // expected-remark @below {{block graph: grid [96] = 96 blocks x 128 threads, forloop 64; shared memory 68224 / 232448 bytes (29.4%) on sm_90a with 8 pipeline stages; 8 registers per thread for tensor-core accumulators; 2 input iterators, 3 loop-body ops, 2 accumulators, 1 post-loop op, 1 output saver; 1 thread graph, peak 12 register bytes per thread}}
    tb.graph grid [96] threads 128 forloop 64 {
    ^bb0(%xd: tensor<2x4096xf16>, %wd: tensor<4096x6144xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<2x4096xf16> -> !tb.tile<2x64xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x6144xf16> -> !tb.tile<64x64xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<2x64xf16>, !tb.tile<64x64xf16>
      %b = tb.accum_sum %p : !tb.tile<2x64xf16>
      %sq = tb.square %xt : !tb.tile<2x64xf16>
      %ss = tb.reduce_sum %sq dim 1 : !tb.tile<2x64xf16>
      %a = tb.accum_sum %ss : !tb.tile<2x1xf16>
      %c = th.graph(%a, %b) threads [2, 64] forloop 1 {
      ^bb0(%at: !tb.tile<2x1xf16>, %bt: !tb.tile<2x64xf16>):
        %af = th.input_iterator %at imap <x -> 0, y -> replica> fmap <i -> replica> : !tb.tile<2x1xf16> -> !th.frag<1x1xf16>
        %bf = th.input_iterator %bt imap <x -> 0, y -> 1> fmap <i -> replica> : !tb.tile<2x64xf16> -> !th.frag<1x1xf16>
        %r = th.sqrt %af : !th.frag<1x1xf16>
        %q = th.div %bf, %r : !th.frag<1x1xf16>, !th.frag<1x1xf16>
        %ct = th.output_saver %q omap <x -> 0, y -> 1> : !th.frag<1x1xf16> -> !tb.tile<2x64xf16>
        th.yield %ct : !tb.tile<2x64xf16>
      } : (!tb.tile<2x1xf16>, !tb.tile<2x64xf16>) -> !tb.tile<2x64xf16>
      %out = tb.output_saver %c omap <x -> 1> : !tb.tile<2x64xf16> -> tensor<2x6144xf16>
      tb.yield %out : tensor<2x6144xf16>
    }
  } : (tensor<2x4096xf16>, tensor<4096x6144xf16>) -> tensor<2x6144xf16>
  return %z : tensor<2x6144xf16>
}

// A two-dim grid without thread graphs, checked against a smaller target;
// the exponential reads its input from device memory and stores its result
// as it computes it: no shared memory at all.
// CHECK-LABEL: func.func @smaller_target
func.func @smaller_target(%x: tensor<8x64xf32>) -> tensor<8x64xf32> attributes {tb.target = #tb.target<"sm_86">} {
  %z = kn.kernel(%x) {
    // expected-remark @below {{block graph: grid [2, 4] = 8 blocks x 32 threads, forloop 1; shared memory 0 / 101376 bytes (0.0%) on sm_86; 1 input iterator, 1 loop-body op, 0 accumulators, 0 post-loop ops, 1 output saver}}
    tb.graph grid [2, 4] threads 32 forloop 1 {
    ^bb0(%xd: tensor<8x64xf32>):
      %t = tb.input_iterator %xd imap <x -> 0, y -> 1> fmap <i -> replica> : tensor<8x64xf32> -> !tb.tile<4x16xf32>
      %e = tb.exp %t : !tb.tile<4x16xf32>
      %o = tb.output_saver %e omap <x -> 0, y -> 1> : !tb.tile<4x16xf32> -> tensor<8x64xf32>
      tb.yield %o : tensor<8x64xf32>
    }
  } : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return %z : tensor<8x64xf32>
}

// Kernel graphs without block graphs get no report.
// CHECK-LABEL: func.func @no_block_graph
func.func @no_block_graph(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e = kn.exp %x : tensor<8x64xf32>
  return %e : tensor<8x64xf32>
}
