//===- Passes.cpp - Mirage passes and pipelines in the C API --------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage-c/Passes.h"

#include "mirage/Conversion/Frontend/Passes.h"
#include "mirage/InitAllPasses.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;

void mirageRegisterAllPasses(void) {
  static std::once_flag once;
  std::call_once(once, [] { mirage::registerAllPasses(); });
}

MlirPass mirageCreateConvertLinalgToKernel(bool keepUnsupported) {
  mirage::ConvertLinalgToKernelOptions options;
  options.keepUnsupported = keepUnsupported;
  return wrap(mirage::createConvertLinalgToKernel(options).release());
}

MlirPass mirageCreateConvertTosaToKernel(bool keepUnsupported) {
  mirage::ConvertTosaToKernelOptions options;
  options.keepUnsupported = keepUnsupported;
  return wrap(mirage::createConvertTosaToKernel(options).release());
}

MlirLogicalResult mirageRunPassPipeline(MlirModule module,
                                        MlirStringRef pipeline) {
  mirageRegisterAllPasses();
  ModuleOp op = unwrap(module);
  std::string text = unwrap(pipeline).trim().str();
  if (!StringRef(text).starts_with("builtin.module("))
    text = "builtin.module(" + text + ")";
  std::string errors;
  llvm::raw_string_ostream stream(errors);
  FailureOr<OpPassManager> parsed = parsePassPipeline(text, stream);
  if (failed(parsed)) {
    emitError(op.getLoc()) << "invalid pass pipeline '" << text
                           << "': " << stream.str();
    return wrap(failure());
  }
  PassManager pm(op->getContext(), ModuleOp::getOperationName());
  static_cast<OpPassManager &>(pm) = std::move(*parsed);
  return wrap(pm.run(op));
}

static MlirLogicalResult runPass(MlirModule module, StringRef pass,
                                 MlirStringRef options) {
  std::string pipeline = pass.str();
  StringRef text = unwrap(options).trim();
  if (!text.empty())
    pipeline += "{" + text.str() + "}";
  return mirageRunPassPipeline(module, wrap(StringRef(pipeline)));
}

MlirLogicalResult mirageConvertLinalgToKernel(MlirModule module,
                                              bool keepUnsupported) {
  PassManager pm(unwrap(module)->getContext());
  pm.addPass(std::unique_ptr<Pass>(
      unwrap(mirageCreateConvertLinalgToKernel(keepUnsupported))));
  return wrap(pm.run(unwrap(module)));
}

MlirLogicalResult mirageConvertTosaToKernel(MlirModule module,
                                            bool keepUnsupported) {
  PassManager pm(unwrap(module)->getContext());
  pm.addPass(std::unique_ptr<Pass>(
      unwrap(mirageCreateConvertTosaToKernel(keepUnsupported))));
  return wrap(pm.run(unwrap(module)));
}

MlirLogicalResult mirageSuperoptimize(MlirModule module,
                                      MlirStringRef options) {
  return runPass(module, "mirage-superoptimize", options);
}

MlirLogicalResult mirageVerifyEquivalence(MlirModule module,
                                          MlirStringRef options) {
  return runPass(module, "mirage-verify-equivalence", options);
}

MlirLogicalResult mirageLowerToPTX(MlirModule module, MlirStringRef options) {
  return runPass(module, "mirage-to-ptx", options);
}

intptr_t mirageForEachGPUObject(MlirModule module, MlirStringCallback callback,
                                void *userData) {
  intptr_t count = 0;
  unwrap(module).walk([&](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjects()) {
      auto gpuObject = dyn_cast<gpu::ObjectAttr>(object);
      if (!gpuObject)
        continue;
      callback(wrap(gpuObject.getObject().getValue()), userData);
      ++count;
    }
  });
  return count;
}
