// The examples fused by default: kernels and the bytes they move against
// the programs' minimal bytes (kn-report-traffic), before and after kn-fuse.
// Every elementwise and reduction chain is one kernel (ratio 1.00); the
// attention programs compute partial sums over slices of the 4096
// positions side by side and add them in a second kernel (flash decoding;
// qknorm_gqa_bs8 also keeps the normalized k in device memory), which the
// speed model prefers to one kernel looping over all positions
// (docs/Fusion.md). The Qwen3-8B-shaped decoder layer: 37 operators, 8
// kernels. The fused functions are verified against the originals in
// unittests/Conversion/FusionTest.cpp (the small decoder end to end) and by
// test/TaskGraph/decoder.mlir through the task-graph pipeline.
// RUN: mirage-opt %examples/rmsnorm_linear.mlir --kn-fuse --kn-default-block-graphs --kn-report-traffic -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=RMSNORM-LINEAR
// RUN: mirage-opt %examples/gated_mlp.mlir --kn-fuse --kn-default-block-graphs --kn-report-traffic -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=GATED-MLP
// RUN: mirage-opt %examples/gqa.mlir --kn-fuse --kn-default-block-graphs --kn-report-traffic -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=GQA
// RUN: mirage-opt %examples/qknorm_gqa.mlir --kn-fuse --kn-default-block-graphs --kn-report-traffic -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=QKNORM-GQA
// RUN: mirage-opt %examples/lora.mlir --kn-fuse --kn-default-block-graphs --kn-report-traffic -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=LORA
// RUN: mirage-opt %examples/ntrans.mlir --kn-fuse --kn-default-block-graphs --kn-report-traffic -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NTRANS
// RUN: mirage-opt %examples/chains.mlir --kn-fuse --kn-default-block-graphs --kn-report-traffic -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHAINS
// RUN: mirage-opt %examples/activations.mlir --kn-fuse --kn-default-block-graphs --kn-report-traffic -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=ACTIVATIONS
// RUN: mirage-opt %examples/decoder_small.mlir --kn-fuse --kn-default-block-graphs --kn-report-traffic -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=DECODER-SMALL
// RUN: mirage-opt %examples/qwen3_decode.mlir --kn-fuse --kn-default-block-graphs --kn-report-traffic -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=QWEN3-DECODE
// RUN: mirage-opt %examples/qwen3_decode.mlir --mirage-to-ptx | FileCheck %s --check-prefix=QWEN3-PTX
// RUN: mirage-opt %examples/decoder_small.mlir --mirage-to-ptx | FileCheck %s --check-prefix=SMALL-PTX

// @rmsnorm_linear_bs1: 2 kernels, ratio 1.00 before (the norm stays apart:
// with it the matmul could not walk k in pipelined chunks)
// RMSNORM-LINEAR: remark: traffic: 2 kernels {{.*}}: ratio 1.00;
// @rmsnorm_linear_bs8: 2 kernels, ratio 1.01 before
// RMSNORM-LINEAR: remark: traffic: 2 kernels {{.*}}: ratio 1.01;
// @rmsnorm_linear_bs1_fused: 1 kernel, ratio 1.00 before
// RMSNORM-LINEAR: remark: traffic: 1 kernel {{.*}}: ratio 1.00;
// @rmsnorm_linear_bs8_fused: 1 kernel, ratio 1.00 before
// RMSNORM-LINEAR: remark: traffic: 1 kernel {{.*}}: ratio 1.00;

// @gated_mlp_bs1: 4 kernels, ratio 1.01 before
// GATED-MLP: remark: traffic: 1 kernel {{.*}}: ratio 1.00;
// @gated_mlp_bs8: 4 kernels, ratio 1.05 before
// GATED-MLP: remark: traffic: 1 kernel {{.*}}: ratio 1.00;
// @gated_mlp_bs1_fused: 1 kernel, ratio 1.00 before
// GATED-MLP: remark: traffic: 1 kernel {{.*}}: ratio 1.00;

// @gqa_bs1: 6 kernels, ratio 17.94 before (partial sums over 32 slices of
// the positions, then their sum)
// GQA: remark: traffic: 2 kernels {{.*}}: ratio 2.91;
// @gqa_bs8: 6 kernels, ratio 17.94 before (8 slices)
// GQA: remark: traffic: 2 kernels {{.*}}: ratio 1.48;
// @gqa_bs1_fused: 1 kernel, ratio 1.00 before
// GQA: remark: traffic: 1 kernel {{.*}}: ratio 1.00;
// @gqa_bs8_fused: 1 kernel, ratio 1.00 before
// GQA: remark: traffic: 1 kernel {{.*}}: ratio 1.00;
// @gqa_bs1_fused_online: 1 kernel, ratio 1.00 before
// GQA: remark: traffic: 1 kernel {{.*}}: ratio 1.00;

// @qknorm_gqa_bs1: 9 kernels, ratio 19.88 before
// QKNORM-GQA: remark: traffic: 2 kernels {{.*}}: ratio 2.91;
// @qknorm_gqa_bs8: 9 kernels, ratio 19.88 before
// QKNORM-GQA: remark: traffic: 3 kernels {{.*}}: ratio 1.54;

// @lora_bs1: 4 kernels, ratio 1.22 before
// LORA: remark: traffic: 1 kernel {{.*}}: ratio 1.00;
// @lora_bs8: 4 kernels, ratio 2.27 before
// LORA: remark: traffic: 1 kernel {{.*}}: ratio 1.00;

// @ntrans_bs1: 5 kernels, ratio 3.25 before
// NTRANS: remark: traffic: 1 kernel {{.*}}: ratio 1.00;
// @ntrans_bs8: 5 kernels, ratio 3.25 before
// NTRANS: remark: traffic: 1 kernel {{.*}}: ratio 1.00;

// @layer_norm: 11 kernels, ratio 5.45 before
// CHAINS: remark: traffic: 1 kernel {{.*}}: ratio 1.00;
// @residual_rms_norm: 2 kernels, ratio 1.24 before
// CHAINS: remark: traffic: 1 kernel {{.*}}: ratio 1.00;
// @rope: 6 kernels, ratio 3.50 before
// CHAINS: remark: traffic: 1 kernel {{.*}}: ratio 1.00;
// @safe_softmax: 5 kernels, ratio 4.00 before
// CHAINS: remark: traffic: 1 kernel {{.*}}: ratio 1.00;
// @silu_gate: 3 kernels, ratio 3.00 before
// CHAINS: remark: traffic: 1 kernel {{.*}}: ratio 1.00;
// @bias_gelu: 2 kernels, ratio 1.94 before
// CHAINS: remark: traffic: 1 kernel {{.*}}: ratio 1.00;
// @moe_router: 6 kernels, ratio 1.01 before; two since the router matmul is
// split over k (32 slices of partial products, summed in the softmax kernel;
// the 32 KiB of partials go through device memory)
// CHAINS: remark: traffic: 2 kernels {{.*}}: ratio 1.11; 65536 bytes between kernels

// @decoder_small: 74 kernels, ratio 1.09 before (its 64-entry KV caches
// fuse better copied than read in place as views)
// DECODER-SMALL: remark: traffic: 8 kernels (8 graph-defined, 0 predefined){{.*}}: ratio 1.01;

// @qwen3_decode: 37 kernels, ratio 1.04 before (the KV-cache appends are
// views: the attention kernels read the 1023 cached positions in place)
// QWEN3-DECODE: remark: traffic: 9 kernels (9 graph-defined, 0 predefined){{.*}}: ratio 1.00;

// QWEN3-PTX-COUNT-9: gpu.launch_func @qwen3_decode_kernels::
// QWEN3-PTX-NOT: gpu.launch_func
// QWEN3-PTX: gpu.binary @qwen3_decode_kernels
// SMALL-PTX-COUNT-8: gpu.launch_func @decoder_small_kernels::
// SMALL-PTX-NOT: gpu.launch_func
// SMALL-PTX: gpu.binary @decoder_small_kernels

// The activations written with tanh, rsqrt and maximum: one kernel each.
// ACTIVATIONS-COUNT-4: remark: traffic: 1 kernel {{.*}}: ratio 1.00;
