// Activations and normalizations written with tanh, rsqrt and maximum, the
// operators added from their formulas alone (docs/Extending.md): GPT-2's
// tanh-approximated GELU, Gemma 2's logit soft-capping, an RMSNorm written
// with rsqrt, and a leaky ReLU. 8 tokens, f16; kn-fuse makes each one kernel.

// gelu_new(x) = 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
func.func @gelu_tanh(%x: tensor<8x16384xf16>) -> tensor<8x16384xf16> {
  %x2 = kn.square %x : tensor<8x16384xf16>
  %x3 = kn.mul %x2, %x : tensor<8x16384xf16>, tensor<8x16384xf16>
  %c = kn.mul_scalar %x3, 0.044715 : tensor<8x16384xf16>
  %inner = kn.add %x, %c : tensor<8x16384xf16>, tensor<8x16384xf16>
  %z = kn.mul_scalar %inner, 0.7978845608028654 : tensor<8x16384xf16>
  %t = kn.tanh %z : tensor<8x16384xf16>
  %t1 = kn.add_scalar %t, 1.0 : tensor<8x16384xf16>
  %h = kn.mul_scalar %x, 0.5 : tensor<8x16384xf16>
  %y = kn.mul %h, %t1 : tensor<8x16384xf16>, tensor<8x16384xf16>
  return %y : tensor<8x16384xf16>
}

// Final-logit soft-capping: 30 tanh(logits / 30) over a 32768-entry
// vocabulary slice.
func.func @logit_softcap(%l: tensor<8x32768xf16>) -> tensor<8x32768xf16> {
  %s = kn.mul_scalar %l, 0.03333333333333333 : tensor<8x32768xf16>
  %t = kn.tanh %s : tensor<8x32768xf16>
  %y = kn.mul_scalar %t, 30.0 : tensor<8x32768xf16>
  return %y : tensor<8x32768xf16>
}

// RMSNorm as models write it: x * rsqrt(mean(x^2) + eps) * w.
func.func @rms_norm_rsqrt(%x: tensor<8x4096xf16>, %w: tensor<4096xf16>) -> tensor<8x4096xf16> {
  %sq = kn.square %x : tensor<8x4096xf16>
  %ss = kn.reduce_sum %sq dim 1 : tensor<8x4096xf16>
  %mean = kn.mul_scalar %ss, 0.000244140625 : tensor<8x1xf16>
  %v = kn.add_scalar %mean, 1.0e-6 : tensor<8x1xf16>
  %r = kn.rsqrt %v : tensor<8x1xf16>
  %n = kn.mul %x, %r : tensor<8x4096xf16>, tensor<8x1xf16>
  %y = kn.mul %n, %w : tensor<8x4096xf16>, tensor<4096xf16>
  return %y : tensor<8x4096xf16>
}

// Leaky ReLU: max(x, 0.01 x).
func.func @leaky_relu(%x: tensor<8x16384xf16>) -> tensor<8x16384xf16> {
  %s = kn.mul_scalar %x, 0.01 : tensor<8x16384xf16>
  %y = kn.maximum %x, %s : tensor<8x16384xf16>, tensor<8x16384xf16>
  return %y : tensor<8x16384xf16>
}
