// With dependent-launch, every kernel starts by waiting for the kernels it
// depends on, then lets its dependents launch (programmatic dependent
// launch); without it, neither.
// RUN: mirage-opt %s --kn-default-block-graphs --convert-kn-to-gpu="dependent-launch=true" | FileCheck %s
// RUN: mirage-opt %s --kn-default-block-graphs --convert-kn-to-gpu | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: gpu.func @f_k0
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-LABEL: gpu.func @f_k1
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// OFF-NOT: griddepcontrol
func.func @f(%x: tensor<4x64xf16>) -> tensor<4x64xf16> {
  %e = kn.exp %x : tensor<4x64xf16>
  %y = kn.mul %e, %x : tensor<4x64xf16>, tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}
