//===- ExternDynamicShared.cpp - External linkage for dynamic smem --------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mirage {
#define GEN_PASS_DEF_EXTERNDYNAMICSHAREDMEMORY
#include "mirage/Conversion/Passes.h.inc"
} // namespace mirage

using namespace mlir;

namespace {

/// The 128-byte swizzle of the bulk tensor copy repeats every 1024 bytes.
constexpr uint64_t kDynamicSharedAlignment = 1024;

struct ExternDynamicSharedMemory
    : public mirage::impl::ExternDynamicSharedMemoryBase<
          ExternDynamicSharedMemory> {
  void runOnOperation() override {
    getOperation().walk([](LLVM::GlobalOp global) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      bool isDynamicShared =
          global.getAddrSpace() ==
              static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared) &&
          array && array.getNumElements() == 0;
      if (!isDynamicShared)
        return;
      if (global.getLinkage() == LLVM::Linkage::Internal)
        global.setLinkage(LLVM::Linkage::External);
      // Planned offsets assume a base on the copy engine's swizzle period.
      if (global.getAlignment().value_or(0) < kDynamicSharedAlignment)
        global.setAlignment(kDynamicSharedAlignment);
    });
  }
};

} // namespace
