// A graph lowered to a mega-kernel is checked in the orders its workers can
// take (the tables read back), not merely in those its events allow.
// RUN: mirage-opt %s --mirage-to-task-graph=workers=4 --convert-tg-to-gpu --mirage-verify-equivalence -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// The decoder's tables too (float64 only: its softmax has no finite-field
// semantics).
// With just-in-time tasks, in the orders their claims allow too.
// RUN: mirage-opt %examples/jit_mlp.mlir --mirage-to-task-graph --convert-tg-to-gpu --mirage-verify-equivalence -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=JIT
// RUN: mirage-opt %examples/decoder_small.mlir --mirage-to-task-graph --convert-tg-to-gpu --mirage-verify-equivalence -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=DECODER

// CHECK: remark: proven: equivalent to @mlp (in the Lax fragment); {{.*}} mega-kernel worker orders
// JIT: remark: just-in-time tasks, claimed by the workers as they go: 128
// JIT: remark: proven: equivalent to @jit_mlp (in the Lax fragment); {{.*}} mega-kernel worker orders
// DECODER: remark: tested, not proven: agrees with @decoder_small {{.*}} mega-kernel worker orders
func.func @mlp(%x: tensor<2x64xf32>, %w: tensor<64x64xf32>, %v: tensor<64x32xf32>) -> tensor<2x32xf32> {
  %h = kn.matmul %x, %w {kn.partition = array<i64: 1, 4>} : tensor<2x64xf32>, tensor<64x64xf32>
  %a = kn.silu %h {kn.partition = array<i64: 1, 2>} : tensor<2x64xf32>
  %y = kn.matmul %a, %v {kn.partition = array<i64: 1, 2>} : tensor<2x64xf32>, tensor<64x32xf32>
  return %y : tensor<2x32xf32>
}
