// Functions without float tensor arguments have no tile program (found by
// mirage-fuzz: the cost model read the bit width of a null element type).
// RUN: mirage-opt %s --mlir-print-op-on-diagnostic=false --mirage-tile-eqsat -o /dev/null 2>&1 | FileCheck %s

// CHECK: remark: @empty: kept, no tile program: the function has no tensor arguments
func.func @empty() {
  return
}

// CHECK: remark: @indices: kept, no tile program: every argument must be a ranked tensor of floats
func.func @indices(%x: tensor<4xi32>) -> tensor<4xi32> {
  return %x : tensor<4xi32>
}
