// Gated MLP (Falcon-7B-style up projection with a SiLU gate), Mirage
// benchmark shapes: X [8 * batch, 4096], W1 and W2 [4096, 4096], fp16.
//   out = silu(X @ W1) * (X @ W2)

func.func @gated_mlp_bs1(%x: tensor<8x4096xf16>, %w1: tensor<4096x4096xf16>, %w2: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  %a = kn.matmul %x, %w1 : tensor<8x4096xf16>, tensor<4096x4096xf16>
  %b = kn.matmul %x, %w2 : tensor<8x4096xf16>, tensor<4096x4096xf16>
  %gate = kn.silu %a : tensor<8x4096xf16>
  %out = kn.mul %gate, %b : tensor<8x4096xf16>, tensor<8x4096xf16>
  return %out : tensor<8x4096xf16>
}

func.func @gated_mlp_bs8(%x: tensor<64x4096xf16>, %w1: tensor<4096x4096xf16>, %w2: tensor<4096x4096xf16>) -> tensor<64x4096xf16> {
  %a = kn.matmul %x, %w1 : tensor<64x4096xf16>, tensor<4096x4096xf16>
  %b = kn.matmul %x, %w2 : tensor<64x4096xf16>, tensor<4096x4096xf16>
  %gate = kn.silu %a : tensor<64x4096xf16>
  %out = kn.mul %gate, %b : tensor<64x4096xf16>, tensor<64x4096xf16>
  return %out : tensor<64x4096xf16>
}

// One fused kernel (the µGraph of Mirage v3 Fig. 10b): both matmuls share the
// X tile in the loop body; SiLU and the product run after the loop. Each block
// owns 64 output columns and loops over the hidden dim 64 at a time. Built
// step by step in docs/WritingBlockGraphs.md.
func.func @gated_mlp_bs1_fused(%x: tensor<8x4096xf16>, %w1: tensor<4096x4096xf16>, %w2: tensor<4096x4096xf16>) -> tensor<8x4096xf16> attributes {kn.reference = @gated_mlp_bs1} {
  %out = kn.kernel(%x, %w1, %w2) {
    tb.graph grid [64] threads 128 forloop 64 {
    ^bb0(%xd: tensor<8x4096xf16>, %w1d: tensor<4096x4096xf16>, %w2d: tensor<4096x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<8x4096xf16> -> !tb.tile<8x64xf16>
      %w1t = tb.input_iterator %w1d imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<64x64xf16>
      %w2t = tb.input_iterator %w2d imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<64x64xf16>
      %p1 = tb.matmul %xt, %w1t : !tb.tile<8x64xf16>, !tb.tile<64x64xf16>
      %p2 = tb.matmul %xt, %w2t : !tb.tile<8x64xf16>, !tb.tile<64x64xf16>
      %a = tb.accum_sum %p1 : !tb.tile<8x64xf16>
      %b = tb.accum_sum %p2 : !tb.tile<8x64xf16>
      %gate = tb.silu %a : !tb.tile<8x64xf16>
      %prod = tb.mul %gate, %b : !tb.tile<8x64xf16>, !tb.tile<8x64xf16>
      %o = tb.output_saver %prod omap <x -> 1> : !tb.tile<8x64xf16> -> tensor<8x4096xf16>
      tb.yield %o : tensor<8x4096xf16>
    }
  } : (tensor<8x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<8x4096xf16>
  return %out : tensor<8x4096xf16>
}
