// RUN: not mirage-opt %s --mirage-superoptimize="device=a100" 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not mirage-opt %s --mirage-superoptimize="top-k=0" 2>&1 | FileCheck %s --check-prefix=TOPK
// RUN: not mirage-opt %s --mirage-superoptimize="timings=%t.missing.json" 2>&1 | FileCheck %s --check-prefix=TIMINGS

// DEVICE: error: mirage-superoptimize: unknown value 'a100' for option 'device'; valid values: h100, h200
// TOPK: top-k must be at least 1
// TIMINGS: cannot read timings '{{.*}}missing.json'
func.func @f(%x: tensor<16x32xf16>) -> tensor<16x32xf16> {
  return %x : tensor<16x32xf16>
}
