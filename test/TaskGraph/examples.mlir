// Task graphs of examples whose interpretation is quick, checked against
// their functions in random task orders (benchmarks/verify-task-graphs.sh
// runs every example).
// RUN: mirage-opt %examples/lora.mlir --mirage-to-task-graph --mirage-verify-equivalence -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=LORA
// RUN: mirage-opt %examples/ntrans.mlir --mirage-to-task-graph --mirage-verify-equivalence -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NTRANS

// LORA: remark: proven: equivalent to @lora_bs1 (in the Lax fragment); {{.*}}; 9 task orders
// LORA: remark: proven: equivalent to @lora_bs8 (in the Lax fragment); {{.*}}; 9 task orders
// NTRANS: remark: proven: equivalent to @ntrans_bs1 (in the Lax fragment); {{.*}}; 9 task orders
// NTRANS: remark: proven: equivalent to @ntrans_bs8 (in the Lax fragment); {{.*}}; 9 task orders
