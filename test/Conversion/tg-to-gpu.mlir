// convert-tg-to-gpu: a scheduled task graph becomes one persistent kernel.
// Two exp kernels share one body; worker 0 runs tasks 0, 2, 3 and worker 1
// task 1, so task 2's wait (on task 0) is a same-SM hand-off with neither a
// wait nor a signal, while task 3 waits on task 1's counter.
// RUN: mirage-opt %s --convert-tg-to-gpu | FileCheck %s
// RUN: mirage-opt %s --convert-tg-to-gpu=dynamic-dispatch=true | FileCheck %s --check-prefix=DYN

// The graph stays as the host side, naming the kernel and its tables.
// CHECK: tg.graph @g
// CHECK-SAME: mirage.megakernel = {bodies = 1 : i64, dynamic_dispatch = false, dynamic_shared_bytes = {{[0-9]+}} : i64, kernel = @g_megakernel::@g, tables = {event_lists = @g_event_lists, graph_tasks = @g_graph_tasks, needed = @g_needed, operands = @g_operands, queue_starts = @g_queue_starts, queues = @g_queues, tasks = @g_tasks}, threads = 128 : i64}
// CHECK-LABEL: gpu.module @g_megakernel
// CHECK-SAME: dlti.dl_spec = #dlti.dl_spec<index = 32 : i32>
// One body per distinct block graph: the thread index, block coordinates,
// then the buffers; inlined into the dispatch, with no out-of-line copy.
// CHECK: func.func private @g_body0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: memref<4x64xf32>, %{{.*}}: memref<4x64xf32>) attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["alwaysinline"]}
// CHECK-NOT: func.func private @g_body1
// The addresses (one per operand-table entry), the tasks, queue starts,
// queues, trigger counts, counters, state, trace and event lists.
// CHECK: gpu.func @g(%[[ADDRESSES:.*]]: memref<4xi64>, %{{.*}}: memref<48xi32>, %{{.*}}: memref<3xi32>, %[[QUEUES:.*]]: memref<4xi32>, %{{.*}}: memref<3xi32>, %{{.*}}: memref<3xi64>, %{{.*}}: memref<10xi64>, %{{.*}}: memref<20xi64>, %[[LISTS:.*]]: memref<0xi32>) kernel
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK-SAME: known_grid_size = array<i32: 2, 1, 1>
// The worker's queue, from the queue starts.
// CHECK: %[[WORKER:.*]] = gpu.block_id x
// CHECK: %[[TID:.*]] = gpu.thread_id x
// Thread 0 traces when the trace argument is not null.
// CHECK: llvm.ptrtoint
// CHECK: %[[TRACING:.*]] = arith.andi
// The queue loop carries each task's index, read one task ahead (clamped
// to the table) so that the load's latency hides behind the task before.
// CHECK: %[[FIRST:.*]] = memref.load %[[QUEUES]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[FIRST]])
// CHECK: arith.minui
// CHECK: memref.load %[[QUEUES]]
// Thread 0 records when it began to wait (the trace).
// CHECK: llvm.inline_asm has_side_effects "mov.u64 $0, %globaltimer;"
// CHECK: llvm.store %{{.*}} : i64, !llvm.ptr
// Before the wait, every thread loads the task's body, block and buffer
// addresses (as many as any body takes, clamped to the table): their
// latency hides behind the wait.
// CHECK: arith.minui %{{.*}}, %c3
// CHECK: memref.load %[[ADDRESSES]]
// Then, per event it waits on (the first from the record, the others from
// the event lists), thread 0 polls the counter with GPU-scope acquire
// loads, sleeping between polls, until the deadline in the state.
// CHECK: scf.for
// CHECK: scf.if
// CHECK: } else {
// CHECK: memref.load %[[LISTS]]
// CHECK: scf.while
// CHECK: llvm.load %{{.*}} atomic syncscope("device") acquire
// CHECK: nvvm.read.ptx.sreg.globaltimer
// CHECK: nvvm.nanosleep
// The first worker to give up records the wait.
// CHECK: llvm.cmpxchg {{.*}} syncscope("device") monotonic monotonic
// Thread 0 records when it saw the events complete: word 1 of the task's 5.
// CHECK: scf.if %[[TRACING]]
// CHECK: llvm.inline_asm has_side_effects "mov.u64 $0, %globaltimer;"
// CHECK: arith.muli %{{.*}}, %c5_i32
// CHECK: arith.addi %{{.*}}, %c1_i32
// Every thread learns whether a wait gave up, at the barrier that also
// passes the acquire on.
// CHECK: nvvm.barrier #nvvm.reduction<or>
// The body, on memrefs built from the address table. The thread index is
// read anew per task and bounded by the block size, so that LLVM knows its
// range and unrolls the bodies' tile copies.
// CHECK: llvm.inline_asm has_side_effects "mov.u32 $0, %tid.x;"
// CHECK: arith.minui %{{.*}}, %c127
// CHECK: scf.index_switch
// CHECK: case 0 {
// CHECK-NOT: memref.load
// CHECK: llvm.inttoptr
// CHECK: func.call @g_body0
// The first warp's lanes read the trigger count and list start (record
// words 8 and 10) and, below the count, one event each (word 9 for lane 0,
// the event list for the others) before the barrier, so that no load
// waits behind the fence.
// CHECK: %[[FIRSTWARP:.*]] = arith.cmpi ult, %[[TID]], %c32
// CHECK: scf.if %[[FIRSTWARP]]
// CHECK: arith.constant 8 : index
// CHECK: memref.load
// CHECK: arith.constant 10 : index
// CHECK: memref.load
// CHECK: arith.constant 9 : index
// CHECK: memref.load
// CHECK: memref.load %[[LISTS]]
// CHECK: gpu.barrier
// Thread 0 records when the body's writes were done, where the trace
// argument is not null.
// CHECK: scf.if %[[TRACING]]
// CHECK: llvm.inline_asm has_side_effects "mov.u64 $0, %globaltimer;"
// CHECK: llvm.store %{{.*}} : i64, !llvm.ptr
// The signals: each lane below the trigger count (at most 32) runs a
// release fence and a relaxed add on its event, with no load between; the
// events past the 32nd follow in turn.
// CHECK: %[[LANES:.*]] = arith.minui %{{.*}}, %c32
// CHECK: %[[SIGNALS:.*]] = arith.cmpi ult, %[[TID]], %[[LANES]]
// CHECK: scf.if %[[SIGNALS]]
// CHECK: llvm.fence syncscope("device") release
// CHECK-NOT: memref.load
// CHECK: llvm.atomicrmw add {{.*}} syncscope("device") monotonic
// CHECK: %[[NEXT:.*]] = arith.addi %[[TID]], %c32
// CHECK: scf.for %[[K:.*]] = %[[NEXT]] to %{{.*}} step %c32
// CHECK: memref.load %[[LISTS]]
// CHECK: llvm.atomicrmw add {{.*}} syncscope("device") monotonic
// Thread 0 records when its signals were issued: word 4.
// CHECK: scf.if %[[TRACING]]
// CHECK: llvm.inline_asm has_side_effects "mov.u64 $0, %globaltimer;"
// CHECK: arith.muli %{{.*}}, %c5_i32
// CHECK: arith.addi %{{.*}}, %c4_i32
// The last worker to finish advances the epoch.
// CHECK: llvm.atomicrmw add {{.*}} syncscope("device") monotonic
// CHECK: memref.store
// CHECK: gpu.return
// The tables, as constants beside the graph. Task records are (body,
// kernel, block x, y, z, waits (count, first, where the others start),
// triggers (likewise), first operand): task 1 signals event 2, task 3
// waits on it; no task has a second event.
// CHECK: memref.global "private" constant @g_tasks : memref<48xi32> = dense<[0, 0, 0, 0, 0, 0, -1, 0, 0, -1, 0, 0, 0, 0, 1, 0, 0, 0, -1, 0, 1, 2, 0, 0, 0, 1, 0, 0, 0, 0, -1, 0, 0, -1, 0, 2, 0, 1, 1, 0, 0, 1, 2, 0, 0, -1, 0, 2]>
// CHECK: memref.global "private" constant @g_queue_starts : memref<3xi32> = dense<[0, 3, 4]>
// CHECK: memref.global "private" constant @g_queues : memref<4xi32> = dense<[0, 2, 3, 1]>
// CHECK: memref.global "private" constant @g_needed : memref<3xi32> = dense<[0, 1, 1]>
// CHECK: memref.global "private" constant @g_operands : memref<4xi32> = dense<[1, 2, 2, 0]>
// CHECK: memref.global "private" constant @g_event_lists : memref<0xi32> = dense<>
// CHECK-NOT: @g_storage
// CHECK: memref.global "private" constant @g_graph_tasks : memref<4xi32> = dense<[0, 1, 2, 3]>
// Dynamic dispatch: thread 0 claims tasks from the state's NextTask word
// (slot 9), starting at epoch * (4 tasks + 2 workers), and hands each to the
// CTA through a shared-memory word; the next claim is issued once the wait
// is over, before the body. No worker knows what ran before on its SM, so
// task 2 now waits on task 0's counter, which task 0 signals.
// DYN: mirage.megakernel = {bodies = 1 : i64, dynamic_dispatch = true
// DYN: memref.global "private" @g_claimed_task : memref<1xi32, #gpu.address_space<workgroup>>
// DYN-LABEL: gpu.func @g(
// DYN: %[[CLAIMED:.*]] = memref.get_global @g_claimed_task
// DYN: arith.constant 9 : i32
// DYN: llvm.atomicrmw add {{.*}} syncscope("device") monotonic
// DYN: memref.store %{{.*}}, %[[CLAIMED]]
// DYN: gpu.barrier
// DYN: scf.while
// DYN: memref.load %[[CLAIMED]]
// DYN: arith.cmpi ult, %{{.*}}, %c4_i32
// DYN: scf.condition
// DYN: llvm.load %{{.*}} atomic syncscope("device") acquire
// DYN: llvm.atomicrmw add {{.*}} syncscope("device") monotonic
// DYN: nvvm.barrier #nvvm.reduction<or>
// DYN: func.call @g_body0
// DYN: llvm.fence syncscope("device") release
// DYN: memref.store %{{.*}}, %[[CLAIMED]]
// DYN: gpu.barrier
// DYN: gpu.return
// DYN: memref.global "private" constant @g_tasks : memref<48xi32> = dense<[0, 0, 0, 0, 0, 0, -1, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, -1, 0, 1, 2, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, -1, 0, 2, 0, 1, 1, 0, 0, 1, 2, 0, 0, -1, 0, 2]>
tg.graph @g workers 2 linearized {
  %y = tg.buffer output 0 : memref<4x64xf32>
  %x = tg.buffer input 0 : memref<4x64xf32>
  %t = tg.buffer temp : memref<4x64xf32>
  tg.kernel @k0_exp ins(%x : memref<4x64xf32>) outs(%t : memref<4x64xf32>) {
    tb.graph grid [2] threads 128 forloop 1 {
    ^bb0(%arg0: tensor<4x64xf32>):
      %0 = tb.input_iterator %arg0 imap <x -> 0> fmap <i -> replica> : tensor<4x64xf32> -> !tb.tile<2x64xf32>
      %1 = tb.exp %0 : !tb.tile<2x64xf32>
      %2 = tb.output_saver %1 omap <x -> 0> : !tb.tile<2x64xf32> -> tensor<4x64xf32>
      tb.yield %2 : tensor<4x64xf32>
    }
  }
  tg.kernel @k1_exp ins(%t : memref<4x64xf32>) outs(%y : memref<4x64xf32>) {
    tb.graph grid [2] threads 128 forloop 1 {
    ^bb0(%arg0: tensor<4x64xf32>):
      %0 = tb.input_iterator %arg0 imap <x -> 0> fmap <i -> replica> : tensor<4x64xf32> -> !tb.tile<2x64xf32>
      %1 = tb.exp %0 : !tb.tile<2x64xf32>
      %2 = tb.output_saver %1 omap <x -> 0> : !tb.tile<2x64xf32> -> tensor<4x64xf32>
      tb.yield %2 : tensor<4x64xf32>
    }
  }
  %start = tg.event triggers 0 tasks [0, 1]
  tg.task compute @k0_exp block [0] reads [#tg.box<[0, 0], [2, 64]>] writes [#tg.box<[0, 0], [2, 64]>] aot waits(%start) triggers(%e0)
  tg.task compute @k0_exp block [1] reads [#tg.box<[2, 0], [2, 64]>] writes [#tg.box<[2, 0], [2, 64]>] aot waits(%start) triggers(%e1)
  %e0 = tg.event triggers 1 tasks [2, 2]
  tg.task compute @k1_exp block [0] reads [#tg.box<[0, 0], [2, 64]>] writes [#tg.box<[0, 0], [2, 64]>] aot waits(%e0)
  %e1 = tg.event triggers 1 tasks [3, 3]
  tg.task compute @k1_exp block [1] reads [#tg.box<[2, 0], [2, 64]>] writes [#tg.box<[2, 0], [2, 64]>] aot waits(%e1)
  tg.queue worker 0 [0, 2, 3]
  tg.queue worker 1 [1]
}
