// One case per diagnostic of the th dialect.
// RUN: mirage-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{fragment sizes must be positive, got 0x4}}
func.func private @zero_fragment(!th.frag<0x4xf32>)

// -----

// expected-error @below {{fragment element type must be f16, bf16 or f32, got 'i8'}}
func.func private @int_fragment(!th.frag<4xi8>)

// -----

func.func @outside_block_graph(%t: !tb.tile<4x4xf16>) {
  // expected-error @below {{'th.graph' op expects parent op 'tb.graph'}}
  %r = th.graph(%t) threads [4] forloop 1 {
  ^bb0(%a: !tb.tile<4x4xf16>):
    %f = th.input_iterator %a imap <x -> 0> fmap <i -> replica> : !tb.tile<4x4xf16> -> !th.frag<1x4xf16>
    %o = th.output_saver %f omap <x -> 0> : !th.frag<1x4xf16> -> !tb.tile<4x4xf16>
    th.yield %o : !tb.tile<4x4xf16>
  } : (!tb.tile<4x4xf16>) -> !tb.tile<4x4xf16>
  return
}

// -----

func.func @layout_rank(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<8x4xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<4x4xf16>
      // expected-error @below {{'th.graph' op thread layout must have 1 to 3 dims, got 0}}
      %r = th.graph(%t) threads [] forloop 1 {
      ^bb0(%a: !tb.tile<4x4xf16>):
        th.yield
      } : (!tb.tile<4x4xf16>) -> !tb.tile<4x4xf16>
      %o = tb.output_saver %r omap <x -> 0> : !tb.tile<4x4xf16> -> tensor<8x4xf16>
      tb.yield %o : tensor<8x4xf16>
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

func.func @layout_dim(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<8x4xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<4x4xf16>
      // expected-error @below {{'th.graph' op thread dim y must be positive, got 0}}
      %r = th.graph(%t) threads [4, 0] forloop 1 {
      ^bb0(%a: !tb.tile<4x4xf16>):
        th.yield
      } : (!tb.tile<4x4xf16>) -> !tb.tile<4x4xf16>
      %o = tb.output_saver %r omap <x -> 0> : !tb.tile<4x4xf16> -> tensor<8x4xf16>
      tb.yield %o : tensor<8x4xf16>
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

func.func @too_many_threads(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<8x4xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<4x4xf16>
      // expected-error @below {{'th.graph' op thread layout uses 64 threads but the block graph has 32}}
      %r = th.graph(%t) threads [4, 16] forloop 1 {
      ^bb0(%a: !tb.tile<4x4xf16>):
        th.yield
      } : (!tb.tile<4x4xf16>) -> !tb.tile<4x4xf16>
      %o = tb.output_saver %r omap <x -> 0> : !tb.tile<4x4xf16> -> tensor<8x4xf16>
      tb.yield %o : tensor<8x4xf16>
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

func.func @thread_count_overflow(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<8x4xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<4x4xf16>
      // expected-error @below {{'th.graph' op thread layout has more than 2^63 - 1 threads}}
      %r = th.graph(%t) threads [4294967296, 4294967296] forloop 1 {
      ^bb0(%a: !tb.tile<4x4xf16>):
        th.yield
      } : (!tb.tile<4x4xf16>) -> !tb.tile<4x4xf16>
      %o = tb.output_saver %r omap <x -> 0> : !tb.tile<4x4xf16> -> tensor<8x4xf16>
      tb.yield %o : tensor<8x4xf16>
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

func.func @forloop(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<8x4xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<4x4xf16>
      // expected-error @below {{'th.graph' op forloop range must be positive, got 0}}
      %r = th.graph(%t) threads [4] forloop 0 {
      ^bb0(%a: !tb.tile<4x4xf16>):
        th.yield
      } : (!tb.tile<4x4xf16>) -> !tb.tile<4x4xf16>
      %o = tb.output_saver %r omap <x -> 0> : !tb.tile<4x4xf16> -> tensor<8x4xf16>
      tb.yield %o : tensor<8x4xf16>
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

func.func @argument_types(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<8x4xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<4x4xf16>
      // expected-error @below {{'th.graph' op entry block arguments must have the types of the operands}}
      %r = th.graph(%t) threads [4] forloop 1 {
      ^bb0(%a: !tb.tile<4x2xf16>):
        th.yield
      } : (!tb.tile<4x4xf16>) -> !tb.tile<4x4xf16>
      %o = tb.output_saver %r omap <x -> 0> : !tb.tile<4x4xf16> -> tensor<8x4xf16>
      tb.yield %o : tensor<8x4xf16>
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

func.func @no_yield(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<8x4xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<4x4xf16>
      // expected-error @below {{'th.graph' op body must end with 'th.yield'}}
      %r = th.graph(%t) threads [4] forloop 1 {
      ^bb0(%a: !tb.tile<4x4xf16>):
        %f = th.input_iterator %a imap <x -> 0> fmap <i -> replica> : !tb.tile<4x4xf16> -> !th.frag<1x4xf16>
      } : (!tb.tile<4x4xf16>) -> !tb.tile<4x4xf16>
      %o = tb.output_saver %r omap <x -> 0> : !tb.tile<4x4xf16> -> tensor<8x4xf16>
      tb.yield %o : tensor<8x4xf16>
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

func.func @yield_types(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<8x4xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<4x4xf16>
      // expected-error @below {{'th.graph' op th.yield operand types must match the results}}
      %r = th.graph(%t) threads [4] forloop 1 {
      ^bb0(%a: !tb.tile<4x4xf16>):
        th.yield
      } : (!tb.tile<4x4xf16>) -> !tb.tile<4x4xf16>
      %o = tb.output_saver %r omap <x -> 0> : !tb.tile<4x4xf16> -> tensor<8x4xf16>
      tb.yield %o : tensor<8x4xf16>
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

func.func @foreign_op(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<8x4xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<4x4xf16>
      %r = th.graph(%t) threads [4] forloop 1 {
      ^bb0(%a: !tb.tile<4x4xf16>):
        %f = th.input_iterator %a imap <x -> 0> fmap <i -> replica> : !tb.tile<4x4xf16> -> !th.frag<1x4xf16>
        // expected-error @below {{'builtin.unrealized_conversion_cast' op is not allowed in a thread graph: only th ops may appear}}
        %c = builtin.unrealized_conversion_cast %f : !th.frag<1x4xf16> to !th.frag<1x4xf16>
        %o = th.output_saver %c omap <x -> 0> : !th.frag<1x4xf16> -> !tb.tile<4x4xf16>
        th.yield %o : !tb.tile<4x4xf16>
      } : (!tb.tile<4x4xf16>) -> !tb.tile<4x4xf16>
      %o = tb.output_saver %r omap <x -> 0> : !tb.tile<4x4xf16> -> tensor<8x4xf16>
      tb.yield %o : tensor<8x4xf16>
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

// Each thread holds a 1x256 f32 row and its exponential: 2 KiB live at once.
func.func @too_many_registers(%x: tensor<4x256xf32>) -> tensor<4x256xf32> {
  %z = kn.kernel(%x) {
    tb.graph grid [1] threads 32 forloop 1 {
    ^bb0(%xd: tensor<4x256xf32>):
      %t = tb.input_iterator %xd imap <x -> replica> fmap <i -> replica> : tensor<4x256xf32> -> !tb.tile<4x256xf32>
      // expected-error @below {{'th.graph' op needs 2048 bytes of registers per thread for the fragments live at its peak, more than the 1020 bytes (255 32-bit registers) of sm_90a}}
      %r = th.graph(%t) threads [4] forloop 1 {
      ^bb0(%a: !tb.tile<4x256xf32>):
        %f = th.input_iterator %a imap <x -> 0> fmap <i -> replica> : !tb.tile<4x256xf32> -> !th.frag<1x256xf32>
        %e = th.exp %f : !th.frag<1x256xf32>
        %o = th.output_saver %e omap <x -> 0> : !th.frag<1x256xf32> -> !tb.tile<4x256xf32>
        th.yield %o : !tb.tile<4x256xf32>
      } : (!tb.tile<4x256xf32>) -> !tb.tile<4x256xf32>
      %o = tb.output_saver %r omap <x -> 0> : !tb.tile<4x256xf32> -> tensor<4x256xf32>
      tb.yield %o : tensor<4x256xf32>
    }
  } : (tensor<4x256xf32>) -> tensor<4x256xf32>
  return %z : tensor<4x256xf32>
}

// -----

// Def. 2.1 (3) at thread level: the thread loop needs its accumulator.
func.func @missing_accumulator(%x: tensor<8x4xf16>) -> tensor<8x1xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<8x4xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<4x4xf16>
      %r = th.graph(%t) threads [4] forloop 4 {
      ^bb0(%a: !tb.tile<4x4xf16>):
        %f = th.input_iterator %a imap <x -> 0> fmap <i -> 1> : !tb.tile<4x4xf16> -> !th.frag<1x1xf16>
        // expected-error @below {{'th.output_saver' op saves a loop-body value that has not passed an accumulator; in a graph with a for-loop every input-to-output path must pass exactly one accumulator}}
        %o = th.output_saver %f omap <x -> 0> : !th.frag<1x1xf16> -> !tb.tile<4x1xf16>
        th.yield %o : !tb.tile<4x1xf16>
      } : (!tb.tile<4x4xf16>) -> !tb.tile<4x1xf16>
      %o = tb.output_saver %r omap <x -> 0> : !tb.tile<4x1xf16> -> tensor<8x1xf16>
      tb.yield %o : tensor<8x1xf16>
    }
  } : (tensor<8x4xf16>) -> tensor<8x1xf16>
  return %z : tensor<8x1xf16>
}

// -----

func.func @thread_imap_divisibility(%x: tensor<8x64xf16>) -> tensor<8x48xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 64 forloop 1 {
    ^bb0(%xd: tensor<8x64xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x64xf16> -> !tb.tile<4x64xf16>
      %r = th.graph(%t) threads [48] forloop 1 {
      ^bb0(%a: !tb.tile<4x64xf16>):
        // expected-error @below {{'th.input_iterator' op data dim 1 (size 64) is not divisible by thread dim x (size 48) that imap partitions it over}}
        %f = th.input_iterator %a imap <x -> 1> fmap <i -> replica> : !tb.tile<4x64xf16> -> !th.frag<4x1xf16>
        %o = th.output_saver %f omap <x -> 1> : !th.frag<4x1xf16> -> !tb.tile<4x48xf16>
        th.yield %o : !tb.tile<4x48xf16>
      } : (!tb.tile<4x64xf16>) -> !tb.tile<4x48xf16>
      %o = tb.output_saver %r omap <x -> 0> : !tb.tile<4x48xf16> -> tensor<8x48xf16>
      tb.yield %o : tensor<8x48xf16>
    }
  } : (tensor<8x64xf16>) -> tensor<8x48xf16>
  return %z : tensor<8x48xf16>
}

// -----

func.func @thread_omap_replica(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<8x4xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<4x4xf16>
      %r = th.graph(%t) threads [4, 2] forloop 1 {
      ^bb0(%a: !tb.tile<4x4xf16>):
        %f = th.input_iterator %a imap <x -> 0, y -> replica> fmap <i -> replica> : !tb.tile<4x4xf16> -> !th.frag<1x4xf16>
        // expected-error @below {{'th.output_saver' op omap maps thread dim y to replica; every thread dim must map to a data dim so that threads write disjoint parts of the output}}
        %o = th.output_saver %f omap <x -> 0, y -> replica> : !th.frag<1x4xf16> -> !tb.tile<4x4xf16>
        th.yield %o : !tb.tile<4x4xf16>
      } : (!tb.tile<4x4xf16>) -> !tb.tile<4x4xf16>
      %o = tb.output_saver %r omap <x -> 0> : !tb.tile<4x4xf16> -> tensor<8x4xf16>
      tb.yield %o : tensor<8x4xf16>
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

// f16 fragments count at 4 bytes an element, as the lowering keeps them in
// f32 registers: a 1x200 row and its exponential take 1600 bytes (800 at
// the declared size, which would pass).
func.func @f16_fragments_in_f32_registers(%x: tensor<4x200xf16>) -> tensor<4x200xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [1] threads 32 forloop 1 {
    ^bb0(%xd: tensor<4x200xf16>):
      %t = tb.input_iterator %xd imap <x -> replica> fmap <i -> replica> : tensor<4x200xf16> -> !tb.tile<4x200xf16>
      // expected-error @below {{'th.graph' op needs 1600 bytes of registers per thread for the fragments live at its peak, more than the 1020 bytes (255 32-bit registers) of sm_90a}}
      %r = th.graph(%t) threads [4] forloop 1 {
      ^bb0(%a: !tb.tile<4x200xf16>):
        %f = th.input_iterator %a imap <x -> 0> fmap <i -> replica> : !tb.tile<4x200xf16> -> !th.frag<1x200xf16>
        %e = th.exp %f : !th.frag<1x200xf16>
        %o = th.output_saver %e omap <x -> 0> : !th.frag<1x200xf16> -> !tb.tile<4x200xf16>
        th.yield %o : !tb.tile<4x200xf16>
      } : (!tb.tile<4x200xf16>) -> !tb.tile<4x200xf16>
      %o = tb.output_saver %r omap <x -> 0> : !tb.tile<4x200xf16> -> tensor<4x200xf16>
      tb.yield %o : tensor<4x200xf16>
    }
  } : (tensor<4x200xf16>) -> tensor<4x200xf16>
  return %z : tensor<4x200xf16>
}
