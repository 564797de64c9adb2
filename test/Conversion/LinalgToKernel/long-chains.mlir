// RUN: timeout 60 mirage-opt %s --convert-linalg-to-kn | FileCheck %s

// A chain of 21 additions, each used once, folds into one sum of 22 terms;
// covering it must not try every subset of the terms (it would not finish).
// CHECK-LABEL: func.func @long_sum(
// CHECK-COUNT-21: kn.add
// CHECK-NOT: kn.add
// CHECK: return
func.func @long_sum(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>, %d: tensor<4xf32>, %e1: tensor<4xf32>, %f: tensor<4xf32>, %g: tensor<4xf32>, %h: tensor<4xf32>, %i: tensor<4xf32>, %j: tensor<4xf32>, %k: tensor<4xf32>, %l: tensor<4xf32>, %m: tensor<4xf32>, %n: tensor<4xf32>, %o: tensor<4xf32>, %p: tensor<4xf32>, %q: tensor<4xf32>, %r: tensor<4xf32>, %s: tensor<4xf32>, %t: tensor<4xf32>, %u: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.add ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %1 = linalg.add ins(%0, %c : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %2 = linalg.add ins(%1, %d : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %3 = linalg.add ins(%2, %e1 : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %4 = linalg.add ins(%3, %f : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %5 = linalg.add ins(%4, %g : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %6 = linalg.add ins(%5, %h : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %7 = linalg.add ins(%6, %i : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %8 = linalg.add ins(%7, %j : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %9 = linalg.add ins(%8, %k : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %10 = linalg.add ins(%9, %l : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %11 = linalg.add ins(%10, %m : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %12 = linalg.add ins(%11, %n : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %13 = linalg.add ins(%12, %o : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %14 = linalg.add ins(%13, %p : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %15 = linalg.add ins(%14, %q : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %16 = linalg.add ins(%15, %r : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %17 = linalg.add ins(%16, %s : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %18 = linalg.add ins(%17, %t : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %19 = linalg.add ins(%18, %u : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %20 = linalg.add ins(%19, %v : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %20 : tensor<4xf32>
}
