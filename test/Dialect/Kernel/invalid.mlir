// One case per diagnostic reachable from kn IR, shape-rule messages included.
// RUN: mirage-opt %s -split-input-file -verify-diagnostics

func.func @zero_size(%x: tensor<0x4xf16>) {
  // expected-error @below {{'kn.exp' op operand #0 has shape 0x4; sizes must be static and positive}}
  %0 = kn.exp %x : tensor<0x4xf16>
  return
}

// -----

func.func @element_count_overflow(%x: tensor<4294967296x4294967296x16xf16>) {
  // expected-error @below {{'kn.exp' op operand #0 has shape 4294967296x4294967296x16, whose element count exceeds 2^63 - 1}}
  %0 = kn.exp %x : tensor<4294967296x4294967296x16xf16>
  return
}

// -----

func.func @element_type_mismatch(%a: tensor<2x4xf16>, %b: tensor<2x4xf32>) {
  // expected-error @below {{'kn.add' op operand #1 has element type 'f32' but operand #0 has 'f16'}}
  %0 = kn.add %a, %b : tensor<2x4xf16>, tensor<2x4xf32>
  return
}

// -----

func.func @no_broadcast(%a: tensor<2x3xf16>, %b: tensor<4x3xf16>) {
  // expected-error @below {{'kn.sub' op shapes 2x3 and 4x3 do not broadcast: lhs dim 0 has size 2 but rhs dim 0 has size 4}}
  %0 = kn.sub %a, %b : tensor<2x3xf16>, tensor<4x3xf16>
  return
}

// -----

func.func @matmul_rank(%a: tensor<64xf16>, %b: tensor<64x8xf16>) {
  // expected-error @below {{'kn.matmul' op matmul operands must have rank >= 2, got 64 and 64x8}}
  %0 = kn.matmul %a, %b : tensor<64xf16>, tensor<64x8xf16>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<2x4096xf16>, %b: tensor<4095x6144xf16>) {
  // expected-error @below {{'kn.matmul' op contraction dims differ: lhs dim 1 has size 4096 but rhs dim 0 has size 4095}}
  %0 = kn.matmul %a, %b : tensor<2x4096xf16>, tensor<4095x6144xf16>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x4x8xf16>, %b: tensor<3x8x4xf16>) {
  // expected-error @below {{'kn.matmul' op batch dims do not broadcast: shapes 2 and 3 do not broadcast: lhs dim 0 has size 2 but rhs dim 0 has size 3}}
  %0 = kn.matmul %a, %b : tensor<2x4x8xf16>, tensor<3x8x4xf16>
  return
}

// -----

func.func @reduce_dim(%a: tensor<2x4096xf16>) {
  // expected-error @below {{'kn.reduce_sum' op reduction dim 2 is out of range for rank 2}}
  %0 = kn.reduce_sum %a dim 2 : tensor<2x4096xf16>
  return
}

// -----

func.func @rms_norm_scalar(%a: tensor<f16>) {
  // expected-error @below {{'kn.rms_norm' op rms_norm input must have rank >= 1}}
  %0 = kn.rms_norm %a : tensor<f16>
  return
}

// -----

func.func @rms_norm_weight(%a: tensor<2x4096xf16>, %w: tensor<2048xf16>) {
  // expected-error @below {{'kn.rms_norm' op rms_norm weight must have shape 4096 (the normalized last dim), got 2048}}
  %0 = kn.rms_norm %a weight %w : tensor<2x4096xf16>, tensor<2048xf16>
  return
}

// -----

func.func @concat_empty() {
  // expected-error @below {{'kn.concat' op needs at least one operand}}
  // expected-error @below {{'kn.concat' op failed to infer returned types}}
  %0 = "kn.concat"() <{dim = 0 : i64}> : () -> tensor<2xf16>
  return
}

// -----

func.func @concat_dim(%a: tensor<2x4xf16>) {
  // expected-error @below {{'kn.concat' op concat dim 2 is out of range for rank 2}}
  %0 = kn.concat %a, %a dim 2 : tensor<2x4xf16>, tensor<2x4xf16>
  return
}

// -----

func.func @concat_rank(%a: tensor<2x4xf16>, %b: tensor<2x4x1xf16>) {
  // expected-error @below {{'kn.concat' op concat operand #1 has rank 3 but operand #0 has rank 2}}
  %0 = kn.concat %a, %b dim 1 : tensor<2x4xf16>, tensor<2x4x1xf16>
  return
}

// -----

func.func @concat_other_dim(%a: tensor<16x256xf16>, %b: tensor<8x16xf16>) {
  // expected-error @below {{'kn.concat' op concat operand #1 has size 8 in dim 0 but operand #0 has size 16; only the concat dim 1 may differ}}
  %0 = kn.concat %a, %b dim 1 : tensor<16x256xf16>, tensor<8x16xf16>
  return
}

// -----

func.func @split_dim(%a: tensor<16x272xf16>) {
  // expected-error @below {{'kn.split' op split dim 2 is out of range for rank 2}}
  %0:2 = kn.split %a dim 2 sizes [256, 16] : tensor<16x272xf16>
  return
}

// -----

func.func @split_no_sizes(%a: tensor<16x272xf16>) {
  // expected-error @below {{'kn.split' op split needs at least one size}}
  kn.split %a dim 1 sizes [] : tensor<16x272xf16>
  return
}

// -----

func.func @split_size_positive(%a: tensor<16x272xf16>) {
  // expected-error @below {{'kn.split' op split size 0 must be positive}}
  %0:3 = kn.split %a dim 1 sizes [256, 0, 16] : tensor<16x272xf16>
  return
}

// -----

func.func @split_sum(%a: tensor<16x272xf16>) {
  // expected-error @below {{'kn.split' op split sizes sum to 271 but dim 1 has size 272}}
  %0:2 = kn.split %a dim 1 sizes [256, 15] : tensor<16x272xf16>
  return
}

// -----

// Found by mirage-fuzz: the sum overflowed (undefined behavior) before.
func.func @split_sum_overflow(%a: tensor<16x272xf16>) {
  // expected-error @below {{'kn.split' op split sizes overflow a 64-bit size}}
  %0:2 = kn.split %a dim 1 sizes [256, 9223372036854775807] : tensor<16x272xf16>
  return
}

// -----

func.func @reshape_size(%a: tensor<8x64xf16>) {
  // expected-error @below {{'kn.reshape' op reshape size 0 must be positive}}
  %0 = kn.reshape %a : tensor<8x64xf16> -> tensor<0x512xf16>
  return
}

// -----

func.func @reshape_count(%a: tensor<8x64xf16>) {
  // expected-error @below {{'kn.reshape' op reshape from 8x64 (512 elements) to 8x65 (520 elements) changes the element count}}
  %0 = kn.reshape %a : tensor<8x64xf16> -> tensor<8x65xf16>
  return
}

// -----

func.func @reshape_element_type(%a: tensor<8x64xf16>) {
  // expected-error @below {{'kn.reshape' op result #0 has element type 'f32' but the operand has 'f16'}}
  %0 = kn.reshape %a : tensor<8x64xf16> -> tensor<512xf32>
  return
}

// -----

func.func @transpose_length(%a: tensor<2x4096x64xf16>) {
  // expected-error @below {{'kn.transpose' op permutation has 2 entries but the operand has rank 3}}
  %0 = kn.transpose %a permutation [1, 0] : tensor<2x4096x64xf16>
  return
}

// -----

func.func @transpose_range(%a: tensor<2x4096x64xf16>) {
  // expected-error @below {{'kn.transpose' op permutation entry 3 is out of range for rank 3}}
  %0 = kn.transpose %a permutation [0, 3, 1] : tensor<2x4096x64xf16>
  return
}

// -----

func.func @transpose_repeat(%a: tensor<2x4096x64xf16>) {
  // expected-error @below {{'kn.transpose' op permutation repeats dim 0}}
  %0 = kn.transpose %a permutation [0, 0, 1] : tensor<2x4096x64xf16>
  return
}

// -----

// A written result type that disagrees with the shape rule (generic form).
func.func @wrong_result_type(%a: tensor<2x64xf16>, %b: tensor<64x8xf16>) {
  // expected-error @below {{'kn.matmul' op inferred type(s) 'tensor<2x8xf16>' are incompatible with return type(s) of operation 'tensor<2x9xf16>'}}
  // expected-error @below {{'kn.matmul' op failed to infer returned types}}
  %0 = "kn.matmul"(%a, %b) : (tensor<2x64xf16>, tensor<64x8xf16>) -> tensor<2x9xf16>
  return
}

// -----

func.func @kernel_without_graph(%x: tensor<2x4xf16>) {
  // expected-error @below {{'kn.kernel' op body must hold exactly one 'tb.graph'}}
  %0 = kn.kernel(%x) {
  } : (tensor<2x4xf16>) -> tensor<2x4xf16>
  return
}

// -----

func.func @kernel_input_count(%x: tensor<2x4xf16>, %y: tensor<2x4xf16>) {
  // expected-error @below {{'kn.kernel' op has 2 operands but its block graph has 1 inputs}}
  %0 = kn.kernel(%x, %y) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<2x4xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<2x4xf16> -> !tb.tile<1x4xf16>
      %o = tb.output_saver %t omap <x -> 0> : !tb.tile<1x4xf16> -> tensor<2x4xf16>
      tb.yield %o : tensor<2x4xf16>
    }
  } : (tensor<2x4xf16>, tensor<2x4xf16>) -> tensor<2x4xf16>
  return
}

// -----

func.func @kernel_input_type(%x: tensor<2x4xf16>) {
  // expected-error @below {{'kn.kernel' op operand #0 has type 'tensor<2x4xf16>' but block graph input #0 has type 'tensor<2x4xf32>'}}
  %0 = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<2x4xf32>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<2x4xf32> -> !tb.tile<1x4xf32>
      %o = tb.output_saver %t omap <x -> 0> : !tb.tile<1x4xf32> -> tensor<2x4xf32>
      tb.yield %o : tensor<2x4xf32>
    }
  } : (tensor<2x4xf16>) -> tensor<2x4xf16>
  return
}

// -----

func.func @kernel_result_count(%x: tensor<2x4xf16>) {
  // expected-error @below {{'kn.kernel' op has 2 results but its block graph yields 1 outputs}}
  %0:2 = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<2x4xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<2x4xf16> -> !tb.tile<1x4xf16>
      %o = tb.output_saver %t omap <x -> 0> : !tb.tile<1x4xf16> -> tensor<2x4xf16>
      tb.yield %o : tensor<2x4xf16>
    }
  } : (tensor<2x4xf16>) -> (tensor<2x4xf16>, tensor<2x4xf16>)
  return
}

// -----

func.func @kernel_result_type(%x: tensor<2x4xf16>) {
  // expected-error @below {{'kn.kernel' op result #0 has type 'tensor<4x2xf16>' but block graph output #0 has type 'tensor<2x4xf16>'}}
  %0 = kn.kernel(%x) {
    tb.graph grid [2] threads 32 forloop 1 {
    ^bb0(%xd: tensor<2x4xf16>):
      %t = tb.input_iterator %xd imap <x -> 0> fmap <i -> replica> : tensor<2x4xf16> -> !tb.tile<1x4xf16>
      %o = tb.output_saver %t omap <x -> 0> : !tb.tile<1x4xf16> -> tensor<2x4xf16>
      tb.yield %o : tensor<2x4xf16>
    }
  } : (tensor<2x4xf16>) -> tensor<4x2xf16>
  return
}

// -----

func.func @unsupported_element_type(%x: tensor<2x4xi32>) {
  // expected-error @below {{'kn.exp' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<2x4xi32>'}}
  %0 = "kn.exp"(%x) : (tensor<2x4xi32>) -> tensor<2x4xi32>
  return
}

// -----

// expected-error @below {{unknown kn dialect attribute 'kn.refrence'; expected 'kn.reference', 'kn.partition', 'kn.data_dependent' or 'kn.view'}}
func.func private @misspelled() attributes {kn.refrence = @f}

// -----

// expected-error @below {{'kn.reference' must be a symbol reference on a function}}
func.func private @not_a_symbol() attributes {kn.reference = "f"}

// -----

// expected-error @below {{'kn.reference' names @missing, which is not a function}}
func.func private @dangling() attributes {kn.reference = @missing}

// -----

// expected-error @below {{'kn.reference' names the function itself}}
func.func private @self() attributes {kn.reference = @self}

// -----

func.func private @reference(tensor<2xf16>) -> tensor<2xf16>
// expected-error @below {{has type '(tensor<2xf16>) -> tensor<4xf16>' but its reference @reference has type '(tensor<2xf16>) -> tensor<2xf16>'}}
func.func private @candidate(tensor<2xf16>) -> tensor<4xf16> attributes {kn.reference = @reference}

// -----

func.func @partition_not_array(%x: tensor<4x4xf16>) -> tensor<4x4xf16> {
  // expected-error @below {{'kn.partition' must be an array<i64> on a predefined kn op}}
  %y = kn.exp %x {kn.partition = 4 : i64} : tensor<4x4xf16>
  return %y : tensor<4x4xf16>
}

// -----

func.func @partition_zero(%x: tensor<4x4xf16>) -> tensor<4x4xf16> {
  // expected-error @below {{'kn.partition' must count at least one block per dim}}
  %y = kn.exp %x {kn.partition = array<i64: 0, 4>} : tensor<4x4xf16>
  return %y : tensor<4x4xf16>
}

// -----

func.func @data_dependent_value(%x: tensor<4x4xf16>) -> tensor<4x4xf16> {
  // expected-error @below {{'kn.data_dependent' must be a unit attribute on a kn op}}
  %y = kn.exp %x {kn.data_dependent = 1 : i64} : tensor<4x4xf16>
  return %y : tensor<4x4xf16>
}

// -----

func.func @view_not_concat(%x: tensor<4x4xf16>) -> tensor<4x4xf16> {
  // expected-error @below {{'kn.view' must be a unit attribute on a kn.concat}}
  %y = kn.exp %x {kn.view} : tensor<4x4xf16>
  return %y : tensor<4x4xf16>
}

// -----

func.func @view_innermost(%a: tensor<4x4xf16>, %b: tensor<4x4xf16>) -> tensor<4x8xf16> {
  // expected-error @below {{'kn.view' needs a concatenation along an outer dim: along the innermost, a row would come from two operands}}
  %c = kn.concat %a, %b dim 1 {kn.view} : tensor<4x4xf16>, tensor<4x4xf16>
  %y = kn.exp %c : tensor<4x8xf16>
  return %y : tensor<4x8xf16>
}

// -----

func.func @view_returned(%a: tensor<4x4xf16>, %b: tensor<4x4xf16>) -> tensor<8x4xf16> {
  // expected-error @below {{'kn.view' is read by 'func.return', which cannot read a view; only kernels and predefined ops other than kn.reshape and kn.concat can}}
  %c = kn.concat %a, %b dim 0 {kn.view} : tensor<4x4xf16>, tensor<4x4xf16>
  return %c : tensor<8x4xf16>
}
