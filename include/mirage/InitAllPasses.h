//===- InitAllPasses.h - Register every Mirage pass -------------*- C++ -*-===//
//
// For tools and for MLIR compilers that embed the Mirage passes.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_INITALLPASSES_H
#define MIRAGE_INITALLPASSES_H

#include "mirage/Conversion/Frontend/Passes.h"
#include "mirage/Conversion/Frontend/Pipelines.h"
#include "mirage/Conversion/Passes.h"
#include "mirage/Conversion/Pipelines.h"
#include "mirage/Conversion/TaskGraphPipeline.h"
#include "mirage/Dialect/Block/Transforms/Passes.h"
#include "mirage/Dialect/Kernel/Transforms/Passes.h"
#include "mirage/Dialect/Task/Transforms/Passes.h"
#include "mirage/Search/Passes.h"
#include "mirage/TileEqsat/Passes.h"
#include "mirage/Verify/Passes.h"

namespace mirage {

/// Registers every Mirage pass and pipeline with the global pass registry.
inline void registerAllPasses() {
  kn::registerMirageKernelPasses();
  tb::registerMirageBlockPasses();
  tg::registerMirageTaskPasses();
  registerMirageVerifyPasses();
  registerMirageSearchPasses();
  registerMirageTileEqsatPasses();
  registerMirageConversionPasses();
  registerMirageFrontendPasses();
  registerMirageToPTXPipeline();
  registerMirageToMegaKernelPipeline();
  registerMirageToTaskGraphPipeline();
  registerFrontendToPTXPipelines();
}

} // namespace mirage

#endif // MIRAGE_INITALLPASSES_H
