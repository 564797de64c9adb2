// ptxas accepts the mega-kernel of every example and of the Qwen3-shaped
// decode step (also with its preload warp) for sm_90a, with no register
// spills (spill_bytes counts ptxas's spill stores and loads).
// REQUIRES: ptxas
// RUN: rm -rf %t
// RUN: mirage-bundle %examples/decoder_small.mlir -o %t --megakernel --no-reference
// RUN: mirage-bundle %examples/gated_mlp.mlir -o %t --megakernel --no-reference
// RUN: mirage-bundle %examples/gqa.mlir -o %t --megakernel --no-reference
// RUN: mirage-bundle %examples/jit_mlp.mlir -o %t --megakernel --no-reference
// RUN: mirage-bundle %examples/lora.mlir -o %t --megakernel --no-reference
// RUN: mirage-bundle %examples/ntrans.mlir -o %t --megakernel --no-reference
// RUN: mirage-bundle %examples/qknorm_gqa.mlir -o %t --megakernel --no-reference
// RUN: mirage-bundle %examples/qwen3_decode.mlir -o %t --megakernel --no-reference
// RUN: mirage-bundle %examples/qwen3_decode.mlir -o %t --megakernel --no-reference --preload-warp --suffix=_preload_warp
// RUN: mirage-bundle %examples/rmsnorm_linear.mlir -o %t --megakernel --no-reference
// RUN: %PYTHON %S/Inputs/print-kernel-resources.py %t > %t.resources
// RUN: FileCheck %s < %t.resources
// No kernel spills, listed below or not (an implicit CHECK-NOT misses
// lines between CHECK-DAG matches).
// RUN: not grep "spill_bytes [1-9]" %t.resources

// Every function of every example, each one persistent kernel.
// CHECK-DAG: decoder_small_megakernel v6 decoder_small_tasks: spill_bytes 0
// CHECK-DAG: gated_mlp_bs1_megakernel v6 gated_mlp_bs1_tasks: spill_bytes 0
// CHECK-DAG: gated_mlp_bs1_fused_megakernel v6 gated_mlp_bs1_fused_tasks: spill_bytes 0
// CHECK-DAG: gated_mlp_bs8_megakernel v6 gated_mlp_bs8_tasks: spill_bytes 0
// CHECK-DAG: gqa_bs1_megakernel v6 gqa_bs1_tasks: spill_bytes 0
// CHECK-DAG: gqa_bs1_fused_megakernel v6 gqa_bs1_fused_tasks: spill_bytes 0
// CHECK-DAG: gqa_bs1_fused_online_megakernel v6 gqa_bs1_fused_online_tasks: spill_bytes 0
// CHECK-DAG: gqa_bs8_megakernel v6 gqa_bs8_tasks: spill_bytes 0
// CHECK-DAG: gqa_bs8_fused_megakernel v6 gqa_bs8_fused_tasks: spill_bytes 0
// CHECK-DAG: jit_mlp_megakernel v6 jit_mlp_tasks: spill_bytes 0
// CHECK-DAG: lora_bs1_megakernel v6 lora_bs1_tasks: spill_bytes 0
// CHECK-DAG: lora_bs8_megakernel v6 lora_bs8_tasks: spill_bytes 0
// CHECK-DAG: ntrans_bs1_megakernel v6 ntrans_bs1_tasks: spill_bytes 0
// CHECK-DAG: ntrans_bs8_megakernel v6 ntrans_bs8_tasks: spill_bytes 0
// CHECK-DAG: qknorm_gqa_bs1_megakernel v6 qknorm_gqa_bs1_tasks: spill_bytes 0
// CHECK-DAG: qknorm_gqa_bs8_megakernel v6 qknorm_gqa_bs8_tasks: spill_bytes 0
// CHECK-DAG: qwen3_decode_megakernel v6 qwen3_decode_tasks: spill_bytes 0
// CHECK-DAG: qwen3_decode_megakernel_preload_warp v6 qwen3_decode_tasks: spill_bytes 0
// CHECK-DAG: rmsnorm_linear_bs1_megakernel v6 rmsnorm_linear_bs1_tasks: spill_bytes 0
// CHECK-DAG: rmsnorm_linear_bs1_fused_megakernel v6 rmsnorm_linear_bs1_fused_tasks: spill_bytes 0
// CHECK-DAG: rmsnorm_linear_bs8_megakernel v6 rmsnorm_linear_bs8_tasks: spill_bytes 0
// CHECK-DAG: rmsnorm_linear_bs8_fused_megakernel v6 rmsnorm_linear_bs8_fused_tasks: spill_bytes 0
