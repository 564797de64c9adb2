//===- mirage-opt.cpp - The Mirage optimizer driver -----------------------===//
//
// Parses, verifies and transforms kn/tb/th/tg IR, and runs the upstream passes
// that take a gpu.module to PTX and cubin (NVVM target, LLVM IR translation).
//
//===----------------------------------------------------------------------===//

#include "mirage/InitAllDialects.h"
#include "mirage/InitAllExtensions.h"
#include "mirage/InitAllPasses.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/PrettyStackTrace.h"

int main(int argc, char **argv) {
  llvm::setBugReportMsg("mirage-opt crashed: please report the input and the "
                        "command line that triggered it.\n");
  mlir::registerAllPasses();
  mirage::registerAllPasses();
  // The passes' remarks are for people: without the whole function printed
  // under each of them (--mlir-print-op-on-diagnostic brings it back).
  mlir::registerMLIRContextCLOptions();
  auto &options = llvm::cl::getRegisteredOptions();
  if (auto *printOp = static_cast<llvm::cl::opt<bool> *>(
          options.lookup("mlir-print-op-on-diagnostic")))
    printOp->setInitialValue(false);

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mirage::registerAllDialects(registry);
  mirage::registerAllExtensions(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Mirage superoptimizer and mega-kernel compiler driver\n",
      registry));
}
