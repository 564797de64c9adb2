// The remaining bundled benchmark programs parse, verify and round-trip.
// RUN: mirage-opt %examples/qknorm_gqa.mlir | mirage-opt | FileCheck %s --check-prefix=QKNORM
// RUN: mirage-opt %examples/gated_mlp.mlir | mirage-opt | FileCheck %s --check-prefix=MLP
// RUN: mirage-opt %examples/lora.mlir | mirage-opt | FileCheck %s --check-prefix=LORA
// RUN: mirage-opt %examples/ntrans.mlir | mirage-opt | FileCheck %s --check-prefix=NTRANS

// QKNORM-LABEL: func.func @qknorm_gqa_bs1(
// QKNORM-COUNT-2: kn.rms_norm
// QKNORM: kn.transpose {{.*}} permutation [0, 2, 1] : tensor<2x4096x64xf16>
// QKNORM-LABEL: func.func @qknorm_gqa_bs8(

// MLP-LABEL: func.func @gated_mlp_bs1(
// MLP-COUNT-2: kn.matmul
// MLP: kn.silu
// MLP: kn.mul
// MLP-LABEL: func.func @gated_mlp_bs8(
// MLP-LABEL: func.func @gated_mlp_bs1_fused(
// MLP-SAME: kn.reference = @gated_mlp_bs1
// MLP: tb.graph grid [64] threads 128 forloop 64
// MLP-COUNT-2: tb.accum_sum
// MLP: tb.silu
// MLP: tb.mul
// MLP: tb.output_saver {{.*}} omap <x -> 1> : !tb.tile<8x64xf16> -> tensor<8x4096xf16>

// LORA-LABEL: func.func @lora_bs1(
// LORA-COUNT-3: kn.matmul
// LORA: kn.add
// LORA-LABEL: func.func @lora_bs8(

// NTRANS-LABEL: func.func @ntrans_bs1(
// NTRANS: kn.rms_norm
// NTRANS: kn.sub
// NTRANS: kn.mul
// NTRANS: kn.add
// NTRANS: kn.rms_norm
// NTRANS-LABEL: func.func @ntrans_bs8(
