//===- DeviceToBinary.h - The NVVM path shared by the pipelines -*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_LIB_CONVERSION_PIPELINES_DEVICETOBINARY_H
#define MIRAGE_LIB_CONVERSION_PIPELINES_DEVICETOBINARY_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mirage {

/// Adds what takes every gpu.module of a module to a gpu.binary for `chip`:
/// the NVVM target (PTX ISA `ptx`, 0 for the chip's minimum, LLVM at
/// `optLevel`), the lowering of the device code to NVVM with bare-pointer
/// kernel arguments, and gpu-module-to-binary in `format` with the ptxas of
/// `cudaPath` (empty: $CUDA_HOME, else /usr/local/cuda).
void addDeviceToBinaryPasses(mlir::OpPassManager &pm, llvm::StringRef chip,
                             unsigned ptx, unsigned optLevel,
                             llvm::StringRef format, llvm::StringRef cudaPath);

} // namespace mirage

#endif // MIRAGE_LIB_CONVERSION_PIPELINES_DEVICETOBINARY_H
