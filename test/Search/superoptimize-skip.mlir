// A subprogram the search cannot take is left as it is with a remark, and
// the rest of the program is still searched; the pass succeeds.
// RUN: mirage-opt %s --mirage-superoptimize="threads=1 time-budget=5 progress=0 max-elements=4096" 2>&1 | FileCheck %s

// Mixed element types.
// CHECK: remark: superoptimize: @mixed subprogram #1 is left as it is: the search cannot take it (it mixes element types 'f16' and 'f32')
// Too large for the verifier's interpreter under max-elements.
// CHECK: remark: superoptimize: @large subprogram #1 is left as it is: the verifier cannot evaluate it (the program is too large to evaluate: {{.*}} more than the limit of 4096; raise it with the option max-elements)
// CHECK-LABEL: func.func @mixed
// CHECK-NEXT: kn.matmul
// CHECK-NEXT: kn.exp
// CHECK-NEXT: return
// CHECK-LABEL: func.func @large
// CHECK-NEXT: kn.exp
// CHECK-NEXT: kn.mul
// CHECK-NEXT: return
func.func @mixed(%x: tensor<2x64xf16>, %w: tensor<64x64xf16>, %z: tensor<2x64xf32>) -> (tensor<2x64xf16>, tensor<2x64xf32>) {
  %y = kn.matmul %x, %w : tensor<2x64xf16>, tensor<64x64xf16>
  %e = kn.exp %z : tensor<2x64xf32>
  return %y, %e : tensor<2x64xf16>, tensor<2x64xf32>
}

func.func @large(%x: tensor<64x64xf16>) -> tensor<64x64xf16> {
  %e = kn.exp %x : tensor<64x64xf16>
  %y = kn.mul %e, %x : tensor<64x64xf16>, tensor<64x64xf16>
  return %y : tensor<64x64xf16>
}
