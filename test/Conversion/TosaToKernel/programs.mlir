// The three programs of test/Conversion/LinalgToKernel/programs.mlir as TOSA
// writes them (f32): a gated MLP, attention with a max-subtracted softmax,
// and RMSNorm + projection. Each converts to kn, is checked against the
// hand-written kn program it equals, and lowers to PTX.

// RUN: mirage-opt %s --convert-tosa-to-kn | FileCheck %s
// RUN: mirage-opt %s --convert-tosa-to-kn --mirage-verify-equivalence="error-on-failure=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mirage-opt %s --mirage-tosa-to-ptx | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: func.func @gated_mlp(
// CHECK-SAME: %[[X:.*]]: tensor<1x8x64xf32>, %[[W1:.*]]: tensor<1x64x128xf32>, %[[W3:.*]]: tensor<1x64x128xf32>)
// CHECK: %[[H1:.*]] = kn.matmul %[[X]], %[[W1]] : tensor<1x8x64xf32>, tensor<1x64x128xf32>
// CHECK: %[[H3:.*]] = kn.matmul %[[X]], %[[W3]] : tensor<1x8x64xf32>, tensor<1x64x128xf32>
// CHECK: %[[G:.*]] = kn.silu %[[H1]] : tensor<1x8x128xf32>
// CHECK: %[[O:.*]] = kn.mul %{{.*}}, %{{.*}} : tensor<1x8x128xf32>, tensor<1x8x128xf32>
// CHECK: return %[[O]]
// VERIFY: remark: proven: equivalent to @gated_mlp_kn
// PTX: gpu.binary @gated_mlp_kernels
func.func @gated_mlp(%x: tensor<1x8x64xf32>, %w1: tensor<1x64x128xf32>, %w3: tensor<1x64x128xf32>) -> tensor<1x8x128xf32>
    attributes {kn.reference = @gated_mlp_kn} {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %h1 = tosa.matmul %x, %w1, %zp, %zp : (tensor<1x8x64xf32>, tensor<1x64x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x128xf32>
  %h3 = tosa.matmul %x, %w3, %zp, %zp : (tensor<1x8x64xf32>, tensor<1x64x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x128xf32>
  %s = tosa.sigmoid %h1 : (tensor<1x8x128xf32>) -> tensor<1x8x128xf32>
  %g = tosa.mul %h1, %s, %shift : (tensor<1x8x128xf32>, tensor<1x8x128xf32>, tensor<1xi8>) -> tensor<1x8x128xf32>
  %o = tosa.mul %g, %h3, %shift : (tensor<1x8x128xf32>, tensor<1x8x128xf32>, tensor<1xi8>) -> tensor<1x8x128xf32>
  return %o : tensor<1x8x128xf32>
}

func.func @gated_mlp_kn(%x: tensor<1x8x64xf32>, %w1: tensor<1x64x128xf32>, %w3: tensor<1x64x128xf32>) -> tensor<1x8x128xf32> {
  %h1 = kn.matmul %x, %w1 : tensor<1x8x64xf32>, tensor<1x64x128xf32>
  %h3 = kn.matmul %x, %w3 : tensor<1x8x64xf32>, tensor<1x64x128xf32>
  %g = kn.silu %h1 : tensor<1x8x128xf32>
  %o = kn.mul %g, %h3 : tensor<1x8x128xf32>, tensor<1x8x128xf32>
  return %o : tensor<1x8x128xf32>
}

// CHECK-LABEL: func.func @attention(
// CHECK-SAME: %[[Q:.*]]: tensor<2x16x64xf32>, %[[K:.*]]: tensor<2x32x64xf32>, %[[V:.*]]: tensor<2x32x64xf32>)
// CHECK: %[[KT:.*]] = kn.transpose %[[K]] permutation [0, 2, 1]
// CHECK: %[[S:.*]] = kn.matmul %[[Q]], %[[KT]] : tensor<2x16x64xf32>, tensor<2x64x32xf32>
// CHECK: %[[SS:.*]] = kn.mul_scalar %[[S]], 1.250000e-01
// CHECK: %[[M:.*]] = kn.reduce_max %[[SS]] dim 2
// CHECK: %[[D:.*]] = kn.sub %[[SS]], %[[M]]
// CHECK: %[[E:.*]] = kn.exp %[[D]]
// CHECK: %[[SUM:.*]] = kn.reduce_sum %[[E]] dim 2
// CHECK: %[[P:.*]] = kn.div %[[E]], %[[SUM]]
// CHECK: %[[O:.*]] = kn.matmul %[[P]], %[[V]] : tensor<2x16x32xf32>, tensor<2x32x64xf32>
// CHECK: return %[[O]]
// VERIFY: remark: tested, not proven: agrees with @attention_kn
// PTX: gpu.binary @attention_kernels
func.func @attention(%q: tensor<2x16x64xf32>, %k: tensor<2x32x64xf32>, %v: tensor<2x32x64xf32>) -> tensor<2x16x64xf32>
    attributes {kn.reference = @attention_kn} {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x32x64xf32>) -> tensor<2x64x32xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x16x64xf32>, tensor<2x64x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x32xf32>
  %ss = tosa.mul %s, %scale, %shift : (tensor<2x16x32xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x16x32xf32>
  %m = tosa.reduce_max %ss {axis = 2 : i32} : (tensor<2x16x32xf32>) -> tensor<2x16x1xf32>
  %d = tosa.sub %ss, %m : (tensor<2x16x32xf32>, tensor<2x16x1xf32>) -> tensor<2x16x32xf32>
  %e = tosa.exp %d : (tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x16x32xf32>) -> tensor<2x16x1xf32>
  %r = tosa.reciprocal %sum : (tensor<2x16x1xf32>) -> tensor<2x16x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<2x16x32xf32>, tensor<2x16x1xf32>, tensor<1xi8>) -> tensor<2x16x32xf32>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x16x32xf32>, tensor<2x32x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x64xf32>
  return %o : tensor<2x16x64xf32>
}

func.func @attention_kn(%q: tensor<2x16x64xf32>, %k: tensor<2x32x64xf32>, %v: tensor<2x32x64xf32>) -> tensor<2x16x64xf32> {
  %kt = kn.transpose %k permutation [0, 2, 1] : tensor<2x32x64xf32>
  %s = kn.matmul %q, %kt : tensor<2x16x64xf32>, tensor<2x64x32xf32>
  %ss = kn.mul_scalar %s, 0.125 : tensor<2x16x32xf32>
  %m = kn.reduce_max %ss dim 2 : tensor<2x16x32xf32>
  %d = kn.sub %ss, %m : tensor<2x16x32xf32>, tensor<2x16x1xf32>
  %e = kn.exp %d : tensor<2x16x32xf32>
  %sum = kn.reduce_sum %e dim 2 : tensor<2x16x32xf32>
  %p = kn.div %e, %sum : tensor<2x16x32xf32>, tensor<2x16x1xf32>
  %o = kn.matmul %p, %v : tensor<2x16x32xf32>, tensor<2x32x64xf32>
  return %o : tensor<2x16x64xf32>
}

// CHECK-LABEL: func.func @rmsnorm_linear(
// CHECK-SAME: %[[X:.*]]: tensor<4x256xf32>, %[[G:.*]]: tensor<1x256xf32>, %[[W:.*]]: tensor<256x128xf32>)
// CHECK: %[[SQ:.*]] = kn.square %[[X]] : tensor<4x256xf32>
// CHECK: %[[SS:.*]] = kn.reduce_sum %[[SQ]] dim 1 : tensor<4x256xf32>
// CHECK: %[[MEAN:.*]] = kn.mul_scalar %[[SS]], 3.906250e-03 : tensor<4x1xf32>
// CHECK: %[[VAR:.*]] = kn.add_scalar %[[MEAN]], 9.99999997{{[0-9]*}}E-7 : tensor<4x1xf32>
// CHECK: %[[RMS:.*]] = kn.rsqrt %[[VAR]] : tensor<4x1xf32>
// CHECK: kn.mul %[[RMS]], %[[G]]
// CHECK: kn.mul
// CHECK: kn.reshape %{{.*}} : tensor<4x256xf32> -> tensor<1x4x256xf32>
// CHECK: kn.reshape %[[W]] : tensor<256x128xf32> -> tensor<1x256x128xf32>
// CHECK: kn.matmul
// CHECK: %[[O:.*]] = kn.reshape %{{.*}} : tensor<1x4x128xf32> -> tensor<4x128xf32>
// CHECK: return %[[O]]
// VERIFY: remark: tested, not proven: agrees with @rmsnorm_linear_kn
// PTX: gpu.binary @rmsnorm_linear_kernels
func.func @rmsnorm_linear(%x: tensor<4x256xf32>, %g: tensor<1x256xf32>, %w: tensor<256x128xf32>) -> tensor<4x128xf32>
    attributes {kn.reference = @rmsnorm_linear_kn} {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv_n = "tosa.const"() <{values = dense<3.906250e-03> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %eps = "tosa.const"() <{values = dense<1.0e-06> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %sq = tosa.mul %x, %x, %shift : (tensor<4x256xf32>, tensor<4x256xf32>, tensor<1xi8>) -> tensor<4x256xf32>
  %ss = tosa.reduce_sum %sq {axis = 1 : i32} : (tensor<4x256xf32>) -> tensor<4x1xf32>
  %mean = tosa.mul %ss, %inv_n, %shift : (tensor<4x1xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x1xf32>
  %var = tosa.add %mean, %eps : (tensor<4x1xf32>, tensor<1x1xf32>) -> tensor<4x1xf32>
  %r = tosa.rsqrt %var : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %y = tosa.mul %x, %r, %shift : (tensor<4x256xf32>, tensor<4x1xf32>, tensor<1xi8>) -> tensor<4x256xf32>
  %yg = tosa.mul %y, %g, %shift : (tensor<4x256xf32>, tensor<1x256xf32>, tensor<1xi8>) -> tensor<4x256xf32>
  %s3 = tosa.const_shape {values = dense<[1, 4, 256]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %w3s = tosa.const_shape {values = dense<[1, 256, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %o2s = tosa.const_shape {values = dense<[4, 128]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %y3 = tosa.reshape %yg, %s3 : (tensor<4x256xf32>, !tosa.shape<3>) -> tensor<1x4x256xf32>
  %w3 = tosa.reshape %w, %w3s : (tensor<256x128xf32>, !tosa.shape<3>) -> tensor<1x256x128xf32>
  %o3 = tosa.matmul %y3, %w3, %zp, %zp : (tensor<1x4x256xf32>, tensor<1x256x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x128xf32>
  %o = tosa.reshape %o3, %o2s : (tensor<1x4x128xf32>, !tosa.shape<2>) -> tensor<4x128xf32>
  return %o : tensor<4x128xf32>
}

func.func @rmsnorm_linear_kn(%x: tensor<4x256xf32>, %g: tensor<1x256xf32>, %w: tensor<256x128xf32>) -> tensor<4x128xf32> {
  %g1 = kn.reshape %g : tensor<1x256xf32> -> tensor<256xf32>
  %y = kn.rms_norm %x weight %g1 {eps = 1.0e-6 : f64} : tensor<4x256xf32>, tensor<256xf32>
  %o = kn.matmul %y, %w : tensor<4x256xf32>, tensor<256x128xf32>
  return %o : tensor<4x128xf32>
}
