//===- NVGPUToNVVM.cpp - nvgpu to NVVM with the module's index width ------===//
//
// Upstream convert-nvgpu-to-nvvm always lowers index to i64, while
// convert-gpu-to-nvvm follows the gpu.module's data layout; with 32-bit
// device indices (convert-kn-to-gpu sets them) the two disagree on memref
// descriptors. This pass applies the same patterns with the layout's width.
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/Passes.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mirage {
#define GEN_PASS_DEF_CONVERTNVGPUTONVVMWITHLAYOUT
#include "mirage/Conversion/Passes.h.inc"
} // namespace mirage

using namespace mlir;

namespace {

struct ConvertNVGPUToNVVMWithLayout
    : public mirage::impl::ConvertNVGPUToNVVMWithLayoutBase<
          ConvertNVGPUToNVVMWithLayout> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    LowerToLLVMOptions options(context, DataLayout(module));
    LLVMTypeConverter converter(context, options);
    configureGpuToNVVMTypeConverter(converter);
    nvgpu::populateCommonGPUTypeAndAttributeConversions(converter);
    // Async-copy tokens have no NVVM counterpart; they become dead i32s.
    converter.addConversion([&](nvgpu::DeviceAsyncTokenType type) -> Type {
      return IntegerType::get(type.getContext(), 32);
    });
    RewritePatternSet patterns(context);
    populateNVGPUToNVVMConversionPatterns(converter, patterns);
    LLVMConversionTarget target(*context);
    target.addLegalDialect<NVVM::NVVMDialect>();
    target.addIllegalDialect<nvgpu::NVGPUDialect>();
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
