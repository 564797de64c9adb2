// convert-tg-to-gpu preload: a task issues the cp.async copies of the
// buffers no kernel writes (here %x, %nw and %w) before it waits on its
// producers; its body leaves them out of its prologue. The matmul task reads
// %w (read-only) and the norm's output (written by task 0): only %w's first
// stages are preloaded.
// RUN: mirage-opt %s --mirage-to-task-graph=workers=4 --convert-tg-to-gpu=pipeline-stages=3 2>/dev/null | FileCheck %s
// RUN: mirage-opt %s --mirage-to-task-graph=workers=4 --convert-tg-to-gpu="pipeline-stages=3 preload=false" 2>/dev/null | FileCheck %s --check-prefix=OFF
// RUN: mirage-opt %s --mirage-to-task-graph=workers=4 --convert-tg-to-gpu="pipeline-stages=3 preload-spares-leader=true" 2>/dev/null | FileCheck %s --check-prefix=SPARES
// RUN: mirage-opt %s --mirage-to-task-graph=workers=4 --convert-tg-to-gpu="pipeline-stages=3 preload-stages=1" 2>/dev/null | FileCheck %s --check-prefix=STAGES

// With preload-stages=1 the preload copies the weight's stage 0 only; the
// body's prologue copies its stage 1 beside the row's, still one group per
// stage after the preload's, so the loop's waits are unchanged.
// STAGES-LABEL: func.func private @f_tasks_body1(
// STAGES-NOT: device_async_copy %arg3
// STAGES: nvgpu.device_async_copy %arg2
// STAGES-NOT: device_async_copy %arg3
// STAGES: nvvm.cp.async.commit.group
// STAGES: nvgpu.device_async_copy %arg2
// STAGES: nvgpu.device_async_copy %arg3
// STAGES: nvvm.cp.async.commit.group
// STAGES-NEXT: gpu.barrier
// STAGES: nvvm.cp.async.wait.group 2
// STAGES-LABEL: func.func private @f_tasks_preload1(
// STAGES: nvgpu.device_async_copy %arg3
// STAGES-NOT: device_async_copy
// STAGES: nvvm.cp.async.commit.group
// STAGES-NEXT: return

// The matmul's body: stages 0 and 1 of the normalized row only, one group
// each, then the loop's wait leaves stages - 1 = 2 groups pending.
// CHECK-LABEL: func.func private @f_tasks_body1(
// CHECK-NOT: device_async_copy %arg3
// CHECK: nvgpu.device_async_copy %arg2
// CHECK-NOT: device_async_copy %arg3
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: device_async_copy %arg3
// CHECK: nvgpu.device_async_copy %arg2
// CHECK-NOT: device_async_copy %arg3
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: gpu.barrier
// CHECK: scf.for
// CHECK: nvgpu.device_async_copy %arg2
// CHECK: nvgpu.device_async_copy %arg3
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 2
// CHECK: return

// Its preload: the weight's stages 0 and 1, one group each, nothing else.
// CHECK-LABEL: func.func private @f_tasks_preload1(
// CHECK-NOT: device_async_copy %arg2
// CHECK: nvgpu.device_async_copy %arg3
// CHECK-NOT: device_async_copy %arg2
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: device_async_copy %arg2
// CHECK: nvgpu.device_async_copy %arg3
// CHECK-NOT: device_async_copy %arg2
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: return

// The worker calls the task's preload before thread 0's acquire load, and a
// worker that gives up waits for its copies before it stops.
// CHECK: gpu.func @f_tasks(
// CHECK: func.call @f_tasks_preload0(
// CHECK: func.call @f_tasks_preload1(
// CHECK: llvm.load {{.*}} atomic syncscope("device") acquire
// CHECK: nvvm.barrier #nvvm.reduction<or>
// CHECK: arith.cmpi
// CHECK-NEXT: scf.if
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK: func.call @f_tasks_body0(
// CHECK: func.call @f_tasks_body1(

// With preload-spares-leader the first warp (thread 0 polls) issues no
// preload copies: warps past it call the preloads with their own thread
// index, and the second calls them again for the first's share.
// SPARES: gpu.func @f_tasks(
// SPARES: %[[WARP:.*]] = arith.divui %[[TID:.*]], %c32
// SPARES: %[[NOTFIRST:.*]] = arith.cmpi ne, %[[WARP]], %c0
// SPARES: scf.if %[[NOTFIRST]]
// SPARES: func.call @f_tasks_preload0(%[[TID]],
// SPARES: func.call @f_tasks_preload1(%[[TID]],
// SPARES: %[[SECOND:.*]] = arith.cmpi eq, %[[WARP]], %c1
// SPARES: scf.if %[[SECOND]]
// SPARES: %[[SHARE:.*]] = arith.subi %[[TID]], %c32
// SPARES: func.call @f_tasks_preload0(%[[SHARE]],
// SPARES: func.call @f_tasks_preload1(%[[SHARE]],
// SPARES: llvm.load {{.*}} atomic syncscope("device") acquire

// Without preload the body copies both operands' first stages.
// OFF-NOT: @f_tasks_preload
// OFF-LABEL: func.func private @f_tasks_body1(
// OFF: nvgpu.device_async_copy %arg2
// OFF: nvgpu.device_async_copy %arg3
// OFF: nvvm.cp.async.commit.group
// OFF: nvgpu.device_async_copy %arg2
// OFF: nvgpu.device_async_copy %arg3
// OFF: nvvm.cp.async.commit.group
// OFF-NEXT: gpu.barrier
// OFF-NOT: @f_tasks_preload
// OFF-NOT: nvvm.cp.async.wait.group 0
// OFF: gpu.return

func.func @f(%x: tensor<1x1024xf16>, %nw: tensor<1024xf16>,
             %w: tensor<1024x512xf16>) -> tensor<1x512xf16> {
  %n = kn.rms_norm %x weight %nw {eps = 1.0e-06 : f64} : tensor<1x1024xf16>, tensor<1024xf16>
  %y = kn.matmul %n, %w : tensor<1x1024xf16>, tensor<1024x512xf16>
  return %y : tensor<1x512xf16>
}
