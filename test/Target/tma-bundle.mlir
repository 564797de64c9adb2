// With --tma, mirage-bundle names the bundle <function>_tma and writes a
// version 3 manifest: the tensor maps the host creates become launch
// arguments naming their buffer, box (outermost dim first) and swizzle.
// Without it, the same kernel loads by cp.async: plain buffer arguments and
// the version the manifest had before.
// RUN: rm -rf %t && mirage-bundle %s -o %t --ptxas=none --tma
// RUN: %PYTHON %S/Inputs/print-manifest.py %t/decode_tma/manifest.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/decode_tma/kernels.ptx
// RUN: rm -rf %t.off && mirage-bundle %s -o %t.off --ptxas=none
// RUN: %PYTHON %S/Inputs/print-manifest.py %t.off/decode/manifest.json | FileCheck %s --check-prefix=OFF

// CHECK: name "decode_tma"
// CHECK: steps [{"args": [0, 1, 2, {"tensor_map": {"box": [8, 64], "buffer": 0, "swizzle": 128}}, {"tensor_map": {"box": [256, 64], "buffer": 1, "swizzle": 128}}]
// CHECK-SAME: "kernel": "decode_k0"
// CHECK: version 3

// PTX: .entry decode_k0(
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes

// OFF: name "decode"
// OFF: steps [{"args": [0, 1, 2],
// OFF: version 1

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
