// The float64 check compares within rounding bounds computed from the
// programs (running error analysis), not a fixed tolerance, on inputs drawn
// at several scales and signs. Each class has several programs: near-misses
// that a tolerance of 1e-6 or inputs in [-1, 1) let through, and equivalent
// controls that tight bounds must still accept.
// RUN: not mirage-opt %s --mirage-verify-equivalence -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s

func.func @rms(%x: tensor<8x256xf32>) -> tensor<8x256xf32> {
  %y = kn.rms_norm %x {eps = 1.0e-6 : f64} : tensor<8x256xf32>
  return %y : tensor<8x256xf32>
}

// Square roots: field roots cannot decide these, the float64 check does.
// CHECK: [[@LINE+1]]:1: warning: not equivalent: differs from @rms: the fingerprints (exp and sqrt uninterpreted) and the float64 check both differ; first mismatch at output #0 element [0, 0] (float64, [-1, 1) inputs)
func.func @rms_eps_dropped(%x: tensor<8x256xf32>) -> tensor<8x256xf32> attributes {kn.reference = @rms} {
  %sq = kn.square %x : tensor<8x256xf32>
  %s = kn.reduce_sum %sq dim 1 : tensor<8x256xf32>
  %m = kn.mul_scalar %s, 0.00390625 : tensor<8x1xf32>
  %r = kn.sqrt %m : tensor<8x1xf32>
  %y = kn.div %x, %r : tensor<8x256xf32>, tensor<8x1xf32>
  return %y : tensor<8x256xf32>
}

// CHECK: [[@LINE+1]]:1: warning: not equivalent: differs from @rms: the fingerprints (exp and sqrt uninterpreted) and the float64 check both differ; first mismatch at output #0 element [0, 0] (float64, [-1, 1) inputs)
func.func @rms_eps_outside_the_root(%x: tensor<8x256xf32>) -> tensor<8x256xf32> attributes {kn.reference = @rms} {
  %sq = kn.square %x : tensor<8x256xf32>
  %s = kn.reduce_sum %sq dim 1 : tensor<8x256xf32>
  %m = kn.mul_scalar %s, 0.00390625 : tensor<8x1xf32>
  %r = kn.sqrt %m : tensor<8x1xf32>
  %t = kn.add_scalar %r, 1.0e-6 : tensor<8x1xf32>
  %y = kn.div %x, %t : tensor<8x256xf32>, tensor<8x1xf32>
  return %y : tensor<8x256xf32>
}

// CHECK: [[@LINE+1]]:1: warning: not equivalent: differs from @rms: the fingerprints (exp and sqrt uninterpreted) and the float64 check both differ; first mismatch at output #0 element [0, 0] (float64, [-1, 1) inputs)
func.func @rms_other_eps(%x: tensor<8x256xf32>) -> tensor<8x256xf32> attributes {kn.reference = @rms} {
  %y = kn.rms_norm %x {eps = 1.0e-5 : f64} : tensor<8x256xf32>
  return %y : tensor<8x256xf32>
}

// sqrt(4 t) / 2 = sqrt(t): equal, but only through a root identity.
// CHECK: [[@LINE+1]]:1: remark: tested, not proven: agrees with @rms (in the Lax fragment); the fingerprints differ with sqrt uninterpreted but the float64 check agrees
func.func @rms_root_of_four_times(%x: tensor<8x256xf32>) -> tensor<8x256xf32> attributes {kn.reference = @rms} {
  %sq = kn.square %x : tensor<8x256xf32>
  %s = kn.reduce_sum %sq dim 1 : tensor<8x256xf32>
  %m = kn.mul_scalar %s, 0.015625 : tensor<8x1xf32>
  %t = kn.add_scalar %m, 4.0e-6 : tensor<8x1xf32>
  %r = kn.sqrt %t : tensor<8x1xf32>
  %h = kn.mul_scalar %r, 0.5 : tensor<8x1xf32>
  %y = kn.div %x, %h : tensor<8x256xf32>, tensor<8x1xf32>
  return %y : tensor<8x256xf32>
}

func.func @relu(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %r = kn.relu %x : tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}

// Outside the Lax fragment, programs that agree on [-1, 1) and nowhere else:
// the wide inputs (magnitudes 2^-10 to 2^10) tell them apart.
// relu(x) - relu(x - 6) clamps at 6.
// CHECK: [[@LINE+1]]:1: warning: not equivalent: differs from @relu: the float64 check differs beyond the rounding bounds; first mismatch at output #0 element [{{[0-9]+, [0-9]+}}] (float64, +-2^[-10, 10] inputs): candidate 6.000000e+00
func.func @clamped_at_six(%x: tensor<16x64xf32>) -> tensor<16x64xf32> attributes {kn.reference = @relu} {
  %r = kn.relu %x : tensor<16x64xf32>
  %s = kn.add_scalar %x, -6.0 : tensor<16x64xf32>
  %q = kn.relu %s : tensor<16x64xf32>
  %c = kn.sub %r, %q : tensor<16x64xf32>, tensor<16x64xf32>
  return %c : tensor<16x64xf32>
}

// relu(x) - relu(-x) = x: equal everywhere.
// CHECK: [[@LINE+1]]:1: remark: tested, not proven: agrees with @identity (outside the Lax fragment: 'kn.relu' at {{.*}} has no finite-field semantics); the float64 check agrees on seeded inputs
func.func @relu_difference(%x: tensor<16x64xf32>) -> tensor<16x64xf32> attributes {kn.reference = @identity} {
  %p = kn.relu %x : tensor<16x64xf32>
  %n = kn.neg %x : tensor<16x64xf32>
  %q = kn.relu %n : tensor<16x64xf32>
  %y = kn.sub %p, %q : tensor<16x64xf32>, tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}

func.func @identity(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %y = kn.mul_scalar %x, 1.0 : tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}

// relu(x + 8) - 8 = x only for x >= -8.
// CHECK: [[@LINE+1]]:1: warning: not equivalent: differs from @identity: the float64 check differs beyond the rounding bounds; first mismatch at output #0 element [{{[0-9]+, [0-9]+}}] (float64, +-2^[-10, 10] inputs): candidate -8.000000e+00
func.func @shifted_relu(%x: tensor<16x64xf32>) -> tensor<16x64xf32> attributes {kn.reference = @identity} {
  %s = kn.add_scalar %x, 8.0 : tensor<16x64xf32>
  %r = kn.relu %s : tensor<16x64xf32>
  %y = kn.add_scalar %r, -8.0 : tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}

func.func @two(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %z = kn.mul_scalar %x, 0.0 : tensor<16x64xf32>
  %y = kn.add_scalar %z, 2.0 : tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}

// max(x, 2) = 2 only for x <= 2.
// CHECK: [[@LINE+1]]:1: warning: not equivalent: differs from @two: the float64 check differs beyond the rounding bounds; first mismatch at output #0 element [{{[0-9]+, [0-9]+}}] (float64, +-2^[-10, 10] inputs)
func.func @floor_at_two(%x: tensor<16x64xf32>) -> tensor<16x64xf32> attributes {kn.reference = @two} {
  %s = kn.add_scalar %x, -2.0 : tensor<16x64xf32>
  %r = kn.relu %s : tensor<16x64xf32>
  %y = kn.add_scalar %r, 2.0 : tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}

// Sizes: nothing to compare is never a proof, and sizes beyond what the
// interpreter can hold, or beyond 2^63 elements, are refused by name.
func.func @nothing() {
  return
}

// CHECK: [[@LINE+1]]:1: warning: inconclusive: against @nothing: the programs have no output elements; agreeing on none proves nothing
func.func @nothing_either() attributes {kn.reference = @nothing} {
  return
}

func.func @huge(%x: tensor<16x4294967296xf16>) -> tensor<16x4294967296xf16> {
  return %x : tensor<16x4294967296xf16>
}

// CHECK: [[@LINE+1]]:1: error: cannot check @huge_copy against @huge: the program is too large to evaluate: its tensors hold 68719476736 elements (the largest, argument #0 of type tensor<16x4294967296xf16>, 68719476736), more than the limit of 536870912; raise it with the option max-elements
func.func @huge_copy(%x: tensor<16x4294967296xf16>) -> tensor<16x4294967296xf16> attributes {kn.reference = @huge} {
  return %x : tensor<16x4294967296xf16>
}

func.func @wrapping(%x: tensor<4294967296x4294967296x16xf16>) -> tensor<4294967296x4294967296x16xf16> {
  return %x : tensor<4294967296x4294967296x16xf16>
}

// CHECK: [[@LINE+1]]:1: error: cannot check @wrapping_copy against @wrapping: argument #0 has type tensor<4294967296x4294967296x16xf16>, whose element count is not positive or exceeds 2^63 - 1; the interpreter cannot evaluate it
func.func @wrapping_copy(%x: tensor<4294967296x4294967296x16xf16>) -> tensor<4294967296x4294967296x16xf16> attributes {kn.reference = @wrapping} {
  return %x : tensor<4294967296x4294967296x16xf16>
}
