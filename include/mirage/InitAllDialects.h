//===- InitAllDialects.h - Register every Mirage dialect --------*- C++ -*-===//
//
// For tools and for MLIR compilers that embed the Mirage dialects:
//
//   mlir::DialectRegistry registry;
//   mirage::registerAllDialects(registry);
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_INITALLDIALECTS_H
#define MIRAGE_INITALLDIALECTS_H

#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/Dialect/Task/IR/Task.h"
#include "mirage/Dialect/Thread/IR/Thread.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"

namespace mirage {

/// Registers kn, tb, th and tg, plus func, which holds kernel graphs.
inline void registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<kn::KernelDialect, tb::BlockDialect, th::ThreadDialect,
                  tg::TaskDialect, mlir::func::FuncDialect>();
}

} // namespace mirage

#endif // MIRAGE_INITALLDIALECTS_H
