// mirage-bundle --megakernel writes a version 6 bundle: one persistent
// kernel, the task graph's buffers in graph order, the address table (per
// kernel, its buffers) and the tables the kernel reads (docs/Bundle.md).
// RUN: rm -rf %t && mirage-bundle %s -o %t --megakernel --workers=4 --ptxas=none 2>&1 | FileCheck %s --check-prefix=LOG
// RUN: %PYTHON %S/Inputs/print-manifest.py %t/two_kernels_megakernel/manifest.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/two_kernels_megakernel/kernels.ptx
// RUN: FileCheck %s --check-prefix=NOLOCAL --input-file=%t/two_kernels_megakernel/kernels.ptx

// LOG: [1/1] two_kernels
// LOG: reference: float64 interpreter on @two_kernels
// LOG: lowering: mirage-to-megakernel (sm_90a)

// CHECK: buffers [{"dtype": "f16", "id": 0, "name": "out0", "role": "output", "shape": [4, 8]}
// CHECK-SAME: {"dtype": "f16", "id": 1, "name": "arg0", "role": "input", "shape": [4, 8]}
// CHECK: inputs [1]
// The speed model's view of each task-graph kernel: one task's estimate
// (what tg-schedule plans with) and its body's, and the features.
// CHECK: kernels [{"model": {"device": "h100", "task_kernels": [{"blocks": 4, "blocks_per_sm": 1, "body_us": {{[0-9.]+}}, {{.*}}, "kernel": "k0_exp", {{.*}}, "task_us": {{[0-9.]+}}, "threads": 128, {{.*}}}]}, "name": "two_kernels_tasks"}]
// CHECK: outputs [0]
// CHECK: steps [{"address_table": [1, 0], "block": [128, 1, 1], "deadline_ms": 2000, "dynamic_shared_bytes": {{[0-9]+}}, "grid": [4, 1, 1], "kernel": "two_kernels_tasks", "kind": "megakernel", "tables": {"event_lists": [{{.*}}], "needed": [{{.*}}], "queue_starts": [0, {{.*}}], "queues": [{{.*}}], "tasks": [{{.*}}]}, "task_kernel_buffers": [2], "task_kernels": [{{.*}}]}]
// CHECK: version 6

// The worker loop's synchronization in the kernel: the barrier that spreads
// a wait's outcome, the release fence before the relaxed adds that signal,
// with no load between them (on computed counter addresses: the end-of-run
// add is on the state), and the wait itself, which LLVM places last:
// acquire polls with a sleep and a clock, and the compare-and-swap that
// records a hang. No local memory.
// PTX: .visible .entry two_kernels_tasks(
// PTX: bar.red.or.pred
// PTX: fence.acq_rel.gpu;
// PTX-NOT: bar.sync
// PTX-NOT: ld.global
// PTX: atom.global.add.u64 %rd{{[0-9]+}}, [%rd{{[0-9]+}}], 1;
// PTX-DAG: %globaltimer
// PTX-DAG: ld.acquire.gpu.global.b64
// PTX-DAG: nanosleep.u32
// PTX-DAG: atom.relaxed.gpu.global.cas.b64
// NOLOCAL-NOT: .local
func.func @two_kernels(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %e = kn.exp %x : tensor<4x8xf16>
  %y = kn.mul_scalar %e, 2.0 : tensor<4x8xf16>
  %s = kn.reduce_sum %y dim 1 : tensor<4x8xf16>
  %z = kn.div %y, %s : tensor<4x8xf16>, tensor<4x1xf16>
  return %z : tensor<4x8xf16>
}
