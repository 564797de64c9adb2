// mirage-build-task-graph: buffers, kernels, one task per block with the
// regions it reads and writes, and events from the dependency analysis.
// RUN: mirage-opt %s --kn-default-block-graphs --mirage-build-task-graph --split-input-file --verify-diagnostics | FileCheck %s
// RUN: mirage-opt %s --kn-default-block-graphs --mirage-build-task-graph=pairwise-events=true --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=PAIRS

// A matmul cut into 2 column tiles, then an elementwise op cut into 4:
// each consumer reads the tile of one producer.
// CHECK-LABEL: tg.graph @chain_tasks from @chain {
// CHECK-DAG: %[[X:.*]] = tg.buffer input 0 : memref<4x64xf16>
// CHECK-DAG: %[[W:.*]] = tg.buffer input 1 : memref<64x64xf16>
// CHECK-DAG: %[[Y:.*]] = tg.buffer output 0 : memref<4x64xf16>
// CHECK-DAG: %[[H:.*]] = tg.buffer temp : memref<4x64xf16>
// CHECK: tg.kernel @k0_matmul ins(%[[X]], %[[W]] : memref<4x64xf16>, memref<64x64xf16>) outs(%[[H]] : memref<4x64xf16>)
// CHECK: tg.kernel @k1_exp ins(%[[H]] : memref<4x64xf16>) outs(%[[Y]] : memref<4x64xf16>)
// The producers read the whole x and their columns of w over the loop.
// CHECK: tg.task compute @k0_matmul block [0] reads [#tg.box<[0, 0], [4, 64]>, #tg.box<[0, 0], [64, 32]>] writes [#tg.box<[0, 0], [4, 32]>] aot triggers(%[[E0:.*]], %[[E1:.*]])
// CHECK: tg.task compute @k0_matmul block [1] reads [#tg.box<[0, 0], [4, 64]>, #tg.box<[0, 32], [64, 32]>] writes [#tg.box<[0, 32], [4, 32]>] aot triggers(%[[E2:.*]], %[[E3:.*]])
// CHECK: tg.task compute @k1_exp block [0] reads [#tg.box<[0, 0], [4, 16]>] writes [#tg.box<[0, 0], [4, 16]>] aot waits(%[[E0]])
// CHECK: tg.task compute @k1_exp block [3] reads [#tg.box<[0, 48], [4, 16]>] writes [#tg.box<[0, 48], [4, 16]>] aot waits(%[[E3]])
// Inputs need no events: the producers wait on nothing yet.
// PAIRS-LABEL: tg.graph @chain_tasks from @chain {
// PAIRS-COUNT-4: tg.event triggers 1
// PAIRS-NOT: tg.event
func.func @chain(%x: tensor<4x64xf16>, %w: tensor<64x64xf16>) -> tensor<4x64xf16> {
  %h = kn.matmul %x, %w {kn.partition = array<i64: 1, 2>} : tensor<4x64xf16>, tensor<64x64xf16>
  %y = kn.exp %h {kn.partition = array<i64: 1, 4>} : tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}

// -----

// A consumer that reads all of its producer's output waits for every
// producer task: one event triggered by both (per consumer; pairwise, one
// per pair).
// CHECK-LABEL: tg.graph @all_to_all_tasks
// CHECK-COUNT-2: tg.event triggers 2
// PAIRS-LABEL: tg.graph @all_to_all_tasks
// PAIRS-COUNT-4: tg.event triggers 1
func.func @all_to_all(%x: tensor<4x64xf16>, %w: tensor<64x64xf16>) -> tensor<4x64xf16> {
  %h = kn.exp %x {kn.partition = array<i64: 1, 2>} : tensor<4x64xf16>
  %y = kn.matmul %h, %w {kn.partition = array<i64: 1, 2>} : tensor<4x64xf16>, tensor<64x64xf16>
  return %y : tensor<4x64xf16>
}

// -----

// A reshape is a view of the buffer it reshapes; a returned reshape owns
// the storage and the kernel writes it through a view.
// CHECK-LABEL: tg.graph @views_tasks
// CHECK: %[[OUT:.*]] = tg.buffer output 0 : memref<2x128xf16>
// CHECK: %[[IN:.*]] = tg.buffer input 0 : memref<256xf16>
// CHECK: %[[OV:.*]] = tg.view %[[OUT]] : memref<2x128xf16> to memref<256xf16>
// CHECK: tg.kernel @k0_neg ins(%[[IN]] : memref<256xf16>) outs(%[[OV]] : memref<256xf16>)
func.func @views(%x: tensor<256xf16>) -> tensor<2x128xf16> {
  %y = kn.neg %x : tensor<256xf16>
  %r = kn.reshape %y : tensor<256xf16> -> tensor<2x128xf16>
  return %r : tensor<2x128xf16>
}

// -----

// expected-error @+1 {{'func.func' op returns argument #0 as result #1; a task graph writes every output with tasks}}
func.func @returns_input(%x: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf16>) {
  %y = kn.exp %x : tensor<4xf16>
  return %y, %x : tensor<4xf16>, tensor<4xf16>
}

// -----

func.func @returns_twice(%x: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf16>) {
  %y = kn.exp %x : tensor<4xf16>
  // expected-error @+1 {{'func.return' op returns one value twice; a task graph writes every output once}}
  return %y, %y : tensor<4xf16>, tensor<4xf16>
}
