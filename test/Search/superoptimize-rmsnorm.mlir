// The search fuses RMSNorm and the matmul into one graph-defined kernel (at
// this size a block holds whole rows, so no loop is needed), verifies it
// and replaces the program. Small limits keep it to a couple of seconds.
// RUN: mirage-opt %s --mirage-superoptimize="max-block-ops=3 threads=1 progress=0" \
// RUN:   --split-input-file --verify-diagnostics 2>&1 | FileCheck %s

// CHECK-LABEL: func.func @rmsnorm_linear
// CHECK-SAME: (%[[X:.*]]: tensor<2x256xf16>, %[[G:.*]]: tensor<256xf16>, %[[W:.*]]: tensor<256x512xf16>)
// CHECK-NEXT: %[[K:.*]] = kn.kernel(%[[X]], %[[G]], %[[W]])
// CHECK: tb.graph grid
// CHECK: tb.rms_norm {{.*}} weight
// CHECK: tb.matmul
// CHECK: tb.output_saver
// CHECK-NOT: kn.rms_norm
// CHECK-NOT: kn.matmul
// CHECK: return %[[K]]
func.func @rmsnorm_linear(%x: tensor<2x256xf16>, %g: tensor<256xf16>, %w: tensor<256x512xf16>) -> tensor<2x512xf16> {
  // expected-remark @+1 {{subprogram #1 (2 ops): searched in}}
  %y = kn.rms_norm %x weight %g {eps = 1.0e-6 : f64} : tensor<2x256xf16>, tensor<256xf16>
  %z = kn.matmul %y, %w : tensor<2x256xf16>, tensor<256x512xf16>
  return %z : tensor<2x512xf16>
}
