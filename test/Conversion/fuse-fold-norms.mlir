// kn-fuse folds an RMSNorm over rows of at most a head's width (128) that
// only matmuls read as their left operand into the products' kernel: the
// sum of squares of x / (4 sqrt(n)) runs in the k loop beside the product,
// and 1 / rms scales the product after it. Wider norms keep their kernel.
// (Decode-shaped: with 256 rows a head, the unfolded norm and product in
// one pass of 512 threads are estimated cheaper, and kn-fuse keeps them.)
// RUN: mirage-opt %s --kn-fuse | FileCheck %s
// RUN: mirage-opt %s --kn-fuse="fold-norms=false" | FileCheck %s --check-prefix=OFF
// RUN: mirage-opt %s --kn-fuse --kn-default-block-graphs --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// The pipelines and the bundler pass fold-norms on: folded, the kernel
// scales x by 1 / (4 sqrt(64)) = 0.03125 (0f3D000000) before squaring.
// RUN: mirage-opt %s --mirage-to-ptx -o %t.ptx && grep -q 0f3D000000 %t.ptx
// RUN: mirage-opt %s --mirage-to-ptx="fold-norms=false" -o %t.ptx && not grep -q 0f3D000000 %t.ptx
// RUN: mirage-opt %s --mirage-to-task-graph -o %t.tasks 2>/dev/null && grep -q tb.rsqrt %t.tasks
// RUN: mirage-opt %s --mirage-to-task-graph="fold-norms=false" -o %t.tasks 2>/dev/null && not grep -q tb.rsqrt %t.tasks
// RUN: rm -rf %t && mirage-bundle %s --function head_norm --no-reference --ptxas=none -o %t
// RUN: grep -q 0f3D000000 %t/head_norm/kernels.ptx
// RUN: rm -rf %t && mirage-bundle %s --function head_norm --no-reference --ptxas=none --fold-norms=false -o %t
// RUN: not grep -q 0f3D000000 %t/head_norm/kernels.ptx

// CHECK-LABEL: func.func @head_norm
// CHECK: kn.kernel
// CHECK-NOT: tb.rms_norm
// CHECK: %[[X:.*]] = tb.input_iterator %{{.*}} : tensor<8x16x64xf16>
// CHECK: %[[S:.*]] = tb.mul_scalar %[[X]], 3.125000e-02
// CHECK: %[[SQ:.*]] = tb.square %[[S]]
// CHECK: %[[R:.*]] = tb.reduce_sum %[[SQ]] dim 2
// CHECK: %[[A:.*]] = tb.accum_sum %[[R]]
// CHECK: %[[M:.*]] = tb.mul_scalar %[[A]], 1.600000e+01
// CHECK: %[[E:.*]] = tb.add_scalar %[[M]], 9.99
// CHECK: %[[INV:.*]] = tb.rsqrt %[[E]]
// CHECK: %[[P:.*]] = tb.matmul %[[X]]
// CHECK: %[[PS:.*]] = tb.accum_sum %[[P]]
// CHECK: tb.mul %[[PS]], %[[INV]]
// CHECK-NOT: kn.kernel
// CHECK: return
// OFF-LABEL: func.func @head_norm
// OFF: tb.rms_norm
// OFF: tb.matmul
// VERIFY: remark: proven: equivalent to @head_norm
func.func @head_norm(%q: tensor<8x16x64xf16>, %kt: tensor<8x64x1024xf16>) -> tensor<8x16x1024xf16> {
  %qn = kn.rms_norm %q {eps = 1.0e-6 : f64} : tensor<8x16x64xf16>
  %s = kn.matmul %qn, %kt : tensor<8x16x64xf16>, tensor<8x64x1024xf16>
  return %s : tensor<8x16x1024xf16>
}
func.func @head_norm_reference(%q: tensor<8x16x64xf16>, %kt: tensor<8x64x1024xf16>) -> tensor<8x16x1024xf16> attributes {kn.reference = @head_norm} {
  %qn = kn.rms_norm %q {eps = 1.0e-6 : f64} : tensor<8x16x64xf16>
  %s = kn.matmul %qn, %kt : tensor<8x16x64xf16>, tensor<8x64x1024xf16>
  return %s : tensor<8x16x1024xf16>
}

// A hidden state's norm (4096 wide) keeps its kernel: folded, every block
// of the projection would sum the squares of all 4096 columns.
// CHECK-LABEL: func.func @hidden_norm
// CHECK: tb.rms_norm
// CHECK: tb.matmul
func.func @hidden_norm(%x: tensor<16x4096xf16>, %g: tensor<4096xf16>, %w: tensor<4096x6144xf16>) -> tensor<16x6144xf16> {
  %y = kn.rms_norm %x weight %g {eps = 1.0e-6 : f64} : tensor<16x4096xf16>, tensor<4096xf16>
  %z = kn.matmul %y, %w : tensor<16x4096xf16>, tensor<4096x6144xf16>
  return %z : tensor<16x6144xf16>
}

// A norm that another op reads too keeps its kernel.
// CHECK-LABEL: func.func @norm_read_twice
// CHECK: tb.rms_norm
func.func @norm_read_twice(%q: tensor<2x256x64xf16>, %kt: tensor<2x64x1024xf16>) -> (tensor<2x256x1024xf16>, tensor<2x256x64xf16>) {
  %qn = kn.rms_norm %q {eps = 1.0e-6 : f64} : tensor<2x256x64xf16>
  %s = kn.matmul %qn, %kt : tensor<2x256x64xf16>, tensor<2x64x1024xf16>
  return %s, %qn : tensor<2x256x1024xf16>, tensor<2x256x64xf16>
}
