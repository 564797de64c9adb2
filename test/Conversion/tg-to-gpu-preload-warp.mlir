// convert-tg-to-gpu preload-warp on the Qwen3-shaped decode layer: the
// kernel runs a warp beside the bodies' 128 threads. The bodies without
// preload copies (the attention scores and softmax with P V, which read only
// what tasks write) are placed at the top of shared memory, away from the
// others' preloaded stages at its bottom, so that the warp can issue the O
// projection's weight copies while attention runs; the bodies synchronize
// over their own threads (named barrier 1), and two shared-memory words
// carry the protocol: the tasks the worker finished, the warp's lanes'
// copies that landed.
// RUN: mirage-opt %examples/qwen3_decode.mlir --mirage-to-task-graph --convert-tg-to-gpu="chip=sm_90a preload-warp=true" -o %t 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --implicit-check-not=gpu.barrier < %t
// decoder_small's bodies all have preload copies (they read the caches):
// the warp could take no task after another, and is left out.
// RUN: mirage-opt %examples/decoder_small.mlir --mirage-to-task-graph --convert-tg-to-gpu="chip=sm_90a preload-warp=true" -o %t.small 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: FileCheck %s --check-prefix=SMALL-KERNEL --implicit-check-not=preload_words < %t.small
// RUN: not mirage-opt %examples/qwen3_decode.mlir --mirage-to-task-graph --convert-tg-to-gpu="preload=false preload-warp=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTIONS
// RUN: not mirage-opt %examples/qwen3_decode.mlir --mirage-to-task-graph --convert-tg-to-gpu="dynamic-dispatch=true preload-warp=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTIONS
// RUN: not mirage-opt %examples/qwen3_decode.mlir --mirage-to-task-graph --convert-tg-to-gpu="preload-spares-leader=true preload-warp=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTIONS
// RUN: not mirage-opt %examples/jit_mlp.mlir --mirage-to-task-graph --convert-tg-to-gpu="preload-warp=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=JIT

// The top is the largest body's end (the down projection's, 7): bodies 3
// and 4 end under it, from a multiple of 1 KiB; the projections (1, 5, 6,
// 7) start at 0. The O projection's (5) does not reach softmax and P V's.
// REMARK: remark: preload warp: shared memory per body: 0 [0, {{[0-9]+}}) preloaded, 1 [0, {{[0-9]+}}) preloaded, 2 [0, {{[0-9]+}}) preloaded, 3 [{{[0-9]+}}, {{[0-9]+}}), 4 [171008, 212352), 5 [0, 135680) preloaded, 6 [0, {{[0-9]+}}) preloaded, 7 [0, 212352) preloaded

// CHECK: mirage.megakernel = {bodies = 8 : i64, dynamic_dispatch = false, dynamic_shared_bytes = 212352 : i64
// CHECK-SAME: threads = 160 : i64
// A body at the top views the dynamic share from its base.
// CHECK-LABEL: func.func private @qwen3_decode_tasks_body3(
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK: memref.view %[[SMEM]][%c{{[1-9][0-9]*}}][%c{{[0-9]+}}]
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c128_i32
// CHECK-LABEL: func.func private @qwen3_decode_tasks_body5(
// CHECK: %[[SMEM5:.*]] = gpu.dynamic_shared_memory
// CHECK-NOT: memref.view %[[SMEM5]][%c{{[0-9]+}}][%c
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c128_i32
// CHECK: gpu.func @qwen3_decode_tasks(
// CHECK-SAME: known_block_size = array<i32: 160, 1, 1>
// Thread 0 zeroes the words before the first barrier, over all threads.
// CHECK: "st.shared.u32 [$0], 0;"
// CHECK: "st.shared.u32 [$0], 0;"
// CHECK: nvvm.barrier #nvvm.reduction<or>
// The bodies' threads run the queue, carrying the previous task's shared
// memory: before the first, all of it (so its own threads preload it).
// CHECK: arith.cmpi ult, %thread_id_x, %c128
// CHECK: scf.for {{.*}} iter_args({{.*}}, %{{.*}} = %c0_i32{{.*}}, %{{.*}} = %c2147483647_i32, %{{.*}} = %c0_i32{{.*}}) -> (i1, i32, i32, i32, i32)
// A task the warp does not preload: its threads issue the copies.
// CHECK: func.call @qwen3_decode_tasks_preload5(
// Thread 0, after the events, waits for the warp's copies.
// CHECK: "ld.acquire.cta.shared.u32 $0, [$1];"
// The barriers over the bodies' threads: named barrier 1, 128 threads.
// CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cta.red.or.aligned.count"(%c1_i32, %c128_i32, %{{.*}})
// CHECK: nvvm.barrier id = %c1_i32{{.*}} number_of_threads = %c128_i32
// After the body, thread 0 counts the task finished, before the signals.
// CHECK: "st.release.cta.shared.u32 [$0], $1;"
// CHECK: llvm.fence syncscope("device") release
// When the queue ends (or stops), the count no longer holds the warp back.
// CHECK: "st.release.cta.shared.u32 [$0], $1;", "r,r,~{memory}" %{{.*}}, %c2147483647_i32
// The preload warp: per task it preloads, it finds the last earlier task
// whose shared memory overlaps, polls the finished count up to it, issues
// the copies of the bodies' 128 threads 32 at a time, waits for them and
// counts them landed.
// CHECK: } else {
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %c0_i32{{.*}}, %{{.*}} = %c2147483647_i32) -> (i32, i32)
// CHECK: scf.while
// CHECK: "ld.acquire.cta.shared.u32 $0, [$1];"
// CHECK: nvvm.nanosleep
// A stopped queue (the count at INT32_MAX) wants no more copies.
// CHECK: arith.cmpi ne, %{{.*}}, %c2147483647_i32
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c128{{.*}} step %c32
// CHECK: func.call @qwen3_decode_tasks_preload5(
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: nvvm.bar.warp.sync %c-1_i32
// CHECK: "red.release.cta.shared.add.u32 [$0], 1;"

// SMALL: remark: preload warp: left out, as every body with shared memory has preload copies (none runs apart from the others' preloaded stages)
// SMALL-KERNEL: threads = 128 : i64
// SMALL-KERNEL: known_block_size = array<i32: 128, 1, 1>

// OPTIONS: convert-tg-to-gpu: preload-warp needs preload and static queues, without preload-spares-leader
// JIT: error: convert-tg-to-gpu preload-warp: the graph has {{[0-9]+}} just-in-time tasks; the preload warp follows static queues only
