//===- Dialects.cpp - The Mirage dialects in the C API --------------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage-c/Dialects.h"

#include "mirage/Conversion/Pipelines.h"
#include "mirage/InitAllDialects.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Kernel, kn, mirage::kn::KernelDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Block, tb, mirage::tb::BlockDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Thread, th, mirage::th::ThreadDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Task, tg, mirage::tg::TaskDialect)

void mirageRegisterAllDialects(MlirDialectRegistry registry) {
  mirage::registerAllDialects(*unwrap(registry));
  mirage::registerMirageToPTXDependencies(*unwrap(registry));
}
