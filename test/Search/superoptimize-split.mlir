// Subprograms: ops outside the verifier's fragment (relu) and collectives
// split the function, single-op runs are left alone.
// RUN: mirage-opt %s --mirage-superoptimize="max-block-ops=2 max-kernel-ops=2 threads=1 progress=0" \
// RUN:   --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @nothing_to_search
// CHECK-NEXT: kn.matmul
// CHECK-NEXT: kn.relu
// CHECK-NEXT: kn.exp
func.func @nothing_to_search(%x: tensor<16x32xf16>, %w: tensor<32x64xf16>) -> tensor<16x64xf16> {
  %a = kn.matmul %x, %w : tensor<16x32xf16>, tensor<32x64xf16>
  %r = kn.relu %a : tensor<16x64xf16>
  %e = kn.exp %r : tensor<16x64xf16>
  return %e : tensor<16x64xf16>
}

// Functions that name a reference are candidates, not programs.
// CHECK-LABEL: func.func @candidate
// CHECK-NEXT: kn.matmul
// CHECK-NEXT: kn.relu
// CHECK-NEXT: kn.exp
func.func @candidate(%x: tensor<16x32xf16>, %w: tensor<32x64xf16>) -> tensor<16x64xf16> attributes {kn.reference = @nothing_to_search} {
  %a = kn.matmul %x, %w : tensor<16x32xf16>, tensor<32x64xf16>
  %r = kn.relu %a : tensor<16x64xf16>
  %e = kn.exp %r : tensor<16x64xf16>
  return %e : tensor<16x64xf16>
}
