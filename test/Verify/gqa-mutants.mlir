// Mutants of the fused attention (GQA) µGraph in examples/: each changes one thing and
// must be rejected with the first mismatching element.
// RUN: mirage-opt %s --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s

func.func @gqa_bs1(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
  %s = kn.matmul %q, %k : tensor<2x256x64xf16>, tensor<2x64x4096xf16>
  %scaled = kn.mul_scalar %s, 0.125 : tensor<2x256x4096xf16>
  %e = kn.exp %scaled : tensor<2x256x4096xf16>
  %l = kn.reduce_sum %e dim 2 : tensor<2x256x4096xf16>
  %p = kn.div %e, %l : tensor<2x256x4096xf16>, tensor<2x256x1xf16>
  %o = kn.matmul %p, %v : tensor<2x256x4096xf16>, tensor<2x4096x64xf16>
  return %o : tensor<2x256x64xf16>
}

// Swapped division operands: the row sums divided by the weighted values.
// CHECK: warning: not equivalent: differs from @gqa_bs1: the finite-field fingerprints differ, which equivalent Lax programs never do; first mismatch at output #0 element [{{[0-9]+, [0-9]+, [0-9]+}}] (finite field (homomorphic), trial 1): candidate {{[0-9]+}} mod p, reference {{[0-9]+}} mod p
func.func @swapped_division(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> attributes {kn.reference = @gqa_bs1} {
  %o = kn.kernel(%q, %k, %v) {
    tb.graph grid [2, 16] threads 128 forloop 64 {
    ^bb0(%qd: tensor<2x256x64xf16>, %kd: tensor<2x64x4096xf16>, %vd: tensor<2x4096x64xf16>):
      %qt = tb.input_iterator %qd imap <x -> 0, y -> 1> fmap <i -> replica> : tensor<2x256x64xf16> -> !tb.tile<1x16x64xf16>
      %kt = tb.input_iterator %kd imap <x -> 0, y -> replica> fmap <i -> 2> : tensor<2x64x4096xf16> -> !tb.tile<1x64x64xf16>
      %vt = tb.input_iterator %vd imap <x -> 0, y -> replica> fmap <i -> 1> : tensor<2x4096x64xf16> -> !tb.tile<1x64x64xf16>
      %s = tb.matmul %qt, %kt : !tb.tile<1x16x64xf16>, !tb.tile<1x64x64xf16>
      %scaled = tb.mul_scalar %s, 0.125 : !tb.tile<1x16x64xf16>
      %e = tb.exp %scaled : !tb.tile<1x16x64xf16>
      %l = tb.reduce_sum %e dim 2 : !tb.tile<1x16x64xf16>
      %lsum = tb.accum_sum %l : !tb.tile<1x16x1xf16>
      %pv = tb.matmul %e, %vt : !tb.tile<1x16x64xf16>, !tb.tile<1x64x64xf16>
      %osum = tb.accum_sum %pv : !tb.tile<1x16x64xf16>
      %ot = tb.div %lsum, %osum : !tb.tile<1x16x1xf16>, !tb.tile<1x16x64xf16>
      %out = tb.output_saver %ot omap <x -> 0, y -> 1> : !tb.tile<1x16x64xf16> -> tensor<2x256x64xf16>
      tb.yield %out : tensor<2x256x64xf16>
    }
  } : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>) -> tensor<2x256x64xf16>
  return %o : tensor<2x256x64xf16>
}

// A dropped op: the 1/sqrt(d) scaling of the scores.
// CHECK: warning: not equivalent: differs from @gqa_bs1: the finite-field fingerprints differ, which equivalent Lax programs never do; first mismatch at output #0 element [{{[0-9]+, [0-9]+, [0-9]+}}] (finite field (homomorphic), trial 1): candidate {{[0-9]+}} mod p, reference {{[0-9]+}} mod p
func.func @dropped_scale(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> attributes {kn.reference = @gqa_bs1} {
  %o = kn.kernel(%q, %k, %v) {
    tb.graph grid [2, 16] threads 128 forloop 64 {
    ^bb0(%qd: tensor<2x256x64xf16>, %kd: tensor<2x64x4096xf16>, %vd: tensor<2x4096x64xf16>):
      %qt = tb.input_iterator %qd imap <x -> 0, y -> 1> fmap <i -> replica> : tensor<2x256x64xf16> -> !tb.tile<1x16x64xf16>
      %kt = tb.input_iterator %kd imap <x -> 0, y -> replica> fmap <i -> 2> : tensor<2x64x4096xf16> -> !tb.tile<1x64x64xf16>
      %vt = tb.input_iterator %vd imap <x -> 0, y -> replica> fmap <i -> 1> : tensor<2x4096x64xf16> -> !tb.tile<1x64x64xf16>
      %s = tb.matmul %qt, %kt : !tb.tile<1x16x64xf16>, !tb.tile<1x64x64xf16>
      %scaled = tb.mul_scalar %s, 0.125 : !tb.tile<1x16x64xf16>
      %e = tb.exp %s : !tb.tile<1x16x64xf16>
      %l = tb.reduce_sum %e dim 2 : !tb.tile<1x16x64xf16>
      %lsum = tb.accum_sum %l : !tb.tile<1x16x1xf16>
      %pv = tb.matmul %e, %vt : !tb.tile<1x16x64xf16>, !tb.tile<1x64x64xf16>
      %osum = tb.accum_sum %pv : !tb.tile<1x16x64xf16>
      %ot = tb.div %osum, %lsum : !tb.tile<1x16x64xf16>, !tb.tile<1x16x1xf16>
      %out = tb.output_saver %ot omap <x -> 0, y -> 1> : !tb.tile<1x16x64xf16> -> tensor<2x256x64xf16>
      tb.yield %out : tensor<2x256x64xf16>
    }
  } : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>) -> tensor<2x256x64xf16>
  return %o : tensor<2x256x64xf16>
}

// The wrong accumulator kind: the largest row sum instead of their sum.
// CHECK: warning: not equivalent: differs from @gqa_bs1: the float64 check differs beyond the rounding bounds; first mismatch at output #0 element [0, 0, 0] (float64, [-1, 1) inputs)
func.func @wrong_accumulator_kind(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> attributes {kn.reference = @gqa_bs1} {
  %o = kn.kernel(%q, %k, %v) {
    tb.graph grid [2, 16] threads 128 forloop 64 {
    ^bb0(%qd: tensor<2x256x64xf16>, %kd: tensor<2x64x4096xf16>, %vd: tensor<2x4096x64xf16>):
      %qt = tb.input_iterator %qd imap <x -> 0, y -> 1> fmap <i -> replica> : tensor<2x256x64xf16> -> !tb.tile<1x16x64xf16>
      %kt = tb.input_iterator %kd imap <x -> 0, y -> replica> fmap <i -> 2> : tensor<2x64x4096xf16> -> !tb.tile<1x64x64xf16>
      %vt = tb.input_iterator %vd imap <x -> 0, y -> replica> fmap <i -> 1> : tensor<2x4096x64xf16> -> !tb.tile<1x64x64xf16>
      %s = tb.matmul %qt, %kt : !tb.tile<1x16x64xf16>, !tb.tile<1x64x64xf16>
      %scaled = tb.mul_scalar %s, 0.125 : !tb.tile<1x16x64xf16>
      %e = tb.exp %scaled : !tb.tile<1x16x64xf16>
      %l = tb.reduce_sum %e dim 2 : !tb.tile<1x16x64xf16>
      %lsum = tb.accum_max %l : !tb.tile<1x16x1xf16>
      %pv = tb.matmul %e, %vt : !tb.tile<1x16x64xf16>, !tb.tile<1x64x64xf16>
      %osum = tb.accum_sum %pv : !tb.tile<1x16x64xf16>
      %ot = tb.div %osum, %lsum : !tb.tile<1x16x64xf16>, !tb.tile<1x16x1xf16>
      %out = tb.output_saver %ot omap <x -> 0, y -> 1> : !tb.tile<1x16x64xf16> -> tensor<2x256x64xf16>
      tb.yield %out : tensor<2x256x64xf16>
    }
  } : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>) -> tensor<2x256x64xf16>
  return %o : tensor<2x256x64xf16>
}

// A transposed operand: the key tile is used transposed.
// CHECK: warning: not equivalent: differs from @gqa_bs1: the finite-field fingerprints differ, which equivalent Lax programs never do; first mismatch at output #0 element [{{[0-9]+, [0-9]+, [0-9]+}}] (finite field (homomorphic), trial 1): candidate {{[0-9]+}} mod p, reference {{[0-9]+}} mod p
func.func @transposed_operand(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> attributes {kn.reference = @gqa_bs1} {
  %o = kn.kernel(%q, %k, %v) {
    tb.graph grid [2, 16] threads 128 forloop 64 {
    ^bb0(%qd: tensor<2x256x64xf16>, %kd: tensor<2x64x4096xf16>, %vd: tensor<2x4096x64xf16>):
      %qt = tb.input_iterator %qd imap <x -> 0, y -> 1> fmap <i -> replica> : tensor<2x256x64xf16> -> !tb.tile<1x16x64xf16>
      %kt = tb.input_iterator %kd imap <x -> 0, y -> replica> fmap <i -> 2> : tensor<2x64x4096xf16> -> !tb.tile<1x64x64xf16>
      %vt = tb.input_iterator %vd imap <x -> 0, y -> replica> fmap <i -> 1> : tensor<2x4096x64xf16> -> !tb.tile<1x64x64xf16>
      %ktt = tb.transpose %kt permutation [0, 2, 1] : !tb.tile<1x64x64xf16>
      %s = tb.matmul %qt, %ktt : !tb.tile<1x16x64xf16>, !tb.tile<1x64x64xf16>
      %scaled = tb.mul_scalar %s, 0.125 : !tb.tile<1x16x64xf16>
      %e = tb.exp %scaled : !tb.tile<1x16x64xf16>
      %l = tb.reduce_sum %e dim 2 : !tb.tile<1x16x64xf16>
      %lsum = tb.accum_sum %l : !tb.tile<1x16x1xf16>
      %pv = tb.matmul %e, %vt : !tb.tile<1x16x64xf16>, !tb.tile<1x64x64xf16>
      %osum = tb.accum_sum %pv : !tb.tile<1x16x64xf16>
      %ot = tb.div %osum, %lsum : !tb.tile<1x16x64xf16>, !tb.tile<1x16x1xf16>
      %out = tb.output_saver %ot omap <x -> 0, y -> 1> : !tb.tile<1x16x64xf16> -> tensor<2x256x64xf16>
      tb.yield %out : tensor<2x256x64xf16>
    }
  } : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>) -> tensor<2x256x64xf16>
  return %o : tensor<2x256x64xf16>
}
