// convert-tg-to-gpu leaves out the empty tasks normalization adds: a task's
// record lists every event it waits on and signals. Here the scaled tiles
// fork to the exponential's tile and the column sum (4 empty tasks), and
// the sum forks to both tiles of the addition (2 more); each producer
// signals the forked events itself.
// RUN: mirage-opt %s --mirage-to-task-graph=workers=2 --convert-tg-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATIC
// RUN: mirage-opt %s --mirage-to-task-graph=workers=2 --convert-tg-to-gpu=dynamic-dispatch=true 2>&1 | FileCheck %s
// The CPU executor runs the lists in every order the workers can take.
// RUN: mirage-opt %s --mirage-to-task-graph=workers=2 --convert-tg-to-gpu --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROOF
// RUN: mirage-opt %s --mirage-to-task-graph=workers=2 --convert-tg-to-gpu=dynamic-dispatch=true --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROOF

// STATIC: remark: normalized: added 6 empty tasks
// STATIC: remark: waits: 2 poll an event counter, 3 are same-worker hand-offs; 6 empty tasks left out

// Dynamic dispatch: every wait is on a counter. The 7 compute tasks
// (graph tasks 0, 1, 6, 7, 8, 11, 12) remain; records are (body, kernel,
// block x, y, z, waits (count, first, where the others start in the event
// lists), triggers (likewise), first operand). The scaling tiles signal
// events 3 and 5 (list entry 0), 4 and 5 (entry 1); the sum waits on 5 (two
// triggers) and signals 7 and 8 (entry 2), which the addition's tiles wait
// on.
// CHECK: remark: waits: 5 poll an event counter, 0 are same-worker hand-offs; 6 empty tasks left out
// CHECK: memref.global "private" constant @f_tasks_tasks : memref<84xi32> = dense<[0, 0, 0, 0, 0, 0, -1, 0, 2, 3, 0, 0, 0, 0, 1, 0, 0, 0, -1, 1, 2, 4, 1, 0, 1, 1, 0, 0, 0, 1, 3, 2, 1, 7, 2, 2, 1, 1, 1, 0, 0, 1, 4, 2, 1, 8, 2, 2, 2, 2, 0, 0, 0, 1, 5, 2, 2, 7, 2, 4, 3, 3, 0, 0, 0, 1, 7, 3, 0, -1, 3, 6, 3, 3, 1, 0, 0, 1, 8, 3, 0, -1, 3, 6]>
// CHECK: memref.global "private" constant @f_tasks_needed : memref<9xi32> = dense<[0, 1, 1, 1, 1, 2, 1, 2, 2]>
// CHECK: memref.global "private" constant @f_tasks_event_lists : memref<3xi32> = dense<[5, 5, 8]>
// CHECK: memref.global "private" constant @f_tasks_graph_tasks : memref<7xi32> = dense<[0, 1, 6, 7, 8, 11, 12]>

// PROOF: remark: proven: equivalent to @f
// PROOF-SAME: mega-kernel worker orders
func.func @f(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %h = kn.mul_scalar %x, 3.0 {kn.partition = array<i64: 2, 1>} : tensor<4x64xf32>
  %a = kn.exp %h {kn.partition = array<i64: 2, 1>} : tensor<4x64xf32>
  %b = kn.reduce_sum %h dim 0 {kn.partition = array<i64: 1, 1>} : tensor<4x64xf32>
  %c = kn.add %a, %b {kn.partition = array<i64: 2, 1>} : tensor<4x64xf32>, tensor<1x64xf32>
  return %c : tensor<4x64xf32>
}
