// Prefill-sized projections (512 tokens, 2048 to 1024 features, fp16): the
// compute-bound matmuls whose tiles fill a warpgroup, for the wgmma path
// (mirage-to-ptx wgmma=true; docs/Codegen.md). The weight is [k, n] in
// @prefill_linear (wgmma's N-major B) and nn.Linear's [n, k] in
// @prefill_linear_t, read in place through the transpose (K-major B).

func.func @prefill_linear(%x: tensor<512x2048xf16>, %w: tensor<2048x1024xf16>) -> tensor<512x1024xf16> {
  %y = kn.matmul %x, %w : tensor<512x2048xf16>, tensor<2048x1024xf16>
  return %y : tensor<512x1024xf16>
}

func.func @prefill_linear_t(%x: tensor<512x2048xf16>, %w: tensor<1024x2048xf16>) -> tensor<512x1024xf16> {
  %wt = kn.transpose %w permutation [1, 0] : tensor<1024x2048xf16>
  %y = kn.matmul %x, %wt : tensor<512x2048xf16>, tensor<2048x1024xf16>
  return %y : tensor<512x1024xf16>
}

// Hand-tiled: two warpgroups per block, each multiplying 64 rows by a
// 128-column weight tile (two 128-byte column blocks of the N-major B).
func.func @prefill_linear_small(%x: tensor<128x512xf16>, %w: tensor<512x512xf16>) -> tensor<128x512xf16> {
  %y = kn.matmul %x, %w : tensor<128x512xf16>, tensor<512x512xf16>
  return %y : tensor<128x512xf16>
}

func.func @prefill_linear_small_tiled(%x: tensor<128x512xf16>, %w: tensor<512x512xf16>) -> tensor<128x512xf16> attributes {kn.reference = @prefill_linear_small} {
  %y = kn.kernel(%x, %w) {
    tb.graph grid [4] threads 256 forloop 8 {
    ^bb0(%xd: tensor<128x512xf16>, %wd: tensor<512x512xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<128x512xf16> -> !tb.tile<128x64xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<512x512xf16> -> !tb.tile<64x128xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<128x64xf16>, !tb.tile<64x128xf16>
      %s = tb.accum_sum %p : !tb.tile<128x128xf16>
      %out = tb.output_saver %s omap <x -> 1> : !tb.tile<128x128xf16> -> tensor<128x512xf16>
      tb.yield %out : tensor<128x512xf16>
    }
  } : (tensor<128x512xf16>, tensor<512x512xf16>) -> tensor<128x512xf16>
  return %y : tensor<128x512xf16>
}
