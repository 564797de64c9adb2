// mirage-to-megakernel{superoptimize=true} runs the superoptimizer first:
// the mega-kernel's tasks are blocks of the verified kernel it chose (grid
// 8x8 here), where the default path fuses the same ops into one task per
// worker.
// RUN: mirage-opt %s --mirage-to-megakernel="superoptimize=true time-budget=10 workers=4 format=isa" 2>&1 | FileCheck %s
// RUN: mirage-opt %s --mirage-to-megakernel="workers=4 format=isa" 2>&1 | FileCheck %s --check-prefix=DEFAULT --implicit-check-not=searched

// CHECK: remark: @gate subprogram #1 (2 ops): searched in
// CHECK-SAME: chose #1: 1 kernel (1 graph-defined)
// CHECK-SAME: proven (false-accept probability <= 2^
// CHECK: remark: schedule: 64 tasks
// CHECK: tg.graph @gate_tasks from @gate workers 4 linearized attributes {mirage.megakernel =
// CHECK: tg.kernel
// CHECK-NEXT: tb.graph grid [8, 8]
// CHECK: tb.matmul
// CHECK: tb.silu

// DEFAULT: remark: schedule: 4 tasks
// DEFAULT: tg.kernel
// DEFAULT-NEXT: tb.graph grid [4]
func.func @gate(%x: tensor<8x64xf16>, %w: tensor<64x64xf16>) -> tensor<8x64xf16> {
  %h = kn.matmul %x, %w : tensor<8x64xf16>, tensor<64x64xf16>
  %s = kn.silu %h : tensor<8x64xf16>
  return %s : tensor<8x64xf16>
}
