// Elementwise and reduction chains of LLM layers, as a user would write them
// with kn ops (the kinds of program issue 19 measured against
// torch.compile): layer norm, residual + RMSNorm, RoPE, safe softmax, the
// SiLU gate, a bias + GELU, and an MoE router's softmax over its experts.
// 8 tokens, f16. Without fusion each op is a kernel and every intermediate
// goes through device memory; kn-fuse makes each program one kernel that
// moves its inputs and outputs once (docs/Fusion.md).

// Layer norm over 4096: mean, centered variance, scale and shift.
func.func @layer_norm(%x: tensor<8x4096xf16>, %g: tensor<4096xf16>, %b: tensor<4096xf16>) -> tensor<8x4096xf16> {
  %s = kn.reduce_sum %x dim 1 : tensor<8x4096xf16>
  %mean = kn.mul_scalar %s, 2.44140625e-4 : tensor<8x1xf16>
  %c = kn.sub %x, %mean : tensor<8x4096xf16>, tensor<8x1xf16>
  %sq = kn.square %c : tensor<8x4096xf16>
  %v = kn.reduce_sum %sq dim 1 : tensor<8x4096xf16>
  %var = kn.mul_scalar %v, 2.44140625e-4 : tensor<8x1xf16>
  %ve = kn.add_scalar %var, 1.0e-5 : tensor<8x1xf16>
  %sd = kn.sqrt %ve : tensor<8x1xf16>
  %n = kn.div %c, %sd : tensor<8x4096xf16>, tensor<8x1xf16>
  %y = kn.mul %n, %g : tensor<8x4096xf16>, tensor<4096xf16>
  %z = kn.add %y, %b : tensor<8x4096xf16>, tensor<4096xf16>
  return %z : tensor<8x4096xf16>
}

// The residual stream and its RMSNorm, both kept.
func.func @residual_rms_norm(%x: tensor<8x4096xf16>, %h: tensor<8x4096xf16>, %w: tensor<4096xf16>) -> (tensor<8x4096xf16>, tensor<8x4096xf16>) {
  %r = kn.add %x, %h : tensor<8x4096xf16>, tensor<8x4096xf16>
  %n = kn.rms_norm %r weight %w {eps = 1.0e-6 : f64} : tensor<8x4096xf16>, tensor<4096xf16>
  return %r, %n : tensor<8x4096xf16>, tensor<8x4096xf16>
}

// RoPE (rotate_half) on 8 tokens x 32 heads of 128.
func.func @rope(%q: tensor<256x128xf16>, %cos: tensor<256x128xf16>, %sin: tensor<256x128xf16>) -> tensor<256x128xf16> {
  %h1, %h2 = kn.split %q dim 1 sizes [64, 64] : tensor<256x128xf16>
  %n = kn.neg %h2 : tensor<256x64xf16>
  %rot = kn.concat %n, %h1 dim 1 : tensor<256x64xf16>, tensor<256x64xf16>
  %a = kn.mul %q, %cos : tensor<256x128xf16>, tensor<256x128xf16>
  %b = kn.mul %rot, %sin : tensor<256x128xf16>, tensor<256x128xf16>
  %r = kn.add %a, %b : tensor<256x128xf16>, tensor<256x128xf16>
  return %r : tensor<256x128xf16>
}

// Safe softmax over 1024 scores for 8 tokens x 32 heads.
func.func @safe_softmax(%s: tensor<8x32x1024xf16>) -> tensor<8x32x1024xf16> {
  %m = kn.reduce_max %s dim 2 : tensor<8x32x1024xf16>
  %d = kn.sub %s, %m : tensor<8x32x1024xf16>, tensor<8x32x1xf16>
  %e = kn.exp %d : tensor<8x32x1024xf16>
  %l = kn.reduce_sum %e dim 2 : tensor<8x32x1024xf16>
  %p = kn.div %e, %l : tensor<8x32x1024xf16>, tensor<8x32x1xf16>
  return %p : tensor<8x32x1024xf16>
}

// The gated MLP's activation on gate | up halves.
func.func @silu_gate(%gu: tensor<8x24576xf16>) -> tensor<8x12288xf16> {
  %g, %u = kn.split %gu dim 1 sizes [12288, 12288] : tensor<8x24576xf16>
  %s = kn.silu %g : tensor<8x12288xf16>
  %a = kn.mul %s, %u : tensor<8x12288xf16>, tensor<8x12288xf16>
  return %a : tensor<8x12288xf16>
}

// A bias and GELU after a projection.
func.func @bias_gelu(%x: tensor<8x16384xf16>, %b: tensor<16384xf16>) -> tensor<8x16384xf16> {
  %y = kn.add %x, %b : tensor<8x16384xf16>, tensor<16384xf16>
  %g = kn.gelu %y : tensor<8x16384xf16>
  return %g : tensor<8x16384xf16>
}

// An MoE router: logits over 64 experts, softmax over them.
func.func @moe_router(%x: tensor<8x4096xf16>, %w: tensor<4096x64xf16>) -> tensor<8x64xf16> {
  %l = kn.matmul %x, %w : tensor<8x4096xf16>, tensor<4096x64xf16>
  %m = kn.reduce_max %l dim 1 : tensor<8x64xf16>
  %d = kn.sub %l, %m : tensor<8x64xf16>, tensor<8x1xf16>
  %e = kn.exp %d : tensor<8x64xf16>
  %s = kn.reduce_sum %e dim 1 : tensor<8x64xf16>
  %p = kn.div %e, %s : tensor<8x64xf16>, tensor<8x1xf16>
  return %p : tensor<8x64xf16>
}
