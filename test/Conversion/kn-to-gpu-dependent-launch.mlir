// With dependent-launch, every kernel waits for the kernels it depends on
// before it reads anything they may write, then lets its dependents launch
// (programmatic dependent launch); without it, neither. What no kernel
// writes (the function's arguments) a kernel copies with cp.async in its
// prologue is copied before the wait (@g_k1's %w), the rest after it.
// RUN: mirage-opt %s --kn-default-block-graphs --convert-kn-to-gpu="dependent-launch=true pipeline-stages=3" | FileCheck %s
// RUN: mirage-opt %s --kn-default-block-graphs --convert-kn-to-gpu="pipeline-stages=3" | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: gpu.func @f_k0
// CHECK-NOT: memref.load
// CHECK-NOT: vector.load
// CHECK: nvvm.griddepcontrol wait
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-LABEL: gpu.func @f_k1
// CHECK-NOT: memref.load
// CHECK-NOT: vector.load
// CHECK: nvvm.griddepcontrol wait
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// OFF-NOT: griddepcontrol
func.func @f(%x: tensor<4x64xf16>) -> tensor<4x64xf16> {
  %e = kn.exp %x : tensor<4x64xf16>
  %y = kn.mul %e, %x : tensor<4x64xf16>, tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}

// The matmul's first two stages of %w (its argument 1), one group each,
// before the wait; then the stages of exp's output (argument 0).
// CHECK-LABEL: gpu.func @g_k1
// CHECK-NOT: device_async_copy %arg0
// CHECK: nvgpu.device_async_copy %arg1
// CHECK-NOT: device_async_copy %arg0
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: device_async_copy %arg0
// CHECK: nvgpu.device_async_copy %arg1
// CHECK-NOT: device_async_copy %arg0
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-NOT: device_async_copy %arg1
// CHECK: nvgpu.device_async_copy %arg0
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: device_async_copy %arg1
// CHECK: nvgpu.device_async_copy %arg0
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 2
// Without dependent launch, the prologue copies both, stage by stage.
// OFF-LABEL: gpu.func @g_k1
// OFF: nvgpu.device_async_copy %arg0
// OFF: nvgpu.device_async_copy %arg1
// OFF: nvvm.cp.async.commit.group
// OFF: nvgpu.device_async_copy %arg0
// OFF: nvgpu.device_async_copy %arg1
// OFF: nvvm.cp.async.commit.group
func.func @g(%x: tensor<1x1024xf16>, %w: tensor<1024x512xf16>) -> tensor<1x512xf16> {
  %e = kn.exp %x : tensor<1x1024xf16>
  %y = kn.matmul %e, %w : tensor<1x1024xf16>, tensor<1024x512xf16>
  return %y : tensor<1x512xf16>
}

// A loop-invariant tile of an argument (the norm's weight, argument 1) is
// copied before the wait in one group; the body's invariant copy of exp's
// output (argument 0) follows it, and its wait for all groups covers both.
// CHECK-LABEL: gpu.func @h_k1
// CHECK-NOT: device_async_copy %arg0
// CHECK: nvgpu.device_async_copy %arg1
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-NOT: device_async_copy %arg1
// CHECK: nvgpu.device_async_copy %arg0
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
func.func @h(%x: tensor<4x1024xf16>, %nw: tensor<1024xf16>) -> tensor<4x1024xf16> {
  %e = kn.exp %x : tensor<4x1024xf16>
  %n = kn.rms_norm %e weight %nw {eps = 1.0e-06 : f64} : tensor<4x1024xf16>, tensor<1024xf16>
  return %n : tensor<4x1024xf16>
}
