func.func @chain(%x: tensor<4x64xf16>, %w: tensor<64x64xf16>) -> tensor<4x64xf16> {
  %h = kn.matmul %x, %w : tensor<4x64xf16>, tensor<64x64xf16>
  %y = kn.exp %h : tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}
