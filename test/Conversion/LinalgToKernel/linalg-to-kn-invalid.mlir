// RUN: mirage-opt %s --convert-linalg-to-kn --split-input-file --verify-diagnostics

// Every refusal of convert-linalg-to-kn: an error on the op that names the
// reason, with a note on the part of it that has no kn equivalent.

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @log(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @+1 {{cannot be converted to kn (convert-linalg-to-kn): the body's 'math.log' has no kn operator}}
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    // expected-note @+1 {{'math.log' is here}}
    %r = math.log %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}

// -----

// f16 operands accumulated into f32: the body converts element types.
func.func @mixed_precision_matmul(%a: tensor<16x32xf16>, %b: tensor<32x64xf16>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  // expected-error @+1 {{the body converts the element type ('arith.extf' from f16 to f32); kn ops keep one element type}}
  %m = linalg.matmul ins(%a, %b : tensor<16x32xf16>, tensor<32x64xf16>) outs(%c : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %m : tensor<16x64xf32>
}

// -----

func.func @convolution(%x: tensor<32xf32>, %w: tensor<3xf32>, %c: tensor<30xf32>) -> tensor<30xf32> {
  // expected-error @+1 {{operand #0 is read through (d0, d1) -> (d0 + d1), which is not a projection of the loops (each index a loop, or 0 on a size-1 dim)}}
  %y = linalg.conv_1d ins(%x, %w : tensor<32xf32>, tensor<3xf32>) outs(%c : tensor<30xf32>) -> tensor<30xf32>
  return %y : tensor<30xf32>
}

// -----

func.func @diagonal(%x: tensor<8x8xf32>, %c: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{operand #0 is read through (d0) -> (d0, d0), which reads one loop twice (a diagonal)}}
  %d = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0, d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<8x8xf32>) outs(%c : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<8xf32>
  return %d : tensor<8xf32>
}

// -----

func.func @dynamic(%x: tensor<?x8xf32>, %e: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{its result type tensor<?x8xf32> is no kn tensor type (static shape, f16, bf16 or f32)}}
  %y = linalg.exp ins(%x : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

func.func @integers(%x: tensor<4xi32>, %e: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{its result type tensor<4xi32> is no kn tensor type (static shape, f16, bf16 or f32)}}
  %y = linalg.add ins(%x, %x : tensor<4xi32>, tensor<4xi32>) outs(%e : tensor<4xi32>) -> tensor<4xi32>
  return %y : tensor<4xi32>
}

// -----

func.func @memrefs(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{it works on memrefs; only linalg on tensors converts}}
  linalg.exp ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
  return
}

// -----

func.func @product_reduction(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{its body makes the output (t0 * <output 0>) of the output <output 0>, which is neither a sum nor a max of it}}
  %p = linalg.reduce ins(%x : tensor<4x8xf32>) outs(%f : tensor<4xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %r = arith.mulf %a, %acc : f32
      linalg.yield %r : f32
    }
  return %p : tensor<4xf32>
}

// -----

func.func @reduce_into_empty(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-note @+1 {{'tensor.empty' is here}}
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{the reduction starts from the uninitialized contents of its output; fill it with the reduction's identity first (linalg.fill)}}
  %s = linalg.reduce ins(%x : tensor<4x8xf32>) outs(%e : tensor<4xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
  return %s : tensor<4xf32>
}

// -----

func.func @returned_fill() -> tensor<4xf32> {
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{its result is used by 'func.return', which needs a tensor, but a constant tensor (2) is not a kn value: constants convert only as the scalar of kn.mul_scalar or kn.add_scalar}}
  %f = linalg.fill ins(%two : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %f : tensor<4xf32>
}

// -----

func.func @returned_reciprocal(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{its result is used by 'func.return', which needs a tensor, but 1 / x (from 'arith.divf' in the body of 'linalg.reciprocal') is no kn operator: kn.div needs a tensor to divide, so a reciprocal converts only where it multiplies another tensor}}
  %r = linalg.reciprocal ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @returned_broadcast(%x: tensor<8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @+1 {{its result is used by 'func.return', which needs a tensor, but its value is a broadcast of a tensor<1x8xf32> to tensor<4x8xf32>, and kn has no broadcast operator}}
  %b = linalg.broadcast ins(%x : tensor<8xf32>) outs(%e : tensor<4x8xf32>) dimensions = [0]
  return %b : tensor<4x8xf32>
}

// -----

func.func @strided_slice(%x: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{a strided slice has no kn operator}}
  %s = tensor.extract_slice %x[0] [4] [2] : tensor<8xf32> to tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

func.func @pad(%x: tensor<8xf32>) -> tensor<10xf32> {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'tensor.pad' has no kn equivalent}}
  %p = tensor.pad %x low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<8xf32> to tensor<10xf32>
  return %p : tensor<10xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @index(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @+1 {{the body reads the iteration index (linalg.index), which no kn operator does}}
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    // expected-note @+1 {{'linalg.index' is here}}
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    %r = arith.addf %a, %f : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @non_splat_constant(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-note @+1 {{'arith.constant' is here}}
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %e = tensor.empty() : tensor<2xf32>
  // expected-error @+1 {{a constant tensor that is not a splat of a float has no kn equivalent (kn has no constant tensors)}}
  %y = linalg.add ins(%x, %c : tensor<2xf32>, tensor<2xf32>) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @constant_exponent(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @+1 {{its result is used by 'func.return', which needs a tensor, but pow with the constant exponent 3 (from 'math.powf' in the body of 'linalg.generic') is no kn operator: kn.pow takes a tensor exponent (the exponents 1, 2, 0.5, -1 and -0.5 convert)}}
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %three = arith.constant 3.0 : f32
    // expected-note @+1 {{'math.powf' is here}}
    %r = math.powf %a, %three : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @erf_alone(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{erf (from 'math.erf' in the body of 'linalg.erf') is part of a kn operator only in the exact GELU, 0.5 * x * (1 + erf(x / sqrt(2)))}}
  %y = linalg.erf ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @in_a_loop(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %x) -> tensor<4xf32> {
    // expected-error @+1 {{it is in the region of 'scf.for'; only straight-line tensor programs in a function body convert}}
    %e = tensor.empty() : tensor<4xf32>
    %y = linalg.exp ins(%acc : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @captured_value(%x: tensor<4x8xf32>, %s: f32) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @+1 {{the body reads a value of type f32 defined outside it, which is not a constant}}
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @dynamic_loop(%x: tensor<4x?xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{its loop ranges are not static}}
  %s = linalg.reduce ins(%x : tensor<4x?xf32>) outs(%f : tensor<4xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
  return %s : tensor<4xf32>
}

// -----

func.func @loop_not_in_output(%x: tensor<4x8xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{its parallel loop 1 does not index its output}}
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%c : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @output_read_twice(%x: tensor<4x8xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{its body reads an output other than as the running sum or maximum}}
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%c : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.mulf %a, %o : f32
    %r = arith.addf %p, %o : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @reduced_loop_in_output(%x: tensor<4x8xf32>, %c: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{its output is indexed by the reduced loop 1}}
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%c : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @scalar_fill(%s: f32) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{it reads the scalar operand of type f32, which is not a constant}}
  %f = linalg.fill ins(%s : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %f : tensor<4xf32>
}

// -----

func.func @cast(%x: tensor<4xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{it changes the static shape information of a tensor; kn tensors are static}}
  %c = tensor.cast %x : tensor<4xf32> to tensor<?xf32>
  return %c : tensor<?xf32>
}

// -----

func.func @dynamic_slice(%x: tensor<8xf32>, %i: index) -> tensor<4xf32> {
  // expected-error @+1 {{its offsets, sizes or strides are not static}}
  %s = tensor.extract_slice %x[%i] [4] [1] : tensor<8xf32> to tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

func.func @integer_reshape(%x: tensor<8xi32>) -> tensor<2x4xi32> {
  // expected-error @+1 {{its result type tensor<2x4xi32> is no kn tensor type}}
  %r = tensor.expand_shape %x [[0, 1]] output_shape [2, 4] : tensor<8xi32> into tensor<2x4xi32>
  return %r : tensor<2x4xi32>
}

// -----

func.func @blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  cf.br ^bb1
^bb1:
  // expected-error @+1 {{it is in a function with several blocks; only straight-line tensor programs in a function body convert}}
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
