// What the verifier claims outside proofs: programs outside the Lax fragment
// are only tested; exp identities are recognized but not proven; overflow of
// the element type and identically zero divisors are reported.
// RUN: mirage-opt %s --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s

func.func @relu_scale(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %r = kn.relu %x : tensor<16x64xf32>
  %s = kn.mul_scalar %r, 2.0 : tensor<16x64xf32>
  return %s : tensor<16x64xf32>
}

// relu has no finite-field semantics: tested, never proven.
// CHECK: [[@LINE+1]]:1: remark: tested, not proven: agrees with @relu_scale (outside the Lax fragment: 'kn.relu' at {{.*}} has no finite-field semantics); the float64 check agrees on seeded inputs; no finite-field proof covers these programs
func.func @scale_relu(%x: tensor<16x64xf32>) -> tensor<16x64xf32> attributes {kn.reference = @relu_scale} {
  %s = kn.mul_scalar %x, 2.0 : tensor<16x64xf32>
  %r = kn.relu %s : tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}

// Outside the fragment, a real difference shows in float64.
// CHECK: [[@LINE+1]]:1: warning: not equivalent: differs from @relu_scale: the float64 check differs beyond the rounding bounds; first mismatch at output #0 element [{{[0-9]+, [0-9]+}}] (float64, [-1, 1) inputs): candidate
func.func @scale_gelu(%x: tensor<16x64xf32>) -> tensor<16x64xf32> attributes {kn.reference = @relu_scale} {
  %s = kn.mul_scalar %x, 2.0 : tensor<16x64xf32>
  %r = kn.gelu %s : tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}

func.func @exp_of_sum(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %s = kn.add %a, %b : tensor<8x8xf32>, tensor<8x8xf32>
  %e = kn.exp %s : tensor<8x8xf32>
  return %e : tensor<8x8xf32>
}

// exp(a) exp(b) = exp(a + b) holds in the homomorphic fingerprint but not
// with exp uninterpreted: equivalent, but not proven.
// CHECK: [[@LINE+1]]:1: remark: tested, not proven: agrees with @exp_of_sum (in the Lax fragment); the fingerprints agree only with exp(a) exp(b) = exp(a + b), for which no useful bound is computed; the float64 check agrees
func.func @product_of_exps(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> attributes {kn.reference = @exp_of_sum} {
  %ea = kn.exp %a : tensor<8x8xf32>
  %eb = kn.exp %b : tensor<8x8xf32>
  %p = kn.mul %ea, %eb : tensor<8x8xf32>, tensor<8x8xf32>
  return %p : tensor<8x8xf32>
}

func.func @double_exp(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = kn.exp %a : tensor<8x8xf32>
  %f = kn.exp %e : tensor<8x8xf32>
  return %f : tensor<8x8xf32>
}

// Two exponentials on one path are outside the Lax fragment.
// CHECK: [[@LINE+1]]:1: remark: tested, not proven: agrees with @double_exp (outside the Lax fragment: 'kn.exp' at {{.*}} is a second exponential on a path)
func.func @double_exp_copy(%a: tensor<8x8xf32>) -> tensor<8x8xf32> attributes {kn.reference = @double_exp} {
  %e = kn.exp %a : tensor<8x8xf32>
  %f = kn.exp %e : tensor<8x8xf32>
  return %f : tensor<8x8xf32>
}

func.func @identity(%x: tensor<64x64xf16>) -> tensor<64x64xf16> {
  %y = kn.mul_scalar %x, 1.0 : tensor<64x64xf16>
  return %y : tensor<64x64xf16>
}

// Equal functions, but the intermediate leaves f16's range (65504).
// CHECK: [[@LINE+1]]:1: warning: numerically unstable: against @identity: 'kn.mul_scalar' at {{.*}} produces {{.*}}e+{{[0-9]+}}, beyond the largest value 6.550400e+04 of its element type
func.func @scaled_up_and_down(%x: tensor<64x64xf16>) -> tensor<64x64xf16> attributes {kn.reference = @identity} {
  %up = kn.mul_scalar %x, 1048576.0 : tensor<64x64xf16>
  %down = kn.mul_scalar %up, 9.5367431640625e-07 : tensor<64x64xf16>
  return %down : tensor<64x64xf16>
}

func.func @ratio(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = kn.sub %x, %x : tensor<4xf32>, tensor<4xf32>
  %r = kn.div %x, %zero : tensor<4xf32>, tensor<4xf32>
  return %r : tensor<4xf32>
}

// Every draw divides by zero: no verdict, and never a silent one.
// CHECK: [[@LINE+1]]:1: warning: inconclusive: against @ratio: every draw of inputs hit a zero divisor; {{.*}}; 9 input draws redone
func.func @ratio_copy(%x: tensor<4xf32>) -> tensor<4xf32> attributes {kn.reference = @ratio} {
  %zero = kn.sub %x, %x : tensor<4xf32>, tensor<4xf32>
  %r = kn.div %x, %zero : tensor<4xf32>, tensor<4xf32>
  return %r : tensor<4xf32>
}

// rsqrt is 1 / sqrt: proven equal to dividing by the root (of a positive
// v^2 + 1, so that float64 has real roots too).
func.func @div_by_root(%x: tensor<8x8xf32>, %w: tensor<8x1xf32>) -> tensor<8x8xf32> {
  %s = kn.square %w : tensor<8x1xf32>
  %v = kn.add_scalar %s, 1.0 : tensor<8x1xf32>
  %r = kn.sqrt %v : tensor<8x1xf32>
  %d = kn.div %x, %r : tensor<8x8xf32>, tensor<8x1xf32>
  return %d : tensor<8x8xf32>
}

// CHECK: [[@LINE+1]]:1: remark: proven: equivalent to @div_by_root (in the Lax fragment)
func.func @mul_by_rsqrt(%x: tensor<8x8xf32>, %w: tensor<8x1xf32>) -> tensor<8x8xf32> attributes {kn.reference = @div_by_root} {
  %s = kn.square %w : tensor<8x1xf32>
  %v = kn.add_scalar %s, 1.0 : tensor<8x1xf32>
  %r = kn.rsqrt %v : tensor<8x1xf32>
  %m = kn.mul %x, %r : tensor<8x8xf32>, tensor<8x1xf32>
  return %m : tensor<8x8xf32>
}

// tanh and maximum have no finite-field semantics: tested, never proven;
// tanh(x) = 2 sigmoid(2x) - 1 agrees in float64, tanh(x) + 1 does not.
func.func @tanh_max(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %t = kn.tanh %x : tensor<8x8xf32>
  %m = kn.maximum %t, %y : tensor<8x8xf32>, tensor<8x8xf32>
  return %m : tensor<8x8xf32>
}

// CHECK: [[@LINE+1]]:1: remark: tested, not proven: agrees with @tanh_max (outside the Lax fragment: 'kn.maximum' at {{.*}} has no finite-field semantics); the float64 check agrees on seeded inputs
func.func @sigmoid_max(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>) -> tensor<8x8xf32> attributes {kn.reference = @tanh_max} {
  %x2 = kn.mul_scalar %x, 2.0 : tensor<8x8xf32>
  %s = kn.sigmoid %x2 : tensor<8x8xf32>
  %s2 = kn.mul_scalar %s, 2.0 : tensor<8x8xf32>
  %t = kn.add_scalar %s2, -1.0 : tensor<8x8xf32>
  %m = kn.maximum %y, %t : tensor<8x8xf32>, tensor<8x8xf32>
  return %m : tensor<8x8xf32>
}

// CHECK: [[@LINE+1]]:1: warning: not equivalent: differs from @tanh_max
func.func @shifted_tanh_max(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>) -> tensor<8x8xf32> attributes {kn.reference = @tanh_max} {
  %t = kn.tanh %x : tensor<8x8xf32>
  %t1 = kn.add_scalar %t, 1.0 : tensor<8x8xf32>
  %m = kn.maximum %t1, %y : tensor<8x8xf32>, tensor<8x8xf32>
  return %m : tensor<8x8xf32>
}
