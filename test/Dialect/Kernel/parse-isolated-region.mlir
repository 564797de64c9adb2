// The regions of isolated ops (kn.kernel, tb.graph, th.graph, tg.graph,
// tg.kernel) are name scopes of their own. A definition inside never resolves
// a forward reference made outside: before, `%s` below resolved to the event
// inside the kernel, which the failed parse then freed while the task still
// used it (a use after free found by mirage-fuzz; scripts/sanitize-lit.sh
// runs this file under ASan).
// RUN: mirage-opt %s -split-input-file -verify-diagnostics | FileCheck %s

tg.graph @kernel_without_type {
  tg.task empty aot waits(%s)
  %z = kn.kernel(%x) {
    %s = tg.event triggers 0
  // expected-error @below {{expected ':'}}
  }
}

// -----

func.func @thread_graph_without_type(%x: tensor<16x64xf32>) {
  %z = kn.kernel(%x) {
    tb.graph grid [1] threads 32 forloop 1 {
    ^bb0(%xd: tensor<16x64xf32>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> replica> : tensor<16x64xf32> -> !tb.tile<16x64xf32>
      %e = th.exp %r : !th.frag<1x16xf32>
      %r = th.graph(%xt) threads [16] forloop 4 {
      ^bb0(%t: !tb.tile<16x64xf32>):
        %r = th.input_iterator %t imap <x -> 0> fmap <i -> 1> : !tb.tile<16x64xf32> -> !th.frag<1x16xf32>
      // expected-error @below {{expected ':'}}
      }
    }
  } : (tensor<16x64xf32>) -> tensor<16x64xf32>
  return
}

// -----

// An outside reference that only an inside name would match stays undefined.
tg.graph @reference_into_a_kernel {
  // expected-error @below {{use of undeclared SSA value name}}
  tg.task empty aot waits(%s)
  kn.kernel() {
    %s = tg.event triggers 0
  } : () -> ()
}

// -----

// Inside names may repeat outside ones: each isolated region is its own scope.
// CHECK-LABEL: func.func @shadowing
// CHECK-SAME: (%[[X:.*]]: tensor<2x64xf16>)
func.func @shadowing(%x: tensor<2x64xf16>) -> tensor<2x64xf16> {
  // CHECK: kn.kernel(%[[X]])
  %y = kn.kernel(%x) {
    tb.graph grid [1] threads 32 forloop 1 {
    // CHECK: ^bb0(%[[XD:.*]]: tensor<2x64xf16>):
    // CHECK-NEXT: tb.input_iterator %[[XD]]
    ^bb0(%x: tensor<2x64xf16>):
      %y = tb.input_iterator %x imap <x -> replica> fmap <i -> replica> : tensor<2x64xf16> -> !tb.tile<2x64xf16>
      %z = tb.exp %y : !tb.tile<2x64xf16>
      %w = tb.output_saver %z omap <x -> 0> : !tb.tile<2x64xf16> -> tensor<2x64xf16>
      tb.yield %w : tensor<2x64xf16>
    }
  } : (tensor<2x64xf16>) -> tensor<2x64xf16>
  return %y : tensor<2x64xf16>
}
