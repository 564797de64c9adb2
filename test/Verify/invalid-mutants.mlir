// Mutations that break the tiling are rejected by the IR verifier before any
// fingerprint: the tile types no longer follow from the maps and the loop.
// RUN: mirage-opt %s -split-input-file -verify-diagnostics

// A wrong loop range for the fused RMSNorm + Linear: 32 iterations over the
// 64-wide tiles of a 64-iteration loop.
func.func @wrong_loop_range(%x: tensor<2x4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<2x6144xf16> {
  %z = kn.kernel(%x, %w) {
    tb.graph grid [96] threads 128 forloop 32 {
    ^bb0(%xd: tensor<2x4096xf16>, %wd: tensor<4096x6144xf16>):
      // expected-error @below {{'tb.input_iterator' op result #0 has shape 2x64 but should have shape 2x128}}
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<2x4096xf16> -> !tb.tile<2x64xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x6144xf16> -> !tb.tile<64x64xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<2x64xf16>, !tb.tile<64x64xf16>
      %acc = tb.accum_sum %p : !tb.tile<2x64xf16>
      %out = tb.output_saver %acc omap <x -> 1> : !tb.tile<2x64xf16> -> tensor<2x6144xf16>
      tb.yield %out : tensor<2x6144xf16>
    }
  } : (tensor<2x4096xf16>, tensor<4096x6144xf16>) -> tensor<2x6144xf16>
  return %z : tensor<2x6144xf16>
}

// -----

// A wrong fmap: the loop over W's columns instead of its rows.
func.func @wrong_fmap(%x: tensor<2x4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<2x6144xf16> {
  %z = kn.kernel(%x, %w) {
    tb.graph grid [96] threads 128 forloop 64 {
    ^bb0(%xd: tensor<2x4096xf16>, %wd: tensor<4096x6144xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<2x4096xf16> -> !tb.tile<2x64xf16>
      // expected-error @below {{'tb.input_iterator' op result #0 has shape 64x64 but should have shape 4096x1}}
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 1> : tensor<4096x6144xf16> -> !tb.tile<64x64xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<2x64xf16>, !tb.tile<64x64xf16>
      %acc = tb.accum_sum %p : !tb.tile<2x64xf16>
      %out = tb.output_saver %acc omap <x -> 1> : !tb.tile<2x64xf16> -> tensor<2x6144xf16>
      tb.yield %out : tensor<2x6144xf16>
    }
  } : (tensor<2x4096xf16>, tensor<4096x6144xf16>) -> tensor<2x6144xf16>
  return %z : tensor<2x6144xf16>
}

// -----

// A wrong omap: the blocks' column tiles written along the rows.
func.func @wrong_omap(%x: tensor<2x4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<2x6144xf16> {
  %z = kn.kernel(%x, %w) {
    tb.graph grid [96] threads 128 forloop 64 {
    ^bb0(%xd: tensor<2x4096xf16>, %wd: tensor<4096x6144xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<2x4096xf16> -> !tb.tile<2x64xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x6144xf16> -> !tb.tile<64x64xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<2x64xf16>, !tb.tile<64x64xf16>
      %acc = tb.accum_sum %p : !tb.tile<2x64xf16>
      // expected-error @below {{'tb.output_saver' op result #0 has shape 2x6144 but should have shape 192x64}}
      %out = tb.output_saver %acc omap <x -> 0> : !tb.tile<2x64xf16> -> tensor<2x6144xf16>
      tb.yield %out : tensor<2x6144xf16>
    }
  } : (tensor<2x4096xf16>, tensor<4096x6144xf16>) -> tensor<2x6144xf16>
  return %z : tensor<2x6144xf16>
}
