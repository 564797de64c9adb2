// ptxas accepts every example with matmul tiles that fill warpgroups,
// compiled with --wgmma for sm_90a, with no register spills; the kernels
// whose tiles qualify contain wgmma.mma_async, the others none.
// REQUIRES: ptxas
// RUN: rm -rf %t
// RUN: mirage-bundle %examples/prefill.mlir -o %t --wgmma --no-reference
// RUN: mirage-bundle %examples/gated_mlp.mlir -o %t --wgmma --no-reference
// RUN: mirage-bundle %examples/gqa.mlir -o %t --wgmma --no-reference
// RUN: mirage-bundle %examples/lora.mlir -o %t --wgmma --no-reference
// RUN: mirage-bundle %examples/qknorm_gqa.mlir -o %t --wgmma --no-reference
// RUN: %PYTHON %S/Inputs/print-kernel-resources.py %t | FileCheck %s --implicit-check-not="spill_bytes {{[1-9]}}"
// RUN: grep -c wgmma.mma_async %t/prefill_linear_wgmma/kernels.ptx %t/prefill_linear_t_wgmma/kernels.ptx %t/prefill_linear_small_tiled_wgmma/kernels.ptx %t/gated_mlp_bs8_wgmma/kernels.ptx %t/lora_bs8_wgmma/kernels.ptx %t/gqa_bs1_wgmma/kernels.ptx %t/qknorm_gqa_bs1_wgmma/kernels.ptx %t/qknorm_gqa_bs8_wgmma/kernels.ptx | FileCheck %s --check-prefix=WGMMA
// RUN: not grep -l wgmma %t/gated_mlp_bs1_wgmma/kernels.ptx %t/rmsnorm_linear_bs1_wgmma/kernels.ptx %t/prefill_linear_small_wgmma/kernels.ptx

// CHECK-DAG: prefill_linear_wgmma v1 prefill_linear_k0: spill_bytes 0
// CHECK-DAG: prefill_linear_t_wgmma v1 prefill_linear_t_k0: spill_bytes 0
// CHECK-DAG: prefill_linear_small_tiled_wgmma v1 prefill_linear_small_tiled_k0: spill_bytes 0
// CHECK-DAG: gated_mlp_bs8_wgmma v1 gated_mlp_bs8_k0: spill_bytes 0
// CHECK-DAG: lora_bs8_wgmma v1 lora_bs8_k0: spill_bytes 0
// CHECK-DAG: gqa_bs1_wgmma v1 gqa_bs1_k0: spill_bytes 0
// CHECK-DAG: qknorm_gqa_bs8_wgmma v1 qknorm_gqa_bs8_k2: spill_bytes 0

// One wgmma per 16 of k per 64-row slab of a job.
// WGMMA: prefill_linear_wgmma/kernels.ptx:32
// WGMMA: prefill_linear_t_wgmma/kernels.ptx:8
// WGMMA: prefill_linear_small_tiled_wgmma/kernels.ptx:4
// WGMMA: gated_mlp_bs8_wgmma/kernels.ptx:32
// WGMMA: lora_bs8_wgmma/kernels.ptx:16
// WGMMA: gqa_bs1_wgmma/kernels.ptx:2
// WGMMA: qknorm_gqa_bs1_wgmma/kernels.ptx:4
// WGMMA: qknorm_gqa_bs8_wgmma/kernels.ptx:8
