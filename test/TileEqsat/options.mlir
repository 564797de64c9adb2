// Bad option values are errors that name the option and the value, before
// any function is converted.
//
// RUN: not mirage-opt %s --mlir-print-op-on-diagnostic=false --mirage-tile-eqsat="rules=bogus" 2>&1 | FileCheck %s --check-prefix=RULES
// RUN: not mirage-opt %s --mlir-print-op-on-diagnostic=false --mirage-tile-eqsat="rules=loops,,fusion" 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not mirage-opt %s --mlir-print-op-on-diagnostic=false --mirage-tile-eqsat="rules=" 2>&1 | FileCheck %s --check-prefix=NORULES
// RUN: not mirage-opt %s --mlir-print-op-on-diagnostic=false --mirage-tile-eqsat="device=a100" 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not mirage-opt %s --mlir-print-op-on-diagnostic=false --mirage-tile-eqsat="top-k=0" 2>&1 | FileCheck %s --check-prefix=TOPK
// RUN: not mirage-opt %s --mlir-print-op-on-diagnostic=false --mirage-tile-eqsat="tile-size=0" 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not mirage-opt %s --mlir-print-op-on-diagnostic=false --mirage-tile-eqsat="full-threshold=-1" 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: not mirage-opt %s --mlir-print-op-on-diagnostic=false --mirage-tile-eqsat="time-limit=0" 2>&1 | FileCheck %s --check-prefix=TIME
// RUN: not mirage-opt %s --mlir-print-op-on-diagnostic=false --mirage-tile-eqsat="baseline=none" 2>&1 | FileCheck %s --check-prefix=BASELINE
// Valid rule lists are accepted; `none` saturates nothing.
// RUN: mirage-opt %s --mlir-print-op-on-diagnostic=false --mirage-tile-eqsat="rules=loops,algebra" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OK
// RUN: mirage-opt %s --mlir-print-op-on-diagnostic=false --mirage-tile-eqsat="rules=none" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// Candidates too large for the check under max-elements are rejected with
// the limit and the option named; the function is kept.
// RUN: mirage-opt %s --mlir-print-op-on-diagnostic=false --mirage-tile-eqsat="max-elements=64 baseline=program" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT

// RULES: error: mirage-tile-eqsat: unknown value 'bogus' for option 'rules'; valid values: loops, fusion, algebra (comma-separated), all, none
// RULES-NOT: remark
// EMPTY: error: mirage-tile-eqsat: empty rule set in 'loops,,fusion' for option 'rules'; valid values: loops, fusion, algebra (comma-separated), all, none
// NORULES: error: mirage-tile-eqsat: empty rule set in '' for option 'rules'; valid values: loops, fusion, algebra (comma-separated), all, none
// DEVICE: error: mirage-tile-eqsat: unknown value 'a100' for option 'device'; valid values: h100, h200
// TOPK: error: mirage-tile-eqsat: top-k must be at least 1
// TILE: error: mirage-tile-eqsat: tile-size must be positive (got 0)
// FULL: error: mirage-tile-eqsat: full-threshold must not be negative (got -1)
// TIME: error: mirage-tile-eqsat: time-limit must be a positive number of seconds (got 0.00)
// BASELINE: error: mirage-tile-eqsat: unknown value 'none' for option 'baseline'; valid values: fused, program
// OK: remark: @f: {{[0-9]+}} e-classes
// LIMIT: could not be checked: the program is too large to evaluate: its tensors hold 40960 elements {{.*}} more than the limit of 64; raise it with the option max-elements); kept the program
// NONE: remark: @f: {{[0-9]+}} e-classes, {{[0-9]+}} e-nodes, 2.0e+00 programs represented; saturated in {{.*}} (saturated, 1 iterations)

func.func @f(%x: tensor<16x256xf16>, %w: tensor<256x128xf16>) -> tensor<16x128xf16> {
  %y = kn.matmul %x, %w : tensor<16x256xf16>, tensor<256x128xf16>
  %z = kn.mul_scalar %y, 0.0625 : tensor<16x128xf16>
  return %z : tensor<16x128xf16>
}
