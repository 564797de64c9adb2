//===- InterpreterBenchmark.cpp - Timing the reference interpreter --------===//
//
// mirage-bench-interpreter FILE [--function NAME] [--repeat N]
//                           [--interpreter-threads T]
//
// Times every function of FILE (or one) in float64 and as fingerprints, on
// seeded inputs, and prints one line per function and number system with the
// median wall time.
//
//===----------------------------------------------------------------------===//

#include "mirage/InitAllDialects.h"
#include "mirage/Interpreter/Interpreter.h"
#include "mirage/Semantics/Parallel.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>

using namespace mlir;
using namespace mirage;

static llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                            llvm::cl::desc("<input .mlir>"),
                                            llvm::cl::Required);
static llvm::cl::opt<std::string>
    functionName("function", llvm::cl::desc("Time only this function"));
static llvm::cl::opt<unsigned> repeat("repeat", llvm::cl::init(3),
                                      llvm::cl::desc("Runs per measurement"));
static llvm::cl::opt<unsigned>
    threadCount("interpreter-threads", llvm::cl::init(0),
            llvm::cl::desc("Interpreter threads (0: one per core)"));

namespace {

template <typename Run>
double medianSeconds(Run run) {
  std::vector<double> times;
  for (unsigned i = 0; i < repeat; ++i) {
    auto start = std::chrono::steady_clock::now();
    run();
    times.push_back(std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

bool time(func::FuncOp function) {
  auto program = Program::compile(function);
  if (!program) {
    llvm::errs() << function.getSymName() << ": "
                 << llvm::toString(program.takeError()) << "\n";
    return false;
  }
  std::vector<F64Tensor> reals = drawReals(program->getInputShapes(), 1);
  std::vector<FFTensor> residues = drawResidues(program->getInputShapes(), 1);
  bool ok = true;
  auto report = [&](llvm::StringRef system, double seconds) {
    llvm::outs() << llvm::formatv("{0,-28} {1,-26} {2,9:F3} s\n",
                                  function.getSymName(), system, seconds);
  };
  report("float64", medianSeconds([&] {
           auto out = program->run(reals);
           if (!out) {
             llvm::errs() << llvm::toString(out.takeError()) << "\n";
             ok = false;
           }
         }));
  std::vector<BoundedTensor> bounded;
  for (const F64Tensor &tensor : reals)
    bounded.emplace_back(tensor);
  report("float64 with error bounds", medianSeconds([&] {
           auto out = program->run(bounded);
           if (!out) {
             llvm::errs() << llvm::toString(out.takeError()) << "\n";
             ok = false;
           }
         }));
  for (FingerprintMode mode :
       {FingerprintMode::Uninterpreted, FingerprintMode::Homomorphic}) {
    Fingerprinter fingerprinter(mode, 1);
    const char *system = mode == FingerprintMode::Homomorphic
                             ? "fingerprint (homomorphic)"
                             : "fingerprint (uninterpreted)";
    std::string failure;
    double seconds = medianSeconds([&] {
      auto out = program->run(residues, fingerprinter);
      if (!out) {
        llvm::Error error = out.takeError();
        failure = error.isA<ResampleError>()
                      ? "these inputs need a redraw"
                      : "outside the fingerprint fragment";
        llvm::consumeError(std::move(error));
      }
    });
    if (failure.empty())
      report(system, seconds);
    else
      llvm::outs() << llvm::formatv("{0,-28} {1,-26} {2}\n",
                                    function.getSymName(), system, failure);
  }
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "Times the Mirage reference interpreter\n");
  if (threadCount)
    setParallelism(threadCount);
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::SourceMgr sources;
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(inputFile, sources, ParserConfig(&context));
  if (!module)
    return 1;
  llvm::outs() << llvm::formatv("{0} threads, median of {1} runs\n",
                                getParallelism(), unsigned(repeat));
  bool ok = true;
  for (auto function : module->getOps<func::FuncOp>())
    if (functionName.empty() || function.getSymName() == functionName)
      ok &= time(function);
  return ok ? 0 : 1;
}
