// The tiles fit the target (the tb verifier's check) but not twice, as a
// two-stage input pipeline needs: the planner falls back to one stage (load,
// wait, compute) instead of rejecting a graph the verifier accepted.
// RUN: mirage-opt %s --convert-kn-to-gpu | FileCheck %s

// One 120 KiB stage (122880 bytes, plus the accumulator and the scratch of
// the reduction split over the four warps) in shared memory.
// CHECK: gpu.launch_func @no_room_to_pipeline_kernels::@no_room_to_pipeline_k0 {{.*}} dynamic_shared_memory_size %c123264_i32
// CHECK: gpu.func @no_room_to_pipeline_k0
// Nothing requested before the loop; each iteration waits for its own copy.
// CHECK-NOT: nvvm.cp.async.commit.group
// CHECK: scf.for
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
func.func @no_room_to_pipeline(%a: tensor<1x122880xf16>) -> tensor<1x1xf16> {
  %b = kn.kernel(%a) {
    tb.graph grid [1] threads 128 forloop 2 {
    ^bb0(%ad: tensor<1x122880xf16>):
      %at = tb.input_iterator %ad imap <x -> 0> fmap <i -> 1> : tensor<1x122880xf16> -> !tb.tile<1x61440xf16>
      %s = tb.reduce_sum %at dim 1 : !tb.tile<1x61440xf16>
      %acc = tb.accum_sum %s : !tb.tile<1x1xf16>
      %o = tb.output_saver %acc omap <x -> 0> : !tb.tile<1x1xf16> -> tensor<1x1xf16>
      tb.yield %o : tensor<1x1xf16>
    }
  } : (tensor<1x122880xf16>) -> tensor<1x1xf16>
  return %b : tensor<1x1xf16>
}
