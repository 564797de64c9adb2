// Every kn op lowers to PTX in each element type of the dialects (f16, bf16,
// f32), on tensor cores and without: Inputs/element-types.mlir is written
// over ELT, which each RUN line replaces with one type. Matmuls run on
// tensor cores in f16 and bf16 (mma.sync with that multiplicand type and
// f32 accumulators) and SIMT in f32 or with tensor-cores=false; results are
// rounded to the stored type (cvt.rn); the PTX of one type names no other
// 16-bit type. element-types-cubin.mlir assembles the same with ptxas.
// These RUN lines lower every op as its own kernel (fuse=false); the last
// ones fuse them (kn-fuse's default) and check the fused kernels' PTX.
// RUN: sed 's/ELT/f16/g' %S/Inputs/element-types.mlir | mirage-opt --mirage-to-ptx="fuse=false" | FileCheck %s --check-prefixes=CHECK,SM90,MMA-F16,F16 --implicit-check-not=.bf16
// RUN: sed 's/ELT/bf16/g' %S/Inputs/element-types.mlir | mirage-opt --mirage-to-ptx="fuse=false" | FileCheck %s --check-prefixes=CHECK,SM90,MMA-BF16,BF16 --implicit-check-not=.f16
// RUN: sed 's/ELT/f32/g' %S/Inputs/element-types.mlir | mirage-opt --mirage-to-ptx="fuse=false" | FileCheck %s --check-prefixes=CHECK,SM90 --implicit-check-not=.f16 --implicit-check-not=.bf16 --implicit-check-not=mma.sync
// RUN: sed 's/ELT/f16/g' %S/Inputs/element-types.mlir | mirage-opt --mirage-to-ptx="fuse=false tensor-cores=false" | FileCheck %s --check-prefixes=CHECK,SM90,F16 --implicit-check-not=.bf16 --implicit-check-not=mma.sync
// RUN: sed 's/ELT/bf16/g' %S/Inputs/element-types.mlir | mirage-opt --mirage-to-ptx="fuse=false tensor-cores=false" | FileCheck %s --check-prefixes=CHECK,SM90,BF16 --implicit-check-not=.f16 --implicit-check-not=mma.sync
// sm_80 (PTX 7.0) has the same tensor-core instructions.
// RUN: sed 's/ELT/f16/g' %S/Inputs/element-types.mlir | mirage-opt --mirage-to-ptx="fuse=false chip=sm_80" | FileCheck %s --check-prefixes=CHECK,SM80,MMA-F16,F16 --implicit-check-not=.bf16
// RUN: sed 's/ELT/bf16/g' %S/Inputs/element-types.mlir | mirage-opt --mirage-to-ptx="fuse=false chip=sm_80" | FileCheck %s --check-prefixes=CHECK,SM80,MMA-BF16,BF16 --implicit-check-not=.f16
// Fused: each function is one kernel (its unary and binary ops, its two
// reductions, its data movement each share one block graph).
// RUN: sed 's/ELT/f16/g' %S/Inputs/element-types.mlir | mirage-opt --mirage-to-ptx | FileCheck %s --check-prefixes=FUSED,FUSED-MMA-F16 --implicit-check-not=.bf16
// RUN: sed 's/ELT/bf16/g' %S/Inputs/element-types.mlir | mirage-opt --mirage-to-ptx | FileCheck %s --check-prefixes=FUSED,FUSED-MMA-BF16 --implicit-check-not=.f16
// RUN: sed 's/ELT/f32/g' %S/Inputs/element-types.mlir | mirage-opt --mirage-to-ptx | FileCheck %s --check-prefixes=FUSED,FUSED-F32 --implicit-check-not=.f16 --implicit-check-not=.bf16 --implicit-check-not=mma.sync

// CHECK-LABEL: gpu.binary @matmul_kernels
// SM90-SAME: .target sm_90a
// SM80-SAME: .target sm_80
// CHECK-SAME: .visible .entry matmul_k0(
// MMA-F16-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// MMA-BF16-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// F16-SAME: cvt.rn.f16x2.f32
// BF16-SAME: cvt.rn.bf16x2.f32

// CHECK-LABEL: gpu.binary @matmul_loop_kernels
// CHECK-SAME: .visible .entry matmul_loop_k0(
// MMA-F16-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// MMA-BF16-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// F16-SAME: cvt.rn.f16x2.f32
// BF16-SAME: cvt.rn.bf16x2.f32

// CHECK-LABEL: gpu.binary @matmul_batched_kernels
// CHECK-SAME: .visible .entry matmul_batched_k0(
// MMA-F16-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// MMA-BF16-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// F16-SAME: cvt.rn.f16x2.f32
// BF16-SAME: cvt.rn.bf16x2.f32

// exp, square, sqrt, silu, sigmoid, gelu, relu, neg, mul_scalar, add_scalar,
// tanh (libdevice's, on ex2.approx), rsqrt (1 / sqrt, one rsqrt.approx).
// CHECK-LABEL: gpu.binary @unary_kernels
// CHECK-SAME: .visible .entry unary_k0(
// CHECK-SAME: ex2.approx
// F16-SAME: cvt.rn.f16x2.f32
// BF16-SAME: cvt.rn.bf16x2.f32
// CHECK-SAME: .visible .entry unary_k1(
// CHECK-SAME: .visible .entry unary_k2(
// CHECK-SAME: sqrt
// CHECK-SAME: .visible .entry unary_k3(
// CHECK-SAME: .visible .entry unary_k4(
// CHECK-SAME: .visible .entry unary_k5(
// CHECK-SAME: .visible .entry unary_k6(
// CHECK-SAME: .visible .entry unary_k7(
// CHECK-SAME: .visible .entry unary_k8(
// CHECK-SAME: .visible .entry unary_k9(
// CHECK-SAME: .visible .entry unary_k10(
// CHECK-SAME: ex2.approx
// CHECK-SAME: .visible .entry unary_k11(
// CHECK-SAME: rsqrt.approx.f32
// F16-SAME: cvt.rn.f16x2.f32
// BF16-SAME: cvt.rn.bf16x2.f32

// add, sub, mul, div, pow, maximum with broadcasts.
// CHECK-LABEL: gpu.binary @binary_kernels
// CHECK-SAME: .visible .entry binary_k0(
// F16-SAME: cvt.rn.f16x2.f32
// BF16-SAME: cvt.rn.bf16x2.f32
// CHECK-SAME: .visible .entry binary_k1(
// CHECK-SAME: .visible .entry binary_k2(
// CHECK-SAME: .visible .entry binary_k3(
// CHECK-SAME: div.approx.f32
// CHECK-SAME: .visible .entry binary_k4(
// CHECK-SAME: .visible .entry binary_k5(
// CHECK-SAME: max.NaN.f32
// F16-SAME: cvt.rn.f16x2.f32
// BF16-SAME: cvt.rn.bf16x2.f32

// reduce_sum, reduce_max: lanes combine by shuffles.
// CHECK-LABEL: gpu.binary @reduce_kernels
// CHECK-SAME: .visible .entry reduce_k0(
// CHECK-SAME: shfl.sync.bfly.b32
// F16-SAME: cvt.rn.f16.f32
// BF16-SAME: cvt.rn.bf16.f32
// CHECK-SAME: .visible .entry reduce_k1(
// CHECK-SAME: max.NaN.f32
// F16-SAME: cvt.rn.f16.f32
// BF16-SAME: cvt.rn.bf16.f32

// rms_norm with a weight and without: a warp per row.
// CHECK-LABEL: gpu.binary @rms_norm_kernels
// CHECK-SAME: .visible .entry rms_norm_k0(
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: sqrt
// F16-SAME: cvt.rn.f16x2.f32
// BF16-SAME: cvt.rn.bf16x2.f32
// CHECK-SAME: .visible .entry rms_norm_k1(
// CHECK-SAME: shfl.sync.bfly.b32
// F16-SAME: cvt.rn.f16x2.f32
// BF16-SAME: cvt.rn.bf16x2.f32

// concat, split, transpose; the reshape is a host-side view.
// CHECK-LABEL: gpu.binary @data_movement_kernels
// CHECK-SAME: .visible .entry data_movement_k0(
// CHECK-SAME: .visible .entry data_movement_k1(
// CHECK-SAME: .visible .entry data_movement_k2(
// CHECK-NOT: .entry

// FUSED-LABEL: gpu.binary @matmul_kernels
// FUSED-SAME: .visible .entry matmul_k0(
// FUSED-MMA-F16-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// FUSED-MMA-BF16-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// FUSED-NOT: .entry matmul_k1(
// FUSED-LABEL: gpu.binary @matmul_loop_kernels
// FUSED-SAME: .visible .entry matmul_loop_k0(
// FUSED-MMA-F16-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// FUSED-MMA-BF16-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// FUSED-MMA-F16-NOT: .entry matmul_loop_k1(
// FUSED-MMA-BF16-NOT: .entry matmul_loop_k1(
// Without tensor cores (f32), the 64 x 128 product is split over k: partial
// products, then their sum.
// FUSED-F32-SAME: .visible .entry matmul_loop_k1(
// FUSED-F32-NOT: .entry matmul_loop_k2(
// FUSED-LABEL: gpu.binary @matmul_batched_kernels
// FUSED-SAME: .visible .entry matmul_batched_k0(
// FUSED-MMA-F16-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// FUSED-MMA-BF16-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// FUSED-NOT: .entry matmul_batched_k1(
// FUSED-LABEL: gpu.binary @unary_kernels
// FUSED-SAME: .visible .entry unary_k0(
// FUSED-NOT: .entry unary_k1(
// FUSED-LABEL: gpu.binary @binary_kernels
// FUSED-SAME: .visible .entry binary_k0(
// FUSED-NOT: .entry binary_k1(
// FUSED-LABEL: gpu.binary @reduce_kernels
// FUSED-SAME: .visible .entry reduce_k0(
// FUSED-NOT: .entry reduce_k1(
// FUSED-LABEL: gpu.binary @rms_norm_kernels
// FUSED-SAME: .visible .entry rms_norm_k0(
// FUSED-NOT: .entry rms_norm_k1(
// FUSED-LABEL: gpu.binary @data_movement_kernels
// FUSED-SAME: .visible .entry data_movement_k0(
// FUSED-NOT: .entry data_movement_k1(
