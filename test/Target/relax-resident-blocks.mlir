// Where ptxas spills under a kernel's `.minnctapersm` (the resident blocks
// per SM it asks for bound its registers), mirage-bundle asks for one block
// fewer and assembles again: qknorm_gqa_bs1's attention kernel spills at 6
// blocks (80 registers), not at 5.
// REQUIRES: ptxas
// RUN: rm -rf %t
// RUN: mirage-bundle %examples/qknorm_gqa.mlir --function qknorm_gqa_bs1 -o %t --no-reference 2>&1 | FileCheck %s
// RUN: grep -A12 ".entry qknorm_gqa_bs1_k0" %t/qknorm_gqa_bs1/kernels.ptx | FileCheck %s --check-prefix=PTX
// RUN: %PYTHON %S/Inputs/print-kernel-resources.py %t | FileCheck %s --check-prefix=RESOURCES

// CHECK: qknorm_gqa_bs1_k0 spills {{[0-9]+}} bytes: one resident block per SM fewer
// CHECK-NOT: spills
// CHECK: assembled:
// PTX: .minnctapersm 5
// RESOURCES: qknorm_gqa_bs1 v1 qknorm_gqa_bs1_k0: spill_bytes 0
