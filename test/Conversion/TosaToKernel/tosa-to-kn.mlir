// RUN: mirage-opt %s --convert-tosa-to-kn --split-input-file | FileCheck %s

// Every recognized pattern of convert-tosa-to-kn, one function each. The
// programs these make are checked against hand-written kn programs in
// programs.mlir; what is refused is in tosa-to-kn-invalid.mlir.

// CHECK-LABEL: func.func @elementwise(
// CHECK-SAME: %[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>)
// CHECK-DAG: kn.add %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-DAG: kn.sub %[[A]], %[[B]]
// CHECK-DAG: kn.mul %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-DAG: kn.neg %[[A]]
// CHECK-DAG: kn.exp %[[A]]
// CHECK-DAG: kn.sigmoid %[[A]]
// CHECK-DAG: kn.pow %[[A]], %[[B]]
// CHECK-DAG: kn.relu %[[A]]
// CHECK-NOT: tosa.
func.func @elementwise(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %add = tosa.add %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %sub = tosa.sub %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %mul = tosa.mul %a, %b, %shift : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  %neg = tosa.negate %a, %zp, %zp : (tensor<4x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8xf32>
  %exp = tosa.exp %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %sig = tosa.sigmoid %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %pow = tosa.pow %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %relu = tosa.clamp %a {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %id = tosa.identity %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %add, %sub, %mul, %neg, %exp, %sig, %pow, %relu, %id
      : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Elementwise ops used once fold into their users: a * reciprocal(b) is
// kn.div, x * rsqrt(v) a kn.mul by kn.rsqrt, x * sigmoid(x) kn.silu, maximum
// with a zero constant kn.relu, splat constants the scalar operators.
// CHECK-LABEL: func.func @folded_chains(
// CHECK-SAME: %[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>, %[[V:.*]]: tensor<4x1xf32>)
// CHECK-DAG: %[[D:.*]] = kn.div %[[A]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-DAG: %[[S:.*]] = kn.rsqrt %[[V]] : tensor<4x1xf32>
// CHECK-DAG: %[[N:.*]] = kn.mul %[[A]], %[[S]] : tensor<4x8xf32>, tensor<4x1xf32>
// CHECK-DAG: %[[SILU:.*]] = kn.silu %[[A]]
// CHECK-DAG: %[[RELU:.*]] = kn.relu %[[B]]
// CHECK-DAG: %[[MS:.*]] = kn.mul_scalar %[[A]], 5.000000e-01
// CHECK-DAG: %[[AS:.*]] = kn.add_scalar %[[MS]], 1.000000e+00
// CHECK: return %[[D]], %[[N]], %[[SILU]], %[[RELU]], %[[AS]]
func.func @folded_chains(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %v: tensor<4x1xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zero = "tosa.const"() <{values = dense<0.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %one = "tosa.const"() <{values = dense<1.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %r = tosa.reciprocal %b : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = tosa.mul %a, %r, %shift : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  %rs = tosa.rsqrt %v : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %n = tosa.mul %a, %rs, %shift : (tensor<4x8xf32>, tensor<4x1xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  %sig = tosa.sigmoid %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %silu = tosa.mul %a, %sig, %shift : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  %relu = tosa.maximum %b, %zero : (tensor<4x8xf32>, tensor<1x1xf32>) -> tensor<4x8xf32>
  %ms = tosa.mul %a, %half, %shift : (tensor<4x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  %as = tosa.add %ms, %one : (tensor<4x8xf32>, tensor<1x1xf32>) -> tensor<4x8xf32>
  return %d, %n, %silu, %relu, %as : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// The exact GELU from erf.
// CHECK-LABEL: func.func @gelu(
// CHECK-NEXT: %[[G:.*]] = kn.gelu %{{.*}} : tensor<4x8xf16>
// CHECK-NEXT: return %[[G]]
func.func @gelu(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1xf16>}> : () -> tensor<1x1xf16>
  %one = "tosa.const"() <{values = dense<1.0> : tensor<1x1xf16>}> : () -> tensor<1x1xf16>
  %isqrt2 = "tosa.const"() <{values = dense<0.70710678> : tensor<1x1xf16>}> : () -> tensor<1x1xf16>
  %s = tosa.mul %x, %isqrt2, %shift : (tensor<4x8xf16>, tensor<1x1xf16>, tensor<1xi8>) -> tensor<4x8xf16>
  %e = tosa.erf %s : (tensor<4x8xf16>) -> tensor<4x8xf16>
  %p = tosa.add %e, %one : (tensor<4x8xf16>, tensor<1x1xf16>) -> tensor<4x8xf16>
  %h = tosa.mul %x, %half, %shift : (tensor<4x8xf16>, tensor<1x1xf16>, tensor<1xi8>) -> tensor<4x8xf16>
  %g = tosa.mul %h, %p, %shift : (tensor<4x8xf16>, tensor<4x8xf16>, tensor<1xi8>) -> tensor<4x8xf16>
  return %g : tensor<4x8xf16>
}

// -----

// CHECK-LABEL: func.func @matmul_and_reductions(
// CHECK-SAME: %[[A:.*]]: tensor<2x16x32xbf16>, %[[B:.*]]: tensor<2x32x64xbf16>)
// CHECK: %[[M:.*]] = kn.matmul %[[A]], %[[B]] : tensor<2x16x32xbf16>, tensor<2x32x64xbf16>
// CHECK: %[[S:.*]] = kn.reduce_sum %[[M]] dim 2 : tensor<2x16x64xbf16>
// CHECK: %[[X:.*]] = kn.reduce_max %[[M]] dim 1 : tensor<2x16x64xbf16>
// CHECK: return %[[S]], %[[X]]
func.func @matmul_and_reductions(%a: tensor<2x16x32xbf16>, %b: tensor<2x32x64xbf16>) -> (tensor<2x16x1xbf16>, tensor<2x1x64xbf16>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %m = tosa.matmul %a, %b, %zp, %zp : (tensor<2x16x32xbf16>, tensor<2x32x64xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<2x16x64xbf16>
  %s = tosa.reduce_sum %m {axis = 2 : i32} : (tensor<2x16x64xbf16>) -> tensor<2x16x1xbf16>
  %x = tosa.reduce_max %m {axis = 1 : i32} : (tensor<2x16x64xbf16>) -> tensor<2x1x64xbf16>
  return %s, %x : tensor<2x16x1xbf16>, tensor<2x1x64xbf16>
}

// -----

// Data movement: reshape, transpose, concat, and slices as splits.
// CHECK-LABEL: func.func @data_movement(
// CHECK-SAME: %[[X:.*]]: tensor<4x6xf32>, %[[Y:.*]]: tensor<4x2xf32>)
// CHECK: %[[R:.*]] = kn.reshape %[[X]] : tensor<4x6xf32> -> tensor<2x12xf32>
// CHECK: %[[T:.*]] = kn.transpose %[[X]] permutation [1, 0] : tensor<4x6xf32>
// CHECK: %[[C:.*]] = kn.concat %[[X]], %[[Y]] dim 1 : tensor<4x6xf32>, tensor<4x2xf32>
// CHECK: %[[P:.*]]:3 = kn.split %[[X]] dim 0 sizes [1, 2, 1] : tensor<4x6xf32>
// CHECK: %[[Q:.*]]:2 = kn.split %[[P]]#1 dim 1 sizes [2, 4] : tensor<2x6xf32>
// CHECK: return %[[R]], %[[T]], %[[C]], %[[Q]]#1
func.func @data_movement(%x: tensor<4x6xf32>, %y: tensor<4x2xf32>) -> (tensor<2x12xf32>, tensor<6x4xf32>, tensor<4x8xf32>, tensor<2x4xf32>) {
  %shape = tosa.const_shape {values = dense<[2, 12]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %x, %shape : (tensor<4x6xf32>, !tosa.shape<2>) -> tensor<2x12xf32>
  %t = tosa.transpose %x {perms = array<i32: 1, 0>} : (tensor<4x6xf32>) -> tensor<6x4xf32>
  %c = tosa.concat %x, %y {axis = 1 : i32} : (tensor<4x6xf32>, tensor<4x2xf32>) -> tensor<4x8xf32>
  %start = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[2, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s = tosa.slice %x, %start, %size : (tensor<4x6xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x4xf32>
  return %r, %t, %c, %s : tensor<2x12xf32>, tensor<6x4xf32>, tensor<4x8xf32>, tensor<2x4xf32>
}

// -----

// An elementwise value used twice is computed once.
// CHECK-LABEL: func.func @shared_value(
// CHECK: %[[E:.*]] = kn.exp
// CHECK-NOT: kn.exp
// CHECK: kn.add %[[E]], %[[E]]
func.func @shared_value(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tosa.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %s = tosa.add %e, %e : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// tanh and the maximum of two tensors are kn operators of their own.
// CHECK-LABEL: func.func @tanh_maximum(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<1x8xf32>)
// CHECK: %[[T:.*]] = kn.tanh %[[X]] : tensor<4x8xf32>
// CHECK: %[[M:.*]] = kn.maximum %[[T]], %[[Y]] : tensor<4x8xf32>, tensor<1x8xf32>
// CHECK: return %[[M]]
func.func @tanh_maximum(%x: tensor<4x8xf32>, %y: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %t = tosa.tanh %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = tosa.maximum %t, %y : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  return %m : tensor<4x8xf32>
}
