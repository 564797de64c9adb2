// RUN: mirage-opt %s --convert-tosa-to-kn --split-input-file --verify-diagnostics

// Every refusal of convert-tosa-to-kn: an error on the op that names the
// reason.

func.func @log(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot be converted to kn (convert-tosa-to-kn): 'tosa.log' has no kn equivalent}}
  %y = tosa.log %x : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @cast(%x: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{it converts the element type (f16 to f32); kn ops keep one element type}}
  %y = tosa.cast %x : (tensor<4xf16>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @clamp(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{a clamp to [-1, 1] has no kn operator (only [0, +inf), kn.relu, does)}}
  %y = tosa.clamp %x {min_val = -1.0 : f32, max_val = 1.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @mixed_precision_matmul(%a: tensor<1x8x16xf16>, %b: tensor<1x16x8xf16>) -> tensor<1x8x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  // expected-error @+1 {{it multiplies f16 operands into a f32 result; kn.matmul keeps its operands' element type}}
  %m = tosa.matmul %a, %b, %zp, %zp : (tensor<1x8x16xf16>, tensor<1x16x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x8xf32>
  return %m : tensor<1x8x8xf32>
}

// -----

func.func @quantized_matmul(%a: tensor<1x8x16xi8>, %b: tensor<1x16x8xi8>) -> tensor<1x8x8xi32> {
  %azp = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  // expected-error @+1 {{its result type tensor<1x8x8xi32> is no kn tensor type (static shape, f16, bf16 or f32)}}
  %m = tosa.matmul %a, %b, %azp, %azp : (tensor<1x8x16xi8>, tensor<1x16x8xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8xi32>
  return %m : tensor<1x8x8xi32>
}

// -----

func.func @returned_reciprocal(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{its result is used by 'func.return', which needs a tensor, but 1 / x (from 'tosa.reciprocal') is no kn operator: kn.div needs a tensor to divide, so a reciprocal converts only where it multiplies another tensor}}
  %r = tosa.reciprocal %x : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @non_splat_constant(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-note @+1 {{'tosa.const' is here}}
  %c = "tosa.const"() <{values = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  // expected-error @+1 {{its result is used by 'func.return', which needs a tensor, but a constant tensor that is not a splat of a float has no kn equivalent (kn has no constant tensors)}}
  %y = tosa.add %x, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @constant_broadcast(%x: tensor<1x4xf32>) -> tensor<3x4xf32> {
  %c = "tosa.const"() <{values = dense<2.0> : tensor<3x4xf32>}> : () -> tensor<3x4xf32>
  // expected-error @+1 {{its result is used by 'func.return', which needs a tensor, but its value is a broadcast of a tensor<1x4xf32> to tensor<3x4xf32>, and kn has no broadcast operator}}
  %y = tosa.add %x, %c : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

func.func @minimum(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.minimum' has no kn equivalent}}
  %m = tosa.minimum %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

func.func @maximum_with_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = "tosa.const"() <{values = dense<1.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-error @+1 {{its result is used by 'func.return', which needs a tensor, but the maximum of two values (from 'tosa.maximum') is a kn operator only between two tensors (kn.maximum) or a tensor and 0 (kn.relu)}}
  %m = tosa.maximum %x, %one : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

func.func @erf_alone(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{erf (from 'tosa.erf') is part of a kn operator only in the exact GELU, 0.5 * x * (1 + erf(x / sqrt(2)))}}
  %e = tosa.erf %x : (tensor<4xf32>) -> tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

func.func @tile(%x: tensor<2x4xf32>) -> tensor<4x4xf32> {
  %m = tosa.const_shape {values = dense<[2, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  // expected-error @+1 {{'tosa.tile' has no kn equivalent}}
  %t = tosa.tile %x, %m : (tensor<2x4xf32>, !tosa.shape<2>) -> tensor<4x4xf32>
  return %t : tensor<4x4xf32>
}

// -----

func.func @clamp_from_two(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{a clamp to [2, +inf) has no kn operator (only [0, +inf), kn.relu, does)}}
  %y = tosa.clamp %x {min_val = 2.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
