// With ptxas, the same pipeline produces a cubin (an ELF image for sm_90a).
// REQUIRES: ptxas
// RUN: mirage-opt %s --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90a cubin-features=+ptx80 cubin-format=bin" | FileCheck %s

// CHECK: gpu.binary @kernels
// CHECK-SAME: #gpu.object<#nvvm.target<chip = "sm_90a", features = "+ptx80">
// CHECK-SAME: bin = "\7FELF
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%x: memref<128xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<128xf32>
      %c = arith.constant 2.0 : f32
      %y = arith.mulf %v, %c : f32
      memref.store %y, %x[%i] : memref<128xf32>
      gpu.return
    }
  }
}
