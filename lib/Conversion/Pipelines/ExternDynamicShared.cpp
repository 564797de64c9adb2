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
      if (isDynamicShared && global.getLinkage() == LLVM::Linkage::Internal)
        global.setLinkage(LLVM::Linkage::External);
    });
  }
};

} // namespace
