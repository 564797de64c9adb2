//===- VerifyEquivalence.cpp - The mirage-verify-equivalence pass ---------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Verify/Passes.h"

#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/Semantics/Parallel.h"
#include "mirage/Verify/Equivalence.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mirage {
#define GEN_PASS_DEF_MIRAGEVERIFYEQUIVALENCE
#include "mirage/Verify/Passes.h.inc"
} // namespace mirage

using namespace mlir;
using namespace mirage;

namespace {

struct VerifyEquivalence
    : public mirage::impl::MirageVerifyEquivalenceBase<VerifyEquivalence> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (threads)
      setParallelism(threads);
    EquivalenceOptions options;
    options.trials = trials;
    options.seed = seed;
    options.maxElements = maxElements;
    if (options.trials == 0) {
      module.emitError() << "mirage-verify-equivalence needs at least one "
                            "trial";
      return signalPassFailure();
    }

    SmallVector<std::pair<func::FuncOp, func::FuncOp>> pairs;
    if (!candidate.empty() || !reference.empty()) {
      auto lookup = [&](StringRef name) {
        return module.lookupSymbol<func::FuncOp>(name);
      };
      func::FuncOp c = lookup(candidate), r = lookup(reference);
      if (!c || !r) {
        module.emitError() << "mirage-verify-equivalence: no function named '"
                           << (!c ? candidate : reference)
                           << "' (give both candidate and reference)";
        return signalPassFailure();
      }
      pairs.push_back({c, r});
    } else {
      module.walk([&](func::FuncOp function) {
        auto name = function->getAttrOfType<FlatSymbolRefAttr>(
            kn::KernelDialect::getReferenceAttrName());
        if (name)
          pairs.push_back(
              {function, module.lookupSymbol<func::FuncOp>(name.getValue())});
      });
    }

    for (auto [c, r] : pairs) {
      auto result = checkEquivalence(c, r, options);
      if (!result) {
        c.emitError() << "cannot check @" << c.getSymName() << " against @"
                      << r.getSymName() << ": "
                      << llvm::toString(result.takeError());
        signalPassFailure();
        continue;
      }
      std::string line = describe(*result, r.getSymName());
      bool accepted = result->verdict == Verdict::Proven ||
                      result->verdict == Verdict::Tested;
      if (accepted)
        c.emitRemark() << line;
      else if (errorOnFailure) {
        c.emitError() << line;
        signalPassFailure();
      } else
        c.emitWarning() << line;
    }
    markAllAnalysesPreserved();
  }
};

} // namespace
