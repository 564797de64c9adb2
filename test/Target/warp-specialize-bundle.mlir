// mirage-bundle --tma --warp-specialize names the bundle <function>_tma_ws
// and launches each warp-specialized kernel with its producer warpgroup
// (the graph's 128 threads + 128). ptxas gives every thread the cap of the
// register file at the kernel's resident blocks, the pool the setmaxnreg
// counts are taken from (getConsumerRegisters): 248 at one block of 256
// threads; at four blocks of 256 (qknorm_gqa_bs1's attention), cap 64: the
// consumers ask for 88, and ptxas allocates 64; two consumer warpgroups
// (prefill_linear_small_tiled), cap 168: they ask for 232, as CUTLASS's
// Hopper GEMM does.
// REQUIRES: ptxas
// RUN: rm -rf %t && mirage-bundle %s -o %t --tma --warp-specialize --no-reference
// RUN: %PYTHON %S/Inputs/print-manifest.py %t/decode_tma_ws/manifest.json | FileCheck %s
// RUN: %PYTHON %S/Inputs/print-kernel-resources.py %t | FileCheck %s --check-prefix=RESOURCES
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/decode_tma_ws/kernels.ptx
// RUN: rm -rf %t.examples
// RUN: mirage-bundle %examples/qknorm_gqa.mlir --function qknorm_gqa_bs1 -o %t.examples --tma --warp-specialize --no-reference
// RUN: mirage-bundle %examples/prefill.mlir --function prefill_linear_small_tiled -o %t.examples --tma --warp-specialize --no-reference
// RUN: %PYTHON %S/Inputs/print-kernel-resources.py %t.examples | FileCheck %s --check-prefix=EXAMPLES
// RUN: sed -n "/.entry qknorm_gqa_bs1_k0/,/^}/p" %t.examples/qknorm_gqa_bs1_tma_ws/kernels.ptx | FileCheck %s --check-prefix=QKNORM-PTX
// RUN: FileCheck %s --check-prefix=TILED-PTX --input-file=%t.examples/prefill_linear_small_tiled_tma_ws/kernels.ptx

// CHECK: name "decode_tma_ws"
// CHECK: steps [{"args": [0, 1, 2, {"tensor_map": {{.*}}}, {"tensor_map": {{.*}}}], "block": [256, 1, 1]
// CHECK-SAME: "kernel": "decode_k0"

// RESOURCES: decode_tma_ws v3 decode_k0: spill_bytes 0 registers 248

// PTX: .maxntid 256, 1, 1
// PTX: .minnctapersm 1
// PTX: setmaxnreg.dec.sync.aligned.u32 40;
// PTX: setmaxnreg.inc.sync.aligned.u32 248;

// EXAMPLES: prefill_linear_small_tiled_tma_ws v3 prefill_linear_small_tiled_k0: spill_bytes 0 registers 168
// EXAMPLES: qknorm_gqa_bs1_tma_ws v3 qknorm_gqa_bs1_k0: spill_bytes 0 registers 64
// QKNORM-PTX: .maxntid 256, 1, 1
// QKNORM-PTX: .minnctapersm 4
// QKNORM-PTX: setmaxnreg.inc.sync.aligned.u32 88;
// TILED-PTX: .maxntid 384, 1, 1
// TILED-PTX: .minnctapersm 1
// TILED-PTX: setmaxnreg.inc.sync.aligned.u32 232;

func.func @decode(%x: tensor<8x1024xf16>, %w: tensor<1024x512xf16>) -> tensor<8x512xf16> {
  %0 = kn.kernel(%x, %w) {
    tb.graph grid [8] threads 128 forloop 2 {
    ^bb0(%a: tensor<8x1024xf16>, %b: tensor<1024x512xf16>):
      %1 = tb.input_iterator %a imap <x -> replica> fmap <i -> 1> : tensor<8x1024xf16> -> !tb.tile<8x512xf16>
      %2 = tb.input_iterator %b imap <x -> 1> fmap <i -> 0> : tensor<1024x512xf16> -> !tb.tile<512x64xf16>
      %3 = tb.matmul %1, %2 : !tb.tile<8x512xf16>, !tb.tile<512x64xf16>
      %4 = tb.accum_sum %3 : !tb.tile<8x64xf16>
      %5 = tb.output_saver %4 omap <x -> 1> : !tb.tile<8x64xf16> -> tensor<8x512xf16>
      tb.yield %5 : tensor<8x512xf16>
    }
  } : (tensor<8x1024xf16>, tensor<1024x512xf16>) -> tensor<8x512xf16>
  return %0 : tensor<8x512xf16>
}
