//===- Pipelines.h - linalg or tosa to PTX in one call ----------*- C++ -*-===//
//
// mirage-linalg-to-ptx and mirage-tosa-to-ptx: the conversion into kn, an
// optional µGraph search, then mirage-to-ptx.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_CONVERSION_FRONTEND_PIPELINES_H
#define MIRAGE_CONVERSION_FRONTEND_PIPELINES_H

#include "mirage/Conversion/Pipelines.h"

namespace mirage {

/// The options of mirage-to-ptx, and the search's.
struct FrontendToPTXOptions : public MirageToPTXOptions {
  Option<bool> superoptimize{
      *this, "superoptimize",
      llvm::cl::desc("Run mirage-superoptimize on the converted kernel "
                     "graphs before lowering"),
      llvm::cl::init(false)};
  Option<double> timeBudget{
      *this, "time-budget",
      llvm::cl::desc("mirage-superoptimize: seconds per subprogram (0: the "
                     "whole space)"),
      llvm::cl::init(0.0)};
  Option<std::string> device{
      *this, "device",
      llvm::cl::desc("mirage-superoptimize: the cost model's device (h100, "
                     "h200)"),
      llvm::cl::init("h100")};
};

/// Which conversion starts the pipeline.
enum class FrontendInput { Linalg, Tosa };

/// Adds convert-<input>-to-kn, mirage-superoptimize when asked, and the
/// passes of mirage-to-ptx to `pm` (a ModuleOp pass manager).
void buildFrontendToPTXPipeline(mlir::OpPassManager &pm, FrontendInput input,
                                const FrontendToPTXOptions &options);

/// Registers mirage-linalg-to-ptx and mirage-tosa-to-ptx.
void registerFrontendToPTXPipelines();

} // namespace mirage

#endif // MIRAGE_CONVERSION_FRONTEND_PIPELINES_H
