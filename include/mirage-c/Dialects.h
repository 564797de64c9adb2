/*===-- mirage-c/Dialects.h - The Mirage dialects in the C API ----*- C -*-===*\
|*                                                                            *|
|* Dialect handles for kn, tb, th and tg in the style of upstream MLIR's C    *|
|* API (mlir-c/IR.h): insert them into an MlirDialectRegistry, or register    *|
|* and load them in an MlirContext.                                           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef MIRAGE_C_DIALECTS_H
#define MIRAGE_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mlirGetDialectHandle__kn__(), __tb__(), __th__(), __tg__(). */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Kernel, kn);
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Block, tb);
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Thread, th);
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Task, tg);

/// Inserts into `registry` everything a Mirage pipeline needs: kn, tb, th,
/// tg and func (mirage::registerAllDialects), and the dialects mirage-to-ptx
/// lowers through with their conversions to LLVM, the NVVM target and the
/// LLVM IR translations (mirage::registerMirageToPTXDependencies). The input
/// dialects of the conversions (linalg, tosa, tensor, arith, math) are the
/// embedding compiler's own.
MLIR_CAPI_EXPORTED void mirageRegisterAllDialects(MlirDialectRegistry registry);

#ifdef __cplusplus
}
#endif

#endif /* MIRAGE_C_DIALECTS_H */
