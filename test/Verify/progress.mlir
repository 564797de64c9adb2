// progress=true: one line on stderr per check as it starts, and the verdict,
// with which pair of how many and the seconds so far; quiet by default.
// RUN: mirage-opt %s --mirage-verify-equivalence=progress=true -o /dev/null 2>&1 | FileCheck %s
// RUN: mirage-opt %s --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET
// A task graph's orders are reported too.
// RUN: mirage-opt %s --mirage-to-task-graph=workers=4 --mirage-verify-equivalence=progress=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=TASKS

// CHECK: mirage-verify-equivalence: [1/1] @scaled against @ref: float64, [-1, 1) inputs ({{[0-9.]+}} s)
// CHECK: mirage-verify-equivalence: [1/1] @scaled against @ref: finite-field trial 1 of 3 (uninterpreted)
// CHECK: mirage-verify-equivalence: [1/1] @scaled against @ref: finite-field trial 3 of 3 (uninterpreted)
// CHECK: mirage-verify-equivalence: [1/1] @scaled against @ref: proven ({{[0-9.]+}} s)
// CHECK: remark: proven: equivalent to @ref
// QUIET-NOT: mirage-verify-equivalence: [
// QUIET: remark: proven: equivalent to @ref
// TASKS: @ref_tasks against @ref: task order 1 of 4
// TASKS: @ref_tasks against @ref: task order 4 of 4
// TASKS: @ref_tasks against @ref: proven
func.func @ref(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = kn.mul_scalar %x, 2.0 : tensor<4x8xf32>
  %z = kn.add %y, %x : tensor<4x8xf32>, tensor<4x8xf32>
  return %z : tensor<4x8xf32>
}

func.func @scaled(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {kn.reference = @ref} {
  %z = kn.mul_scalar %x, 3.0 : tensor<4x8xf32>
  return %z : tensor<4x8xf32>
}
