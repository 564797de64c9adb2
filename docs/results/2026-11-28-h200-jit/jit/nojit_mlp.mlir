




func.func @nojit_mlp(%x: tensor<8x4096xf16>, %w_up: tensor<4096x2048xf16>, %w_down: tensor<2048x4096xf16>) -> tensor<8x4096xf16> {
  %h = kn.matmul %x, %w_up : tensor<8x4096xf16>, tensor<4096x2048xf16>
  %a = kn.silu %h : tensor<8x2048xf16>
  %y = kn.matmul %a, %w_down : tensor<8x2048xf16>, tensor<2048x4096xf16>
  return %y : tensor<8x4096xf16>
}
