/*===-- mirage-c/Passes.h - Mirage passes and pipelines in C ------*- C -*-===*\
|*                                                                            *|
|* Registration of the Mirage passes and pipelines, the conversion passes as  *|
|* MlirPass objects for an MlirPassManager, and entry points that run the     *|
|* main pipelines on a module the way mirage-opt does. Diagnostics go to the  *|
|* context's handlers (mlirContextAttachDiagnosticHandler).                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef MIRAGE_C_PASSES_H
#define MIRAGE_C_PASSES_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Registers every Mirage pass and pipeline with the global registry
/// (mirage::registerAllPasses), so that mlirParsePassPipeline and
/// mirageRunPassPipeline know them. Calling it again does nothing.
MLIR_CAPI_EXPORTED void mirageRegisterAllPasses(void);

/// The conversion passes, for mlirPassManagerAddOwnedPass.
MLIR_CAPI_EXPORTED MlirPass mirageCreateConvertLinalgToKernel(bool keepUnsupported);
MLIR_CAPI_EXPORTED MlirPass mirageCreateConvertTosaToKernel(bool keepUnsupported);

/// Runs `pipeline`, mirage-opt's --pass-pipeline text with or without the
/// `builtin.module(...)` around it (e.g. "convert-tosa-to-kn,
/// mirage-to-ptx{chip=sm_90a}"), on `module`. Registers the passes first.
MLIR_CAPI_EXPORTED MlirLogicalResult mirageRunPassPipeline(MlirModule module,
                                                           MlirStringRef pipeline);

/// convert-linalg-to-kn and convert-tosa-to-kn on `module`.
MLIR_CAPI_EXPORTED MlirLogicalResult
mirageConvertLinalgToKernel(MlirModule module, bool keepUnsupported);
MLIR_CAPI_EXPORTED MlirLogicalResult
mirageConvertTosaToKernel(MlirModule module, bool keepUnsupported);

/// mirage-superoptimize with `options` as mirage-opt takes them
/// ("max-block-ops=3 time-budget=10"; empty for the defaults).
MLIR_CAPI_EXPORTED MlirLogicalResult mirageSuperoptimize(MlirModule module,
                                                         MlirStringRef options);

/// mirage-verify-equivalence with `options` ("trials=3
/// error-on-failure=true"); its verdicts are remarks, warnings or errors.
MLIR_CAPI_EXPORTED MlirLogicalResult
mirageVerifyEquivalence(MlirModule module, MlirStringRef options);

/// The mirage-to-ptx pipeline with `options` ("chip=sm_90a format=isa").
MLIR_CAPI_EXPORTED MlirLogicalResult mirageLowerToPTX(MlirModule module,
                                                      MlirStringRef options);

/// Calls `callback` with the contents of every object of every gpu.binary
/// in `module` (PTX text for format=isa, else the binary), and returns how
/// many there were.
MLIR_CAPI_EXPORTED intptr_t mirageForEachGPUObject(MlirModule module,
                                                   MlirStringCallback callback,
                                                   void *userData);

#ifdef __cplusplus
}
#endif

#endif /* MIRAGE_C_PASSES_H */
