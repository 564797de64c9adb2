// With warp-specialize, a TMA kernel whose threads are whole warpgroups gets
// a producer warpgroup after them: its first thread issues every iteration's
// copies, refilling a stage once the graph's threads (the consumers) have
// released it on the stage's `empty` mbarrier; the producers give their
// registers to the consumers, who synchronize on a named barrier of their
// own.
// RUN: mirage-opt %s --convert-kn-to-gpu="chip=sm_90a tma=true wgmma=true warp-specialize=true" | FileCheck %s
// In the PTX, setmaxnreg in both roles, the consumers' named barrier, and the
// launch bound of graph threads + 128.
// RUN: mirage-opt %s --mirage-to-ptx="chip=sm_90a tma=true warp-specialize=true fuse=false" | FileCheck %s --check-prefix=PTX
// Without the option the TMA kernel keeps thread 0 as its copy issuer.
// RUN: mirage-opt %s --convert-kn-to-gpu="chip=sm_90a tma=true" | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: func.func @decode(
// CHECK: box[%c256
// CHECK: %[[THREADS:.*]] = arith.constant 256 : index
// CHECK: gpu.launch_func  @decode_kernels::@decode_k0 {{.*}} threads in (%[[THREADS]], %{{.*}}, %{{.*}})
// CHECK-LABEL: gpu.func @decode_k0(
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, nvvm.minctasm = 1
// The producers' first thread (128) initializes both groups of mbarriers.
// CHECK: %[[LEADER:.*]] = arith.cmpi eq, %thread_id_x, %c128
// CHECK: %[[FULL:.*]] = nvgpu.mbarrier.create -> <{{.*}}num_barriers = 2>
// CHECK: %[[EMPTY:.*]] = nvgpu.mbarrier.create -> <{{.*}}num_barriers = 2>
// CHECK: nvgpu.mbarrier.init %[[FULL]][%{{.*}}], %{{.*}}, predicate = %[[LEADER]]
// CHECK: nvgpu.mbarrier.init %[[EMPTY]][%{{.*}}], %{{.*}}, predicate = %[[LEADER]]
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: gpu.barrier
// CHECK: %[[PRODUCER:.*]] = arith.cmpi uge, %thread_id_x, %c128
// CHECK: scf.if %[[PRODUCER]] {
// CHECK-NEXT: nvvm.setmaxregister  decrease 40
// CHECK-NEXT: scf.if %[[LEADER]] {
// Every iteration: wait until the stage's last use is released (the first
// use of a stage waits for parity 1, which a fresh mbarrier has), then
// expect both tiles' bytes and issue the copies, unpredicated.
// CHECK: scf.for %[[IT:.*]] = %c0{{.*}} to %c8
// CHECK: nvgpu.mbarrier.try_wait.parity %[[EMPTY]][%{{.*}}], %{{.*}}, %c10000000
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[FULL]][%{{.*}}], %c73728 :
// CHECK-COUNT-10: nvgpu.tma.async.load {{.*}} to %{{.*}} :
// CHECK: } else {
// CHECK-NEXT: nvvm.setmaxregister  increase 248
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// The consumers' loop waits on the full mbarrier and issues no copies.
// CHECK: scf.for
// CHECK-NOT: nvgpu.tma.async.load
// CHECK: nvgpu.mbarrier.try_wait.parity %[[FULL]]
// CHECK-NOT: nvgpu.tma.async.load
// CHECK-NOT: gpu.barrier
// Consumer thread 0 releases the stage after the iteration's last barrier.
// CHECK: nvvm.barrier id
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %thread_id_x, %c0
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[EMPTY]][%{{.*}}], %c0{{.*}}, predicate = %[[FIRST]]
// CHECK-NEXT: scf.yield
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return

// A 64-thread graph is not a warpgroup: its TMA kernel keeps one role.
// CHECK-LABEL: gpu.func @half_warpgroup_k0(
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>
// CHECK-NOT: setmaxregister
// CHECK: nvgpu.tma.async.load
// CHECK: gpu.return

// A 1024-thread graph leaves no room for a producer warpgroup in CUDA's
// 1024 threads a block.
// CHECK-LABEL: gpu.func @full_block_k0(
// CHECK-SAME: known_block_size = array<i32: 1024, 1, 1>
// CHECK-NOT: setmaxregister
// CHECK: nvgpu.tma.async.load
// CHECK: gpu.return

// A GEMM main loop keeps its wgmma group in flight: two consumer
// warpgroups (232 registers each, as CUTLASS), and each iteration frees the
// previous iteration's stage, from the second on.
// CHECK-LABEL: gpu.func @gemm_k0(
// CHECK-SAME: known_block_size = array<i32: 384, 1, 1>
// CHECK: %[[GFULL:.*]] = nvgpu.mbarrier.create -> <{{.*}}num_barriers = 4>
// CHECK: %[[GEMPTY:.*]] = nvgpu.mbarrier.create -> <{{.*}}num_barriers = 4>
// CHECK: nvvm.setmaxregister  increase 232
// CHECK: scf.for %[[GIT:.*]] = {{.*}} iter_args
// CHECK: nvgpu.mbarrier.try_wait.parity %[[GFULL]]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: nvvm.barrier id
// CHECK: %[[GFIRST:.*]] = arith.cmpi eq, %thread_id_x, %c0
// CHECK: %[[SECOND:.*]] = arith.cmpi uge, %[[GIT]], %c1
// CHECK: %[[GRELEASE:.*]] = arith.andi %[[GFIRST]], %[[SECOND]]
// CHECK: %[[PREVIOUS:.*]] = arith.addi %[[GIT]], %c3
// CHECK: arith.remui %[[PREVIOUS]], %c4
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[GEMPTY]][%{{.*}}], %c0{{.*}}, predicate = %[[GRELEASE]]
// CHECK: wgmma.wait_group.sync.aligned 0;

// PTX-LABEL: gpu.binary @decode_kernels
// PTX-SAME: .maxntid 256, 1, 1
// PTX-SAME: setmaxnreg.dec.sync.aligned.u32 \0940;
// PTX-SAME: setmaxnreg.inc.sync.aligned.u32 \09248;
// PTX-SAME: bar.sync \091, 128;
// PTX-LABEL: gpu.binary @half_warpgroup_kernels
// PTX-NOT: setmaxnreg
// PTX-SAME: cp.async.bulk.tensor

// OFF-LABEL: gpu.func @decode_k0(
// OFF-SAME: known_block_size = array<i32: 128, 1, 1>
// OFF-NOT: setmaxregister
// OFF-NOT: nvvm.barrier id
// OFF: gpu.return

func.func @decode(%x: tensor<8x4096xf16>, %w: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  %0 = kn.kernel(%x, %w) {
    tb.graph grid [64] threads 128 forloop 8 {
    ^bb0(%a: tensor<8x4096xf16>, %b: tensor<4096x4096xf16>):
      %1 = tb.input_iterator %a imap <x -> replica> fmap <i -> 1> : tensor<8x4096xf16> -> !tb.tile<8x512xf16>
      %2 = tb.input_iterator %b imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<512x64xf16>
      %3 = tb.matmul %1, %2 : !tb.tile<8x512xf16>, !tb.tile<512x64xf16>
      %4 = tb.accum_sum %3 : !tb.tile<8x64xf16>
      %5 = tb.output_saver %4 omap <x -> 1> : !tb.tile<8x64xf16> -> tensor<8x4096xf16>
      tb.yield %5 : tensor<8x4096xf16>
    }
  } : (tensor<8x4096xf16>, tensor<4096x4096xf16>) -> tensor<8x4096xf16>
  return %0 : tensor<8x4096xf16>
}

func.func @half_warpgroup(%x: tensor<8x4096xf16>, %w: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  %0 = kn.kernel(%x, %w) {
    tb.graph grid [64] threads 64 forloop 8 {
    ^bb0(%a: tensor<8x4096xf16>, %b: tensor<4096x4096xf16>):
      %1 = tb.input_iterator %a imap <x -> replica> fmap <i -> 1> : tensor<8x4096xf16> -> !tb.tile<8x512xf16>
      %2 = tb.input_iterator %b imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<512x64xf16>
      %3 = tb.matmul %1, %2 : !tb.tile<8x512xf16>, !tb.tile<512x64xf16>
      %4 = tb.accum_sum %3 : !tb.tile<8x64xf16>
      %5 = tb.output_saver %4 omap <x -> 1> : !tb.tile<8x64xf16> -> tensor<8x4096xf16>
      tb.yield %5 : tensor<8x4096xf16>
    }
  } : (tensor<8x4096xf16>, tensor<4096x4096xf16>) -> tensor<8x4096xf16>
  return %0 : tensor<8x4096xf16>
}

func.func @full_block(%x: tensor<8x4096xf16>, %w: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  %0 = kn.kernel(%x, %w) {
    tb.graph grid [64] threads 1024 forloop 8 {
    ^bb0(%a: tensor<8x4096xf16>, %b: tensor<4096x4096xf16>):
      %1 = tb.input_iterator %a imap <x -> replica> fmap <i -> 1> : tensor<8x4096xf16> -> !tb.tile<8x512xf16>
      %2 = tb.input_iterator %b imap <x -> 1> fmap <i -> 0> : tensor<4096x4096xf16> -> !tb.tile<512x64xf16>
      %3 = tb.matmul %1, %2 : !tb.tile<8x512xf16>, !tb.tile<512x64xf16>
      %4 = tb.accum_sum %3 : !tb.tile<8x64xf16>
      %5 = tb.output_saver %4 omap <x -> 1> : !tb.tile<8x64xf16> -> tensor<8x4096xf16>
      tb.yield %5 : tensor<8x4096xf16>
    }
  } : (tensor<8x4096xf16>, tensor<4096x4096xf16>) -> tensor<8x4096xf16>
  return %0 : tensor<8x4096xf16>
}

func.func @gemm(%x: tensor<128x512xf16>, %w: tensor<512x512xf16>) -> tensor<128x512xf16> {
  %y = kn.kernel(%x, %w) {
    tb.graph grid [4] threads 256 forloop 8 {
    ^bb0(%xd: tensor<128x512xf16>, %wd: tensor<512x512xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<128x512xf16> -> !tb.tile<128x64xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<512x512xf16> -> !tb.tile<64x128xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<128x64xf16>, !tb.tile<64x128xf16>
      %s = tb.accum_sum %p : !tb.tile<128x128xf16>
      %out = tb.output_saver %s omap <x -> 1> : !tb.tile<128x128xf16> -> tensor<128x512xf16>
      tb.yield %out : tensor<128x512xf16>
    }
  } : (tensor<128x512xf16>, tensor<512x512xf16>) -> tensor<128x512xf16>
  return %y : tensor<128x512xf16>
}
