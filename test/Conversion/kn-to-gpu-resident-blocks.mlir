// Each kernel tells ptxas how many of its blocks an SM should hold at once
// (nvvm.minctasm, PTX's .minnctapersm): one for a grid of at most one
// block per SM, else as many as shared memory and 8 blocks allow, and
// never fewer than 64 registers a thread. With the block size alone,
// ptxas picks an occupancy of its own and spilled for it (lora_bs1 at 80
// registers).
// RUN: mirage-opt %s --split-input-file --convert-kn-to-gpu | FileCheck %s

// 132 blocks: one per SM.
// CHECK-LABEL: gpu.func @one_wave_k0
// CHECK-SAME: nvvm.minctasm = 1 : i32
func.func @one_wave(%x: tensor<135168xf16>) -> tensor<135168xf16> {
  %y = kn.kernel(%x) {
    tb.graph grid [132] threads 128 forloop 1 {
    ^bb0(%xd: tensor<135168xf16>):
      %xt = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<135168xf16> -> !tb.tile<1024xf16>
      %e = tb.exp %xt : !tb.tile<1024xf16>
      %o = tb.output_saver %e omap <x -> 0> : !tb.tile<1024xf16> -> tensor<135168xf16>
      tb.yield %o : tensor<135168xf16>
    }
  } : (tensor<135168xf16>) -> tensor<135168xf16>
  return %y : tensor<135168xf16>
}
// -----

// 528 blocks: as many as fit, at most 8.
// CHECK-LABEL: gpu.func @several_waves_k0
// CHECK-SAME: nvvm.minctasm = 8 : i32
func.func @several_waves(%x: tensor<540672xf16>) -> tensor<540672xf16> {
  %y = kn.kernel(%x) {
    tb.graph grid [528] threads 128 forloop 1 {
    ^bb0(%xd: tensor<540672xf16>):
      %xt = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<540672xf16> -> !tb.tile<1024xf16>
      %e = tb.exp %xt : !tb.tile<1024xf16>
      %o = tb.output_saver %e omap <x -> 0> : !tb.tile<1024xf16> -> tensor<540672xf16>
      tb.yield %o : tensor<540672xf16>
    }
  } : (tensor<540672xf16>) -> tensor<540672xf16>
  return %y : tensor<540672xf16>
}
// -----

// 4096 blocks: at most 8 (kMaxResidentBlocks).
// CHECK-LABEL: gpu.func @capped_k0
// CHECK-SAME: nvvm.minctasm = 8 : i32
func.func @capped(%x: tensor<4194304xf16>) -> tensor<4194304xf16> {
  %y = kn.kernel(%x) {
    tb.graph grid [4096] threads 128 forloop 1 {
    ^bb0(%xd: tensor<4194304xf16>):
      %xt = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<4194304xf16> -> !tb.tile<1024xf16>
      %e = tb.exp %xt : !tb.tile<1024xf16>
      %o = tb.output_saver %e omap <x -> 0> : !tb.tile<1024xf16> -> tensor<4194304xf16>
      tb.yield %o : tensor<4194304xf16>
    }
  } : (tensor<4194304xf16>) -> tensor<4194304xf16>
  return %y : tensor<4194304xf16>
}
// -----

// 256 threads: 4 per SM leave each thread 64 registers.
// CHECK-LABEL: gpu.func @wide_blocks_k0
// CHECK-SAME: nvvm.minctasm = 4 : i32
func.func @wide_blocks(%x: tensor<4194304xf16>) -> tensor<4194304xf16> {
  %y = kn.kernel(%x) {
    tb.graph grid [4096] threads 256 forloop 1 {
    ^bb0(%xd: tensor<4194304xf16>):
      %xt = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<4194304xf16> -> !tb.tile<1024xf16>
      %e = tb.exp %xt : !tb.tile<1024xf16>
      %o = tb.output_saver %e omap <x -> 0> : !tb.tile<1024xf16> -> tensor<4194304xf16>
      tb.yield %o : tensor<4194304xf16>
    }
  } : (tensor<4194304xf16>) -> tensor<4194304xf16>
  return %y : tensor<4194304xf16>
}
// -----

// 128 KiB of shared memory a block (the sum's stages): 1 fits.
// CHECK-LABEL: gpu.func @large_tiles_k0
// CHECK-SAME: nvvm.minctasm = 1 : i32
func.func @large_tiles(%x: tensor<17301504xf16>) -> tensor<8650752xf16> {
  %y = kn.kernel(%x) {
    tb.graph grid [528] threads 128 forloop 2 {
    ^bb0(%xd: tensor<17301504xf16>):
      %xt = tb.input_iterator %xd imap <x -> 0> fmap <i -> 0> : tensor<17301504xf16> -> !tb.tile<16384xf16>
      %s = tb.accum_sum %xt : !tb.tile<16384xf16>
      %o = tb.output_saver %s omap <x -> 0> : !tb.tile<16384xf16> -> tensor<8650752xf16>
      tb.yield %o : tensor<8650752xf16>
    }
  } : (tensor<17301504xf16>) -> tensor<8650752xf16>
  return %y : tensor<8650752xf16>
}
