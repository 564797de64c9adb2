// Every tg op round-trips through the custom and the generic form.
// RUN: mirage-opt %s | mirage-opt | FileCheck %s
// RUN: mirage-opt %s --mlir-print-op-generic | mirage-opt | FileCheck %s

// The operators the tasks run.
func.func private @matmul(tensor<16x4096xf16>, tensor<4096x128xf16>) -> tensor<16x128xf16>
func.func private @all_reduce(tensor<16x128xf16>) -> tensor<16x128xf16>

// A task graph before normalization: MatMul tiles each release the
// AllReduce task that consumes them (MPK Fig. 4b).
// CHECK-LABEL: tg.graph @matmul_allreduce {
tg.graph @matmul_allreduce {
  // CHECK: %[[START:.*]] = tg.event triggers 0
  %start = tg.event triggers 0
  // Events may be used before they are defined: the region is a graph.
  // CHECK: tg.task compute @matmul tile [0, 0] sizes [16, 64] aot waits(%[[START]]) triggers(%[[E1:.*]])
  tg.task compute @matmul tile [0, 0] sizes [16, 64] aot waits(%start) triggers(%e1)
  // CHECK: tg.task compute @matmul tile [0, 64] sizes [16, 64] aot waits(%[[START]]) triggers(%[[E2:.*]])
  tg.task compute @matmul tile [0, 64] sizes [16, 64] aot waits(%start) triggers(%e2)
  // CHECK: %[[E1]] = tg.event triggers 1
  %e1 = tg.event triggers 1
  // CHECK: %[[E2]] = tg.event triggers 1
  %e2 = tg.event triggers 1
  // CHECK: tg.task communication @all_reduce tile [0, 0] sizes [16, 64] jit waits(%[[E1]]) triggers(%[[DONE:.*]])
  tg.task communication @all_reduce tile [0, 0] sizes [16, 64] jit waits(%e1) triggers(%done)
  tg.task communication @all_reduce tile [0, 64] sizes [16, 64] jit waits(%e2) triggers(%done)
  // CHECK: %[[DONE]] = tg.event triggers 2
  %done = tg.event triggers 2
}

// The linearized form: each task waits on one event and triggers at most one;
// each event records the contiguous range of the tasks waiting on it. An
// empty task forks one event into two.
// CHECK-LABEL: tg.graph @linear linearized {
tg.graph @linear linearized {
  // CHECK: tg.event triggers 0 tasks [0, 1]
  %start = tg.event triggers 0 tasks [0, 1]
  tg.task compute @matmul tile [0, 0] sizes [16, 64] aot waits(%start) triggers(%mm)
  tg.task compute @matmul tile [0, 64] sizes [16, 64] aot waits(%start) triggers(%mm)
  // CHECK: tg.event triggers 2 tasks [2, 2]
  %mm = tg.event triggers 2 tasks [2, 2]
  // CHECK: tg.task empty jit waits(%{{.*}}) triggers(%{{.*}})
  tg.task empty jit waits(%mm) triggers(%fork)
  %fork = tg.event triggers 1 tasks [3, 4]
  tg.task communication @all_reduce tile [0, 0] sizes [16, 64] jit waits(%fork)
  tg.task communication @all_reduce tile [0, 64] sizes [16, 64] jit waits(%fork)
}
