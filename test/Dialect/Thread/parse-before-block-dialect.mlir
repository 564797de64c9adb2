// Thread ops name block-level tiles and maps; parsing one before any tb op
// (here outside a th.graph, found by mirage-fuzz) loads the tb dialect first
// instead of crashing in the attribute uniquer.
// RUN: not mirage-opt %s -mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// CHECK: error: 'th.output_saver' op expects parent op 'th.graph'
func.func @saver_outside_graph(%f: !th.frag<1x4xf16>) {
  %o = th.output_saver %f omap <x -> 0> : !th.frag<1x4xf16> -> !tb.tile<4x4xf16>
  return
}
