// RMSNorm followed by a linear layer (LLaMA-2-7B hidden size 4096, output
// 6144), the running example of Mirage v3 (Fig. 3). Shapes follow the Mirage
// benchmark: X [2 * batch, 4096], gain G [4096], W [4096, 6144], fp16.
//
// The reference programs launch two kernels: the normalization, then the
// matmul. The fused µGraphs below compute the same result in one kernel by
// moving the division after the matmul (Z = (X * G) @ W / rms(X)): each
// block owns 64 output columns and loops over the hidden dim 64 at a time,
// accumulating the sum of squares and the matmul side by side; a thread
// graph fuses the post-loop scale, square root and division in registers.

func.func @rmsnorm_linear_bs1(%x: tensor<2x4096xf16>, %g: tensor<4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<2x6144xf16> {
  %y = kn.rms_norm %x weight %g {eps = 1.0e-6 : f64} : tensor<2x4096xf16>, tensor<4096xf16>
  %z = kn.matmul %y, %w : tensor<2x4096xf16>, tensor<4096x6144xf16>
  return %z : tensor<2x6144xf16>
}

func.func @rmsnorm_linear_bs8(%x: tensor<16x4096xf16>, %g: tensor<4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<16x6144xf16> {
  %y = kn.rms_norm %x weight %g {eps = 1.0e-6 : f64} : tensor<16x4096xf16>, tensor<4096xf16>
  %z = kn.matmul %y, %w : tensor<16x4096xf16>, tensor<4096x6144xf16>
  return %z : tensor<16x6144xf16>
}

func.func @rmsnorm_linear_bs1_fused(%x: tensor<2x4096xf16>, %g: tensor<4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<2x6144xf16> attributes {kn.reference = @rmsnorm_linear_bs1} {
  %z = kn.kernel(%x, %g, %w) {
    tb.graph grid [96] threads 128 forloop 64 {
    ^bb0(%xd: tensor<2x4096xf16>, %gd: tensor<4096xf16>, %wd: tensor<4096x6144xf16>):
      // Loop body: a 64-wide slice of the hidden dim per iteration.
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<2x4096xf16> -> !tb.tile<2x64xf16>
      %gt = tb.input_iterator %gd imap <x -> replica> fmap <i -> 0> : tensor<4096xf16> -> !tb.tile<64xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x6144xf16> -> !tb.tile<64x64xf16>
      %xg = tb.mul %xt, %gt : !tb.tile<2x64xf16>, !tb.tile<64xf16>
      %p = tb.matmul %xg, %wt : !tb.tile<2x64xf16>, !tb.tile<64x64xf16>
      %b = tb.accum_sum %p : !tb.tile<2x64xf16>
      %sq = tb.square %xt : !tb.tile<2x64xf16>
      %ss = tb.reduce_sum %sq dim 1 : !tb.tile<2x64xf16>
      %a = tb.accum_sum %ss : !tb.tile<2x1xf16>
      // After the loop: Z = B / sqrt(A / 4096 + eps), one element per thread.
      %c = th.graph(%a, %b) threads [2, 64] forloop 1 {
      ^bb0(%at: !tb.tile<2x1xf16>, %bt: !tb.tile<2x64xf16>):
        %af = th.input_iterator %at imap <x -> 0, y -> replica> fmap <i -> replica> : !tb.tile<2x1xf16> -> !th.frag<1x1xf16>
        %bf = th.input_iterator %bt imap <x -> 0, y -> 1> fmap <i -> replica> : !tb.tile<2x64xf16> -> !th.frag<1x1xf16>
        %mean = th.mul_scalar %af, 2.44140625e-4 : !th.frag<1x1xf16>
        %shifted = th.add_scalar %mean, 1.0e-6 : !th.frag<1x1xf16>
        %rms = th.sqrt %shifted : !th.frag<1x1xf16>
        %q = th.div %bf, %rms : !th.frag<1x1xf16>, !th.frag<1x1xf16>
        %ct = th.output_saver %q omap <x -> 0, y -> 1> : !th.frag<1x1xf16> -> !tb.tile<2x64xf16>
        th.yield %ct : !tb.tile<2x64xf16>
      } : (!tb.tile<2x1xf16>, !tb.tile<2x64xf16>) -> !tb.tile<2x64xf16>
      %out = tb.output_saver %c omap <x -> 1> : !tb.tile<2x64xf16> -> tensor<2x6144xf16>
      tb.yield %out : tensor<2x6144xf16>
    }
  } : (tensor<2x4096xf16>, tensor<4096xf16>, tensor<4096x6144xf16>) -> tensor<2x6144xf16>
  return %z : tensor<2x6144xf16>
}

func.func @rmsnorm_linear_bs8_fused(%x: tensor<16x4096xf16>, %g: tensor<4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<16x6144xf16> attributes {kn.reference = @rmsnorm_linear_bs8} {
  %z = kn.kernel(%x, %g, %w) {
    tb.graph grid [96] threads 128 forloop 64 {
    ^bb0(%xd: tensor<16x4096xf16>, %gd: tensor<4096xf16>, %wd: tensor<4096x6144xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<16x4096xf16> -> !tb.tile<16x64xf16>
      %gt = tb.input_iterator %gd imap <x -> replica> fmap <i -> 0> : tensor<4096xf16> -> !tb.tile<64xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x6144xf16> -> !tb.tile<64x64xf16>
      %xg = tb.mul %xt, %gt : !tb.tile<16x64xf16>, !tb.tile<64xf16>
      %p = tb.matmul %xg, %wt : !tb.tile<16x64xf16>, !tb.tile<64x64xf16>
      %b = tb.accum_sum %p : !tb.tile<16x64xf16>
      %sq = tb.square %xt : !tb.tile<16x64xf16>
      %ss = tb.reduce_sum %sq dim 1 : !tb.tile<16x64xf16>
      %a = tb.accum_sum %ss : !tb.tile<16x1xf16>
      // Each of the 128 threads owns 8 consecutive elements of one row.
      %c = th.graph(%a, %b) threads [16, 8] forloop 1 {
      ^bb0(%at: !tb.tile<16x1xf16>, %bt: !tb.tile<16x64xf16>):
        %af = th.input_iterator %at imap <x -> 0, y -> replica> fmap <i -> replica> : !tb.tile<16x1xf16> -> !th.frag<1x1xf16>
        %bf = th.input_iterator %bt imap <x -> 0, y -> 1> fmap <i -> replica> : !tb.tile<16x64xf16> -> !th.frag<1x8xf16>
        %mean = th.mul_scalar %af, 2.44140625e-4 : !th.frag<1x1xf16>
        %shifted = th.add_scalar %mean, 1.0e-6 : !th.frag<1x1xf16>
        %rms = th.sqrt %shifted : !th.frag<1x1xf16>
        %q = th.div %bf, %rms : !th.frag<1x8xf16>, !th.frag<1x1xf16>
        %ct = th.output_saver %q omap <x -> 0, y -> 1> : !th.frag<1x8xf16> -> !tb.tile<16x64xf16>
        th.yield %ct : !tb.tile<16x64xf16>
      } : (!tb.tile<16x1xf16>, !tb.tile<16x64xf16>) -> !tb.tile<16x64xf16>
      %out = tb.output_saver %c omap <x -> 1> : !tb.tile<16x64xf16> -> tensor<16x6144xf16>
      tb.yield %out : tensor<16x6144xf16>
    }
  } : (tensor<16x4096xf16>, tensor<4096xf16>, tensor<4096x6144xf16>) -> tensor<16x6144xf16>
  return %z : tensor<16x6144xf16>
}
