// A linear layer with a low-rank (LoRA, rank 16) adapter, Mirage benchmark
// shapes: X [16 * batch, 256], W [256, 4096], A [256, 16], B [16, 4096].
//   out = X @ W + (X @ A) @ B
// Mirage fuses it into one kernel through W X + B A X = (W | B) (X | A X).

func.func @lora_bs1(%x: tensor<16x256xf16>, %w: tensor<256x4096xf16>, %a: tensor<256x16xf16>, %b: tensor<16x4096xf16>) -> tensor<16x4096xf16> {
  %xw = kn.matmul %x, %w : tensor<16x256xf16>, tensor<256x4096xf16>
  %xa = kn.matmul %x, %a : tensor<16x256xf16>, tensor<256x16xf16>
  %xab = kn.matmul %xa, %b : tensor<16x16xf16>, tensor<16x4096xf16>
  %out = kn.add %xw, %xab : tensor<16x4096xf16>, tensor<16x4096xf16>
  return %out : tensor<16x4096xf16>
}

func.func @lora_bs8(%x: tensor<128x256xf16>, %w: tensor<256x4096xf16>, %a: tensor<256x16xf16>, %b: tensor<16x4096xf16>) -> tensor<128x4096xf16> {
  %xw = kn.matmul %x, %w : tensor<128x256xf16>, tensor<256x4096xf16>
  %xa = kn.matmul %x, %a : tensor<128x256xf16>, tensor<256x16xf16>
  %xab = kn.matmul %xa, %b : tensor<128x16xf16>, tensor<16x4096xf16>
  %out = kn.add %xw, %xab : tensor<128x4096xf16>, tensor<128x4096xf16>
  return %out : tensor<128x4096xf16>
}
