// A subprogram that reads what an earlier, replaced subprogram computed
// reads the replacement: the second run below starts from the fused
// kernel's result, not from the erased matmul.
// RUN: mirage-opt %s --mirage-superoptimize="max-subprogram-ops=2 max-block-ops=3 threads=1 progress=0" \
// RUN:   --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @chained
// CHECK: %[[K:.*]] = kn.kernel(%arg0, %arg1, %arg2)
// CHECK: tb.rms_norm
// CHECK: tb.matmul
// CHECK: %[[S:.*]] = kn.kernel(%[[K]])
// CHECK: tb.add
// CHECK-NOT: kn.
// CHECK: return %[[S]]
func.func @chained(%x: tensor<2x256xf16>, %g: tensor<256xf16>, %w: tensor<256x512xf16>) -> tensor<2x512xf16> {
  // expected-remark @+1 {{subprogram #1 (2 ops): searched in}}
  %y = kn.rms_norm %x weight %g {eps = 1.0e-6 : f64} : tensor<2x256xf16>, tensor<256xf16>
  %z = kn.matmul %y, %w : tensor<2x256xf16>, tensor<256x512xf16>
  // expected-remark @+1 {{subprogram #2 (2 ops): searched in}}
  %m = kn.mul %z, %z : tensor<2x512xf16>, tensor<2x512xf16>
  %s = kn.add %m, %z : tensor<2x512xf16>, tensor<2x512xf16>
  return %s : tensor<2x512xf16>
}
