//===- mirage-fuzz.cpp - libFuzzer harness for parsing and passes ---------===//
//
//   mirage-fuzz [--pipeline=PASSES] [--frontend-dialects] [libFuzzer flags]
//               CORPUS_DIR...
//
// Each input is MLIR text, parsed and verified with the project's dialects,
// func and arith (with --frontend-dialects also linalg, math, tensor and
// tosa, which the frontends take). A module that verifies must print, parse
// again and print the same text. Then PASSES (a pass list as in mirage-opt's
// --pass-pipeline, without the builtin.module anchor) runs on it; when the
// pipeline reports success its result must verify. Diagnostics are expected and
// ignored; a crash, a failed assertion, a sanitizer report, a timeout or
// running out of memory is a finding. libFuzzer ignores flags that start with
// "--", so --pipeline reaches only this harness. scripts/fuzz.sh builds the
// seed corpus and runs one fuzzer per pipeline; docs/Fuzzing.md says how.
//
//===----------------------------------------------------------------------===//

#include "MlirMutator.h"

#include "mirage/InitAllDialects.h"
#include "mirage/InitAllExtensions.h"
#include "mirage/InitAllPasses.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;
using llvm::StringRef;

namespace {
/// mlir-opt 22.1.8 crashes on these too: a dense array of index elements;
/// a linalg named op whose region cannot cast an index operand.
constexpr StringRef kUpstreamCrashes[] = {"array<index", "xindex>"};

std::string pipeline;
bool frontendDialects = false;
DialectRegistry *registry = nullptr;
mirage::fuzz::MlirMutator *mutator = nullptr;

std::string print(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}

/// A broken invariant on an input that verified: the finding is this input.
[[noreturn]] void fail(StringRef what, StringRef text) {
  llvm::errs() << "mirage-fuzz: " << what << "\n---\n" << text << "\n---\n";
  std::abort();
}
} // namespace

/// Debian's LLVM is built without AddressSanitizer, while inline code of its
/// headers instantiated in the project's sanitized files poisons allocator
/// memory (BumpPtrAllocator's redzones); when the two meet, ASan reports
/// use-after-poison on correct code. Manual poisoning is therefore off.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  for (int i = 1; i < *argc; ++i) {
    StringRef arg = (*argv)[i];
    if (arg.consume_front("--pipeline="))
      pipeline = arg.str();
    else if (arg == "--frontend-dialects")
      frontendDialects = true;
  }
  registerAllPasses();
  mirage::registerAllPasses();
  // The project's dialects, and with --frontend-dialects those its
  // frontends take. Other upstream dialects (nvgpu's verifier crashes on a
  // short mmaShape, for one) are outside what this harness fuzzes; passes
  // still load the dialects they produce.
  registry = new DialectRegistry();
  mirage::registerAllDialects(*registry);
  mirage::registerAllExtensions(*registry);
  registry->insert<arith::ArithDialect>();
  if (frontendDialects)
    registry->insert<linalg::LinalgDialect, math::MathDialect,
                     tensor::TensorDialect, tosa::TosaDialect>();
  registerAllExtensions(*registry);
  registerAllToLLVMIRTranslations(*registry);

  MLIRContext context(*registry);
  context.loadAllAvailableDialects();
  std::vector<std::string> opNames;
  for (RegisteredOperationName name : context.getRegisteredOperations()) {
    StringRef dialect = name.getDialectNamespace();
    if (dialect == "kn" || dialect == "tb" || dialect == "th" ||
        dialect == "tg" || dialect == "func")
      opNames.push_back(name.getStringRef().str());
  }
  mutator = new mirage::fuzz::MlirMutator(std::move(opNames),
                                          /*keepSyntax=*/frontendDialects);

  PassManager check(&context);
  if (failed(parsePassPipeline(pipeline, check, llvm::errs()))) {
    llvm::errs() << "mirage-fuzz: --pipeline='" << pipeline
                 << "' is not a valid pass list\n";
    std::exit(2);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  // Upstream parser crashes, reached before any Mirage code runs (listed in
  // docs/Fuzzing.md); skipped (-1: not kept in the corpus) so that the
  // fuzzer's time goes to the project's code.
  for (StringRef upstreamCrash : kUpstreamCrashes)
    if (StringRef(text).contains(upstreamCrash))
      return -1;
  MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  ParserConfig config(&context);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config);
  if (!module)
    return 0;

  std::string printed = print(*module);
  OwningOpRef<ModuleOp> again = parseSourceString<ModuleOp>(printed, config);
  if (!again)
    fail("a module that verified prints text that does not parse", printed);
  if (print(*again) != printed)
    fail("printing a module and parsing it back changes it", printed);

  if (pipeline.empty())
    return 0;
  PassManager passes(&context);
  // Verified below, so that a pass's success with broken IR is a finding.
  passes.enableVerifier(false);
  if (failed(parsePassPipeline(pipeline, passes, llvm::errs())))
    std::abort();
  if (succeeded(passes.run(*module)) && failed(verify(*module)))
    fail("the pipeline succeeded and left IR that does not verify",
         print(*module));
  return 0;
}

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                          size_t maxSize, unsigned seed) {
  // One mutation in eight is libFuzzer's own (bytes, dictionary, CMP
  // operands), which reaches the lexer's corners; none where the upstream
  // frontend dialects' parsers are in play (see MlirMutator).
  if (seed % 8 == 0 && !frontendDialects)
    return LLVMFuzzerMutate(data, size, maxSize);
  StringRef input(reinterpret_cast<const char *>(data), size);
  std::string result = mutator->mutate(input, seed);
  if (result.size() > maxSize || (result == input && frontendDialects))
    return size;
  if (result == input)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::memcpy(data, result.data(), result.size());
  return result.size();
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1,
                                            const uint8_t *data2, size_t size2,
                                            uint8_t *out, size_t maxOutSize,
                                            unsigned seed) {
  std::string result = mutator->crossOver(
      StringRef(reinterpret_cast<const char *>(data1), size1),
      StringRef(reinterpret_cast<const char *>(data2), size2), seed);
  size_t length = std::min(result.size(), maxOutSize);
  std::memcpy(out, result.data(), length);
  return length;
}
