// RUN: not mirage-opt %s --split-input-file --mirage-to-ptx 2>&1 | FileCheck %s --check-prefix=PTX
// RUN: not mirage-opt %s --split-input-file --mirage-superoptimize 2>&1 | FileCheck %s --check-prefix=SEARCH
// RUN: not mirage-opt %s --split-input-file --mirage-build-task-graph 2>&1 | FileCheck %s --check-prefix=TASKS
// RUN: not mirage-opt %s --split-input-file --kn-default-block-graphs 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: not mirage-opt %s --split-input-file --mirage-tile-eqsat 2>&1 | FileCheck %s --check-prefix=EQSAT

// linalg or tosa input never passes through a Mirage pass unchanged: the
// passes that read kernel graphs (kn-fuse, the first pass of mirage-to-ptx
// and mirage-to-megakernel; kn-default-block-graphs; convert-kn-to-gpu;
// mirage-superoptimize; mirage-tile-eqsat; mirage-build-task-graph, so
// mirage-to-task-graph) name the first op they cannot read and the
// conversion to run first.

// PTX: error: kn-fuse reads kernel graphs (kn) only: convert this linalg op first (convert-linalg-to-kn, or the mirage-linalg-to-ptx pipeline)
// DEFAULT: error: kn-default-block-graphs reads kernel graphs (kn) only: convert this linalg op first
// EQSAT: error: mirage-tile-eqsat reads kernel graphs (kn) only: convert this linalg op first
// SEARCH: error: mirage-superoptimize reads kernel graphs (kn) only: convert this linalg op first (convert-linalg-to-kn, or the mirage-linalg-to-ptx pipeline)
// TASKS: error: mirage-build-task-graph reads kernel graphs (kn) only: convert this linalg op first
func.func @linalg(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.exp ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// PTX: error: kn-fuse reads kernel graphs (kn) only: convert this tosa op first (convert-tosa-to-kn, or the mirage-tosa-to-ptx pipeline)
// DEFAULT: error: kn-default-block-graphs reads kernel graphs (kn) only: convert this tosa op first
// EQSAT: error: mirage-tile-eqsat reads kernel graphs (kn) only: convert this tosa op first
// SEARCH: error: mirage-superoptimize reads kernel graphs (kn) only: convert this tosa op first (convert-tosa-to-kn, or the mirage-tosa-to-ptx pipeline)
// TASKS: error: mirage-build-task-graph reads kernel graphs (kn) only: convert this tosa op first
func.func @tosa(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = tosa.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// PTX: error: kn-fuse reads kernel graphs (kn) only: convert this tensor op first (convert-linalg-to-kn, or the mirage-linalg-to-ptx pipeline)
// DEFAULT: error: kn-default-block-graphs reads kernel graphs (kn) only: convert this tensor op first
// EQSAT: error: mirage-tile-eqsat reads kernel graphs (kn) only: convert this tensor op first
// SEARCH: error: mirage-superoptimize reads kernel graphs (kn) only: convert this tensor op first (convert-linalg-to-kn, or the mirage-linalg-to-ptx pipeline)
// TASKS: error: mirage-build-task-graph reads kernel graphs (kn) only: convert this tensor op first
func.func @tensor(%x: tensor<8x8xf32>) -> tensor<64xf32> {
  %y = tensor.collapse_shape %x [[0, 1]] : tensor<8x8xf32> into tensor<64xf32>
  return %y : tensor<64xf32>
}
