// With ptxas, mirage-to-ptx assembles cubins (ELF images for the chip).
// REQUIRES: ptxas
// RUN: mirage-opt %examples/gated_mlp.mlir --mirage-to-ptx="format=bin" | FileCheck %s
// bf16 programs too, attention's online softmax (register sums rescaled by
// the running maximum) among them. element-types-cubin.mlir has every op.
// RUN: sed 's/xf16/xbf16/g' %examples/gqa.mlir | mirage-opt --mirage-to-ptx="format=bin" | FileCheck %s --check-prefix=GQA-BF16

// CHECK: gpu.binary @gated_mlp_bs1_kernels
// CHECK-SAME: #nvvm.target<O = 3, chip = "sm_90a", features = "+ptx83">
// CHECK-SAME: bin = "\7FELF
// CHECK: gpu.binary @gated_mlp_bs8_kernels
// CHECK: gpu.binary @gated_mlp_bs1_fused_kernels

// GQA-BF16: gpu.binary @gqa_bs1_kernels
// GQA-BF16-SAME: bin = "\7FELF
// GQA-BF16: gpu.binary @gqa_bs8_kernels
// GQA-BF16-SAME: bin = "\7FELF
// GQA-BF16: gpu.binary @gqa_bs1_fused_kernels
// GQA-BF16-SAME: bin = "\7FELF
// GQA-BF16: gpu.binary @gqa_bs8_fused_kernels
// GQA-BF16-SAME: bin = "\7FELF
// GQA-BF16: gpu.binary @gqa_bs1_fused_online_kernels
// GQA-BF16-SAME: bin = "\7FELF
