// With wgmma, a tile matmul whose rows fill warpgroups (m a multiple of 64,
// threads a multiple of 128) runs as wgmma.mma_async from shared-memory
// descriptors; the others keep ldmatrix + mma.sync.
// RUN: mirage-opt %s --convert-kn-to-gpu="chip=sm_90a wgmma=true" | FileCheck %s
// Without it (the default), every matmul keeps mma.sync.
// RUN: mirage-opt %s --convert-kn-to-gpu | FileCheck %s --check-prefix=OFF
// In the PTX, a fence, one wgmma per 16 of k, commit and wait; N-major B
// is transposed (imm-trans-b 1), K-major B not.
// RUN: mirage-opt %s --mirage-to-ptx="chip=sm_90a wgmma=true fuse=false" | FileCheck %s --check-prefix=PTX
// A GEMM main loop asks for 4 stages and leaves each step's wgmma group in
// flight (wait_group 1, then 0 after the loop), its copies 2 steps ahead;
// with 2 stages every step waits for its group (wait_group 0 in the loop).
// RUN: mirage-opt %s --convert-kn-to-gpu="chip=sm_90a wgmma=true pipeline-stages=2" | FileCheck %s --check-prefix=TWO

// Two warpgroups, one 64-row slab each; x [128, 64] is K-major with rows of
// 128 bytes (descriptor: swizzle 128B, stride 1024 bytes, leading unused);
// w [64, 128] is N-major, stored as two 128-byte column blocks (leading
// offset 64 rows * 128 bytes = 8192). Both tiles are read through the async
// proxy: every barrier is preceded by the proxy fence.
// CHECK-LABEL: gpu.func @prefill_k0(
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK: scf.for
// CHECK: llvm.inline_asm has_side_effects "wgmma.fence.sync.aligned;"
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: arith.constant 4611686293305360384 : i64
// CHECK: arith.constant 4611686293338849280 : i64
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 1;"
// CHECK: scf.yield
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
// CHECK-NOT: nvgpu.mma.sync
// CHECK-LABEL: gpu.func @linear_t_k0(
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// Decode-sized rows (m = 8) and blocks of fewer than 128 threads keep
// mma.sync, and no fence.
// CHECK-LABEL: gpu.func @decode_k0(
// CHECK-NOT: nvvm.fence.proxy
// CHECK-NOT: wgmma
// CHECK: nvgpu.mma.sync
// CHECK-LABEL: gpu.func @two_warps_k0(
// CHECK-NOT: wgmma
// CHECK: nvgpu.mma.sync
// Attention's step: the second matmul reads exp(scores), which the step
// writes itself: every group is waited on in its step.
// CHECK-LABEL: gpu.func @attention_step_k0(
// CHECK: scf.for
// CHECK-NOT: wgmma.wait_group.sync.aligned 1;
// CHECK: gpu.return

// The prologue requests 2 stages (copies 2 ahead); each step requests one,
// waits until 2 are pending, and leaves its group in flight.
// TWO-LABEL: gpu.func @prefill_k0(
// TWO: nvvm.cp.async.commit.group
// TWO-NOT: nvvm.cp.async.commit.group
// TWO: scf.for
// TWO: nvvm.cp.async.commit.group
// TWO-NEXT: nvvm.cp.async.wait.group 1
// TWO: nvvm.wgmma.commit.group.sync.aligned
// TWO-NOT: scf.yield
// TWO: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
// TWO: scf.yield

// OFF-NOT: wgmma
// OFF-NOT: fence.proxy

// PTX-LABEL: gpu.binary @prefill_kernels
// PTX-SAME: fence.proxy.async.shared::cta
// PTX-SAME: wgmma.fence.sync.aligned
// PTX-SAME: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p, 1,  1, 0,  1;
// PTX-SAME: wgmma.commit_group.sync.aligned
// PTX-SAME: wgmma.wait_group.sync.aligned 0
// PTX-LABEL: gpu.binary @linear_t_kernels
// PTX-SAME: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1,  1, 0,  0;
// PTX-LABEL: gpu.binary @decode_kernels
// PTX-NOT: wgmma
// PTX-SAME: mma.sync.aligned.m16n8k16

func.func @prefill(%x: tensor<128x512xf16>, %w: tensor<512x512xf16>) -> tensor<128x512xf16> {
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

// nn.Linear's weight layout [n, k], read in place through the transpose.
func.func @linear_t(%x: tensor<64x256xbf16>, %w: tensor<256x256xbf16>) -> tensor<64x256xbf16> {
  %y = kn.kernel(%x, %w) {
    tb.graph grid [4] threads 128 forloop 4 {
    ^bb0(%xd: tensor<64x256xbf16>, %wd: tensor<256x256xbf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<64x256xbf16> -> !tb.tile<64x64xbf16>
      %wt = tb.input_iterator %wd imap <x -> 0> fmap <i -> 1> : tensor<256x256xbf16> -> !tb.tile<64x64xbf16>
      %t = tb.transpose %wt permutation [1, 0] : !tb.tile<64x64xbf16>
      %p = tb.matmul %xt, %t : !tb.tile<64x64xbf16>, !tb.tile<64x64xbf16>
      %s = tb.accum_sum %p : !tb.tile<64x64xbf16>
      %out = tb.output_saver %s omap <x -> 1> : !tb.tile<64x64xbf16> -> tensor<64x256xbf16>
      tb.yield %out : tensor<64x256xbf16>
    }
  } : (tensor<64x256xbf16>, tensor<256x256xbf16>) -> tensor<64x256xbf16>
  return %y : tensor<64x256xbf16>
}

func.func @decode(%x: tensor<8x512xf16>, %w: tensor<512x512xf16>) -> tensor<8x512xf16> {
  %y = kn.kernel(%x, %w) {
    tb.graph grid [8] threads 128 forloop 8 {
    ^bb0(%xd: tensor<8x512xf16>, %wd: tensor<512x512xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<8x512xf16> -> !tb.tile<8x64xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<512x512xf16> -> !tb.tile<64x64xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<8x64xf16>, !tb.tile<64x64xf16>
      %s = tb.accum_sum %p : !tb.tile<8x64xf16>
      %out = tb.output_saver %s omap <x -> 1> : !tb.tile<8x64xf16> -> tensor<8x512xf16>
      tb.yield %out : tensor<8x512xf16>
    }
  } : (tensor<8x512xf16>, tensor<512x512xf16>) -> tensor<8x512xf16>
  return %y : tensor<8x512xf16>
}

func.func @two_warps(%x: tensor<64x512xf16>, %w: tensor<512x512xf16>) -> tensor<64x512xf16> {
  %y = kn.kernel(%x, %w) {
    tb.graph grid [8] threads 64 forloop 8 {
    ^bb0(%xd: tensor<64x512xf16>, %wd: tensor<512x512xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<64x512xf16> -> !tb.tile<64x64xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<512x512xf16> -> !tb.tile<64x64xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<64x64xf16>, !tb.tile<64x64xf16>
      %s = tb.accum_sum %p : !tb.tile<64x64xf16>
      %out = tb.output_saver %s omap <x -> 1> : !tb.tile<64x64xf16> -> tensor<64x512xf16>
      tb.yield %out : tensor<64x512xf16>
    }
  } : (tensor<64x512xf16>, tensor<512x512xf16>) -> tensor<64x512xf16>
  return %y : tensor<64x512xf16>
}

func.func @attention_step(%q: tensor<64x64xf16>, %k: tensor<64x1024xf16>, %v: tensor<1024x64xf16>) -> tensor<64x64xf16> {
  %o = kn.kernel(%q, %k, %v) {
    tb.graph grid [1] threads 128 forloop 16 {
    ^bb0(%qd: tensor<64x64xf16>, %kd: tensor<64x1024xf16>, %vd: tensor<1024x64xf16>):
      %qt = tb.input_iterator %qd imap <x -> replica> fmap <i -> replica> : tensor<64x64xf16> -> !tb.tile<64x64xf16>
      %kt = tb.input_iterator %kd imap <x -> replica> fmap <i -> 1> : tensor<64x1024xf16> -> !tb.tile<64x64xf16>
      %vt = tb.input_iterator %vd imap <x -> replica> fmap <i -> 0> : tensor<1024x64xf16> -> !tb.tile<64x64xf16>
      %s = tb.matmul %qt, %kt : !tb.tile<64x64xf16>, !tb.tile<64x64xf16>
      %e = tb.exp %s : !tb.tile<64x64xf16>
      %pv = tb.matmul %e, %vt : !tb.tile<64x64xf16>, !tb.tile<64x64xf16>
      %acc = tb.accum_sum %pv : !tb.tile<64x64xf16>
      %out = tb.output_saver %acc omap <x -> 0> : !tb.tile<64x64xf16> -> tensor<64x64xf16>
      tb.yield %out : tensor<64x64xf16>
    }
  } : (tensor<64x64xf16>, tensor<64x1024xf16>, tensor<1024x64xf16>) -> tensor<64x64xf16>
  return %o : tensor<64x64xf16>
}
