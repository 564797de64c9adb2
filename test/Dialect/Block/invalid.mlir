// One case per diagnostic of the tb dialect: types, attributes, the graph,
// iterators, savers, accumulators, loop structure and shared memory.
// RUN: mirage-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{tile sizes must be positive, got 0x4}}
func.func private @zero_tile(!tb.tile<0x4xf16>)

// -----

// expected-error @below {{tile element type must be f16, bf16 or f32, got 'i32'}}
func.func private @int_tile(!tb.tile<4xi32>)

// -----

// expected-error @below {{a grid map entry is a data dim or replica, got -2}}
func.func private @negative_grid_map() attributes {map = #tb.grid_map<x -> -2>}

// -----

// expected-error @below {{a grid map has at most 3 entries (x, y, z)}}
func.func private @four_grid_dims() attributes {map = #tb.grid_map<x -> 0, y -> 1, z -> 2, w -> 3>}

// -----

// expected-error @below {{expected 'x'}}
func.func private @grid_map_order() attributes {map = #tb.grid_map<y -> 0>}

// -----

// expected-error @below {{a loop map entry is a data dim or replica, got -3}}
func.func private @negative_loop_map() attributes {map = #tb.loop_map<i -> -3>}

// -----

// expected-error @below {{unknown target limit 'sram'; expected smem, regs, threads or sms}}
func.func private @target_key() attributes {tb.target = #tb.target<"sm_90a", sram = 1>}

// -----

// expected-error @below {{unknown chip "sm_42": give smem, regs, threads and sms explicitly}}
func.func private @target_chip() attributes {tb.target = #tb.target<"sm_42", smem = 1024>}

// -----

// expected-error @below {{target chip name is empty}}
func.func private @target_empty() attributes {tb.target = #tb.target<"", smem = 1, regs = 1, threads = 1, sms = 1>}

// -----

// expected-error @below {{target limits must be positive}}
func.func private @target_limits() attributes {tb.target = #tb.target<"sm_90a", smem = 0>}

// -----

// expected-error @below {{'tb.target' must be a #tb.target attribute, got 3 : i64}}
func.func private @target_type() attributes {tb.target = 3}

// -----

// expected-error @below {{unknown tb dialect attribute 'tb.targets'; the only one is 'tb.target'}}
func.func private @target_name() attributes {tb.targets = #tb.target<"sm_90a">}

// -----

func.func @grid_rank(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    // expected-error @below {{'tb.graph' op grid must have 1 to 3 dims, got 4}}
    tb.graph grid [2, 1, 1, 1] threads 32 forloop 1 {
    ^bb0(%xd: tensor<8x4xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<4x4xf16>
      %o = tb.output_saver %t omap <x -> 0> : !tb.tile<4x4xf16> -> tensor<8x4xf16>
      tb.yield %o : tensor<8x4xf16>
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

func.func @grid_dim(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    // expected-error @below {{'tb.graph' op grid dim y must be positive, got 0}}
    tb.graph grid [2, 0] threads 32 forloop 1 {
    ^bb0(%xd: tensor<8x4xf16>):
      %t = tb.input_iterator %xd imap <x -> 0, y -> replica> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<4x4xf16>
      %o = tb.output_saver %t omap <x -> 0, y -> 1> : !tb.tile<4x4xf16> -> tensor<8x4xf16>
      tb.yield %o : tensor<8x4xf16>
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

func.func @threads(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    // expected-error @below {{'tb.graph' op threads per block must be in [1, 1024] on sm_90a, got 2048}}
    tb.graph grid [2] threads 2048 forloop 1 {
    ^bb0(%xd: tensor<8x4xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<4x4xf16>
      %o = tb.output_saver %t omap <x -> 0> : !tb.tile<4x4xf16> -> tensor<8x4xf16>
      tb.yield %o : tensor<8x4xf16>
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

func.func @forloop(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    // expected-error @below {{'tb.graph' op forloop range must be positive, got 0}}
    tb.graph grid [2] threads 32 forloop 0 {
    ^bb0(%xd: tensor<8x4xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<4x4xf16>
      %o = tb.output_saver %t omap <x -> 0> : !tb.tile<4x4xf16> -> tensor<8x4xf16>
      tb.yield %o : tensor<8x4xf16>
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

func.func @dynamic_input(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    // expected-error @below {{'tb.graph' op input #0 must be a statically shaped f16, bf16 or f32 tensor, got 'tensor<?x4xf16>'}}
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<?x4xf16>):
      tb.yield
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

func.func @no_yield(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    // expected-error @below {{'tb.graph' op body must end with 'tb.yield'}}
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<8x4xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<4x4xf16>
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
      // expected-error @below {{'builtin.unrealized_conversion_cast' op is not allowed in a block graph: only tb ops and thread graphs (th.graph) may appear}}
      %c = builtin.unrealized_conversion_cast %t : !tb.tile<4x4xf16> to !tb.tile<4x4xf16>
      %o = tb.output_saver %c omap <x -> 0> : !tb.tile<4x4xf16> -> tensor<8x4xf16>
      tb.yield %o : tensor<8x4xf16>
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

func.func @yield_input(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<8x4xf16>):
      // expected-error @below {{'tb.yield' op operand #0 is not the result of an output saver; graph outputs are written by output savers}}
      tb.yield %xd : tensor<8x4xf16>
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

func.func @outside_graph(%t: !tb.tile<4x4xf16>) {
  // expected-error @below {{'tb.exp' op expects parent op 'tb.graph'}}
  %e = tb.exp %t : !tb.tile<4x4xf16>
  return
}

// -----

// Def. 2.1 (3): a second accumulator on one path.
func.func @accumulate_twice(%x: tensor<8x64xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 16 {
    ^bb0(%xd: tensor<8x64xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> 1> : tensor<8x64xf16> -> !tb.tile<4x4xf16>
      %a = tb.accum_sum %t : !tb.tile<4x4xf16>
      // expected-error @below {{'tb.accum_max' op accumulates operand #0, which has already passed an accumulator; every input-to-output path must pass exactly one accumulator}}
      %b = tb.accum_max %a : !tb.tile<4x4xf16>
      %o = tb.output_saver %b omap <x -> 0> : !tb.tile<4x4xf16> -> tensor<8x4xf16>
      tb.yield %o : tensor<8x4xf16>
    }
  } : (tensor<8x64xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

// Def. 2.1 (3): a path without its accumulator in a looped graph.
func.func @missing_accumulator(%x: tensor<8x64xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 16 {
    ^bb0(%xd: tensor<8x64xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> 1> : tensor<8x64xf16> -> !tb.tile<4x4xf16>
      %e = tb.exp %t : !tb.tile<4x4xf16>
      // expected-error @below {{'tb.output_saver' op saves a loop-body value that has not passed an accumulator; in a graph with a for-loop every input-to-output path must pass exactly one accumulator}}
      %o = tb.output_saver %e omap <x -> 0> : !tb.tile<4x4xf16> -> tensor<8x4xf16>
      tb.yield %o : tensor<8x4xf16>
    }
  } : (tensor<8x64xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

// Def. 2.1 (3): an output read back as an input (a second iterator and saver
// on one path).
func.func @saver_result_reused(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<8x4xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<4x4xf16>
      // expected-error @below {{'tb.output_saver' op result is used by 'tb.input_iterator'; an output saver's result may only be yielded}}
      %o = tb.output_saver %t omap <x -> 0> : !tb.tile<4x4xf16> -> tensor<8x4xf16>
      %u = tb.input_iterator %o imap <x -> 0> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<4x4xf16>
      %o2 = tb.output_saver %u omap <x -> 0> : !tb.tile<4x4xf16> -> tensor<8x4xf16>
      tb.yield %o2 : tensor<8x4xf16>
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

func.func @mixed_phases(%x: tensor<8x64xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 16 {
    ^bb0(%xd: tensor<8x64xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> 1> : tensor<8x64xf16> -> !tb.tile<4x4xf16>
      %a = tb.accum_sum %t : !tb.tile<4x4xf16>
      // expected-error @below {{'tb.add' op mixes post-loop operand #0 with loop-body operand #1; an op runs either in the loop body or after the loop}}
      %s = tb.add %a, %t : !tb.tile<4x4xf16>, !tb.tile<4x4xf16>
      %b = tb.accum_sum %s : !tb.tile<4x4xf16>
      %o = tb.output_saver %b omap <x -> 0> : !tb.tile<4x4xf16> -> tensor<8x4xf16>
      tb.yield %o : tensor<8x4xf16>
    }
  } : (tensor<8x64xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

// 64x512 f32 tiles: the two inputs, their product and the accumulator take
// 128 KiB each as the lowering places them, 512 KiB > 227 KiB.
func.func @too_much_shared_memory(%x: tensor<64x1024xf32>) -> tensor<64x512xf32> {
  %z = kn.kernel(%x) {
    // expected-error @below {{'tb.graph' op needs 524288 bytes of shared memory for its tiles as the lowering places them with one pipeline stage, more than the 232448 bytes per block of sm_90a}}
    tb.graph grid [1] threads 128 forloop 2 {
    ^bb0(%xd: tensor<64x1024xf32>):
      // expected-note @below {{one of the largest tiles is defined here}}
      %a = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<64x1024xf32> -> !tb.tile<64x512xf32>
      // expected-note @below {{one of the largest tiles is defined here}}
      %b = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<64x1024xf32> -> !tb.tile<64x512xf32>
      // expected-note @below {{one of the largest tiles is defined here}}
      %m = tb.mul %a, %b : !tb.tile<64x512xf32>, !tb.tile<64x512xf32>
      %acc = tb.accum_sum %m : !tb.tile<64x512xf32>
      %o = tb.output_saver %acc omap <x -> 1> : !tb.tile<64x512xf32> -> tensor<64x512xf32>
      tb.yield %o : tensor<64x512xf32>
    }
  } : (tensor<64x1024xf32>) -> tensor<64x512xf32>
  return %z : tensor<64x512xf32>
}

// -----

// On a target with 16 KiB per block: the exponential, read twice, needs its
// 16 KiB tile and the row sums 256 bytes more. (The input tile needs none:
// the exponential reads it from device memory.)
func.func @smaller_target(%x: tensor<64x64xf32>) -> tensor<64x64xf32> attributes {tb.target = #tb.target<"sm_86", smem = 16384>} {
  %z = kn.kernel(%x) {
    // expected-error @below {{'tb.graph' op needs 16640 bytes of shared memory for its tiles as the lowering places them with one pipeline stage, more than the 16384 bytes per block of sm_86}}
    tb.graph grid [1] threads 128 forloop 1 {
    ^bb0(%xd: tensor<64x64xf32>):
      %a = tb.input_iterator %xd imap <x -> replica> fmap <i -> replica> : tensor<64x64xf32> -> !tb.tile<64x64xf32>
      // expected-note @below {{one of the largest tiles is defined here}}
      %e = tb.exp %a : !tb.tile<64x64xf32>
      // expected-note @below {{one of the largest tiles is defined here}}
      %s = tb.reduce_sum %e dim 1 : !tb.tile<64x64xf32>
      %d = tb.div %e, %s : !tb.tile<64x64xf32>, !tb.tile<64x1xf32>
      %o = tb.output_saver %d omap <x -> 1> : !tb.tile<64x64xf32> -> tensor<64x64xf32>
      tb.yield %o : tensor<64x64xf32>
    }
  } : (tensor<64x64xf32>) -> tensor<64x64xf32>
  return %z : tensor<64x64xf32>
}

// -----

// One warp summing a 128x128 product in registers across the loop: 512 f32
// registers a thread.
func.func @too_many_accumulator_registers(%x: tensor<128x1024xf16>, %w: tensor<1024x128xf16>) -> tensor<128x128xf16> {
  %z = kn.kernel(%x, %w) {
    // expected-error @below {{'tb.graph' op needs 512 registers per thread for its tensor-core accumulators, more than the 255 of sm_90a}}
    tb.graph grid [1] threads 32 forloop 16 {
    ^bb0(%xd: tensor<128x1024xf16>, %wd: tensor<1024x128xf16>):
      %xt = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<128x1024xf16> -> !tb.tile<128x64xf16>
      %wt = tb.input_iterator %wd imap <x -> replica> fmap <i -> 0> : tensor<1024x128xf16> -> !tb.tile<64x128xf16>
      %p = tb.matmul %xt, %wt : !tb.tile<128x64xf16>, !tb.tile<64x128xf16>
      %b = tb.accum_sum %p : !tb.tile<128x128xf16>
      %o = tb.output_saver %b omap <x -> 0> : !tb.tile<128x128xf16> -> tensor<128x128xf16>
      tb.yield %o : tensor<128x128xf16>
    }
  } : (tensor<128x1024xf16>, tensor<1024x128xf16>) -> tensor<128x128xf16>
  return %z : tensor<128x128xf16>
}

// -----

func.func @iterator_tile_shape(%x: tensor<2x4096xf16>) -> tensor<2x64xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [1] threads 32 forloop 64 {
    ^bb0(%xd: tensor<2x4096xf16>):
      // expected-error @below {{'tb.input_iterator' op result #0 has shape 2x32 but should have shape 2x64}}
      %t = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<2x4096xf16> -> !tb.tile<2x32xf16>
      %a = tb.accum_sum %t : !tb.tile<2x32xf16>
      %o = tb.output_saver %a omap <x -> 1> : !tb.tile<2x32xf16> -> tensor<2x32xf16>
      tb.yield %o : tensor<2x32xf16>
    }
  } : (tensor<2x4096xf16>) -> tensor<2x64xf16>
  return %z : tensor<2x64xf16>
}

// -----

func.func @iterator_element_type(%x: tensor<2x64xf16>) -> tensor<2x64xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [1] threads 32 forloop 1 {
    ^bb0(%xd: tensor<2x64xf16>):
      // expected-error @below {{'tb.input_iterator' op result #0 has element type 'f32' but the operand has 'f16'}}
      %t = tb.input_iterator %xd imap <x -> replica> fmap <i -> replica> : tensor<2x64xf16> -> !tb.tile<2x64xf32>
      tb.yield
    }
  } : (tensor<2x64xf16>) -> tensor<2x64xf16>
  return %z : tensor<2x64xf16>
}

// -----

func.func @imap_size(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<8x4xf16>):
      // expected-error @below {{'tb.input_iterator' op imap has 2 entries but the grid has 1 dim(s); a map has one entry per grid dim}}
      %t = tb.input_iterator %xd imap <x -> 0, y -> 1> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<4x4xf16>
      tb.yield
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

func.func @imap_range(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<8x4xf16>):
      // expected-error @below {{'tb.input_iterator' op imap maps grid dim x to data dim 2, but the tensor has rank 2}}
      %t = tb.input_iterator %xd imap <x -> 2> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<4x4xf16>
      tb.yield
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

func.func @imap_twice(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2, 2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<8x4xf16>):
      // expected-error @below {{'tb.input_iterator' op imap maps grid dims x and y to the same data dim 0}}
      %t = tb.input_iterator %xd imap <x -> 0, y -> 0> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<2x4xf16>
      tb.yield
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

// A bad imap: a grid that does not divide the data dim it partitions.
func.func @imap_divisibility(%w: tensor<4096x6144xf16>) -> tensor<4096x6144xf16> {
  %z = kn.kernel(%w) {
    tb.graph grid [100] threads 128 forloop 64 {
    ^bb0(%wd: tensor<4096x6144xf16>):
      // expected-error @below {{'tb.input_iterator' op data dim 1 (size 6144) is not divisible by grid dim x (size 100) that imap partitions it over}}
      %t = tb.input_iterator %wd imap <x -> 1> fmap <i -> 0> : tensor<4096x6144xf16> -> !tb.tile<64x61xf16>
      tb.yield
    }
  } : (tensor<4096x6144xf16>) -> tensor<4096x6144xf16>
  return %z : tensor<4096x6144xf16>
}

// -----

func.func @fmap_range(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 2 {
    ^bb0(%xd: tensor<8x4xf16>):
      // expected-error @below {{'tb.input_iterator' op fmap maps the loop dim to data dim 5, but the tensor has rank 2}}
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> 5> : tensor<8x4xf16> -> !tb.tile<4x2xf16>
      tb.yield
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

// A bad fmap: a loop range that does not divide the per-block dim.
func.func @fmap_divisibility(%x: tensor<2x4096xf16>) -> tensor<2x4096xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [1] threads 32 forloop 3 {
    ^bb0(%xd: tensor<2x4096xf16>):
      // expected-error @below {{'tb.input_iterator' op data dim 1 (size 4096 per block) is not divisible by the for-loop range 3 that fmap partitions it over}}
      %t = tb.input_iterator %xd imap <x -> replica> fmap <i -> 1> : tensor<2x4096xf16> -> !tb.tile<2x1365xf16>
      tb.yield
    }
  } : (tensor<2x4096xf16>) -> tensor<2x4096xf16>
  return %z : tensor<2x4096xf16>
}

// -----

// A bad omap: replica would make blocks write the same part of the output.
func.func @omap_replica(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2, 2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<8x4xf16>):
      %t = tb.input_iterator %xd imap <x -> 0, y -> replica> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<4x4xf16>
      // expected-error @below {{'tb.output_saver' op omap maps grid dim y to replica; every grid dim must map to a data dim so that blocks write disjoint parts of the output}}
      %o = tb.output_saver %t omap <x -> 0, y -> replica> : !tb.tile<4x4xf16> -> tensor<8x4xf16>
      tb.yield %o : tensor<8x4xf16>
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

func.func @saver_shape(%x: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<8x4xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<8x4xf16> -> !tb.tile<4x4xf16>
      // expected-error @below {{'tb.output_saver' op result #0 has shape 8x4 but should have shape 4x8}}
      %o = tb.output_saver %t omap <x -> 1> : !tb.tile<4x4xf16> -> tensor<8x4xf16>
      tb.yield %o : tensor<8x4xf16>
    }
  } : (tensor<8x4xf16>) -> tensor<8x4xf16>
  return %z : tensor<8x4xf16>
}

// -----

func.func @accum_concat_dim(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 16 {
    ^bb0(%xd: tensor<8x64xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> 1> : tensor<8x64xf16> -> !tb.tile<4x4xf16>
      // expected-error @below {{'tb.accum_concat' op concat dim 2 is out of range for rank 2}}
      %a = tb.accum_concat %t dim 2 : !tb.tile<4x4xf16> -> !tb.tile<4x64xf16>
      tb.yield
    }
  } : (tensor<8x64xf16>) -> tensor<8x64xf16>
  return %z : tensor<8x64xf16>
}

// -----

// The wrong accumulator kind for a concatenating loop: its shape gives it away.
func.func @accum_concat_shape(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 16 {
    ^bb0(%xd: tensor<8x64xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> 1> : tensor<8x64xf16> -> !tb.tile<4x4xf16>
      // expected-error @below {{'tb.accum_concat' op result #0 has shape 4x4 but should have shape 4x64}}
      %a = tb.accum_concat %t dim 1 : !tb.tile<4x4xf16> -> !tb.tile<4x4xf16>
      tb.yield
    }
  } : (tensor<8x64xf16>) -> tensor<8x64xf16>
  return %z : tensor<8x64xf16>
}

// -----

func.func @rescaled_sum_broadcast(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %z = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 16 {
    ^bb0(%xd: tensor<8x64xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> 1> : tensor<8x64xf16> -> !tb.tile<4x4xf16>
      %s = tb.reduce_sum %t dim 1 : !tb.tile<4x4xf16>
      // expected-error @below {{'tb.accum_rescaled_sum' op the running-max operand of shape 4x4 does not broadcast to the accumulated shape 4x1}}
      %a = tb.accum_rescaled_sum %s, %t : !tb.tile<4x1xf16>, !tb.tile<4x4xf16>
      tb.yield
    }
  } : (tensor<8x64xf16>) -> tensor<8x64xf16>
  return %z : tensor<8x64xf16>
}
