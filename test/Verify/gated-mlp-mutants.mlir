// Mutants of the fused Gated MLP µGraph in examples/: each changes one thing and
// must be rejected with the first mismatching element.
// RUN: mirage-opt %s --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s

func.func @gated_mlp_bs1(%x: tensor<8x4096xf16>, %w1: tensor<4096x4096xf16>, %w2: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  %a = kn.matmul %x, %w1 : tensor<8x4096xf16>, tensor<4096x4096xf16>
  %b = kn.matmul %x, %w2 : tensor<8x4096xf16>, tensor<4096x4096xf16>
  %gate = kn.silu %a : tensor<8x4096xf16>
  %out = kn.mul %gate, %b : tensor<8x4096xf16>, tensor<8x4096xf16>
  return %out : tensor<8x4096xf16>
}

// A wrong imap and fmap with the same 64x64 tiles: W1 is read transposed.
// CHECK: warning: not equivalent: differs from @gated_mlp_bs1: the finite-field fingerprints differ, which equivalent Lax programs never do; first mismatch at output #0 element [{{[0-9]+, [0-9]+}}] (finite field (homomorphic), trial 1)
func.func @wrong_imap_and_fmap(%x: tensor<8x4096xf16>, %w1: tensor<4096x4096xf16>, %w2: tensor<4096x4096xf16>) -> tensor<8x4096xf16> attributes {kn.reference = @gated_mlp_bs1} {
  %out = kn.kernel(%x, %w1, %w2) {
    tb.graph grid [64] threads 128 forloop 64 {
    ^bb0(%xd: tensor<8x4096xf16>, %w1d: tensor<4096x4096xf16>, %w2d: tensor<4096x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<8x4096xf16> -> !tb.tile<8x64xf16>
      %w1t = tb.input_iterator %w1d imap <x -> 0> fmap <i -> 1> : tensor<4096x4096xf16> -> !tb.tile<64x64xf16>
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

// A dropped op replaced by another: negation instead of SiLU.
// CHECK: warning: not equivalent: differs from @gated_mlp_bs1: the finite-field fingerprints differ, which equivalent Lax programs never do; first mismatch at output #0 element [{{[0-9]+, [0-9]+}}] (finite field (homomorphic), trial 1)
func.func @wrong_activation(%x: tensor<8x4096xf16>, %w1: tensor<4096x4096xf16>, %w2: tensor<4096x4096xf16>) -> tensor<8x4096xf16> attributes {kn.reference = @gated_mlp_bs1} {
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
      %gate = tb.neg %a : !tb.tile<8x64xf16>
      %prod = tb.mul %gate, %b : !tb.tile<8x64xf16>, !tb.tile<8x64xf16>
      %o = tb.output_saver %prod omap <x -> 1> : !tb.tile<8x64xf16> -> tensor<8x4096xf16>
      tb.yield %o : tensor<8x4096xf16>
    }
  } : (tensor<8x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<8x4096xf16>
  return %out : tensor<8x4096xf16>
}

// The gate multiplies its own input instead of the second projection.
// CHECK: warning: not equivalent: differs from @gated_mlp_bs1: the finite-field fingerprints differ, which equivalent Lax programs never do; first mismatch at output #0 element [{{[0-9]+, [0-9]+}}] (finite field (homomorphic), trial 1)
func.func @wrong_operand(%x: tensor<8x4096xf16>, %w1: tensor<4096x4096xf16>, %w2: tensor<4096x4096xf16>) -> tensor<8x4096xf16> attributes {kn.reference = @gated_mlp_bs1} {
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
      %prod = tb.mul %gate, %a : !tb.tile<8x64xf16>, !tb.tile<8x64xf16>
      %o = tb.output_saver %prod omap <x -> 1> : !tb.tile<8x64xf16> -> tensor<8x4096xf16>
      tb.yield %o : tensor<8x4096xf16>
    }
  } : (tensor<8x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<8x4096xf16>
  return %out : tensor<8x4096xf16>
}

// The wrong accumulator kind for the second projection.
// CHECK: warning: not equivalent: differs from @gated_mlp_bs1: the float64 check differs beyond the rounding bounds
func.func @wrong_accumulator_kind(%x: tensor<8x4096xf16>, %w1: tensor<4096x4096xf16>, %w2: tensor<4096x4096xf16>) -> tensor<8x4096xf16> attributes {kn.reference = @gated_mlp_bs1} {
  %out = kn.kernel(%x, %w1, %w2) {
    tb.graph grid [64] threads 128 forloop 64 {
    ^bb0(%xd: tensor<8x4096xf16>, %w1d: tensor<4096x4096xf16>, %w2d: tensor<4096x4096xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<8x4096xf16> -> !tb.tile<8x64xf16>
      %w1t = tb.input_iterator %w1d imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<64x64xf16>
      %w2t = tb.input_iterator %w2d imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<64x64xf16>
      %p1 = tb.matmul %xt, %w1t : !tb.tile<8x64xf16>, !tb.tile<64x64xf16>
      %p2 = tb.matmul %xt, %w2t : !tb.tile<8x64xf16>, !tb.tile<64x64xf16>
      %a = tb.accum_sum %p1 : !tb.tile<8x64xf16>
      %b = tb.accum_max %p2 : !tb.tile<8x64xf16>
      %gate = tb.silu %a : !tb.tile<8x64xf16>
      %prod = tb.mul %gate, %b : !tb.tile<8x64xf16>, !tb.tile<8x64xf16>
      %o = tb.output_saver %prod omap <x -> 1> : !tb.tile<8x64xf16> -> tensor<8x4096xf16>
      tb.yield %o : tensor<8x4096xf16>
    }
  } : (tensor<8x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<8x4096xf16>
  return %out : tensor<8x4096xf16>
}

// Not a mutant: the operands of a commutative product swapped. Proven.
// CHECK: remark: proven: equivalent to @gated_mlp_bs1
func.func @swapped_product(%x: tensor<8x4096xf16>, %w1: tensor<4096x4096xf16>, %w2: tensor<4096x4096xf16>) -> tensor<8x4096xf16> attributes {kn.reference = @gated_mlp_bs1} {
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
      %prod = tb.mul %b, %gate : !tb.tile<8x64xf16>, !tb.tile<8x64xf16>
      %o = tb.output_saver %prod omap <x -> 1> : !tb.tile<8x64xf16> -> tensor<8x4096xf16>
      tb.yield %o : tensor<8x4096xf16>
    }
  } : (tensor<8x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<8x4096xf16>
  return %out : tensor<8x4096xf16>
}
