// The chip compiled for limits shared memory as well as the graph's
// tb.target: one stage of a 128 KiB input tile fits sm_90a (227 KiB per
// block; two stages would not, and the planner falls back to one) but not
// sm_86 (99 KiB); an unknown chip is an error.
// RUN: mirage-opt %s --convert-kn-to-gpu="chip=sm_90a" -o /dev/null
// RUN: not mirage-opt %s --convert-kn-to-gpu="chip=sm_86" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM86
// RUN: not mirage-opt %s --convert-kn-to-gpu="chip=sm_42" -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// SM86: error: 'tb.graph' op needs {{13[0-9]+}} bytes of shared memory for its tiles with 1 pipeline stage(s), more than the 101376 bytes per block of the target
// UNKNOWN: error: convert-kn-to-gpu: unknown value 'sm_42' for option 'chip'; valid values: sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100a

func.func @rows(%a: tensor<4x32768xf16>) -> tensor<4x1xf16> {
  %b = kn.kernel(%a) {
    tb.graph grid [1] threads 128 forloop 2 {
    ^bb0(%ad: tensor<4x32768xf16>):
      %at = tb.input_iterator %ad imap <x -> replica> fmap <i -> 1> : tensor<4x32768xf16> -> !tb.tile<4x16384xf16>
      %s = tb.reduce_sum %at dim 1 : !tb.tile<4x16384xf16>
      %acc = tb.accum_sum %s : !tb.tile<4x1xf16>
      %o = tb.output_saver %acc omap <x -> 1> : !tb.tile<4x1xf16> -> tensor<4x1xf16>
      tb.yield %o : tensor<4x1xf16>
    }
  } : (tensor<4x32768xf16>) -> tensor<4x1xf16>
  return %b : tensor<4x1xf16>
}
