// mma.sync's k loop keeps independent accumulators over consecutive k
// steps (4 where the steps of 16 divide by 4, else 2, else 1) and sums them
// after the loop: one dependent chain would wait on each mma's latency,
// and decode-shaped tiles give a warp few jobs and a long k.
// RUN: mirage-opt %s --split-input-file --convert-kn-to-gpu --canonicalize --cse | FileCheck %s

// k = 128, 8 steps: 4 chains of a 16-column job (two n-tiles each), the
// loop steps 64 at a time.
// CHECK-LABEL: gpu.func @four_chains_k0
// CHECK: %[[ACC:.*]]:8 = scf.for %{{.*}} = %c0 to %c128 step %c64 iter_args(%[[A0:.*]] = %{{.*}}, %[[A1:.*]] = %{{.*}}, %[[A2:.*]] = %{{.*}}, %[[A3:.*]] = %{{.*}}, %[[A4:.*]] = %{{.*}}, %[[A5:.*]] = %{{.*}}, %[[A6:.*]] = %{{.*}}, %[[A7:.*]] = %{{.*}})
// CHECK: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[A0]])
// CHECK: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[A1]])
// CHECK: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[A2]])
// CHECK: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[A3]])
// CHECK: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[A4]])
// CHECK: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[A5]])
// CHECK: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[A6]])
// CHECK: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[A7]])
// CHECK-NOT: nvgpu.mma.sync
// CHECK: scf.yield
// CHECK: %[[S0:.*]] = arith.addf %[[ACC]]#0, %[[ACC]]#2 : vector<2x2xf32>
// CHECK: %[[S1:.*]] = arith.addf %[[ACC]]#1, %[[ACC]]#3 : vector<2x2xf32>
// CHECK: %[[S2:.*]] = arith.addf %[[S0]], %[[ACC]]#4 : vector<2x2xf32>
// CHECK: %[[S3:.*]] = arith.addf %[[S1]], %[[ACC]]#5 : vector<2x2xf32>
// CHECK: arith.addf %[[S2]], %[[ACC]]#6 : vector<2x2xf32>
// CHECK: arith.addf %[[S3]], %[[ACC]]#7 : vector<2x2xf32>
func.func @four_chains(%x: tensor<16x128xf16>, %w: tensor<128x32xf16>) -> tensor<16x32xf16> {
  %y = kn.kernel(%x, %w) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<16x128xf16>, %wd: tensor<128x32xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> replica> : tensor<16x128xf16> -> !tb.tile<16x128xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> replica> : tensor<128x32xf16> -> !tb.tile<128x16xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<16x128xf16>, !tb.tile<128x16xf16>
      %o = tb.output_saver %p omap <x -> 1> : !tb.tile<16x16xf16> -> tensor<16x32xf16>
      tb.yield %o : tensor<16x32xf16>
    }
  } : (tensor<16x128xf16>, tensor<128x32xf16>) -> tensor<16x32xf16>
  return %y : tensor<16x32xf16>
}

// -----

// k = 96, 6 steps: 2 chains.
// CHECK-LABEL: gpu.func @two_chains_k0
// CHECK: %[[ACC:.*]]:4 = scf.for %{{.*}} = %c0 to %c96 step %c32 iter_args(
// CHECK-COUNT-4: nvgpu.mma.sync
// CHECK-NOT: nvgpu.mma.sync
// CHECK: scf.yield
// CHECK: arith.addf %[[ACC]]#0, %[[ACC]]#2 : vector<2x2xf32>
// CHECK: arith.addf %[[ACC]]#1, %[[ACC]]#3 : vector<2x2xf32>
func.func @two_chains(%x: tensor<16x96xf16>, %w: tensor<96x32xf16>) -> tensor<16x32xf16> {
  %y = kn.kernel(%x, %w) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<16x96xf16>, %wd: tensor<96x32xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> replica> : tensor<16x96xf16> -> !tb.tile<16x96xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> replica> : tensor<96x32xf16> -> !tb.tile<96x16xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<16x96xf16>, !tb.tile<96x16xf16>
      %o = tb.output_saver %p omap <x -> 1> : !tb.tile<16x16xf16> -> tensor<16x32xf16>
      tb.yield %o : tensor<16x32xf16>
    }
  } : (tensor<16x96xf16>, tensor<96x32xf16>) -> tensor<16x32xf16>
  return %y : tensor<16x32xf16>
}

// -----

// k = 48, 3 steps: one chain, nothing to sum.
// CHECK-LABEL: gpu.func @one_chain_k0
// CHECK: scf.for %{{.*}} = %c0 to %c48 step %c16 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>)
// CHECK-COUNT-2: nvgpu.mma.sync
// CHECK-NOT: nvgpu.mma.sync
// CHECK: scf.yield
// CHECK-NOT: arith.addf %{{.*}} : vector<2x2xf32>
func.func @one_chain(%x: tensor<16x48xf16>, %w: tensor<48x32xf16>) -> tensor<16x32xf16> {
  %y = kn.kernel(%x, %w) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<16x48xf16>, %wd: tensor<48x32xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> replica> : tensor<16x48xf16> -> !tb.tile<16x48xf16>
      %wt = tb.input_iterator %wd imap <x -> 1> fmap <i -> replica> : tensor<48x32xf16> -> !tb.tile<48x16xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<16x48xf16>, !tb.tile<48x16xf16>
      %o = tb.output_saver %p omap <x -> 1> : !tb.tile<16x16xf16> -> tensor<16x32xf16>
      tb.yield %o : tensor<16x32xf16>
    }
  } : (tensor<16x48xf16>, tensor<48x32xf16>) -> tensor<16x32xf16>
  return %y : tensor<16x32xf16>
}
