// The passes that work on one function anchor on func.func (kn-fuse,
// kn-default-block-graphs) or on any op (tb-report-resources), so they nest
// in textual pipelines as upstream function passes do, next to upstream
// ones; nesting gives what the flags give. Module-level passes refuse to
// nest under func.func. Functions run in parallel, so remarks of nested
// passes come in no fixed order unless threading is off.
//
// RUN: mirage-opt %s --pass-pipeline="builtin.module(func.func(kn-fuse,kn-default-block-graphs,canonicalize))" | FileCheck %s
// RUN: mirage-opt %s --kn-fuse --kn-default-block-graphs --canonicalize > %t.flags.mlir
// RUN: mirage-opt %s --pass-pipeline="builtin.module(func.func(kn-fuse,kn-default-block-graphs,canonicalize))" > %t.nested.mlir
// RUN: diff %t.flags.mlir %t.nested.mlir
// RUN: mirage-opt %s --pass-pipeline="builtin.module(func.func(kn-fuse,tb-report-resources),kn-report-traffic)" -mlir-disable-threading -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORTS
// RUN: mirage-opt %s --pass-pipeline="builtin.module(func.func(kn-fuse{persistent workers=8}),func.func(kn-default-block-graphs{persistent workers=8}),mirage-build-task-graph)" | FileCheck %s --check-prefix=TASKS
// RUN: not mirage-opt %s --pass-pipeline="builtin.module(func.func(convert-kn-to-gpu))" 2>&1 | FileCheck %s --check-prefix=MODULE

// Both functions are fused, each on its own.
// CHECK-LABEL: func.func @a
// CHECK: kn.kernel
// CHECK-NOT: kn.exp
// CHECK-LABEL: func.func @b
// CHECK: kn.kernel
// CHECK-NOT: kn.mul_scalar

// A resource remark per block graph, function by function, then the
// module-level traffic report of each fused function.
// REPORTS: remark: block graph: grid [{{[0-9, ]+}}] = {{[0-9]+}} blocks
// REPORTS: remark: block graph: grid [{{[0-9, ]+}}] = {{[0-9]+}} blocks
// REPORTS: remark: traffic: 1 kernel
// REPORTS: remark: traffic: 1 kernel

// TASKS-COUNT-2: tg.graph

// MODULE: error: Can't add pass 'ConvertKernelToGPU' restricted to 'builtin.module' on a PassManager intended to run on 'func.func'

func.func @a(%x: tensor<16x64xf16>, %y: tensor<16x64xf16>) -> tensor<16x64xf16> {
  %0 = kn.add %x, %y : tensor<16x64xf16>, tensor<16x64xf16>
  %1 = kn.exp %0 : tensor<16x64xf16>
  return %1 : tensor<16x64xf16>
}

func.func @b(%x: tensor<32x64xf16>) -> tensor<32x64xf16> {
  %0 = kn.exp %x : tensor<32x64xf16>
  %1 = kn.mul_scalar %0, 0.5 : tensor<32x64xf16>
  return %1 : tensor<32x64xf16>
}
