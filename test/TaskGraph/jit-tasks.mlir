// A data-dependent activation: its two tasks are dispatched just in time
// (the second projection reads all of it, a barrier, so it stays ahead of
// time). The schedule queues only the ahead-of-time tasks, tg-check-schedule
// simulates the claims, and the mega-kernel lists the two after the queues.
// RUN: mirage-opt %s --mirage-to-task-graph=workers=4 --convert-tg-to-gpu -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s

// CHECK: remark: 2 of {{[0-9]+}} tasks are dispatched just in time
// CHECK: remark: schedule: {{.*}} on 4 workers
// CHECK: remark: just-in-time tasks, claimed by the workers as they go: 2
func.func @mlp(%x: tensor<2x64xf32>, %w: tensor<64x64xf32>, %v: tensor<64x32xf32>) -> tensor<2x32xf32> {
  %h = kn.matmul %x, %w {kn.partition = array<i64: 1, 4>} : tensor<2x64xf32>, tensor<64x64xf32>
  %a = kn.silu %h {kn.partition = array<i64: 1, 2>, kn.data_dependent} : tensor<2x64xf32>
  %y = kn.matmul %a, %v {kn.partition = array<i64: 1, 2>} : tensor<2x64xf32>, tensor<64x32xf32>
  return %y : tensor<2x32xf32>
}
