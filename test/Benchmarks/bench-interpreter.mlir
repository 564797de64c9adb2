// The interpreter benchmark runs a program in every number system it has.
// RUN: mirage-bench-interpreter %s --repeat=1 --interpreter-threads=1 | FileCheck %s

// CHECK: 1 threads, median of 1 runs
// CHECK: scaled float64 {{[0-9.]+}} s
// CHECK: scaled fingerprint (uninterpreted) {{[0-9.]+}} s
// CHECK: scaled fingerprint (homomorphic) {{[0-9.]+}} s
func.func @scaled(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %y = kn.matmul %x, %w : tensor<4x8xf32>, tensor<8x2xf32>
  %z = kn.mul_scalar %y, 0.5 : tensor<4x2xf32>
  return %z : tensor<4x2xf32>
}

// CHECK: clipped float64
// CHECK: clipped fingerprint (uninterpreted) outside the fingerprint fragment
func.func @clipped(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kn.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
