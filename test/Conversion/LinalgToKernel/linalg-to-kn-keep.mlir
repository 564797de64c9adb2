// RUN: mirage-opt %s --convert-linalg-to-kn="keep-unsupported=true" --verify-diagnostics | FileCheck %s
// RUN: not mirage-opt %s --convert-linalg-to-kn="keep-unsupported=true" --kn-default-block-graphs --convert-kn-to-gpu 2>&1 | FileCheck %s --check-prefix=LOWER

// With keep-unsupported, an op that cannot be converted stays (a remark
// says why) between converted ones, reading and feeding kn tensors (without
// it, the op is an error: linalg-to-kn-invalid.mlir). The lowering then
// refuses the function, naming the kept op.

#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @keep_log(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[E:.*]] = kn.exp %[[X]]
// CHECK: %[[T:.*]] = linalg.generic
// CHECK-SAME: ins(%[[E]] : tensor<4x8xf32>)
// CHECK: math.log
// CHECK: %[[M:.*]] = kn.mul %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK: return %[[M]]
// LOWER: error: kn-default-block-graphs reads kernel graphs (kn) only: convert this linalg op first (convert-linalg-to-kn, or the mirage-linalg-to-ptx pipeline)
func.func @keep_log(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %a = linalg.exp ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{kept, not converted to kn (convert-linalg-to-kn): the body's 'math.log' has no kn operator}}
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    // expected-note @+1 {{'math.log' is here}}
    %r = math.log %v : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %m = linalg.mul ins(%t, %x : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %m : tensor<4x8xf32>
}
