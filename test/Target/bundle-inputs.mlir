// The bundle inputs: a weight (the right operand of a matmul, directly or
// through transposes and reshapes) is drawn at 1/sqrt(fan-in), everything
// else in [-1, 1); a reference that is not finite on those inputs stops the
// bundle.
// RUN: rm -rf %t && mirage-bundle %s -o %t --ptxas=none --function norm_linear
// RUN: %PYTHON %S/Inputs/print-manifest.py %t/norm_linear/manifest.json | FileCheck %s
// RUN: rm -rf %t && mirage-bundle %s -o %t --ptxas=none --function norm_linear --scale-weights=false
// RUN: %PYTHON %S/Inputs/print-manifest.py %t/norm_linear/manifest.json | FileCheck %s --check-prefix=UNSCALED
// RUN: rm -rf %t && mirage-bundle %s -o %t --ptxas=none --function linear_out_in
// RUN: %PYTHON %S/Inputs/print-manifest.py %t/linear_out_in/manifest.json | FileCheck %s --check-prefix=OUTIN
// RUN: rm -rf %t && mirage-bundle %s -o %t --ptxas=none --function fused_linear
// RUN: %PYTHON %S/Inputs/print-manifest.py %t/fused_linear/manifest.json | FileCheck %s --check-prefix=FUSED
// RUN: rm -rf %t && mirage-bundle %s -o %t --ptxas=none --function fused_linear_columns
// RUN: %PYTHON %S/Inputs/print-manifest.py %t/fused_linear_columns/manifest.json | FileCheck %s --check-prefix=COLUMNS
// RUN: not mirage-bundle %s -o %t --ptxas=none --function square_root 2>&1 | FileCheck %s --check-prefix=NONFINITE

// The weight's fan-in is 64: scale 1/8. The norm weight and x keep 1.
// CHECK: inputs_generator {"high": 1, "kind": "uniform", "low": -1, "scales": [1, 1, 0.125], "seed": 1}
// With --scale-weights=false (programs that scale their products), all 1.
// UNSCALED: inputs_generator {"high": 1, "kind": "uniform", "low": -1, "scales": [1, 1, 1], "seed": 1}
func.func @norm_linear(%x: tensor<4x64xf16>, %g: tensor<64xf16>, %w: tensor<64x8xf16>) -> tensor<4x8xf16> {
  %y = kn.rms_norm %x weight %g {eps = 1.0e-6 : f64} : tensor<4x64xf16>, tensor<64xf16>
  %z = kn.matmul %y, %w : tensor<4x64xf16>, tensor<64x8xf16>
  return %z : tensor<4x8xf16>
}

// A weight stored [out, in] (as PyTorch's nn.Linear keeps it) reaches the
// matmul through a transpose and a reshape: still scaled by its fan-in, 64.
// The matmul's left operand is not a weight, though a transpose feeds it.
// OUTIN: inputs_generator {"high": 1, "kind": "uniform", "low": -1, "scales": [1, 0.125], "seed": 1}
func.func @linear_out_in(%x: tensor<64x4xf16>, %w: tensor<2x4x64xf16>) -> tensor<4x8xf16> {
  %xt = kn.transpose %x permutation [1, 0] : tensor<64x4xf16>
  %w2 = kn.reshape %w : tensor<2x4x64xf16> -> tensor<8x64xf16>
  %wt = kn.transpose %w2 permutation [1, 0] : tensor<8x64xf16>
  %z = kn.matmul %xt, %wt : tensor<4x64xf16>, tensor<64x8xf16>
  return %z : tensor<4x8xf16>
}

// A pre-fused kernel: its block graph sums tiles of 16 rows of the weight
// over 4 iterations, a fan-in of 64 (the weight's scale 1/8). x is the left
// operand, walked by the loop too: 1.
// FUSED: inputs_generator {"high": 1, "kind": "uniform", "low": -1, "scales": [1, 0.125], "seed": 1}
func.func @fused_linear(%x: tensor<4x64xf16>, %w: tensor<64x8xf16>) -> tensor<4x8xf16> {
  %z = kn.kernel(%x, %w) {
    tb.graph grid [2] threads 128 forloop 4 {
    ^bb0(%a: tensor<4x64xf16>, %b: tensor<64x8xf16>):
      %at = tb.input_iterator %a imap <x -> replica> fmap <i -> 1> : tensor<4x64xf16> -> !tb.tile<4x16xf16>
      %bt = tb.input_iterator %b imap <x -> 1> fmap <i -> 0> : tensor<64x8xf16> -> !tb.tile<16x4xf16>
      %p = tb.matmul %at, %bt : !tb.tile<4x16xf16>, !tb.tile<16x4xf16>
      %s = tb.accum_sum %p : !tb.tile<4x4xf16>
      %o = tb.output_saver %s omap <x -> 1> : !tb.tile<4x4xf16> -> tensor<4x8xf16>
      tb.yield %o : tensor<4x8xf16>
    }
  } : (tensor<4x64xf16>, tensor<64x8xf16>) -> tensor<4x8xf16>
  return %z : tensor<4x8xf16>
}

// The loop walks the weight's columns (not the contracted dim) and
// concatenates the products: the fan-in is the tile's k, 64, not 64 x 4.
// COLUMNS: inputs_generator {"high": 1, "kind": "uniform", "low": -1, "scales": [1, 0.125], "seed": 1}
func.func @fused_linear_columns(%x: tensor<4x64xf16>, %w: tensor<64x8xf16>) -> tensor<4x8xf16> {
  %z = kn.kernel(%x, %w) {
    tb.graph grid [2] threads 128 forloop 4 {
    ^bb0(%a: tensor<4x64xf16>, %b: tensor<64x8xf16>):
      %at = tb.input_iterator %a imap <x -> 0> fmap <i -> replica> : tensor<4x64xf16> -> !tb.tile<2x64xf16>
      %bt = tb.input_iterator %b imap <x -> replica> fmap <i -> 1> : tensor<64x8xf16> -> !tb.tile<64x2xf16>
      %p = tb.matmul %at, %bt : !tb.tile<2x64xf16>, !tb.tile<64x2xf16>
      %c = tb.accum_concat %p dim 1 : !tb.tile<2x2xf16> -> !tb.tile<2x8xf16>
      %o = tb.output_saver %c omap <x -> 0> : !tb.tile<2x8xf16> -> tensor<4x8xf16>
      tb.yield %o : tensor<4x8xf16>
    }
  } : (tensor<4x64xf16>, tensor<64x8xf16>) -> tensor<4x8xf16>
  return %z : tensor<4x8xf16>
}

// About half of the inputs are negative: their square roots are NaN.
// NONFINITE: error: square_root: cannot compute the reference outputs of @square_root: output 0 has {{[0-9]+}} non-finite elements of 256 on the bundle inputs
func.func @square_root(%x: tensor<4x64xf16>) -> tensor<4x64xf16> {
  %y = kn.sqrt %x : tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}
