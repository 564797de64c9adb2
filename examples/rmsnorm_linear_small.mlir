// RMSNorm followed by a projection, small enough for a search of a few
// seconds: the example of the superoptimizer's commands in docs/Passes.md
// and docs/Search.md (examples/rmsnorm_linear.mlir has the model's sizes).
func.func @rmsnorm_linear(%x: tensor<2x256xf16>, %g: tensor<256xf16>, %w: tensor<256x512xf16>) -> tensor<2x512xf16> {
  %y = kn.rms_norm %x weight %g {eps = 1.0e-6 : f64} : tensor<2x256xf16>, tensor<256xf16>
  %z = kn.matmul %y, %w : tensor<2x256xf16>, tensor<256x512xf16>
  return %z : tensor<2x512xf16>
}
