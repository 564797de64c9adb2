//===- VerifyEquivalence.cpp - The mirage-verify-equivalence pass ---------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Verify/Passes.h"

#include "mirage/Conversion/MegaKernel.h"

#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/Dialect/Task/IR/Task.h"
#include "mirage/IR/OptionChecks.h"
#include "mirage/Semantics/Parallel.h"
#include "mirage/Verify/Equivalence.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>

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
    options.taskOrders = taskOrders;
    if (options.trials == 0) {
      module.emitError() << "mirage-verify-equivalence needs at least one "
                            "trial";
      return signalPassFailure();
    }

    // Candidates are functions or task graphs.
    SmallVector<std::pair<Operation *, func::FuncOp>> pairs;
    if (!candidate.empty() || !reference.empty()) {
      Operation *c = module.lookupSymbol(candidate);
      auto r = module.lookupSymbol<func::FuncOp>(reference);
      if (!c || !isa<func::FuncOp, tg::GraphOp>(c) || !r) {
        module.emitError() << "mirage-verify-equivalence: no "
                           << (!r && c ? "function" : "function or task graph")
                           << " named '" << (!c ? candidate : reference)
                           << "' (give both candidate and reference)";
        return signalPassFailure();
      }
      pairs.push_back({c, r});
    } else {
      module.walk([&](Operation *op) {
        FlatSymbolRefAttr name;
        if (auto function = dyn_cast<func::FuncOp>(op))
          name = function->getAttrOfType<FlatSymbolRefAttr>(
              kn::KernelDialect::getReferenceAttrName());
        else if (auto graph = dyn_cast<tg::GraphOp>(op))
          name = graph.getSourceAttr();
        if (name)
          pairs.push_back(
              {op, module.lookupSymbol<func::FuncOp>(name.getValue())});
      });
    }

    bool showProgress = showsProgress(progress);
    auto allStarted = std::chrono::steady_clock::now();
    for (auto [index, pair] : llvm::enumerate(pairs)) {
      Operation *c = pair.first;
      func::FuncOp r = pair.second;
      StringRef name = cast<SymbolOpInterface>(c).getName();
      auto started = std::chrono::steady_clock::now();
      auto seconds = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                             started)
            .count();
      };
      if (showProgress)
        options.progress = [&, place = index + 1](StringRef check) {
          // What remains, from the pairs done so far (they differ in size,
          // so this is rough).
          std::string left;
          if (index > 0) {
            double each =
                std::chrono::duration<double>(started - allStarted).count() /
                double(index);
            left = llvm::formatv("; about {0:F0} s left",
                                 std::max(0.0, each - seconds()) +
                                     each * double(pairs.size() - place))
                       .str();
          }
          llvm::errs() << llvm::formatv(
              "mirage-verify-equivalence: [{0}/{1}] @{2} against @{3}: {4} "
              "({5:F1} s{6})\n",
              place, pairs.size(), name, r.getSymName(), check, seconds(),
              left);
        };
      // A task graph lowered to a mega-kernel runs in its workers' orders.
      std::optional<WorkerQueues> queues;
      auto graph = dyn_cast<tg::GraphOp>(c);
      if (graph && graph->hasAttr(megakernel::kMegaKernelAttrName)) {
        FailureOr<WorkerQueues> read = megakernel::readWorkerQueues(graph);
        if (failed(read)) {
          signalPassFailure();
          continue;
        }
        queues = std::move(*read);
      }
      auto result = graph ? checkEquivalence(graph, r, options, queues)
                          : checkEquivalence(cast<func::FuncOp>(c), r, options);
      if (showProgress)
        options.progress(result ? stringifyVerdict(result->verdict)
                                : StringRef("failed"));
      if (!result) {
        c->emitError() << "cannot check @" << name << " against @"
                       << r.getSymName() << ": "
                       << llvm::toString(result.takeError());
        signalPassFailure();
        continue;
      }
      std::string line = describe(*result, r.getSymName());
      bool accepted = result->verdict == Verdict::Proven ||
                      result->verdict == Verdict::Tested;
      if (accepted)
        c->emitRemark() << line;
      else if (errorOnFailure) {
        c->emitError() << line;
        signalPassFailure();
      } else
        c->emitWarning() << line;
    }
    markAllAnalysesPreserved();
  }
};

} // namespace
