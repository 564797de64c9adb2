// mirage-to-ptx takes a kernel graph to PTX in one call: the fused RMSNorm +
// Linear kernel keeps its cp.async pipeline, ldmatrix fragment loads,
// tensor-core mma.sync, 16-byte global stores and its dynamic shared memory
// (an extern array), and uses no local memory.
// RUN: mirage-opt %examples/rmsnorm_linear.mlir --mirage-to-ptx | FileCheck %s
// RUN: mirage-opt %examples/rmsnorm_linear.mlir --mirage-to-ptx="chip=sm_90a ptx=85" | FileCheck %s --check-prefix=PTX85
// The same kernel over bf16 tensors: bf16 tensor-core instructions.
// RUN: sed 's/xf16/xbf16/g' %examples/rmsnorm_linear.mlir | mirage-opt --mirage-to-ptx | FileCheck %s --check-prefix=BF16 --implicit-check-not=.f16

// CHECK-LABEL: func.func @rmsnorm_linear_bs1_fused(
// CHECK: gpu.launch_func @rmsnorm_linear_bs1_fused_kernels::@rmsnorm_linear_bs1_fused_k0 blocks in (%c96, %c1, %c1) threads in (%c128, %c1, %c1)
// CHECK: gpu.binary @rmsnorm_linear_bs1_fused_kernels
// CHECK-SAME: #nvvm.target<O = 3, chip = "sm_90a", features = "+ptx83">
// CHECK-SAME: .version 8.3
// CHECK-SAME: .target sm_90a
// CHECK-SAME: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// CHECK-SAME: .visible .entry rmsnorm_linear_bs1_fused_k0(
// CHECK-SAME: .maxntid 128, 1, 1
// CHECK-NOT: .local
// CHECK-SAME: cp.async.cg.shared.global
// CHECK-SAME: cp.async.wait_group
// CHECK-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-SAME: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-SAME: st.global.v4.b32

// PTX85: .version 8.5

// BF16-LABEL: gpu.binary @rmsnorm_linear_bs1_fused_kernels
// BF16-SAME: .visible .entry rmsnorm_linear_bs1_fused_k0(
// BF16-NOT: .local
// BF16-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// BF16-SAME: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// BF16-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// BF16-SAME: cvt.rn.bf16{{(x2)?}}.f32
// BF16-SAME: st.global.v4.b32
