// Values past an exponential have no exponent-field component in the
// fingerprints; a task graph must not let later tasks read a stale one
// (which made every draw hit a zero divisor): a softmax's task graph is
// proven like its function.
// RUN: mirage-opt %s --mirage-to-task-graph=workers=4 --mirage-verify-equivalence -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s

// CHECK: remark: proven: equivalent to @softmax (in the Lax fragment); 3 finite-field trials agree on all 256 output elements
func.func @softmax(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %e = kn.exp %x {kn.partition = array<i64: 1, 4>} : tensor<4x64xf32>
  %s = kn.reduce_sum %e dim 1 {kn.partition = array<i64: 2, 1>} : tensor<4x64xf32>
  %y = kn.div %e, %s {kn.partition = array<i64: 4, 1>} : tensor<4x64xf32>, tensor<4x1xf32>
  return %y : tensor<4x64xf32>
}
