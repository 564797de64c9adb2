// Register chains (BlockGraphPlan.h): on wgmma, a loop matmul whose result,
// through its epilogue, is the left operand of one register sum and is
// otherwise only folded along its rows by reductions that accumulators sum
// stays in the registers of the warpgroup that computed it. FlashAttention's
// step: the scores' wgmma, exp in registers, each row sum folded from the
// thread's values and the four lanes that hold the row (shuffles by 2 and 1)
// and kept in registers across the loop, then P V on wgmma with A from
// registers (four k16 steps of 64 scores). No tile is written in the step:
// one barrier after the copies' wait and one at its end.
// RUN: mirage-opt %s --convert-kn-to-gpu="chip=sm_90a wgmma=true" | FileCheck %s
// The PTX holds wgmma with A in four registers.
// RUN: mirage-opt %s --mirage-to-ptx="chip=sm_90a wgmma=true fuse=false" | FileCheck %s --check-prefix=PTX
// Without wgmma (mma.sync), no chain: the scores go through a tile.
// RUN: mirage-opt %s --convert-kn-to-gpu | FileCheck %s --check-prefix=MMA

// CHECK-LABEL: gpu.func @flash_step_k0(
// CHECK: scf.for {{.*}} -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, f32, f32)
// CHECK: nvvm.cp.async.wait.group
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: memref.store
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>
// CHECK: "wgmma.wait_group.sync.aligned 0;"
// CHECK: math.exp {{.*}} fastmath<afn>
// CHECK: gpu.shuffle  xor {{.*}}, %c2_i32
// CHECK: gpu.shuffle  xor {{.*}}, %c1_i32
// CHECK: "wgmma.fence.sync.aligned;", "{{(=f,)+(=r,)+}}
// CHECK-COUNT-4: "{ .reg .pred p; setp.ne.b32 p, 1, 0; wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, {{.*}}, $31}, {$64, $65, $66, $67}, $68, p, 1, 1, 1; }"
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: "wgmma.wait_group.sync.aligned 0;"
// CHECK-NOT: memref.store
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// After the loop, the first lane of a row's four stores its row sum.
// CHECK: scf.if
// CHECK: memref.store {{.*}} : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>
// A reduce_max summed by accum_max is a row sum too (a third register).
// CHECK-LABEL: gpu.func @two_row_sums_k0(
// CHECK: scf.for {{.*}} -> ({{(vector<2x2xf32>, )+}}f32, f32, f32, f32)
// CHECK: arith.maximumf
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, {$64, $65, $66, $67}, $68, p, 1, 1, 1;
// No chain where the scores are two wgmma jobs wide (256 columns), where
// an accumulator sums exp(scores) itself, where the rows are folded over
// another dim, where a row sum passes an elementwise op before its
// accumulator, or where the consumer is an online-softmax sum.
// CHECK-LABEL: gpu.func @wide_scores_k0(
// CHECK-NOT: wgmma.mma_async.sync.aligned
// CHECK-LABEL: gpu.func @exp_summed_k0(
// CHECK-NOT: wgmma.mma_async.sync.aligned
// CHECK-LABEL: gpu.func @column_sums_k0(
// CHECK-NOT: wgmma.mma_async.sync.aligned
// CHECK-LABEL: gpu.func @row_sum_scaled_k0(
// CHECK-NOT: wgmma.mma_async.sync.aligned
// CHECK-LABEL: gpu.func @rescaled_k0(
// CHECK-NOT: wgmma.mma_async.sync.aligned
// A unit-dim transpose that a matmul reads is a view of its source's tile
// (the same elements in the same rows): no copy, no barrier before the
// scores (kn-fuse's split sums make such a transpose of the cache), and
// the chain's consumer reads the values' view as well.
// CHECK-LABEL: gpu.func @split_step_k0(
// CHECK: nvvm.cp.async.wait.group
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>
// CHECK-NOT: gpu.barrier
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, {$64, $65, $66, $67}, $68, p, 1, 1, 1;
// No chain where the consumer's right operand is computed in the step (the
// chain's step runs where the scores' matmul stands).
// CHECK-LABEL: gpu.func @scaled_values_k0(
// CHECK-NOT: wgmma.mma_async.sync.aligned

// PTX-LABEL: gpu.binary @flash_step_kernels
// PTX-SAME: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%r{{[0-9]+}}, {{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;

// MMA-LABEL: gpu.func @flash_step_k0(
// MMA-NOT: wgmma
// MMA: nvgpu.mma.sync
// MMA: memref.store
// MMA: nvgpu.mma.sync

func.func @flash_step(%q: tensor<2x64x64xf16>, %k: tensor<2x64x1024xf16>, %v: tensor<2x1024x64xf16>) -> (tensor<2x64x1xf16>, tensor<2x64x64xf16>) {
  %r:2 = kn.kernel(%q, %k, %v) {
    tb.graph grid [2] threads 128 forloop 16 {
    ^bb0(%qd: tensor<2x64x64xf16>, %kd: tensor<2x64x1024xf16>, %vd: tensor<2x1024x64xf16>):
      %qt = tb.input_iterator %qd imap <x -> 0> fmap <i -> replica> : tensor<2x64x64xf16> -> !tb.tile<1x64x64xf16>
      %kt = tb.input_iterator %kd imap <x -> 0> fmap <i -> 2> : tensor<2x64x1024xf16> -> !tb.tile<1x64x64xf16>
      %vt = tb.input_iterator %vd imap <x -> 0> fmap <i -> 1> : tensor<2x1024x64xf16> -> !tb.tile<1x64x64xf16>
      %s = tb.matmul %qt, %kt : !tb.tile<1x64x64xf16>, !tb.tile<1x64x64xf16>
      %scaled = tb.mul_scalar %s, 0.125 : !tb.tile<1x64x64xf16>
      %e = tb.exp %scaled : !tb.tile<1x64x64xf16>
      %rs = tb.reduce_sum %e dim 2 : !tb.tile<1x64x64xf16>
      %rsum = tb.accum_sum %rs : !tb.tile<1x64x1xf16>
      %pv = tb.matmul %e, %vt : !tb.tile<1x64x64xf16>, !tb.tile<1x64x64xf16>
      %acc = tb.accum_sum %pv : !tb.tile<1x64x64xf16>
      %o0 = tb.output_saver %rsum omap <x -> 0> : !tb.tile<1x64x1xf16> -> tensor<2x64x1xf16>
      %o1 = tb.output_saver %acc omap <x -> 0> : !tb.tile<1x64x64xf16> -> tensor<2x64x64xf16>
      tb.yield %o0, %o1 : tensor<2x64x1xf16>, tensor<2x64x64xf16>
    }
  } : (tensor<2x64x64xf16>, tensor<2x64x1024xf16>, tensor<2x1024x64xf16>) -> (tensor<2x64x1xf16>, tensor<2x64x64xf16>)
  return %r#0, %r#1 : tensor<2x64x1xf16>, tensor<2x64x64xf16>
}

func.func @two_row_sums(%q: tensor<2x64x64xf16>, %k: tensor<2x64x1024xf16>, %v: tensor<2x1024x64xf16>) -> (tensor<2x64x1xf16>, tensor<2x64x1xf16>, tensor<2x64x64xf16>) {
  %r:3 = kn.kernel(%q, %k, %v) {
    tb.graph grid [2] threads 128 forloop 16 {
    ^bb0(%qd: tensor<2x64x64xf16>, %kd: tensor<2x64x1024xf16>, %vd: tensor<2x1024x64xf16>):
      %qt = tb.input_iterator %qd imap <x -> 0> fmap <i -> replica> : tensor<2x64x64xf16> -> !tb.tile<1x64x64xf16>
      %kt = tb.input_iterator %kd imap <x -> 0> fmap <i -> 2> : tensor<2x64x1024xf16> -> !tb.tile<1x64x64xf16>
      %vt = tb.input_iterator %vd imap <x -> 0> fmap <i -> 1> : tensor<2x1024x64xf16> -> !tb.tile<1x64x64xf16>
      %s = tb.matmul %qt, %kt : !tb.tile<1x64x64xf16>, !tb.tile<1x64x64xf16>
      %scaled = tb.mul_scalar %s, 0.125 : !tb.tile<1x64x64xf16>
      %e = tb.exp %scaled : !tb.tile<1x64x64xf16>
      %rs = tb.reduce_sum %e dim 2 : !tb.tile<1x64x64xf16>
      %rsum = tb.accum_sum %rs : !tb.tile<1x64x1xf16>
      %pv = tb.matmul %e, %vt : !tb.tile<1x64x64xf16>, !tb.tile<1x64x64xf16>
      %acc = tb.accum_sum %pv : !tb.tile<1x64x64xf16>
      %rm = tb.reduce_max %e dim 2 : !tb.tile<1x64x64xf16>
      %rmax = tb.accum_max %rm : !tb.tile<1x64x1xf16>
      %o0 = tb.output_saver %rsum omap <x -> 0> : !tb.tile<1x64x1xf16> -> tensor<2x64x1xf16>
      %o1 = tb.output_saver %rmax omap <x -> 0> : !tb.tile<1x64x1xf16> -> tensor<2x64x1xf16>
      %o2 = tb.output_saver %acc omap <x -> 0> : !tb.tile<1x64x64xf16> -> tensor<2x64x64xf16>
      tb.yield %o0, %o1, %o2 : tensor<2x64x1xf16>, tensor<2x64x1xf16>, tensor<2x64x64xf16>
    }
  } : (tensor<2x64x64xf16>, tensor<2x64x1024xf16>, tensor<2x1024x64xf16>) -> (tensor<2x64x1xf16>, tensor<2x64x1xf16>, tensor<2x64x64xf16>)
  return %r#0, %r#1, %r#2 : tensor<2x64x1xf16>, tensor<2x64x1xf16>, tensor<2x64x64xf16>
}

func.func @wide_scores(%q: tensor<2x64x64xf16>, %k: tensor<2x64x1024xf16>, %v: tensor<2x1024x64xf16>) -> (tensor<2x64x1xf16>, tensor<2x64x64xf16>) {
  %r:2 = kn.kernel(%q, %k, %v) {
    tb.graph grid [2] threads 128 forloop 4 {
    ^bb0(%qd: tensor<2x64x64xf16>, %kd: tensor<2x64x1024xf16>, %vd: tensor<2x1024x64xf16>):
      %qt = tb.input_iterator %qd imap <x -> 0> fmap <i -> replica> : tensor<2x64x64xf16> -> !tb.tile<1x64x64xf16>
      %kt = tb.input_iterator %kd imap <x -> 0> fmap <i -> 2> : tensor<2x64x1024xf16> -> !tb.tile<1x64x256xf16>
      %vt = tb.input_iterator %vd imap <x -> 0> fmap <i -> 1> : tensor<2x1024x64xf16> -> !tb.tile<1x256x64xf16>
      %s = tb.matmul %qt, %kt : !tb.tile<1x64x64xf16>, !tb.tile<1x64x256xf16>
      %scaled = tb.mul_scalar %s, 0.125 : !tb.tile<1x64x256xf16>
      %e = tb.exp %scaled : !tb.tile<1x64x256xf16>
      %rs = tb.reduce_sum %e dim 2 : !tb.tile<1x64x256xf16>
      %rsum = tb.accum_sum %rs : !tb.tile<1x64x1xf16>
      %pv = tb.matmul %e, %vt : !tb.tile<1x64x256xf16>, !tb.tile<1x256x64xf16>
      %acc = tb.accum_sum %pv : !tb.tile<1x64x64xf16>
      %o0 = tb.output_saver %rsum omap <x -> 0> : !tb.tile<1x64x1xf16> -> tensor<2x64x1xf16>
      %o1 = tb.output_saver %acc omap <x -> 0> : !tb.tile<1x64x64xf16> -> tensor<2x64x64xf16>
      tb.yield %o0, %o1 : tensor<2x64x1xf16>, tensor<2x64x64xf16>
    }
  } : (tensor<2x64x64xf16>, tensor<2x64x1024xf16>, tensor<2x1024x64xf16>) -> (tensor<2x64x1xf16>, tensor<2x64x64xf16>)
  return %r#0, %r#1 : tensor<2x64x1xf16>, tensor<2x64x64xf16>
}

func.func @exp_summed(%q: tensor<2x64x64xf16>, %k: tensor<2x64x1024xf16>, %v: tensor<2x1024x64xf16>) -> (tensor<2x64x1xf16>, tensor<2x64x64xf16>, tensor<2x64x64xf16>) {
  %r:3 = kn.kernel(%q, %k, %v) {
    tb.graph grid [2] threads 128 forloop 16 {
    ^bb0(%qd: tensor<2x64x64xf16>, %kd: tensor<2x64x1024xf16>, %vd: tensor<2x1024x64xf16>):
      %qt = tb.input_iterator %qd imap <x -> 0> fmap <i -> replica> : tensor<2x64x64xf16> -> !tb.tile<1x64x64xf16>
      %kt = tb.input_iterator %kd imap <x -> 0> fmap <i -> 2> : tensor<2x64x1024xf16> -> !tb.tile<1x64x64xf16>
      %vt = tb.input_iterator %vd imap <x -> 0> fmap <i -> 1> : tensor<2x1024x64xf16> -> !tb.tile<1x64x64xf16>
      %s = tb.matmul %qt, %kt : !tb.tile<1x64x64xf16>, !tb.tile<1x64x64xf16>
      %scaled = tb.mul_scalar %s, 0.125 : !tb.tile<1x64x64xf16>
      %e = tb.exp %scaled : !tb.tile<1x64x64xf16>
      %rs = tb.reduce_sum %e dim 2 : !tb.tile<1x64x64xf16>
      %rsum = tb.accum_sum %rs : !tb.tile<1x64x1xf16>
      %pv = tb.matmul %e, %vt : !tb.tile<1x64x64xf16>, !tb.tile<1x64x64xf16>
      %acc = tb.accum_sum %pv : !tb.tile<1x64x64xf16>
      %esum = tb.accum_sum %e : !tb.tile<1x64x64xf16>
      %o0 = tb.output_saver %rsum omap <x -> 0> : !tb.tile<1x64x1xf16> -> tensor<2x64x1xf16>
      %o1 = tb.output_saver %acc omap <x -> 0> : !tb.tile<1x64x64xf16> -> tensor<2x64x64xf16>
      %o2 = tb.output_saver %esum omap <x -> 0> : !tb.tile<1x64x64xf16> -> tensor<2x64x64xf16>
      tb.yield %o0, %o1, %o2 : tensor<2x64x1xf16>, tensor<2x64x64xf16>, tensor<2x64x64xf16>
    }
  } : (tensor<2x64x64xf16>, tensor<2x64x1024xf16>, tensor<2x1024x64xf16>) -> (tensor<2x64x1xf16>, tensor<2x64x64xf16>, tensor<2x64x64xf16>)
  return %r#0, %r#1, %r#2 : tensor<2x64x1xf16>, tensor<2x64x64xf16>, tensor<2x64x64xf16>
}

func.func @column_sums(%q: tensor<2x64x64xf16>, %k: tensor<2x64x1024xf16>, %v: tensor<2x1024x64xf16>) -> (tensor<2x1x64xf16>, tensor<2x64x64xf16>) {
  %r:2 = kn.kernel(%q, %k, %v) {
    tb.graph grid [2] threads 128 forloop 16 {
    ^bb0(%qd: tensor<2x64x64xf16>, %kd: tensor<2x64x1024xf16>, %vd: tensor<2x1024x64xf16>):
      %qt = tb.input_iterator %qd imap <x -> 0> fmap <i -> replica> : tensor<2x64x64xf16> -> !tb.tile<1x64x64xf16>
      %kt = tb.input_iterator %kd imap <x -> 0> fmap <i -> 2> : tensor<2x64x1024xf16> -> !tb.tile<1x64x64xf16>
      %vt = tb.input_iterator %vd imap <x -> 0> fmap <i -> 1> : tensor<2x1024x64xf16> -> !tb.tile<1x64x64xf16>
      %s = tb.matmul %qt, %kt : !tb.tile<1x64x64xf16>, !tb.tile<1x64x64xf16>
      %scaled = tb.mul_scalar %s, 0.125 : !tb.tile<1x64x64xf16>
      %e = tb.exp %scaled : !tb.tile<1x64x64xf16>
      %cs = tb.reduce_sum %e dim 1 : !tb.tile<1x64x64xf16>
      %csum = tb.accum_sum %cs : !tb.tile<1x1x64xf16>
      %pv = tb.matmul %e, %vt : !tb.tile<1x64x64xf16>, !tb.tile<1x64x64xf16>
      %acc = tb.accum_sum %pv : !tb.tile<1x64x64xf16>
      %o0 = tb.output_saver %csum omap <x -> 0> : !tb.tile<1x1x64xf16> -> tensor<2x1x64xf16>
      %o1 = tb.output_saver %acc omap <x -> 0> : !tb.tile<1x64x64xf16> -> tensor<2x64x64xf16>
      tb.yield %o0, %o1 : tensor<2x1x64xf16>, tensor<2x64x64xf16>
    }
  } : (tensor<2x64x64xf16>, tensor<2x64x1024xf16>, tensor<2x1024x64xf16>) -> (tensor<2x1x64xf16>, tensor<2x64x64xf16>)
  return %r#0, %r#1 : tensor<2x1x64xf16>, tensor<2x64x64xf16>
}

func.func @row_sum_scaled(%q: tensor<2x64x64xf16>, %k: tensor<2x64x1024xf16>, %v: tensor<2x1024x64xf16>) -> (tensor<2x64x1xf16>, tensor<2x64x64xf16>) {
  %r:2 = kn.kernel(%q, %k, %v) {
    tb.graph grid [2] threads 128 forloop 16 {
    ^bb0(%qd: tensor<2x64x64xf16>, %kd: tensor<2x64x1024xf16>, %vd: tensor<2x1024x64xf16>):
      %qt = tb.input_iterator %qd imap <x -> 0> fmap <i -> replica> : tensor<2x64x64xf16> -> !tb.tile<1x64x64xf16>
      %kt = tb.input_iterator %kd imap <x -> 0> fmap <i -> 2> : tensor<2x64x1024xf16> -> !tb.tile<1x64x64xf16>
      %vt = tb.input_iterator %vd imap <x -> 0> fmap <i -> 1> : tensor<2x1024x64xf16> -> !tb.tile<1x64x64xf16>
      %s = tb.matmul %qt, %kt : !tb.tile<1x64x64xf16>, !tb.tile<1x64x64xf16>
      %scaled = tb.mul_scalar %s, 0.125 : !tb.tile<1x64x64xf16>
      %e = tb.exp %scaled : !tb.tile<1x64x64xf16>
      %rs = tb.reduce_sum %e dim 2 : !tb.tile<1x64x64xf16>
      %half = tb.mul_scalar %rs, 0.5 : !tb.tile<1x64x1xf16>
      %rsum = tb.accum_sum %half : !tb.tile<1x64x1xf16>
      %pv = tb.matmul %e, %vt : !tb.tile<1x64x64xf16>, !tb.tile<1x64x64xf16>
      %acc = tb.accum_sum %pv : !tb.tile<1x64x64xf16>
      %o0 = tb.output_saver %rsum omap <x -> 0> : !tb.tile<1x64x1xf16> -> tensor<2x64x1xf16>
      %o1 = tb.output_saver %acc omap <x -> 0> : !tb.tile<1x64x64xf16> -> tensor<2x64x64xf16>
      tb.yield %o0, %o1 : tensor<2x64x1xf16>, tensor<2x64x64xf16>
    }
  } : (tensor<2x64x64xf16>, tensor<2x64x1024xf16>, tensor<2x1024x64xf16>) -> (tensor<2x64x1xf16>, tensor<2x64x64xf16>)
  return %r#0, %r#1 : tensor<2x64x1xf16>, tensor<2x64x64xf16>
}

func.func @rescaled(%q: tensor<2x64x64xf16>, %k: tensor<2x64x1024xf16>, %v: tensor<2x1024x64xf16>) -> (tensor<2x64x64xf16>) {
  %r:1 = kn.kernel(%q, %k, %v) {
    tb.graph grid [2] threads 128 forloop 16 {
    ^bb0(%qd: tensor<2x64x64xf16>, %kd: tensor<2x64x1024xf16>, %vd: tensor<2x1024x64xf16>):
      %qt = tb.input_iterator %qd imap <x -> 0> fmap <i -> replica> : tensor<2x64x64xf16> -> !tb.tile<1x64x64xf16>
      %kt = tb.input_iterator %kd imap <x -> 0> fmap <i -> 2> : tensor<2x64x1024xf16> -> !tb.tile<1x64x64xf16>
      %vt = tb.input_iterator %vd imap <x -> 0> fmap <i -> 1> : tensor<2x1024x64xf16> -> !tb.tile<1x64x64xf16>
      %s = tb.matmul %qt, %kt : !tb.tile<1x64x64xf16>, !tb.tile<1x64x64xf16>
      %scaled = tb.mul_scalar %s, 0.125 : !tb.tile<1x64x64xf16>
      %e = tb.exp %scaled : !tb.tile<1x64x64xf16>
      %m = tb.reduce_max %e dim 2 : !tb.tile<1x64x64xf16>
      %pv = tb.matmul %e, %vt : !tb.tile<1x64x64xf16>, !tb.tile<1x64x64xf16>
      %acc = tb.accum_rescaled_sum %pv, %m : !tb.tile<1x64x64xf16>, !tb.tile<1x64x1xf16>
      %o0 = tb.output_saver %acc omap <x -> 0> : !tb.tile<1x64x64xf16> -> tensor<2x64x64xf16>
      tb.yield %o0 : tensor<2x64x64xf16>
    }
  } : (tensor<2x64x64xf16>, tensor<2x64x1024xf16>, tensor<2x1024x64xf16>) -> (tensor<2x64x64xf16>)
  return %r#0 : tensor<2x64x64xf16>
}


func.func @split_step(%q: tensor<2x1x64x64xf16>, %k: tensor<2x64x8x128xf16>, %v: tensor<2x128x8x64xf16>) -> tensor<2x8x64x64xf16> {
  %o = kn.kernel(%q, %k, %v) {
    tb.graph grid [2, 8] threads 128 forloop 2 {
    ^bb0(%qd: tensor<2x1x64x64xf16>, %kd: tensor<2x64x8x128xf16>, %vd: tensor<2x128x8x64xf16>):
      %qt = tb.input_iterator %qd imap <x -> 0, y -> replica> fmap <i -> replica> : tensor<2x1x64x64xf16> -> !tb.tile<1x1x64x64xf16>
      %kt = tb.input_iterator %kd imap <x -> 0, y -> 2> fmap <i -> 3> : tensor<2x64x8x128xf16> -> !tb.tile<1x64x1x64xf16>
      %ktt = tb.transpose %kt permutation [0, 2, 1, 3] : !tb.tile<1x64x1x64xf16>
      %vt = tb.input_iterator %vd imap <x -> 0, y -> 2> fmap <i -> 1> : tensor<2x128x8x64xf16> -> !tb.tile<1x64x1x64xf16>
      %vtt = tb.transpose %vt permutation [0, 2, 1, 3] : !tb.tile<1x64x1x64xf16>
      %s = tb.matmul %qt, %ktt : !tb.tile<1x1x64x64xf16>, !tb.tile<1x1x64x64xf16>
      %e = tb.exp %s : !tb.tile<1x1x64x64xf16>
      %pv = tb.matmul %e, %vtt : !tb.tile<1x1x64x64xf16>, !tb.tile<1x1x64x64xf16>
      %acc = tb.accum_sum %pv : !tb.tile<1x1x64x64xf16>
      %out = tb.output_saver %acc omap <x -> 0, y -> 1> : !tb.tile<1x1x64x64xf16> -> tensor<2x8x64x64xf16>
      tb.yield %out : tensor<2x8x64x64xf16>
    }
  } : (tensor<2x1x64x64xf16>, tensor<2x64x8x128xf16>, tensor<2x128x8x64xf16>) -> tensor<2x8x64x64xf16>
  return %o : tensor<2x8x64x64xf16>
}

func.func @scaled_values(%q: tensor<2x64x64xf16>, %k: tensor<2x64x1024xf16>, %v: tensor<2x1024x64xf16>) -> (tensor<2x64x1xf16>, tensor<2x64x64xf16>) {
  %r:2 = kn.kernel(%q, %k, %v) {
    tb.graph grid [2] threads 128 forloop 16 {
    ^bb0(%qd: tensor<2x64x64xf16>, %kd: tensor<2x64x1024xf16>, %vd: tensor<2x1024x64xf16>):
      %qt = tb.input_iterator %qd imap <x -> 0> fmap <i -> replica> : tensor<2x64x64xf16> -> !tb.tile<1x64x64xf16>
      %kt = tb.input_iterator %kd imap <x -> 0> fmap <i -> 2> : tensor<2x64x1024xf16> -> !tb.tile<1x64x64xf16>
      %vt = tb.input_iterator %vd imap <x -> 0> fmap <i -> 1> : tensor<2x1024x64xf16> -> !tb.tile<1x64x64xf16>
      %s = tb.matmul %qt, %kt : !tb.tile<1x64x64xf16>, !tb.tile<1x64x64xf16>
      %scaled = tb.mul_scalar %s, 0.125 : !tb.tile<1x64x64xf16>
      %e = tb.exp %scaled : !tb.tile<1x64x64xf16>
      %rs = tb.reduce_sum %e dim 2 : !tb.tile<1x64x64xf16>
      %rsum = tb.accum_sum %rs : !tb.tile<1x64x1xf16>
      %vs = tb.mul_scalar %vt, 2.0 : !tb.tile<1x64x64xf16>
      %pv = tb.matmul %e, %vs : !tb.tile<1x64x64xf16>, !tb.tile<1x64x64xf16>
      %acc = tb.accum_sum %pv : !tb.tile<1x64x64xf16>
      %o0 = tb.output_saver %rsum omap <x -> 0> : !tb.tile<1x64x1xf16> -> tensor<2x64x1xf16>
      %o1 = tb.output_saver %acc omap <x -> 0> : !tb.tile<1x64x64xf16> -> tensor<2x64x64xf16>
      tb.yield %o0, %o1 : tensor<2x64x1xf16>, tensor<2x64x64xf16>
    }
  } : (tensor<2x64x64xf16>, tensor<2x64x1024xf16>, tensor<2x1024x64xf16>) -> (tensor<2x64x1xf16>, tensor<2x64x64xf16>)
  return %r#0, %r#1 : tensor<2x64x1xf16>, tensor<2x64x64xf16>
}
