// With tma, a kernel whose tiles fit shared memory only without the copy
// engine's mbarrier reserve and 1024-byte offsets loads them with cp.async
// instead: the tb.graph verifier accepted it by the lowering's plan, so the
// lowering does not fail on it for an option.
// RUN: mirage-opt %s --convert-kn-to-gpu="chip=sm_90a tma=true" | FileCheck %s

// Three tiles of 256 f16 columns, 256, 190 and 2 rows, and their f32 row
// sums: 232320 bytes with cp.async, more than the 231424 the copy engine
// leaves.
// CHECK-LABEL: gpu.func @fits_without_tma_k0(
// CHECK-NOT: nvgpu.tma.async.load
// CHECK: nvgpu.device_async_copy
// CHECK-NOT: nvgpu.tma.async.load
// CHECK: gpu.return
func.func @fits_without_tma(%a: tensor<256x512xf16>, %b: tensor<190x512xf16>, %c: tensor<2x512xf16>) -> (tensor<256x1xf16>, tensor<190x1xf16>, tensor<2x1xf16>) {
  %z:3 = kn.kernel(%a, %b, %c) {
    tb.graph grid [1] threads 128 forloop 2 {
    ^bb0(%ad: tensor<256x512xf16>, %bd: tensor<190x512xf16>, %cd: tensor<2x512xf16>):
      %at = tb.input_iterator %ad imap <x -> replica> fmap <i -> 1> : tensor<256x512xf16> -> !tb.tile<256x256xf16>
      %bt = tb.input_iterator %bd imap <x -> replica> fmap <i -> 1> : tensor<190x512xf16> -> !tb.tile<190x256xf16>
      %ct = tb.input_iterator %cd imap <x -> replica> fmap <i -> 1> : tensor<2x512xf16> -> !tb.tile<2x256xf16>
      %as = tb.reduce_sum %at dim 1 : !tb.tile<256x256xf16>
      %bs = tb.reduce_sum %bt dim 1 : !tb.tile<190x256xf16>
      %cs = tb.reduce_sum %ct dim 1 : !tb.tile<2x256xf16>
      %aa = tb.accum_sum %as : !tb.tile<256x1xf16>
      %ba = tb.accum_sum %bs : !tb.tile<190x1xf16>
      %ca = tb.accum_sum %cs : !tb.tile<2x1xf16>
      %ao = tb.output_saver %aa omap <x -> 0> : !tb.tile<256x1xf16> -> tensor<256x1xf16>
      %bo = tb.output_saver %ba omap <x -> 0> : !tb.tile<190x1xf16> -> tensor<190x1xf16>
      %co = tb.output_saver %ca omap <x -> 0> : !tb.tile<2x1xf16> -> tensor<2x1xf16>
      tb.yield %ao, %bo, %co : tensor<256x1xf16>, tensor<190x1xf16>, tensor<2x1xf16>
    }
  } : (tensor<256x512xf16>, tensor<190x512xf16>, tensor<2x512xf16>) -> (tensor<256x1xf16>, tensor<190x1xf16>, tensor<2x1xf16>)
  return %z#0, %z#1, %z#2 : tensor<256x1xf16>, tensor<190x1xf16>, tensor<2x1xf16>
}

// Two rows fewer (231296 bytes) fit with the reserve: the copy engine loads
// the tiles.
// CHECK-LABEL: gpu.func @fits_with_tma_k0(
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: nvgpu.tma.async.load
func.func @fits_with_tma(%a: tensor<256x512xf16>, %b: tensor<188x512xf16>, %c: tensor<2x512xf16>) -> (tensor<256x1xf16>, tensor<188x1xf16>, tensor<2x1xf16>) {
  %z:3 = kn.kernel(%a, %b, %c) {
    tb.graph grid [1] threads 128 forloop 2 {
    ^bb0(%ad: tensor<256x512xf16>, %bd: tensor<188x512xf16>, %cd: tensor<2x512xf16>):
      %at = tb.input_iterator %ad imap <x -> replica> fmap <i -> 1> : tensor<256x512xf16> -> !tb.tile<256x256xf16>
      %bt = tb.input_iterator %bd imap <x -> replica> fmap <i -> 1> : tensor<188x512xf16> -> !tb.tile<188x256xf16>
      %ct = tb.input_iterator %cd imap <x -> replica> fmap <i -> 1> : tensor<2x512xf16> -> !tb.tile<2x256xf16>
      %as = tb.reduce_sum %at dim 1 : !tb.tile<256x256xf16>
      %bs = tb.reduce_sum %bt dim 1 : !tb.tile<188x256xf16>
      %cs = tb.reduce_sum %ct dim 1 : !tb.tile<2x256xf16>
      %aa = tb.accum_sum %as : !tb.tile<256x1xf16>
      %ba = tb.accum_sum %bs : !tb.tile<188x1xf16>
      %ca = tb.accum_sum %cs : !tb.tile<2x1xf16>
      %ao = tb.output_saver %aa omap <x -> 0> : !tb.tile<256x1xf16> -> tensor<256x1xf16>
      %bo = tb.output_saver %ba omap <x -> 0> : !tb.tile<188x1xf16> -> tensor<188x1xf16>
      %co = tb.output_saver %ca omap <x -> 0> : !tb.tile<2x1xf16> -> tensor<2x1xf16>
      tb.yield %ao, %bo, %co : tensor<256x1xf16>, tensor<188x1xf16>, tensor<2x1xf16>
    }
  } : (tensor<256x512xf16>, tensor<188x512xf16>, tensor<2x512xf16>) -> (tensor<256x1xf16>, tensor<188x1xf16>, tensor<2x1xf16>)
  return %z#0, %z#1, %z#2 : tensor<256x1xf16>, tensor<188x1xf16>, tensor<2x1xf16>
}
