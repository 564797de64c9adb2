// The normalized Transformer (nGPT-1B) residual update: the block output H is
// normalized, the residual stream X moves toward it by a learned per-element
// step alpha, and the result is normalized again. Mirage benchmark shapes:
// H, X, alpha [8 * batch, 4096], fp16.
//   out = rms_norm(X + alpha * (rms_norm(H) - X))

func.func @ntrans_bs1(%h: tensor<8x4096xf16>, %x: tensor<8x4096xf16>, %alpha: tensor<8x4096xf16>) -> tensor<8x4096xf16> {
  %hn = kn.rms_norm %h {eps = 1.0e-6 : f64} : tensor<8x4096xf16>
  %d = kn.sub %hn, %x : tensor<8x4096xf16>, tensor<8x4096xf16>
  %step = kn.mul %alpha, %d : tensor<8x4096xf16>, tensor<8x4096xf16>
  %y = kn.add %x, %step : tensor<8x4096xf16>, tensor<8x4096xf16>
  %out = kn.rms_norm %y {eps = 1.0e-6 : f64} : tensor<8x4096xf16>
  return %out : tensor<8x4096xf16>
}

func.func @ntrans_bs8(%h: tensor<64x4096xf16>, %x: tensor<64x4096xf16>, %alpha: tensor<64x4096xf16>) -> tensor<64x4096xf16> {
  %hn = kn.rms_norm %h {eps = 1.0e-6 : f64} : tensor<64x4096xf16>
  %d = kn.sub %hn, %x : tensor<64x4096xf16>, tensor<64x4096xf16>
  %step = kn.mul %alpha, %d : tensor<64x4096xf16>, tensor<64x4096xf16>
  %y = kn.add %x, %step : tensor<64x4096xf16>, tensor<64x4096xf16>
  %out = kn.rms_norm %y {eps = 1.0e-6 : f64} : tensor<64x4096xf16>
  return %out : tensor<64x4096xf16>
}
