// A task graph built from a function without a body (found by mirage-fuzz:
// the interpreter read past the empty body) is reported, not evaluated.
// RUN: not mirage-opt %s --mirage-verify-equivalence -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s

// CHECK: error: cannot check @from_declaration against @f: @f is a declaration: it has no body to evaluate
func.func private @f(tensor<4xf16>) -> tensor<4xf16>
tg.graph @from_declaration from @f {
}
