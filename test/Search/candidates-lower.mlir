// One memory account: candidates are built and verified for the function's
// tb.target, and the tb.graph verifier checks the lowering's own plan of
// shared memory and accumulator registers, so every candidate the search
// writes lowers, and so does what it leaves in the module. With 5 KiB per
// block, the search's best candidate elsewhere (x, g and w tiles: 5760
// bytes as the lowering places them) does not fit, and the program stays.
// RUN: mirage-opt %s \
// RUN:   --mirage-superoptimize="max-block-ops=3 threads=1 progress=0 top-k=16 top-k-file=%t.mlir" \
// RUN:   2>&1 -o %t.out.mlir | FileCheck %s --check-prefix=SEARCH
// RUN: mirage-opt %t.mlir --kn-default-block-graphs --convert-kn-to-gpu | FileCheck %s --check-prefix=ALL
// RUN: mirage-opt %t.out.mlir --kn-default-block-graphs --convert-kn-to-gpu | FileCheck %s --check-prefix=KEPT

// SEARCH: 13 verified, 0 rejected; kept the program

// The reference and its 13 candidates, each a kernel module.
// ALL-COUNT-14: gpu.module
// ALL-NOT: gpu.module

// KEPT-COUNT-1: gpu.module
module attributes {tb.target = #tb.target<"sm_86", smem = 5120>} {
  func.func @rmsnorm_linear(%x: tensor<2x256xf16>, %g: tensor<256xf16>, %w: tensor<256x512xf16>) -> tensor<2x512xf16> {
    %y = kn.rms_norm %x weight %g {eps = 1.0e-6 : f64} : tensor<2x256xf16>, tensor<256xf16>
    %z = kn.matmul %y, %w : tensor<2x256xf16>, tensor<256x512xf16>
    return %z : tensor<2x512xf16>
  }
}
