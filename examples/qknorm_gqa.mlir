// QK normalization followed by group-query attention (Chameleon-7B style):
// the query and key vectors are RMS-normalized over the head dim (64) before
// the attention scores. Shapes as the GQA benchmark, with K stored
// [heads, tokens, head dim] like V so that the head dim is the last one:
//   Q [2 * batch, 256, 64], K [2 * batch, 4096, 64], V [2 * batch, 4096, 64].

func.func @qknorm_gqa_bs1(%q: tensor<2x256x64xf16>, %k: tensor<2x4096x64xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
  %qn = kn.rms_norm %q {eps = 1.0e-6 : f64} : tensor<2x256x64xf16>
  %kn = kn.rms_norm %k {eps = 1.0e-6 : f64} : tensor<2x4096x64xf16>
  %kt = kn.transpose %kn permutation [0, 2, 1] : tensor<2x4096x64xf16>
  %s = kn.matmul %qn, %kt : tensor<2x256x64xf16>, tensor<2x64x4096xf16>
  %scaled = kn.mul_scalar %s, 0.125 : tensor<2x256x4096xf16>
  %e = kn.exp %scaled : tensor<2x256x4096xf16>
  %l = kn.reduce_sum %e dim 2 : tensor<2x256x4096xf16>
  %p = kn.div %e, %l : tensor<2x256x4096xf16>, tensor<2x256x1xf16>
  %o = kn.matmul %p, %v : tensor<2x256x4096xf16>, tensor<2x4096x64xf16>
  return %o : tensor<2x256x64xf16>
}

func.func @qknorm_gqa_bs8(%q: tensor<16x256x64xf16>, %k: tensor<16x4096x64xf16>, %v: tensor<16x4096x64xf16>) -> tensor<16x256x64xf16> {
  %qn = kn.rms_norm %q {eps = 1.0e-6 : f64} : tensor<16x256x64xf16>
  %kn = kn.rms_norm %k {eps = 1.0e-6 : f64} : tensor<16x4096x64xf16>
  %kt = kn.transpose %kn permutation [0, 2, 1] : tensor<16x4096x64xf16>
  %s = kn.matmul %qn, %kt : tensor<16x256x64xf16>, tensor<16x64x4096xf16>
  %scaled = kn.mul_scalar %s, 0.125 : tensor<16x256x4096xf16>
  %e = kn.exp %scaled : tensor<16x256x4096xf16>
  %l = kn.reduce_sum %e dim 2 : tensor<16x256x4096xf16>
  %p = kn.div %e, %l : tensor<16x256x4096xf16>, tensor<16x256x1xf16>
  %o = kn.matmul %p, %v : tensor<16x256x4096xf16>, tensor<16x4096x64xf16>
  return %o : tensor<16x256x64xf16>
}
