// A matmul by the transpose of a weight stored [out, in] (nn.Linear's
// layout; what the torch.compile backend produces): the block graph keeps
// the tb.transpose, but the lowering reads the [n, k] tile in place as the
// tensor cores' column-major B operand (ldmatrix without .trans): no
// transposed copy, no .trans load.
// RUN: mirage-opt %s --kn-fuse | FileCheck %s --check-prefix=FUSED
// RUN: mirage-opt %s --mirage-to-ptx="format=isa" | FileCheck %s --implicit-check-not=.trans
// REQUIRES: ptxas
// RUN: mirage-opt %s --mirage-to-ptx="format=bin" | FileCheck %s --check-prefix=BIN

// FUSED: tb.input_iterator %{{.*}} : tensor<4096x4096xf16> -> !tb.tile<16x512xf16>
// FUSED: tb.transpose %{{.*}} permutation [1, 0] : !tb.tile<16x512xf16>
// FUSED: tb.matmul %{{.*}}, %{{.*}} : !tb.tile<8x512xf16>, !tb.tile<512x16xf16>

// CHECK: .visible .entry linear_k0(
// CHECK-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// BIN: gpu.binary @linear_kernels
// BIN-SAME: bin = "\7FELF
func.func @linear(%x: tensor<8x4096xf16>, %w: tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  %t = kn.transpose %w permutation [1, 0] : tensor<4096x4096xf16>
  %y = kn.matmul %x, %t : tensor<8x4096xf16>, tensor<4096x4096xf16>
  return %y : tensor<8x4096xf16>
}
