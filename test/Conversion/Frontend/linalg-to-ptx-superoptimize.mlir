// RUN: mirage-opt %s --mirage-linalg-to-ptx="superoptimize=true time-budget=10" 2>&1 | FileCheck %s
// RUN: mirage-opt %s --mirage-linalg-to-ptx | FileCheck %s --check-prefix=PLAIN

// The linalg pipeline with the µGraph search between the conversion and the
// lowering: exp(x) * y becomes one graph-defined kernel, then PTX.

// CHECK: remark: @scaled_exp subprogram #1 (2 ops): searched
// CHECK-SAME: chose #1: 1 kernel (1 graph-defined)
// CHECK: gpu.binary @scaled_exp_kernels
// CHECK-SAME: .target sm_90a
// PLAIN-NOT: remark
// PLAIN: gpu.binary @scaled_exp_kernels
func.func @scaled_exp(%x: tensor<8x64xf16>, %y: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %e = tensor.empty() : tensor<8x64xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<8x64xf16>, tensor<8x64xf16>) outs(%e : tensor<8x64xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %ex = math.exp %a : f16
    %m = arith.mulf %ex, %b : f16
    linalg.yield %m : f16
  } -> tensor<8x64xf16>
  return %r : tensor<8x64xf16>
}
