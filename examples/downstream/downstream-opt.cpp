//===- downstream-opt.cpp - A compiler that embeds Mirage -----------------===//
//
// The opt tool of a downstream MLIR compiler: the upstream dialects it
// reads, next to the Mirage dialects, passes and pipelines, registered only
// through the documented calls (docs/Embedding.md). It runs any Mirage
// pipeline, e.g. `downstream-opt model.mlir --mirage-linalg-to-ptx`.
//
//===----------------------------------------------------------------------===//

#include "mirage/InitAllDialects.h"
#include "mirage/InitAllExtensions.h"
#include "mirage/InitAllPasses.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  // The compiler's own input dialects.
  registry.insert<mlir::arith::ArithDialect, mlir::func::FuncDialect,
                  mlir::linalg::LinalgDialect, mlir::math::MathDialect,
                  mlir::tensor::TensorDialect, mlir::tosa::TosaDialect>();
  // Mirage: its dialects, the lowering's memory plan the tb verifier reads,
  // and every pass and pipeline.
  mirage::registerAllDialects(registry);
  mirage::registerAllExtensions(registry);
  mirage::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "A downstream compiler embedding Mirage\n", registry));
}
