//===- NVGPUToNVVM.cpp - nvgpu to NVVM with the module's index width ------===//
//
// Upstream convert-nvgpu-to-nvvm always lowers index to i64, while
// convert-gpu-to-nvvm follows the gpu.module's data layout; with 32-bit
// device indices (convert-kn-to-gpu sets them) the two disagree on memref
// descriptors. This pass applies the same patterns with the layout's width.
//
// It also lowers nvgpu.mma.sync on bf16 multiplicands, which the upstream
// pattern rejects ("failed to deduce operand PTX types": it infers the PTX
// type from the element type and knows f16, tf32, f64, s8 and s4 only).
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/Passes.h"

#include "mirage/Conversion/Pipelines.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace mirage {
#define GEN_PASS_DEF_CONVERTNVGPUTONVVMWITHLAYOUT
#include "mirage/Conversion/Passes.h.inc"
} // namespace mirage

using namespace mlir;

/// Why `op`, whose multiplicands are bf16, has no `mma.sync` in PTX, or
/// nothing when it has one. The op verifier checks that A and B have one
/// element type and the fragment shapes against the mma shape, but not the
/// accumulator type nor whether PTX has the shape for bf16.
static std::optional<std::string> getBF16MmaSyncProblem(nvgpu::MmaSyncOp op) {
  std::string problem;
  llvm::raw_string_ostream os(problem);
  Type accumulator = op.getMatrixC().getType().getElementType();
  std::array<int64_t, 3> shape = op.getMmaShapeAsArray();
  if (!accumulator.isF32())
    os << "with bf16 multiplicands needs f32 accumulators (PTX has no "
          "others for them), got '"
       << accumulator << "'";
  else if (shape[0] != 16 || shape[1] != 8 || (shape[2] != 16 && shape[2] != 8))
    os << "with bf16 multiplicands must have shape m16n8k16 or m16n8k8, got m"
       << shape[0] << "n" << shape[1] << "k" << shape[2];
  if (problem.empty())
    return std::nullopt;
  return problem;
}

namespace {

/// `nvgpu.mma.sync` with bf16 multiplicands to `nvvm.mma.sync` with explicit
/// bf16 PTX types. In the fragments of `mma.m16n8k16` and `mma.m16n8k8` with
/// `.bf16` multiplicands (PTX ISA, "Matrix Fragments for mma.m16n8k16 with
/// floating point type"; the layouts are those of `.f16`) each 32-bit
/// register holds two consecutive elements of one row of the fragment,
/// which is one row `vector<2xbf16>` of the nvgpu operand: the register is
/// that row bitcast to i32. The accumulators are four (m16n8) f32 scalars,
/// the rows of `vector<2x2xf32>` in order, and so is the result. A is
/// row-major and B column-major, as in the upstream pattern (the layouts
/// `nvgpu.ldmatrix` gives, with `transpose` for B).
///
/// Registered with a higher benefit than the upstream pattern, which fails
/// on bf16; ops with other multiplicand types are left to it.
struct MmaSyncBF16ToNVVM : public ConvertOpToLLVMPattern<nvgpu::MmaSyncOp> {
  explicit MmaSyncBF16ToNVVM(const LLVMTypeConverter &converter)
      : ConvertOpToLLVMPattern(converter, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(nvgpu::MmaSyncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    VectorType aType = op.getMatrixA().getType();
    VectorType bType = op.getMatrixB().getType();
    VectorType cType = op.getMatrixC().getType();
    if (!aType.getElementType().isBF16())
      return rewriter.notifyMatchFailure(op, "multiplicands are not bf16");
    // The pass has reported these before the conversion.
    if (std::optional<std::string> problem = getBF16MmaSyncProblem(op))
      return rewriter.notifyMatchFailure(op, *problem);
    std::array<int64_t, 3> shape = op.getMmaShapeAsArray();

    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    Type f32 = rewriter.getF32Type();
    // One i32 register per fragment row of two bf16 elements.
    auto packRows = [&](Value fragment, int64_t rows) {
      SmallVector<Value> registers;
      for (int64_t row = 0; row < rows; ++row) {
        Value pair = LLVM::ExtractValueOp::create(rewriter, loc, fragment, row);
        registers.push_back(LLVM::BitcastOp::create(rewriter, loc, i32, pair));
      }
      return registers;
    };
    auto position = [&](int64_t index) -> Value {
      return LLVM::ConstantOp::create(rewriter, loc, i32,
                                      rewriter.getI32IntegerAttr(index));
    };
    SmallVector<Value> a = packRows(adaptor.getMatrixA(), aType.getDimSize(0));
    SmallVector<Value> b = packRows(adaptor.getMatrixB(), bType.getDimSize(0));
    SmallVector<Value> c;
    for (int64_t row = 0, rows = cType.getDimSize(0); row < rows; ++row) {
      Value pair = LLVM::ExtractValueOp::create(rewriter, loc,
                                                adaptor.getMatrixC(), row);
      for (int64_t column = 0, e = cType.getDimSize(1); column < e; ++column)
        c.push_back(LLVM::ExtractElementOp::create(rewriter, loc, pair,
                                                   position(column)));
    }

    auto resultType = LLVM::LLVMStructType::getLiteral(
        rewriter.getContext(), SmallVector<Type>(c.size(), f32));
    Value mma = NVVM::MmaOp::create(
        rewriter, loc, resultType, a, b, c, shape, /*b1Op=*/std::nullopt,
        /*intOverflow=*/std::nullopt,
        std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                      NVVM::MMATypes::bf16},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});

    // Back to the converted vector<RxCxf32>: an array of R vector<Cxf32>.
    Type convertedType = getTypeConverter()->convertType(cType);
    auto arrayType = dyn_cast_or_null<LLVM::LLVMArrayType>(convertedType);
    if (!arrayType)
      return rewriter.notifyMatchFailure(
          op, "accumulator type does not convert to an LLVM array");
    Type rowType = arrayType.getElementType();
    Value result = LLVM::PoisonOp::create(rewriter, loc, arrayType);
    for (int64_t row = 0, rows = cType.getDimSize(0); row < rows; ++row) {
      Value pair = LLVM::PoisonOp::create(rewriter, loc, rowType);
      for (int64_t column = 0, e = cType.getDimSize(1); column < e; ++column) {
        Value element = LLVM::ExtractValueOp::create(
            rewriter, loc, mma, row * cType.getDimSize(1) + column);
        pair = LLVM::InsertElementOp::create(rewriter, loc, pair, element,
                                             position(column));
      }
      result = LLVM::InsertValueOp::create(rewriter, loc, result, pair, row);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Gives the kernel arguments that are tensor maps their LLVM type, a
/// generic pointer to the map, which the runtime passes like a buffer. The
/// function conversion of convert-gpu-to-nvvm knows no nvgpu type; the
/// copies that read the maps cast them back until the conversion below
/// lowers them and reconcile-unrealized-casts removes the pairs.
static void convertTensorMapArguments(gpu::GPUModuleOp module) {
  module.walk([](gpu::GPUFuncOp func) {
    if (func.isExternal())
      return;
    Block &entry = func.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    auto pointer = LLVM::LLVMPointerType::get(func.getContext());
    bool changed = false;
    for (BlockArgument arg : entry.getArguments()) {
      auto type = dyn_cast<nvgpu::TensorMapDescriptorType>(arg.getType());
      if (!type)
        continue;
      arg.setType(pointer);
      auto cast =
          UnrealizedConversionCastOp::create(b, arg.getLoc(), type, arg);
      arg.replaceAllUsesExcept(cast.getResult(0), cast);
      changed = true;
    }
    if (changed)
      func.setFunctionType(
          FunctionType::get(func.getContext(), entry.getArgumentTypes(),
                            func.getFunctionType().getResults()));
  });
}

struct ConvertNVGPUToNVVMWithLayout
    : public mirage::impl::ConvertNVGPUToNVVMWithLayoutBase<
          ConvertNVGPUToNVVMWithLayout> {
  /// The first pass of the device path to PTX declares what the whole path
  /// needs (the dialects it lowers through, their conversions to LLVM, the
  /// NVVM target, the LLVM IR translations), so that a tool that registers
  /// only the Mirage dialects and passes can run mirage-to-ptx.
  void getDependentDialects(DialectRegistry &registry) const override {
    ConvertNVGPUToNVVMWithLayoutBase::getDependentDialects(registry);
    mirage::registerMirageToPTXDependencies(registry);
  }

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    // A bf16 mma.sync that PTX lacks fails here with the reason, rather than
    // in the conversion, where the upstream pattern would add its own
    // "failed to deduce operand PTX types".
    bool unsupported = false;
    module.walk([&](nvgpu::MmaSyncOp op) {
      if (!op.getMatrixA().getType().getElementType().isBF16())
        return;
      if (std::optional<std::string> problem = getBF16MmaSyncProblem(op)) {
        op.emitOpError(*problem);
        unsupported = true;
      }
    });
    if (unsupported)
      return signalPassFailure();

    convertTensorMapArguments(module);
    LowerToLLVMOptions options(context, DataLayout(module));
    LLVMTypeConverter converter(context, options);
    configureGpuToNVVMTypeConverter(converter);
    nvgpu::populateCommonGPUTypeAndAttributeConversions(converter);
    // Async-copy tokens have no NVVM counterpart; they become dead i32s.
    converter.addConversion([&](nvgpu::DeviceAsyncTokenType type) -> Type {
      return IntegerType::get(type.getContext(), 32);
    });
    // As upstream convert-nvgpu-to-nvvm: tensor maps are generic pointers,
    // mbarrier groups the shared-memory array that holds them.
    converter.addConversion([](nvgpu::TensorMapDescriptorType type) -> Type {
      return LLVM::LLVMPointerType::get(type.getContext());
    });
    converter.addConversion([&](nvgpu::MBarrierGroupType type) -> Type {
      return converter.convertType(
          nvgpu::getMBarrierMemrefType(type.getContext(), type));
    });
    RewritePatternSet patterns(context);
    populateNVGPUToNVVMConversionPatterns(converter, patterns);
    patterns.add<MmaSyncBF16ToNVVM>(converter);
    LLVMConversionTarget target(*context);
    target.addLegalDialect<NVVM::NVVMDialect>();
    // mbarrier.create becomes a memref.global and its memref.get_global.
    target.addLegalDialect<memref::MemRefDialect>();
    target.addIllegalDialect<nvgpu::NVGPUDialect>();
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
