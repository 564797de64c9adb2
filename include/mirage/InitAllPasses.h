//===- InitAllPasses.h - Register every Mirage pass -------------*- C++ -*-===//
//
// For tools and for MLIR compilers that embed the Mirage passes.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_INITALLPASSES_H
#define MIRAGE_INITALLPASSES_H

#include "mirage/Dialect/Block/Transforms/Passes.h"
#include "mirage/Verify/Passes.h"

namespace mirage {

/// Registers every Mirage pass with the global pass registry.
inline void registerAllPasses() {
  tb::registerMirageBlockPasses();
  registerMirageVerifyPasses();
}

} // namespace mirage

#endif // MIRAGE_INITALLPASSES_H
