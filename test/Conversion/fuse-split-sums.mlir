// kn-fuse's split of summed dims (flash decoding): attention's scores carry
// the cache positions from the keys through the scaling and the exponential
// to the two sums over them, the softmax's row sums and the product with
// the values. With few query rows, the unsplit kernel walks all positions
// in each block's loop; split into S slices, one kernel computes the S
// partial sums side by side and a second one adds them and divides.
// RUN: mirage-opt %s --kn-fuse | FileCheck %s
// Off, and in a persistent kernel: nothing is split.
// RUN: mirage-opt %s --pass-pipeline='builtin.module(func.func(kn-fuse{split-sums=false}))' | FileCheck %s --check-prefix=OFF
// RUN: mirage-opt %s --pass-pipeline='builtin.module(func.func(kn-fuse{persistent=true}))' | FileCheck %s --check-prefix=OFF
// Every fused function against its original.
// RUN: %PYTHON %mirage_src_root/benchmarks/verify-fused-examples.py %mirage_obj_root %s | FileCheck %s --check-prefix=VERIFY

// OFF-NOT: keepdim = false
// VERIFY: proven: equivalent to @decode_attention (
// VERIFY: proven: equivalent to @decode_attention_normalized_keys (
// VERIFY: proven: equivalent to @short_positions (
// VERIFY: proven: equivalent to @scores_returned (
// VERIFY: tested, not proven: agrees with @max_shifted (
// VERIFY: tested, not proven: agrees with @two_attentions (

// 16 query rows against 4096 positions: the partial sums' kernel cuts the
// slices over the grid (the keys read as [2, 64, S, 4096/S] through a
// transpose, the values as [2, S, 4096/S, 64]); the second kernel sums
// over the slices and divides.
// CHECK-LABEL: func.func @decode_attention
// CHECK-DAG:   kn.reshape %{{.*}} : tensor<2x16x64xf16> -> tensor<2x1x16x64xf16>
// CHECK-DAG:   kn.reshape %{{.*}} : tensor<2x64x4096xf16> -> tensor<2x64x[[S:[0-9]+]]x[[N:[0-9]+]]xf16>
// CHECK-DAG:   kn.reshape %{{.*}} : tensor<2x4096x64xf16> -> tensor<2x[[S]]x[[N]]x64xf16>
// CHECK:       kn.kernel
// CHECK:       tb.transpose %{{.*}} permutation [0, 2, 1, 3]
// CHECK:       tb.exp
// CHECK:       tb.reduce_sum %{{.*}} dim 3
// CHECK:       tb.matmul
// CHECK-COUNT-2: tb.output_saver
// CHECK:       kn.kernel
// CHECK:       tb.reduce_sum %{{.*}} dim 1 keepdim = false
// CHECK:       tb.reduce_sum %{{.*}} dim 1 keepdim = false
// CHECK:       tb.div
// CHECK-NOT:   kn.kernel
// CHECK:       return
func.func @decode_attention(%q: tensor<2x16x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x16x64xf16> {
  %s = kn.matmul %q, %k : tensor<2x16x64xf16>, tensor<2x64x4096xf16>
  %scaled = kn.mul_scalar %s, 0.125 : tensor<2x16x4096xf16>
  %e = kn.exp %scaled : tensor<2x16x4096xf16>
  %l = kn.reduce_sum %e dim 2 : tensor<2x16x4096xf16>
  %p = kn.div %e, %l : tensor<2x16x4096xf16>, tensor<2x16x1xf16>
  %o = kn.matmul %p, %v : tensor<2x16x4096xf16>, tensor<2x4096x64xf16>
  return %o : tensor<2x16x64xf16>
}

// Keys stored [heads, positions, head dim] and RMS-normalized over the head
// dim before their transpose: the norm joins the slices (the positions are
// not the dim it normalizes), the keys are read as [2, S, 4096/S, 64].
// CHECK-LABEL: func.func @decode_attention_normalized_keys
// CHECK:       kn.reshape %{{.*}} : tensor<2x4096x64xf16> -> tensor<2x[[S:[0-9]+]]x[[N:[0-9]+]]x64xf16>
// CHECK:       kn.kernel
// CHECK:       tb.rms_norm
// CHECK:       tb.exp
// CHECK:       kn.kernel
// CHECK:       tb.reduce_sum %{{.*}} dim 1 keepdim = false
// CHECK:       tb.div
// CHECK:       return
func.func @decode_attention_normalized_keys(%q: tensor<2x16x64xf16>, %k: tensor<2x4096x64xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x16x64xf16> {
  %kn = kn.rms_norm %k {eps = 1.0e-6 : f64} : tensor<2x4096x64xf16>
  %kt = kn.transpose %kn permutation [0, 2, 1] : tensor<2x4096x64xf16>
  %s = kn.matmul %q, %kt : tensor<2x16x64xf16>, tensor<2x64x4096xf16>
  %scaled = kn.mul_scalar %s, 0.125 : tensor<2x16x4096xf16>
  %e = kn.exp %scaled : tensor<2x16x4096xf16>
  %l = kn.reduce_sum %e dim 2 : tensor<2x16x4096xf16>
  %p = kn.div %e, %l : tensor<2x16x4096xf16>, tensor<2x16x1xf16>
  %o = kn.matmul %p, %v : tensor<2x16x4096xf16>, tensor<2x4096x64xf16>
  return %o : tensor<2x16x64xf16>
}

// Not split: slices would be shorter than 128 positions (192 in all).
// CHECK-LABEL: func.func @short_positions
// CHECK-NOT:   keepdim = false
// CHECK:       return
func.func @short_positions(%q: tensor<2x16x64xf16>, %k: tensor<2x64x192xf16>, %v: tensor<2x192x64xf16>) -> tensor<2x16x64xf16> {
  %s = kn.matmul %q, %k : tensor<2x16x64xf16>, tensor<2x64x192xf16>
  %scaled = kn.mul_scalar %s, 0.125 : tensor<2x16x192xf16>
  %e = kn.exp %scaled : tensor<2x16x192xf16>
  %l = kn.reduce_sum %e dim 2 : tensor<2x16x192xf16>
  %p = kn.div %e, %l : tensor<2x16x192xf16>, tensor<2x16x1xf16>
  %o = kn.matmul %p, %v : tensor<2x16x192xf16>, tensor<2x192x64xf16>
  return %o : tensor<2x16x64xf16>
}

// Not split: the probabilities are returned too, so the scores are stored
// whole anyway.
// CHECK-LABEL: func.func @scores_returned
// CHECK-NOT:   keepdim = false
// CHECK:       return
func.func @scores_returned(%q: tensor<2x16x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> (tensor<2x16x64xf16>, tensor<2x16x4096xf16>) {
  %s = kn.matmul %q, %k : tensor<2x16x64xf16>, tensor<2x64x4096xf16>
  %scaled = kn.mul_scalar %s, 0.125 : tensor<2x16x4096xf16>
  %e = kn.exp %scaled : tensor<2x16x4096xf16>
  %l = kn.reduce_sum %e dim 2 : tensor<2x16x4096xf16>
  %o = kn.matmul %e, %v : tensor<2x16x4096xf16>, tensor<2x4096x64xf16>
  %r = kn.div %o, %l : tensor<2x16x64xf16>, tensor<2x16x1xf16>
  return %r, %e : tensor<2x16x64xf16>, tensor<2x16x4096xf16>
}

// Not split: the row maximum is a sum of nothing; the scores it reads are
// read by the exponential's chain too.
// CHECK-LABEL: func.func @max_shifted
// CHECK-NOT:   keepdim = false
// CHECK:       return
func.func @max_shifted(%q: tensor<2x16x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x16x64xf16> {
  %s = kn.matmul %q, %k : tensor<2x16x64xf16>, tensor<2x64x4096xf16>
  %m = kn.reduce_max %s dim 2 : tensor<2x16x4096xf16>
  %shifted = kn.sub %s, %m : tensor<2x16x4096xf16>, tensor<2x16x1xf16>
  %e = kn.exp %shifted : tensor<2x16x4096xf16>
  %l = kn.reduce_sum %e dim 2 : tensor<2x16x4096xf16>
  %p = kn.div %e, %l : tensor<2x16x4096xf16>, tensor<2x16x1xf16>
  %o = kn.matmul %p, %v : tensor<2x16x4096xf16>, tensor<2x4096x64xf16>
  return %o : tensor<2x16x64xf16>
}

// Two regions in one function, the second reading the first's output as
// its queries: each is split (regions are found again after a split);
// two exponentials on one path put it outside the verifier's proof.
// CHECK-LABEL: func.func @two_attentions
// CHECK-COUNT-4: keepdim = false
// CHECK-NOT: keepdim = false
// CHECK: return
func.func @two_attentions(%q: tensor<2x16x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> tensor<2x16x64xf16> {
  %s = kn.matmul %q, %k : tensor<2x16x64xf16>, tensor<2x64x4096xf16>
  %scaled = kn.mul_scalar %s, 0.125 : tensor<2x16x4096xf16>
  %e = kn.exp %scaled : tensor<2x16x4096xf16>
  %l = kn.reduce_sum %e dim 2 : tensor<2x16x4096xf16>
  %p = kn.div %e, %l : tensor<2x16x4096xf16>, tensor<2x16x1xf16>
  %o = kn.matmul %p, %v : tensor<2x16x4096xf16>, tensor<2x4096x64xf16>
  %s2 = kn.matmul %o, %k : tensor<2x16x64xf16>, tensor<2x64x4096xf16>
  %scaled2 = kn.mul_scalar %s2, 0.125 : tensor<2x16x4096xf16>
  %e2 = kn.exp %scaled2 : tensor<2x16x4096xf16>
  %l2 = kn.reduce_sum %e2 dim 2 : tensor<2x16x4096xf16>
  %p2 = kn.div %e2, %l2 : tensor<2x16x4096xf16>, tensor<2x16x1xf16>
  %o2 = kn.matmul %p2, %v : tensor<2x16x4096xf16>, tensor<2x4096x64xf16>
  return %o2 : tensor<2x16x64xf16>
}
