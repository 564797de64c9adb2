// Group-query attention for decoding with a long KV cache (LLaMA-3-70B with
// 4-way tensor parallelism: 2 KV heads per GPU, 8K context in the paper; the
// Mirage benchmark shapes below use a 4096-token cache). The 8 query heads
// that share a KV head are folded into 256 query rows:
//   Q [2 * batch, 256, 64], K [2 * batch, 64, 4096], V [2 * batch, 4096, 64].
//
// Reference: O = softmax(Q K / sqrt(64)) V, as separate kernels.
//
// Fused µGraphs (FlashAttention-style): each block owns one KV head and 16
// query rows and loops over the cache 64 tokens at a time.
//  - @gqa_bs*_fused accumulates exp(s) V and the row sums of exp(s) in the
//    loop and divides after it: a Lax program (one exp per path), the form
//    the superoptimizer searches and the verifier can prove.
//  - @gqa_bs1_fused_online subtracts each iteration's row maximum before the
//    exponential and rescales the running sums (online softmax), which keeps
//    fp16 values bounded; max is outside the Lax fragment, so it is tested,
//    not proven.

func.func @gqa_bs1(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
  %s = kn.matmul %q, %k : tensor<2x256x64xf16>, tensor<2x64x4096xf16>
  %scaled = kn.mul_scalar %s, 0.125 : tensor<2x256x4096xf16>
  %e = kn.exp %scaled : tensor<2x256x4096xf16>
  %l = kn.reduce_sum %e dim 2 : tensor<2x256x4096xf16>
  %p = kn.div %e, %l : tensor<2x256x4096xf16>, tensor<2x256x1xf16>
  %o = kn.matmul %p, %v : tensor<2x256x4096xf16>, tensor<2x4096x64xf16>
  return %o : tensor<2x256x64xf16>
}

func.func @gqa_bs8(%q: tensor<16x256x64xf16>, %k: tensor<16x64x4096xf16>, %v: tensor<16x4096x64xf16>) -> tensor<16x256x64xf16> {
  %s = kn.matmul %q, %k : tensor<16x256x64xf16>, tensor<16x64x4096xf16>
  %scaled = kn.mul_scalar %s, 0.125 : tensor<16x256x4096xf16>
  %e = kn.exp %scaled : tensor<16x256x4096xf16>
  %l = kn.reduce_sum %e dim 2 : tensor<16x256x4096xf16>
  %p = kn.div %e, %l : tensor<16x256x4096xf16>, tensor<16x256x1xf16>
  %o = kn.matmul %p, %v : tensor<16x256x4096xf16>, tensor<16x4096x64xf16>
  return %o : tensor<16x256x64xf16>
}

func.func @gqa_bs1_fused(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> attributes {kn.reference = @gqa_bs1} {
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
      %ot = tb.div %osum, %lsum : !tb.tile<1x16x64xf16>, !tb.tile<1x16x1xf16>
      %out = tb.output_saver %ot omap <x -> 0, y -> 1> : !tb.tile<1x16x64xf16> -> tensor<2x256x64xf16>
      tb.yield %out : tensor<2x256x64xf16>
    }
  } : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>) -> tensor<2x256x64xf16>
  return %o : tensor<2x256x64xf16>
}

func.func @gqa_bs8_fused(%q: tensor<16x256x64xf16>, %k: tensor<16x64x4096xf16>, %v: tensor<16x4096x64xf16>) -> tensor<16x256x64xf16> attributes {kn.reference = @gqa_bs8} {
  %o = kn.kernel(%q, %k, %v) {
    tb.graph grid [16, 16] threads 128 forloop 64 {
    ^bb0(%qd: tensor<16x256x64xf16>, %kd: tensor<16x64x4096xf16>, %vd: tensor<16x4096x64xf16>):
      %qt = tb.input_iterator %qd imap <x -> 0, y -> 1> fmap <i -> replica> : tensor<16x256x64xf16> -> !tb.tile<1x16x64xf16>
      %kt = tb.input_iterator %kd imap <x -> 0, y -> replica> fmap <i -> 2> : tensor<16x64x4096xf16> -> !tb.tile<1x64x64xf16>
      %vt = tb.input_iterator %vd imap <x -> 0, y -> replica> fmap <i -> 1> : tensor<16x4096x64xf16> -> !tb.tile<1x64x64xf16>
      %s = tb.matmul %qt, %kt : !tb.tile<1x16x64xf16>, !tb.tile<1x64x64xf16>
      %scaled = tb.mul_scalar %s, 0.125 : !tb.tile<1x16x64xf16>
      %e = tb.exp %scaled : !tb.tile<1x16x64xf16>
      %l = tb.reduce_sum %e dim 2 : !tb.tile<1x16x64xf16>
      %lsum = tb.accum_sum %l : !tb.tile<1x16x1xf16>
      %pv = tb.matmul %e, %vt : !tb.tile<1x16x64xf16>, !tb.tile<1x64x64xf16>
      %osum = tb.accum_sum %pv : !tb.tile<1x16x64xf16>
      %ot = tb.div %osum, %lsum : !tb.tile<1x16x64xf16>, !tb.tile<1x16x1xf16>
      %out = tb.output_saver %ot omap <x -> 0, y -> 1> : !tb.tile<1x16x64xf16> -> tensor<16x256x64xf16>
      tb.yield %out : tensor<16x256x64xf16>
    }
  } : (tensor<16x256x64xf16>, tensor<16x64x4096xf16>, tensor<16x4096x64xf16>) -> tensor<16x256x64xf16>
  return %o : tensor<16x256x64xf16>
}

func.func @gqa_bs1_fused_online(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> attributes {kn.reference = @gqa_bs1} {
  %o = kn.kernel(%q, %k, %v) {
    tb.graph grid [2, 16] threads 128 forloop 64 {
    ^bb0(%qd: tensor<2x256x64xf16>, %kd: tensor<2x64x4096xf16>, %vd: tensor<2x4096x64xf16>):
      %qt = tb.input_iterator %qd imap <x -> 0, y -> 1> fmap <i -> replica> : tensor<2x256x64xf16> -> !tb.tile<1x16x64xf16>
      %kt = tb.input_iterator %kd imap <x -> 0, y -> replica> fmap <i -> 2> : tensor<2x64x4096xf16> -> !tb.tile<1x64x64xf16>
      %vt = tb.input_iterator %vd imap <x -> 0, y -> replica> fmap <i -> 1> : tensor<2x4096x64xf16> -> !tb.tile<1x64x64xf16>
      %s = tb.matmul %qt, %kt : !tb.tile<1x16x64xf16>, !tb.tile<1x64x64xf16>
      %scaled = tb.mul_scalar %s, 0.125 : !tb.tile<1x16x64xf16>
      // Exponentials relative to this iteration's row maximum...
      %m = tb.reduce_max %scaled dim 2 : !tb.tile<1x16x64xf16>
      %shifted = tb.sub %scaled, %m : !tb.tile<1x16x64xf16>, !tb.tile<1x16x1xf16>
      %e = tb.exp %shifted : !tb.tile<1x16x64xf16>
      %l = tb.reduce_sum %e dim 2 : !tb.tile<1x16x64xf16>
      %pv = tb.matmul %e, %vt : !tb.tile<1x16x64xf16>, !tb.tile<1x64x64xf16>
      // ...rescaled to the running maximum as they are summed.
      %lsum = tb.accum_rescaled_sum %l, %m : !tb.tile<1x16x1xf16>, !tb.tile<1x16x1xf16>
      %osum = tb.accum_rescaled_sum %pv, %m : !tb.tile<1x16x64xf16>, !tb.tile<1x16x1xf16>
      %ot = tb.div %osum, %lsum : !tb.tile<1x16x64xf16>, !tb.tile<1x16x1xf16>
      %out = tb.output_saver %ot omap <x -> 0, y -> 1> : !tb.tile<1x16x64xf16> -> tensor<2x256x64xf16>
      tb.yield %out : tensor<2x256x64xf16>
    }
  } : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>) -> tensor<2x256x64xf16>
  return %o : tensor<2x256x64xf16>
}
