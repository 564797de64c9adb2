// MPK's running example (Fig. 5), an attention block: projections Q, K, V
// (2 tasks each), the attention A (here q * k + v, 2 tasks, each on its own
// columns), then the output projection O (2 tasks, each reading all of A)
// and a consumer R of A's columns (4 tasks). Each stage of the compiler is
// visible: the pairwise events of the dependency analysis, fusion,
// normalization's empty tasks and the linearized order.
// RUN: mirage-opt %s --kn-default-block-graphs --mirage-build-task-graph=pairwise-events=true | FileCheck %s --check-prefix=PAIRS
// RUN: mirage-opt %s --kn-default-block-graphs --mirage-build-task-graph=pairwise-events=true --tg-fuse-events -mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=FUSED
// RUN: mirage-opt %s --kn-default-block-graphs --mirage-build-task-graph=pairwise-events=true --tg-fuse-events --tg-normalize --tg-linearize -mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=LINEAR

// Stage b: one event per overlapping producer/consumer pair: Q and K to
// q * k (4), that and V to A (4), A to O (4), A to R (4).
// PAIRS-LABEL: tg.graph @attention_tasks from @attention {
// PAIRS-COUNT-16: tg.event triggers 1
// PAIRS-NOT: tg.event
// PAIRS: tg.task compute @k4_add block [0] {{.*}} aot waits(%{{.*}}, %{{.*}}) triggers(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})

// Stages c-d: successor-set fusion leaves one event per consumer (8);
// predecessor-set fusion joins those with the same producers: R's first
// two tasks read only A1, its last two only A2, O's both read A1 and A2.
// FUSED: remark: fused away 9 events; 7 remain
// FUSED-LABEL: tg.graph @attention_tasks from @attention {
// FUSED-COUNT-4: tg.event triggers 2
// FUSED-NEXT: %[[O:.*]] = tg.event triggers 2
// FUSED: %[[R12:.*]] = tg.event triggers 1
// FUSED: %[[R34:.*]] = tg.event triggers 1
// FUSED: tg.task compute @k4_add block [0] {{.*}} waits(%{{.*}}) triggers(%[[O]], %[[R12]])
// FUSED: tg.task compute @k4_add block [1] {{.*}} waits(%{{.*}}) triggers(%[[O]], %[[R34]])

// Stage e: each A task triggers two events, so normalization gives each a
// new event and two empty tasks (MPK's dummy tasks); the projections wait
// on a start event. Stage f: tasks waiting on one event are contiguous.
// LINEAR: remark: normalized: added 4 empty tasks (25.00% of 16) and 3 events (42.86% of 7)
// LINEAR-LABEL: tg.graph @attention_tasks from @attention linearized {
// LINEAR: tg.event triggers 0 tasks [0, 5]
// LINEAR-COUNT-6: tg.task compute @k{{[012]}}_matmul
// LINEAR: tg.event triggers 2 tasks [6, 6]
// LINEAR: tg.task compute @k3_mul block [0]
// LINEAR: tg.event triggers 2 tasks [9, 9]
// LINEAR: tg.task compute @k4_add block [1] {{.*}} triggers(%[[FORK2:[0-9]+]])
// LINEAR: %[[FORK1:.*]] = tg.event triggers 1 tasks [10, 11]
// LINEAR-NEXT: tg.task empty aot waits(%[[FORK1]])
// LINEAR-NEXT: tg.task empty aot waits(%[[FORK1]])
// LINEAR-NEXT: %[[FORK2]] = tg.event triggers 1 tasks [12, 13]
// LINEAR-NEXT: tg.task empty aot waits(%[[FORK2]])
// LINEAR-NEXT: tg.task empty aot waits(%[[FORK2]])
// LINEAR: tg.event triggers 2 tasks [16, 17]
// LINEAR-NEXT: tg.task compute @k5_matmul block [0]
// LINEAR-NEXT: tg.task compute @k5_matmul block [1]
func.func @attention(%x: tensor<2x32xf16>, %wq: tensor<32x32xf16>, %wk: tensor<32x32xf16>, %wv: tensor<32x32xf16>, %wo: tensor<32x32xf16>) -> (tensor<2x32xf16>, tensor<2x32xf16>) {
  %q = kn.matmul %x, %wq {kn.partition = array<i64: 1, 2>} : tensor<2x32xf16>, tensor<32x32xf16>
  %k = kn.matmul %x, %wk {kn.partition = array<i64: 1, 2>} : tensor<2x32xf16>, tensor<32x32xf16>
  %v = kn.matmul %x, %wv {kn.partition = array<i64: 1, 2>} : tensor<2x32xf16>, tensor<32x32xf16>
  %qk = kn.mul %q, %k {kn.partition = array<i64: 1, 2>} : tensor<2x32xf16>, tensor<2x32xf16>
  %a = kn.add %qk, %v {kn.partition = array<i64: 1, 2>} : tensor<2x32xf16>, tensor<2x32xf16>
  %o = kn.matmul %a, %wo {kn.partition = array<i64: 1, 2>} : tensor<2x32xf16>, tensor<32x32xf16>
  %r = kn.exp %a {kn.partition = array<i64: 1, 4>} : tensor<2x32xf16>
  return %o, %r : tensor<2x32xf16>, tensor<2x32xf16>
}
