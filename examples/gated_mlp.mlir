// Gated MLP (Falcon-7B-style up projection with a SiLU gate), Mirage
// benchmark shapes: X [8 * batch, 4096], W1 and W2 [4096, 4096], fp16.
//   out = silu(X @ W1) * (X @ W2)

func.func @gated_mlp_bs1(%x: tensor<8x4096xf16>, %w1: tensor<4096x4096xf16>, %w2: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  %a = kn.matmul %x, %w1 : tensor<8x4096xf16>, tensor<4096x4096xf16>
  %b = kn.matmul %x, %w2 : tensor<8x4096xf16>, tensor<4096x4096xf16>
  %gate = kn.silu %a : tensor<8x4096xf16>
  %out = kn.mul %gate, %b : tensor<8x4096xf16>, tensor<8x4096xf16>
  return %out : tensor<8x4096xf16>
}

func.func @gated_mlp_bs8(%x: tensor<64x4096xf16>, %w1: tensor<4096x4096xf16>, %w2: tensor<4096x4096xf16>) -> tensor<64x4096xf16> {
  %a = kn.matmul %x, %w1 : tensor<64x4096xf16>, tensor<4096x4096xf16>
  %b = kn.matmul %x, %w2 : tensor<64x4096xf16>, tensor<4096x4096xf16>
  %gate = kn.silu %a : tensor<64x4096xf16>
  %out = kn.mul %gate, %b : tensor<64x4096xf16>, tensor<64x4096xf16>
  return %out : tensor<64x4096xf16>
}
