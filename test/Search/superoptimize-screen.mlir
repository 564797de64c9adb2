// With square weights, abstract expressions (which ignore indices) equate
// silu(x W1) * (x W2) with x * (silu(x W1) W2) and with
// silu(x W1) * x * reduce_sum(W2, 0). Axis labels keep such graphs from
// completing, and the float64 screen catches what they miss before a
// candidate can rank: every screened candidate passes and the verifier
// rejects none. Without the labels about 240 of 290 screened candidates fail.
// RUN: mirage-opt %s --mirage-superoptimize="max-block-ops=4 threads=1 progress=0 top-k=4 top-k-file=%t.mlir" \
// RUN:   --verify-diagnostics -o /dev/null
// RUN: FileCheck %s < %t.mlir

// CHECK: func.func @gated_mlp_sub1(
// CHECK: func.func @gated_mlp_sub1_top1({{.*}}kn.reference = @gated_mlp_sub1
// CHECK: func.func @gated_mlp_sub1_top4(
func.func @gated_mlp(%x: tensor<4x64xf16>, %w1: tensor<64x64xf16>, %w2: tensor<64x64xf16>) -> tensor<4x64xf16> {
  // expected-remark-re @+1 {{subprogram #1 (4 ops): searched in {{.*}}; {{[1-9][0-9]?}} candidates screened in float64, 4 verified, 0 rejected; chose #1}}
  %a = kn.matmul %x, %w1 : tensor<4x64xf16>, tensor<64x64xf16>
  %s = kn.silu %a : tensor<4x64xf16>
  %b = kn.matmul %x, %w2 : tensor<4x64xf16>, tensor<64x64xf16>
  %y = kn.mul %s, %b : tensor<4x64xf16>, tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}
