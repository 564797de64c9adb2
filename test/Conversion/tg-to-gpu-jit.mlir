// convert-tg-to-gpu with just-in-time tasks: k1_exp is data-dependent, so
// its two tasks are in no queue. They follow the workers' queues in the
// tables (a last span of queue starts), every wait on or of them goes
// through a counter (their worker is known only when they run), and thread
// 0 of each worker claims them one at a time from the state's NextTask word
// (slot 9): before each task of its queue it runs the claimed task while
// that comes earlier in the graph's order, and after its queue all it can
// claim.
// RUN: mirage-opt %s --convert-tg-to-gpu 2>&1 | FileCheck %s

// CHECK: remark: waits: 2 poll an event counter, 0 are same-worker hand-offs
// CHECK: remark: just-in-time tasks, claimed by the workers as they go: 2
// CHECK: memref.global "private" @g_claimed_task : memref<1xi32, #gpu.address_space<workgroup>>
// CHECK-LABEL: gpu.func @g(
// The first claim, counted from epoch * (2 tasks + 2 workers), handed to the
// CTA through the shared-memory word.
// CHECK: %[[CLAIMED:.*]] = memref.get_global @g_claimed_task
// CHECK: arith.constant 4 : i64
// CHECK: arith.constant 9 : i32
// CHECK: llvm.atomicrmw add {{.*}} syncscope("device") monotonic
// CHECK: arith.minui %{{.*}}, %c2_i64
// CHECK: memref.store %{{.*}}, %[[CLAIMED]]
// CHECK: gpu.barrier
// The queue loop; before each of its tasks, the claimed ones that come
// earlier (their table index below the queued task's).
// CHECK: scf.for
// CHECK: scf.while
// CHECK: memref.load %[[CLAIMED]]
// CHECK: arith.cmpi ult, %{{.*}}, %c2_i32
// CHECK: arith.cmpi slt
// CHECK: scf.condition
// Running one, thread 0 claims the next once its wait is over.
// CHECK: llvm.load %{{.*}} atomic syncscope("device") acquire
// CHECK: llvm.atomicrmw add {{.*}} syncscope("device") monotonic
// CHECK: nvvm.barrier #nvvm.reduction<or>
// CHECK: func.call @g_body0
// CHECK: memref.store %{{.*}}, %[[CLAIMED]]
// CHECK: gpu.barrier
// After the queue, every task still claimable, with no bound.
// CHECK: scf.while
// CHECK: memref.load %[[CLAIMED]]
// CHECK: arith.cmpi ult, %{{.*}}, %c2_i32
// CHECK-NOT: arith.cmpi slt
// CHECK: scf.condition
// CHECK: gpu.return
// Tasks 2 and 3 wait on events 1 and 2, which tasks 0 and 1 signal.
// CHECK: memref.global "private" constant @g_tasks : memref<48xi32> = dense<[0, 0, 0, 0, 0, 0, -1, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, -1, 0, 1, 2, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, -1, 0, 2, 0, 1, 1, 0, 0, 1, 2, 0, 0, -1, 0, 2]>
// CHECK: memref.global "private" constant @g_queue_starts : memref<4xi32> = dense<[0, 1, 2, 4]>
// CHECK: memref.global "private" constant @g_queues : memref<4xi32> = dense<[0, 1, 2, 3]>
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
  tg.kernel @k1_exp data_dependent ins(%t : memref<4x64xf32>) outs(%y : memref<4x64xf32>) {
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
  tg.task compute @k1_exp block [0] reads [#tg.box<[0, 0], [2, 64]>] writes [#tg.box<[0, 0], [2, 64]>] jit waits(%e0)
  %e1 = tg.event triggers 1 tasks [3, 3]
  tg.task compute @k1_exp block [1] reads [#tg.box<[2, 0], [2, 64]>] writes [#tg.box<[2, 0], [2, 64]>] jit waits(%e1)
  tg.queue worker 0 [0]
  tg.queue worker 1 [1]
}
