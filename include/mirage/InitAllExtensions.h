//===- InitAllExtensions.h - Register what the dialects promise -*- C++ -*-===//
//
// Interfaces that libraries above the dialects attach to them: today the
// lowering's memory plan of block graphs, which the tb.graph verifier reads
// (mirage/Dialect/Block/IR/BlockGraphMemory.h). A tool that verifies block
// graphs it may lower registers these with the dialects:
//
//   mirage::registerAllDialects(registry);
//   mirage::registerAllExtensions(registry);
//
// Without them the verifier bounds shared memory by the tiles live at once.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_INITALLEXTENSIONS_H
#define MIRAGE_INITALLEXTENSIONS_H

#include "mirage/Conversion/KernelToGPU.h"
#include "mlir/IR/DialectRegistry.h"

namespace mirage {

inline void registerAllExtensions(mlir::DialectRegistry &registry) {
  registerBlockGraphMemoryPlanner(registry);
}

} // namespace mirage

#endif // MIRAGE_INITALLEXTENSIONS_H
