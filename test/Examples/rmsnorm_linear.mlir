// The bundled RMSNorm + Linear programs parse, verify and round-trip.
// RUN: mirage-opt %examples/rmsnorm_linear.mlir | mirage-opt | FileCheck %s

// CHECK-LABEL: func.func @rmsnorm_linear_bs1(
// CHECK: kn.rms_norm
// CHECK: kn.matmul {{.*}} : tensor<2x4096xf16>, tensor<4096x6144xf16>
// CHECK-LABEL: func.func @rmsnorm_linear_bs8(
// CHECK-LABEL: func.func @rmsnorm_linear_bs1_fused(
// CHECK-SAME: kn.reference = @rmsnorm_linear_bs1
// CHECK: kn.kernel
// CHECK-NEXT: tb.graph grid [96] threads 128 forloop 64
// CHECK-COUNT-2: tb.accum_sum
// CHECK: th.graph({{.*}}) threads [2, 64] forloop 1
// CHECK: th.sqrt
// CHECK: th.div
// CHECK: tb.output_saver {{.*}} omap <x -> 1> : !tb.tile<2x64xf16> -> tensor<2x6144xf16>
// CHECK-LABEL: func.func @rmsnorm_linear_bs8_fused(
// CHECK: th.graph({{.*}}) threads [16, 8] forloop 1
