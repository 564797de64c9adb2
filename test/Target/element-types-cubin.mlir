// ptxas accepts the kernels of every kn op in every element type (f16,
// bf16, f32), with and without tensor cores, for sm_90a and sm_80: the
// cubin counterpart of element-types.mlir.
// REQUIRES: ptxas
// RUN: sed 's/ELT/f16/g' %S/Inputs/element-types.mlir | mirage-opt --mirage-to-ptx="format=bin" | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: sed 's/ELT/bf16/g' %S/Inputs/element-types.mlir | mirage-opt --mirage-to-ptx="format=bin" | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: sed 's/ELT/f32/g' %S/Inputs/element-types.mlir | mirage-opt --mirage-to-ptx="format=bin" | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: sed 's/ELT/f16/g' %S/Inputs/element-types.mlir | mirage-opt --mirage-to-ptx="format=bin tensor-cores=false" | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: sed 's/ELT/bf16/g' %S/Inputs/element-types.mlir | mirage-opt --mirage-to-ptx="format=bin tensor-cores=false" | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: sed 's/ELT/f16/g' %S/Inputs/element-types.mlir | mirage-opt --mirage-to-ptx="format=bin chip=sm_80" | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: sed 's/ELT/bf16/g' %S/Inputs/element-types.mlir | mirage-opt --mirage-to-ptx="format=bin chip=sm_80" | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: sed 's/ELT/f32/g' %S/Inputs/element-types.mlir | mirage-opt --mirage-to-ptx="format=bin chip=sm_80" | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: sed 's/ELT/f16/g' %S/Inputs/element-types.mlir | mirage-opt --mirage-to-ptx="format=bin chip=sm_80 tensor-cores=false" | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: sed 's/ELT/bf16/g' %S/Inputs/element-types.mlir | mirage-opt --mirage-to-ptx="format=bin chip=sm_80 tensor-cores=false" | FileCheck %s --check-prefixes=CHECK,SM80

// CHECK: gpu.binary @matmul_kernels
// SM90-SAME: chip = "sm_90a"
// SM80-SAME: chip = "sm_80"
// CHECK-SAME: bin = "\7FELF
// CHECK: gpu.binary @matmul_loop_kernels
// CHECK-SAME: bin = "\7FELF
// CHECK: gpu.binary @matmul_batched_kernels
// CHECK-SAME: bin = "\7FELF
// CHECK: gpu.binary @unary_kernels
// CHECK-SAME: bin = "\7FELF
// CHECK: gpu.binary @binary_kernels
// CHECK-SAME: bin = "\7FELF
// CHECK: gpu.binary @reduce_kernels
// CHECK-SAME: bin = "\7FELF
// CHECK: gpu.binary @rms_norm_kernels
// CHECK-SAME: bin = "\7FELF
// CHECK: gpu.binary @data_movement_kernels
// CHECK-SAME: bin = "\7FELF
