//===- Passes.h - Lowering kernel graphs to the GPU -------------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_CONVERSION_PASSES_H
#define MIRAGE_CONVERSION_PASSES_H

#include "mirage/Dialect/Task/IR/Task.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mirage {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "mirage/Conversion/Passes.h.inc"

} // namespace mirage

#endif // MIRAGE_CONVERSION_PASSES_H
