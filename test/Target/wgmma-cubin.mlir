// ptxas accepts every example with matmul tiles that fill warpgroups,
// compiled for sm_90a (wgmma by default), with no register spills; the
// kernels whose tiles qualify contain wgmma.mma_async, the others none.
// --wgmma=false keeps mma.sync and names the bundle <function>_mma.
// REQUIRES: ptxas
// RUN: rm -rf %t
// RUN: mirage-bundle %examples/prefill.mlir -o %t --no-reference
// RUN: mirage-bundle %examples/gated_mlp.mlir -o %t --no-reference
// RUN: mirage-bundle %examples/gqa.mlir -o %t --no-reference
// RUN: mirage-bundle %examples/lora.mlir -o %t --no-reference
// RUN: mirage-bundle %examples/qknorm_gqa.mlir -o %t --no-reference
// RUN: %PYTHON %S/Inputs/print-kernel-resources.py %t > %t.resources
// RUN: FileCheck %s < %t.resources
// No kernel spills, listed below or not (an implicit CHECK-NOT misses
// lines between CHECK-DAG matches).
// RUN: not grep "spill_bytes [1-9]" %t.resources
// RUN: grep -c wgmma.mma_async %t/prefill_linear/kernels.ptx %t/prefill_linear_t/kernels.ptx %t/prefill_linear_small_tiled/kernels.ptx %t/gated_mlp_bs8/kernels.ptx %t/lora_bs8/kernels.ptx %t/gqa_bs8/kernels.ptx %t/qknorm_gqa_bs8/kernels.ptx | FileCheck %s --check-prefix=WGMMA
// The GEMM main loops keep a wgmma group in flight across steps, and
// ptxas keeps them so (it would serialize them, with a warning, where a
// register of a group in flight were read early).
// RUN: grep -c "wgmma.wait_group.sync.aligned 1" %t/prefill_linear_t/kernels.ptx %t/gated_mlp_bs8/kernels.ptx %t/prefill_linear_small_tiled/kernels.ptx | FileCheck %s --check-prefix=IN-FLIGHT
// RUN: ptxas -arch=sm_90a -v %t/prefill_linear_t/kernels.ptx %t/gated_mlp_bs8/kernels.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=SERIAL
// The attention steps hold exp(scores) in registers: the product with the
// values reads them as wgmma's A (register chains).
// RUN: grep -c "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {.*}, {%r" %t/gqa_bs8/kernels.ptx %t/qknorm_gqa_bs8/kernels.ptx | FileCheck %s --check-prefix=REGISTER-A
// RUN: not grep -l wgmma %t/gated_mlp_bs1/kernels.ptx %t/prefill_linear_small/kernels.ptx %t/gqa_bs1/kernels.ptx %t/qknorm_gqa_bs1/kernels.ptx
// RUN: mirage-bundle %examples/prefill.mlir --function prefill_linear -o %t.mma --wgmma=false --no-reference
// RUN: not grep -l wgmma %t.mma/prefill_linear_mma/kernels.ptx
// RUN: grep -c mma.sync.aligned.m16n8k16 %t.mma/prefill_linear_mma/kernels.ptx

// CHECK-DAG: prefill_linear v1 prefill_linear_k0: spill_bytes 0
// CHECK-DAG: prefill_linear_t v1 prefill_linear_t_k0: spill_bytes 0
// CHECK-DAG: prefill_linear_small_tiled v1 prefill_linear_small_tiled_k0: spill_bytes 0
// CHECK-DAG: gated_mlp_bs8 v1 gated_mlp_bs8_k0: spill_bytes 0
// CHECK-DAG: lora_bs8 v1 lora_bs8_k0: spill_bytes 0
// CHECK-DAG: gqa_bs1 v1 gqa_bs1_k0: spill_bytes 0
// CHECK-DAG: qknorm_gqa_bs8 v1 qknorm_gqa_bs8_k1: spill_bytes 0

// REGISTER-A: gqa_bs8/kernels.ptx:1
// REGISTER-A: qknorm_gqa_bs8/kernels.ptx:1

// IN-FLIGHT: prefill_linear_t/kernels.ptx:1
// IN-FLIGHT: gated_mlp_bs8/kernels.ptx:2
// IN-FLIGHT: prefill_linear_small_tiled/kernels.ptx:1
// SERIAL-NOT: serialize
// SERIAL: Used {{[0-9]+}} registers

// One wgmma per 16 of k per 64-row slab of a job.
// WGMMA: prefill_linear/kernels.ptx:16
// WGMMA: prefill_linear_t/kernels.ptx:16
// WGMMA: prefill_linear_small_tiled/kernels.ptx:4
// WGMMA: gated_mlp_bs8/kernels.ptx:32
// WGMMA: lora_bs8/kernels.ptx:16
// The bs8 attention's partial sums take 64 query rows and 16 positions a
// step: four m64n16k16 for the scores over the head dim, one m64n64k16 for
// the product with the values (A from registers); at bs1 they take 4 query rows per block,
// too few for a warpgroup.
// WGMMA: gqa_bs8/kernels.ptx:5
// WGMMA: qknorm_gqa_bs8/kernels.ptx:5
