// RUN: mirage-opt %s --convert-linalg-to-kn --split-input-file | FileCheck %s

// Every recognized pattern of convert-linalg-to-kn, one function each. The
// programs these make are checked against hand-written kn programs in
// programs.mlir; what is refused is in linalg-to-kn-invalid.mlir.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// A matmul into a zero fill is kn.matmul; the fill and empty disappear.
// CHECK-LABEL: func.func @matmul_zero_fill(
// CHECK-SAME: %[[A:.*]]: tensor<16x32xf32>, %[[B:.*]]: tensor<32x64xf32>)
// CHECK-NEXT: %[[M:.*]] = kn.matmul %[[A]], %[[B]] : tensor<16x32xf32>, tensor<32x64xf32>
// CHECK-NEXT: return %[[M]]
func.func @matmul_zero_fill(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x64xf32>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %m : tensor<16x64xf32>
}

// -----

// Accumulating into a tensor adds it.
// CHECK-LABEL: func.func @matmul_accumulate(
// CHECK-SAME: %[[A:.*]]: tensor<16x32xf32>, %[[B:.*]]: tensor<32x64xf32>, %[[C:.*]]: tensor<16x64xf32>)
// CHECK: %[[M:.*]] = kn.matmul %[[A]], %[[B]]
// CHECK: %[[S:.*]] = kn.add %{{.*}}, %{{.*}} : tensor<16x64xf32>, tensor<16x64xf32>
// CHECK: return %[[S]]
func.func @matmul_accumulate(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x64xf32>) outs(%c : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %m : tensor<16x64xf32>
}

// -----

// A fill with another constant is added as a scalar.
// CHECK-LABEL: func.func @matmul_fill_constant(
// CHECK: %[[M:.*]] = kn.matmul
// CHECK: %[[S:.*]] = kn.add_scalar %[[M]], 2.000000e+00 : tensor<16x64xf32>
// CHECK: return %[[S]]
func.func @matmul_fill_constant(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>) -> tensor<16x64xf32> {
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %f = linalg.fill ins(%two : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x64xf32>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %m : tensor<16x64xf32>
}

// -----

// The transposed form (B read as [n, k]) transposes B.
// CHECK-LABEL: func.func @matmul_transpose_b(
// CHECK-SAME: %[[A:.*]]: tensor<16x32xf32>, %[[B:.*]]: tensor<64x32xf32>)
// CHECK: %[[BT:.*]] = kn.transpose %[[B]] permutation [1, 0] : tensor<64x32xf32>
// CHECK: %[[M:.*]] = kn.matmul %[[A]], %[[BT]] : tensor<16x32xf32>, tensor<32x64xf32>
// CHECK: return %[[M]]
func.func @matmul_transpose_b(%a: tensor<16x32xf32>, %b: tensor<64x32xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %m = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<16x32xf32>, tensor<64x32xf32>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %m : tensor<16x64xf32>
}

// -----

// CHECK-LABEL: func.func @batch_matmul(
// CHECK-SAME: %[[A:.*]]: tensor<4x16x32xf16>, %[[B:.*]]: tensor<4x32x64xf16>)
// CHECK: %[[M:.*]] = kn.matmul %[[A]], %[[B]] : tensor<4x16x32xf16>, tensor<4x32x64xf16>
// CHECK: return %[[M]]
func.func @batch_matmul(%a: tensor<4x16x32xf16>, %b: tensor<4x32x64xf16>) -> tensor<4x16x64xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4x16x64xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<4x16x64xf16>) -> tensor<4x16x64xf16>
  %m = linalg.batch_matmul ins(%a, %b : tensor<4x16x32xf16>, tensor<4x32x64xf16>) outs(%f : tensor<4x16x64xf16>) -> tensor<4x16x64xf16>
  return %m : tensor<4x16x64xf16>
}

// -----

// A weight shared by every batch broadcasts in kn.matmul.
// CHECK-LABEL: func.func @batched_shared_weight(
// CHECK-SAME: %[[A:.*]]: tensor<4x16x32xf32>, %[[W:.*]]: tensor<32x64xf32>)
// CHECK: %[[W3:.*]] = kn.reshape %[[W]] : tensor<32x64xf32> -> tensor<1x32x64xf32>
// CHECK: %[[M:.*]] = kn.matmul %[[A]], %[[W3]] : tensor<4x16x32xf32>, tensor<1x32x64xf32>
// CHECK: return %[[M]]
func.func @batched_shared_weight(%a: tensor<4x16x32xf32>, %w: tensor<32x64xf32>) -> tensor<4x16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16x64xf32>) -> tensor<4x16x64xf32>
  %m = linalg.generic {
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<4x16x32xf32>, tensor<32x64xf32>) outs(%f : tensor<4x16x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x16x64xf32>
  return %m : tensor<4x16x64xf32>
}

// -----

// CHECK-LABEL: func.func @matvec(
// CHECK-SAME: %[[A:.*]]: tensor<8x16xf32>, %[[V:.*]]: tensor<16xf32>)
// CHECK: %[[V2:.*]] = kn.reshape %[[V]] : tensor<16xf32> -> tensor<16x1xf32>
// CHECK: %[[M:.*]] = kn.matmul %[[A]], %[[V2]] : tensor<8x16xf32>, tensor<16x1xf32>
// CHECK: %[[R:.*]] = kn.reshape %[[M]] : tensor<8x1xf32> -> tensor<8xf32>
// CHECK: return %[[R]]
func.func @matvec(%a: tensor<8x16xf32>, %v: tensor<16xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %m = linalg.matvec ins(%a, %v : tensor<8x16xf32>, tensor<16xf32>) outs(%f : tensor<8xf32>) -> tensor<8xf32>
  return %m : tensor<8xf32>
}

// -----

// A dot product has no free dim: a product and a sum.
// CHECK-LABEL: func.func @dot(
// CHECK-SAME: %[[A:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK: %[[P:.*]] = kn.mul %{{.*}}, %{{.*}} : tensor<16xf32>, tensor<16xf32>
// CHECK: %[[S:.*]] = kn.reduce_sum %[[P]] dim 0 : tensor<16xf32>
// CHECK: %[[R:.*]] = kn.reshape %[[S]] : tensor<1xf32> -> tensor<f32>
// CHECK: return %[[R]]
func.func @dot(%a: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %d = linalg.dot ins(%a, %b : tensor<16xf32>, tensor<16xf32>) outs(%f : tensor<f32>) -> tensor<f32>
  return %d : tensor<f32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Bodies map to the kn operators whose scalar forms cover them.
// CHECK-LABEL: func.func @unary_forms(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>)
// CHECK-DAG: kn.exp %[[X]]
// CHECK-DAG: kn.sqrt %[[X]]
// CHECK-DAG: kn.neg %[[X]]
// CHECK-DAG: kn.square %[[X]]
// CHECK-DAG: kn.relu %[[X]]
// CHECK-DAG: kn.sigmoid %[[X]]
// CHECK-DAG: kn.silu %[[X]]
// CHECK-DAG: kn.gelu %[[X]]
// CHECK-NOT: linalg
func.func @unary_forms(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
                                              tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %exp = linalg.exp ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %sqrt = linalg.sqrt ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %neg = linalg.negf ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %square = linalg.square ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %sigmoid = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %a : f32
    %ex = math.exp %n : f32
    %d = arith.addf %one, %ex : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  // x * sigmoid(x) with the sigmoid written as exp(x * -1).
  %silu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %m1 = arith.constant -1.0 : f32
    %n = arith.mulf %a, %m1 : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %s = arith.divf %one, %d : f32
    %r = arith.mulf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  // The exact GELU: x * 0.5 * (1 + erf(x / sqrt(2))).
  %gelu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %sqrt2 = arith.constant 1.41421354 : f32
    %h = arith.mulf %a, %half : f32
    %q = arith.divf %a, %sqrt2 : f32
    %er = math.erf %q : f32
    %p = arith.addf %er, %one : f32
    %r = arith.mulf %h, %p : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %exp, %sqrt, %neg, %square, %relu, %sigmoid, %silu, %gelu
      : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @binary_forms(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK-DAG: kn.add %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-DAG: kn.sub %[[X]], %[[Y]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-DAG: kn.mul %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-DAG: kn.div %[[X]], %[[Y]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-DAG: kn.pow %[[X]], %[[Y]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NOT: linalg
func.func @binary_forms(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %add = linalg.add ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %sub = linalg.sub ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mul = linalg.mul ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %div = linalg.div ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %pow = linalg.powf ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %add, %sub, %mul, %div, %pow : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Constants become the scalars of mul_scalar and add_scalar: x / 4 is
// x * 0.25, x - 2 is x + -2.
// CHECK-LABEL: func.func @scalar_forms(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[A:.*]] = kn.mul_scalar %[[X]], 2.500000e-01
// CHECK: %[[B:.*]] = kn.add_scalar %[[A]], -2.000000e+00
// CHECK: return %[[B]]
func.func @scalar_forms(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %four = arith.constant 4.0 : f32
    %two = arith.constant 2.0 : f32
    %q = arith.divf %a, %four : f32
    %s = arith.subf %q, %two : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// An operand read along the last dims broadcasts as it is; one read along
// the rows becomes a column first.
// CHECK-LABEL: func.func @broadcast_reads(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[C:.*]]: tensor<8xf32>, %[[R:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[A:.*]] = kn.add %{{.*}}, %{{.*}} : tensor<{{4x8|8}}xf32>, tensor<{{4x8|8}}xf32>
// CHECK-DAG: %[[R2:.*]] = kn.reshape %[[R]] : tensor<4xf32> -> tensor<4x1xf32>
// CHECK: kn.mul %{{.*}}, %{{.*}} : tensor<{{4x8|4x1}}xf32>, tensor<{{4x8|4x1}}xf32>
// CHECK-NOT: kn.transpose
func.func @broadcast_reads(%x: tensor<4x8xf32>, %c: tensor<8xf32>, %r: tensor<4xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %c, %r : tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %s: f32, %o: f32):
    %t = arith.addf %a, %b : f32
    %u = arith.mulf %t, %s : f32
    linalg.yield %u : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// linalg.transpose is kn.transpose; linalg.broadcast feeding an elementwise
// op broadcasts in it and is never materialized.
// CHECK-LABEL: func.func @transpose_and_broadcast(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[V:.*]]: tensor<4xf32>)
// CHECK: %[[T:.*]] = kn.transpose %[[X]] permutation [1, 0] : tensor<4x8xf32>
// CHECK: %[[S:.*]] = kn.add %{{.*}}, %{{.*}} : tensor<{{8x4|4}}xf32>, tensor<{{8x4|4}}xf32>
// CHECK: return %[[T]], %[[S]]
func.func @transpose_and_broadcast(%x: tensor<4x8xf32>, %v: tensor<4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %e = tensor.empty() : tensor<8x4xf32>
  %t = linalg.transpose ins(%x : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0]
  %b = linalg.broadcast ins(%v : tensor<4xf32>) outs(%e : tensor<8x4xf32>) dimensions = [0]
  %s = linalg.add ins(%t, %b : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %t, %s : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// linalg.reduce and reduction generics: sums, maxima from -inf, a maximum
// from 0 (relu of the maximum), several reduced dims, an operand constant
// along the reduced dim (a scaled copy), and a kept dim (index 0).
// CHECK-LABEL: func.func @reductions(
// CHECK-SAME: %[[X:.*]]: tensor<4x8x16xf32>, %[[V:.*]]: tensor<4xf32>, %[[W:.*]]: tensor<4x16xf32>)
// CHECK: %[[S:.*]] = kn.reduce_sum %[[X]] dim 2 : tensor<4x8x16xf32>
// CHECK: %[[S2:.*]] = kn.reshape %[[S]] : tensor<4x8x1xf32> -> tensor<4x8xf32>
// CHECK: %[[M:.*]] = kn.reduce_max %[[X]] dim 2 : tensor<4x8x16xf32>
// CHECK: %[[M2:.*]] = kn.reshape %[[M]] : tensor<4x8x1xf32> -> tensor<4x8xf32>
// CHECK: %[[R:.*]] = kn.reduce_max %[[X]] dim 2 : tensor<4x8x16xf32>
// CHECK: %[[R2:.*]] = kn.reshape %[[R]] : tensor<4x8x1xf32> -> tensor<4x8xf32>
// CHECK: %[[RELU:.*]] = kn.relu %[[R2]] : tensor<4x8xf32>
// CHECK: %[[T2:.*]] = kn.reduce_sum %[[X]] dim 2 : tensor<4x8x16xf32>
// CHECK: %[[T1:.*]] = kn.reduce_sum %[[T2]] dim 1 : tensor<4x8x1xf32>
// CHECK: %[[T:.*]] = kn.reshape %[[T1]] : tensor<4x1x1xf32> -> tensor<4xf32>
// CHECK: %[[N:.*]] = kn.mul_scalar %[[V]], 1.600000e+01 : tensor<4xf32>
// CHECK: %[[K:.*]] = kn.reduce_sum %[[X]] dim 2 : tensor<4x8x16xf32>
// CHECK: return %[[S2]], %[[M2]], %[[RELU]], %[[T]], %[[N]], %[[K]]
func.func @reductions(%x: tensor<4x8x16xf32>, %v: tensor<4xf32>, %w: tensor<4x16xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x8x1xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e2 = tensor.empty() : tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %ek = tensor.empty() : tensor<4x8x1xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %n2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %zk = linalg.fill ins(%zero : f32) outs(%ek : tensor<4x8x1xf32>) -> tensor<4x8x1xf32>
  %sum = linalg.reduce ins(%x : tensor<4x8x16xf32>) outs(%z2 : tensor<4x8xf32>) dimensions = [2]
    (%a: f32, %acc: f32) {
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
  %max = linalg.reduce ins(%x : tensor<4x8x16xf32>) outs(%n2 : tensor<4x8xf32>) dimensions = [2]
    (%a: f32, %acc: f32) {
      %r = arith.maximumf %a, %acc : f32
      linalg.yield %r : f32
    }
  %relu = linalg.reduce ins(%x : tensor<4x8x16xf32>) outs(%z2 : tensor<4x8xf32>) dimensions = [2]
    (%a: f32, %acc: f32) {
      %r = arith.maximumf %a, %acc : f32
      linalg.yield %r : f32
    }
  %both = linalg.reduce ins(%x : tensor<4x8x16xf32>) outs(%z1 : tensor<4xf32>) dimensions = [1, 2]
    (%a: f32, %acc: f32) {
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
  %scaled = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>,
                                             affine_map<(d0, d1) -> (d0)>],
                            iterator_types = ["parallel", "reduction"]}
      ins(%v, %w : tensor<4xf32>, tensor<4x16xf32>) outs(%z1 : tensor<4xf32>) {
  ^bb0(%a: f32, %unused: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %kept = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>],
                          iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<4x8x16xf32>) outs(%zk : tensor<4x8x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4x8x1xf32>
  return %sum, %max, %relu, %both, %scaled, %kept : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x8x1xf32>
}

// -----

// linalg.softmax, through upstream's decomposition (max from NaN with
// maxnumf).
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME: %[[X:.*]]: tensor<4x64xf32>)
// CHECK: %[[M:.*]] = kn.reduce_max %[[X]] dim 1
// CHECK: %[[D:.*]] = kn.sub %[[X]], %[[M]]
// CHECK: %[[E:.*]] = kn.exp %[[D]]
// CHECK: %[[S:.*]] = kn.reduce_sum %[[E]] dim 1
// CHECK: %[[P:.*]] = kn.div %[[E]], %[[S]]
// CHECK: return %[[P]]
func.func @softmax(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %e = tensor.empty() : tensor<4x64xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) -> tensor<4x64xf32>
  return %s : tensor<4x64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// An elementwise op used once folds into its user: 1 / y (no kn operator on
// its own) times x is kn.div.
// CHECK-LABEL: func.func @fold_across_ops(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[D:.*]] = kn.div %[[X]], %[[Y]]
// CHECK-NEXT: return %[[D]]
func.func @fold_across_ops(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.reciprocal ins(%y : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = linalg.mul ins(%x, %r : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %m : tensor<4x8xf32>
}

// -----

// A value used twice is computed once.
// CHECK-LABEL: func.func @shared_value(
// CHECK: %[[E:.*]] = kn.exp
// CHECK-NOT: kn.exp
// CHECK: kn.add %[[E]], %[[E]]
func.func @shared_value(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %a = linalg.exp ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = linalg.add ins(%a, %a : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A parallel op that reads its output reads the output's initial value; a
// splat constant operand is a scalar; linalg.copy is the value itself.
// CHECK-LABEL: func.func @inits_constants_copies(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[C:.*]]: tensor<4x8xf32>)
// CHECK: %[[A:.*]] = kn.add %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK: %[[B:.*]] = kn.mul_scalar %[[X]], 3.000000e+00
// CHECK: return %[[A]], %[[B]], %[[X]]
func.func @inits_constants_copies(%x: tensor<4x8xf32>, %c: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %three = arith.constant dense<3.0> : tensor<4x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%c : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %b = linalg.mul ins(%x, %three : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %copy = linalg.copy ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %a, %b, %copy : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Tensor ops around linalg: reshapes (which compose), concatenation, slices
// as splits.
// CHECK-LABEL: func.func @tensor_ops(
// CHECK-SAME: %[[X:.*]]: tensor<8x8xf32>, %[[Y:.*]]: tensor<4x24xf32>)
// CHECK: %[[E:.*]] = kn.reshape %[[X]] : tensor<8x8xf32> -> tensor<2x4x8xf32>
// CHECK: %[[CAT:.*]] = kn.concat %[[X]], %[[X]] dim 1 : tensor<8x8xf32>, tensor<8x8xf32>
// CHECK: %[[P:.*]]:3 = kn.split %[[Y]] dim 1 sizes [8, 8, 8] : tensor<4x24xf32>
// CHECK: %[[Q:.*]]:2 = kn.split %[[Y]] dim 0 sizes [1, 3] : tensor<4x24xf32>
// CHECK: %[[Q2:.*]]:3 = kn.split %[[Q]]#0 dim 1 sizes [8, 8, 8] : tensor<1x24xf32>
// CHECK: %[[R:.*]] = kn.reshape %[[Q2]]#1 : tensor<1x8xf32> -> tensor<8xf32>
// CHECK: return %[[E]], %[[CAT]], %[[P]]#1, %[[R]]
func.func @tensor_ops(%x: tensor<8x8xf32>, %y: tensor<4x24xf32>) -> (tensor<2x4x8xf32>, tensor<8x16xf32>, tensor<4x8xf32>, tensor<8xf32>) {
  %e = tensor.expand_shape %x [[0, 1], [2]] output_shape [2, 4, 8] : tensor<8x8xf32> into tensor<2x4x8xf32>
  %c = tensor.collapse_shape %e [[0, 1], [2]] : tensor<2x4x8xf32> into tensor<8x8xf32>
  %cat = tensor.concat dim(1) %c, %x : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x16xf32>
  %mid = tensor.extract_slice %y[0, 8] [4, 8] [1, 1] : tensor<4x24xf32> to tensor<4x8xf32>
  %row = tensor.extract_slice %y[0, 8] [1, 8] [1, 1] : tensor<4x24xf32> to tensor<8xf32>
  return %e, %cat, %mid, %row : tensor<2x4x8xf32>, tensor<8x16xf32>, tensor<4x8xf32>, tensor<8xf32>
}

// -----

// Ops of other dialects are left alone; their tensor results are kn values.
// CHECK-LABEL: func.func @other_ops(
// CHECK: %[[K:.*]] = kn.exp
// CHECK: %[[C:.*]] = call @g(%[[K]])
// CHECK: kn.neg %[[C]]
func.func private @g(tensor<4xf32>) -> tensor<4xf32>
func.func @other_ops(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %c = func.call @g(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %n = linalg.negf ins(%c : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %n : tensor<4xf32>
}

// -----

// More named forms read through the same interface: vecmat, batch_matvec,
// linalg.contract, linalg.map, linalg.elementwise.
// CHECK-LABEL: func.func @named_forms(
// CHECK-SAME: %[[V:.*]]: tensor<16xf32>, %[[A:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<2x8x16xf32>, %[[W:.*]]: tensor<2x16xf32>)
// CHECK: %[[V2:.*]] = kn.reshape %[[V]] : tensor<16xf32> -> tensor<1x16xf32>
// CHECK: %[[VM:.*]] = kn.matmul %[[V2]], %[[A]] : tensor<1x16xf32>, tensor<16x8xf32>
// CHECK: %[[W2:.*]] = kn.reshape %[[W]] : tensor<2x16xf32> -> tensor<2x16x1xf32>
// CHECK: %[[BM:.*]] = kn.matmul %[[B]], %[[W2]] : tensor<2x8x16xf32>, tensor<2x16x1xf32>
// CHECK: %[[C:.*]] = kn.matmul %{{.*}}, %[[A]] : tensor<{{.*}}>, tensor<16x8xf32>
// CHECK: kn.exp %[[A]]
// CHECK: kn.sub %[[A]], %[[A]]
func.func @named_forms(%v: tensor<16xf32>, %a: tensor<16x8xf32>, %b: tensor<2x8x16xf32>, %w: tensor<2x16xf32>)
    -> (tensor<8xf32>, tensor<2x8xf32>, tensor<4x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e8 = tensor.empty() : tensor<8xf32>
  %f8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %vm = linalg.vecmat ins(%v, %a : tensor<16xf32>, tensor<16x8xf32>) outs(%f8 : tensor<8xf32>) -> tensor<8xf32>
  %e28 = tensor.empty() : tensor<2x8xf32>
  %f28 = linalg.fill ins(%zero : f32) outs(%e28 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %bm = linalg.batch_matvec ins(%b, %w : tensor<2x8x16xf32>, tensor<2x16xf32>) outs(%f28 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %rows = tensor.extract_slice %b[0, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<2x8x16xf32> to tensor<4x16xf32>
  %e48 = tensor.empty() : tensor<4x8xf32>
  %f48 = linalg.fill ins(%zero : f32) outs(%e48 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = linalg.contract indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%rows, %a : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f48 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e = tensor.empty() : tensor<16x8xf32>
  %m = linalg.map { math.exp } ins(%a : tensor<16x8xf32>) outs(%e : tensor<16x8xf32>)
  %s = linalg.elementwise kind=#linalg.elementwise_kind<sub> ins(%a, %a : tensor<16x8xf32>, tensor<16x8xf32>) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %vm, %bm, %c, %m, %s : tensor<8xf32>, tensor<2x8xf32>, tensor<4x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>
}

// -----

// Values read inside the regions of other ops get the kn tensor too, and
// the linalg op they came from goes.
// CHECK-LABEL: func.func @read_in_a_region(
// CHECK: %[[E:.*]] = kn.exp
// CHECK: scf.for
// CHECK-NEXT: scf.yield %[[E]]
// CHECK-NOT: linalg
func.func @read_in_a_region(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> tensor<4xf32> {
    scf.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// tanh, 1 / sqrt and the maximum of two tensors are operators of their own
// (kn.tanh, kn.rsqrt, kn.maximum); a maximum reduced into an initialized
// tensor is kn.reduce_max, then kn.maximum with the initial values.
#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @tanh_rsqrt_maximum(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>, %[[C:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[T:.*]] = kn.tanh %[[X]] : tensor<4x8xf32>
// CHECK-DAG: %[[R:.*]] = kn.rsqrt %[[Y]] : tensor<4x8xf32>
// CHECK-DAG: %[[M:.*]] = kn.maximum %[[T]], %[[R]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-DAG: %[[RM:.*]] = kn.reduce_max %[[X]] dim 1 : tensor<4x8xf32>
// CHECK-DAG: %[[RS:.*]] = kn.reshape %[[RM]] : tensor<4x1xf32> -> tensor<4xf32>
// CHECK-DAG: %[[MC:.*]] = kn.maximum %[[RS]], %[[C]] : tensor<4xf32>, tensor<4xf32>
// CHECK: return %[[M]], %[[MC]]
func.func @tanh_rsqrt_maximum(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %c: tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = math.tanh %a : f32
    %r = math.rsqrt %b : f32
    %v = arith.maximumf %t, %r : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %mc = linalg.reduce ins(%x : tensor<4x8xf32>) outs(%c : tensor<4xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %r = arith.maximumf %a, %acc : f32
      linalg.yield %r : f32
    }
  return %m, %mc : tensor<4x8xf32>, tensor<4xf32>
}
