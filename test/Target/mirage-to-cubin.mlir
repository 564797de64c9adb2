// With ptxas, mirage-to-ptx assembles cubins (ELF images for the chip).
// REQUIRES: ptxas
// RUN: mirage-opt %examples/gated_mlp.mlir --mirage-to-ptx="format=bin" | FileCheck %s

// CHECK: gpu.binary @gated_mlp_bs1_kernels
// CHECK-SAME: #nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">
// CHECK-SAME: bin = "\7FELF
// CHECK: gpu.binary @gated_mlp_bs8_kernels
// CHECK: gpu.binary @gated_mlp_bs1_fused_kernels
