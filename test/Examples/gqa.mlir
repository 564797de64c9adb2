// The bundled attention programs parse, verify and round-trip.
// RUN: mirage-opt %examples/gqa.mlir | mirage-opt | FileCheck %s

// CHECK-LABEL: func.func @gqa_bs1(
// CHECK: kn.exp
// CHECK: kn.reduce_sum {{.*}} dim 2
// CHECK: kn.div
// CHECK-LABEL: func.func @gqa_bs8(
// CHECK-LABEL: func.func @gqa_bs1_fused(
// CHECK-SAME: kn.reference = @gqa_bs1
// CHECK: tb.graph grid [2, 16] threads 128 forloop 64
// CHECK: tb.exp
// CHECK-COUNT-2: tb.accum_sum
// CHECK: tb.div
// CHECK-LABEL: func.func @gqa_bs8_fused(
// CHECK: tb.graph grid [16, 16]
// CHECK-LABEL: func.func @gqa_bs1_fused_online(
// CHECK: tb.reduce_max
// CHECK-COUNT-2: tb.accum_rescaled_sum
