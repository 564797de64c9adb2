// mirage-to-task-graph end to end: partitions, tasks, events, fusion,
// normalization, linearization, labels, a schedule on two workers and its
// check, then the task graph against the function it was built from, in
// several random task orders.
// RUN: mirage-opt %s --mirage-to-task-graph=workers=2 -mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s
// RUN: mirage-opt %s --mirage-to-task-graph=workers=2 --mirage-verify-equivalence -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY


// Two producer tasks, then two consumers of both, on two workers: each
// worker runs one of each, in order.
// CHECK: remark: schedule: 4 tasks (0 empty, 0.00%) and 2 events on 2 workers; estimated makespan [[M:.*]] us against {{.*}} us for one kernel per operator ({{.*}}x); critical path [[M]] us over 2 tasks; workers idle 0.0% of the time
// CHECK-LABEL: tg.graph @pair_tasks from @pair workers 2 linearized {
// CHECK: tg.queue worker 0 [0, 2]
// CHECK: tg.queue worker 1 [1, 3]
func.func @pair(%x: tensor<4x64xf16>, %w: tensor<64x64xf16>) -> tensor<4x64xf16> {
  %h = kn.exp %x {kn.partition = array<i64: 1, 2>} : tensor<4x64xf16>
  %y = kn.matmul %h, %w {kn.partition = array<i64: 1, 2>} : tensor<4x64xf16>, tensor<64x64xf16>
  return %y : tensor<4x64xf16>
}


// VERIFY: remark: proven: equivalent to @pair (in the Lax fragment); 3 finite-field trials agree on all 256 output elements; {{.*}}; {{[0-9]+}} task orders
