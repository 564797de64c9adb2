// Mutants of the fused RMSNorm + Linear µGraph in examples/: each changes one thing and
// must be rejected with the first mismatching element.
// RUN: mirage-opt %s --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s

func.func @rmsnorm_linear_bs1(%x: tensor<2x4096xf16>, %g: tensor<4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<2x6144xf16> {
  %y = kn.rms_norm %x weight %g {eps = 1.0e-6 : f64} : tensor<2x4096xf16>, tensor<4096xf16>
  %z = kn.matmul %y, %w : tensor<2x4096xf16>, tensor<4096x6144xf16>
  return %z : tensor<2x6144xf16>
}

// The wrong accumulator kind: the maximum, not the sum, of the squares.
// CHECK: warning: not equivalent: differs from @rmsnorm_linear_bs1: the float64 check differs beyond the rounding bounds; first mismatch at output #0 element [0, 0] (float64, [-1, 1) inputs)
func.func @wrong_accumulator_kind(%x: tensor<2x4096xf16>, %g: tensor<4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<2x6144xf16> attributes {kn.reference = @rmsnorm_linear_bs1} {
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
      %a = tb.accum_max %ss : !tb.tile<2x1xf16>
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

// Swapped division operands in the thread-graph epilogue.
// CHECK: warning: not equivalent: differs from @rmsnorm_linear_bs1: the fingerprints (exp and sqrt uninterpreted) and the float64 check both differ; first mismatch at output #0 element [{{[0-9]+, [0-9]+}}] (float64, [-1, 1) inputs): candidate
func.func @swapped_division(%x: tensor<2x4096xf16>, %g: tensor<4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<2x6144xf16> attributes {kn.reference = @rmsnorm_linear_bs1} {
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
        %q = th.div %rms, %bf : !th.frag<1x1xf16>, !th.frag<1x1xf16>
        %ct = th.output_saver %q omap <x -> 0, y -> 1> : !th.frag<1x1xf16> -> !tb.tile<2x64xf16>
        th.yield %ct : !tb.tile<2x64xf16>
      } : (!tb.tile<2x1xf16>, !tb.tile<2x64xf16>) -> !tb.tile<2x64xf16>
      %out = tb.output_saver %c omap <x -> 1> : !tb.tile<2x64xf16> -> tensor<2x6144xf16>
      tb.yield %out : tensor<2x6144xf16>
    }
  } : (tensor<2x4096xf16>, tensor<4096xf16>, tensor<4096x6144xf16>) -> tensor<2x6144xf16>
  return %z : tensor<2x6144xf16>
}

// A dropped op: the square root.
// CHECK: warning: not equivalent: differs from @rmsnorm_linear_bs1: the fingerprints (exp and sqrt uninterpreted) and the float64 check both differ; first mismatch at output #0 element [{{[0-9]+, [0-9]+}}] (float64, [-1, 1) inputs): candidate
func.func @dropped_sqrt(%x: tensor<2x4096xf16>, %g: tensor<4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<2x6144xf16> attributes {kn.reference = @rmsnorm_linear_bs1} {
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
        %q = th.div %bf, %shifted : !th.frag<1x1xf16>, !th.frag<1x1xf16>
        %ct = th.output_saver %q omap <x -> 0, y -> 1> : !th.frag<1x1xf16> -> !tb.tile<2x64xf16>
        th.yield %ct : !tb.tile<2x64xf16>
      } : (!tb.tile<2x1xf16>, !tb.tile<2x64xf16>) -> !tb.tile<2x64xf16>
      %out = tb.output_saver %c omap <x -> 1> : !tb.tile<2x64xf16> -> tensor<2x6144xf16>
      tb.yield %out : tensor<2x6144xf16>
    }
  } : (tensor<2x4096xf16>, tensor<4096xf16>, tensor<4096x6144xf16>) -> tensor<2x6144xf16>
  return %z : tensor<2x6144xf16>
}

// A dropped op: the RMSNorm gain is never applied.
// CHECK: warning: not equivalent: differs from @rmsnorm_linear_bs1: the fingerprints (exp and sqrt uninterpreted) and the float64 check both differ; first mismatch at output #0 element [{{[0-9]+, [0-9]+}}] (float64, [-1, 1) inputs): candidate
func.func @dropped_gain(%x: tensor<2x4096xf16>, %g: tensor<4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<2x6144xf16> attributes {kn.reference = @rmsnorm_linear_bs1} {
  %z = kn.kernel(%x, %g, %w) {
    tb.graph grid [96] threads 128 forloop 64 {
    ^bb0(%xd: tensor<2x4096xf16>, %gd: tensor<4096xf16>, %wd: tensor<4096x6144xf16>):
      // Loop body: a 64-wide slice of the hidden dim per iteration.
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<2x4096xf16> -> !tb.tile<2x64xf16>
      %gt = tb.input_iterator %gd imap <x -> replica> fmap <i -> 0> : tensor<4096xf16> -> !tb.tile<64xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x6144xf16> -> !tb.tile<64x64xf16>
      %xg = tb.mul %xt, %gt : !tb.tile<2x64xf16>, !tb.tile<64xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<2x64xf16>, !tb.tile<64x64xf16>
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

// A transposed operand: each 64x64 tile of W is used transposed.
// CHECK: warning: not equivalent: differs from @rmsnorm_linear_bs1: the fingerprints (exp and sqrt uninterpreted) and the float64 check both differ; first mismatch at output #0 element [{{[0-9]+, [0-9]+}}] (float64, [-1, 1) inputs): candidate
func.func @transposed_operand(%x: tensor<2x4096xf16>, %g: tensor<4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<2x6144xf16> attributes {kn.reference = @rmsnorm_linear_bs1} {
  %z = kn.kernel(%x, %g, %w) {
    tb.graph grid [96] threads 128 forloop 64 {
    ^bb0(%xd: tensor<2x4096xf16>, %gd: tensor<4096xf16>, %wd: tensor<4096x6144xf16>):
      // Loop body: a 64-wide slice of the hidden dim per iteration.
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<2x4096xf16> -> !tb.tile<2x64xf16>
      %gt = tb.input_iterator %gd imap <x -> replica> fmap <i -> 0> : tensor<4096xf16> -> !tb.tile<64xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x6144xf16> -> !tb.tile<64x64xf16>
      %xg = tb.mul %xt, %gt : !tb.tile<2x64xf16>, !tb.tile<64xf16>
      %wtt = tb.transpose %wt permutation [1, 0] : !tb.tile<64x64xf16>
      %p = tb.matmul %xg, %wtt : !tb.tile<2x64xf16>, !tb.tile<64x64xf16>
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
