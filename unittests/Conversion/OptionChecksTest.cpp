//===- OptionChecksTest.cpp - Options checked before a pass runs
//-----------===//
//
// A pass built in C++ with an option value outside its set (what pipeline
// builders and embedders do, without the textual parser) fails before it
// runs: the error names the option, the value and the valid values, has no
// location (so no IR is printed with it), and the module is untouched.
//
//===----------------------------------------------------------------------===//

#include "mirage/Dialect/Kernel/Transforms/Passes.h"

#include "mirage/InitAllDialects.h"
#include "mirage/InitAllExtensions.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mirage;

namespace {

constexpr const char *kProgram = R"mlir(
func.func @f(%a: tensor<16x64xf16>) -> tensor<16x64xf16> {
  %b = kn.exp %a : tensor<16x64xf16>
  %c = kn.mul_scalar %b, 0.5 : tensor<16x64xf16>
  return %c : tensor<16x64xf16>
})mlir";

struct Diagnostics {
  explicit Diagnostics(MLIRContext &context)
      : handler(&context, [this](Diagnostic &diagnostic) {
          messages.push_back(diagnostic.str());
          locations.push_back(diagnostic.getLocation());
          EXPECT_TRUE(diagnostic.getNotes().empty());
          return success();
        }) {}
  std::vector<std::string> messages;
  std::vector<Location> locations;
  ScopedDiagnosticHandler handler;
};

class OptionChecksTest : public ::testing::Test {
protected:
  OptionChecksTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllExtensions(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  MLIRContext context;
};

TEST_F(OptionChecksTest, PassBuiltInCppRefusesUnknownValues) {
  struct Case {
    kn::KnFuseOptions options;
    const char *message;
  };
  Case chip, device;
  chip.options.chip = "sm_42";
  chip.message = "kn-fuse: unknown value 'sm_42' for option 'chip'; valid "
                 "values: sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100a";
  device.options.device = "a100";
  device.message = "kn-fuse: unknown value 'a100' for option 'device'; valid "
                   "values: h100, h200";
  for (const Case &c : {chip, device}) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(kProgram, &context);
    ASSERT_TRUE(module);
    std::string before;
    llvm::raw_string_ostream(before) << *module;
    Diagnostics diagnostics(context);
    PassManager pm(&context);
    pm.addNestedPass<func::FuncOp>(kn::createKnFuse(c.options));
    EXPECT_TRUE(failed(pm.run(*module)));
    ASSERT_EQ(diagnostics.messages.size(), 1u);
    EXPECT_EQ(diagnostics.messages[0], c.message);
    EXPECT_TRUE(isa<UnknownLoc>(diagnostics.locations[0]));
    std::string after;
    llvm::raw_string_ostream(after) << *module;
    EXPECT_EQ(before, after);
  }
}

TEST_F(OptionChecksTest, TextualOptionsRefusedWhenParsed) {
  kn::registerKnFuse();
  OpPassManager pm("func.func");
  std::string error;
  llvm::raw_string_ostream errors(error);
  EXPECT_TRUE(failed(parsePassPipeline("kn-fuse{device=a100}", pm, errors)));
  EXPECT_NE(error.find("kn-fuse: unknown value 'a100' for option 'device'; "
                       "valid values: h100, h200"),
            std::string::npos)
      << error;
  // Valid values parse.
  OpPassManager ok("func.func");
  EXPECT_TRUE(succeeded(
      parsePassPipeline("kn-fuse{device=h200 chip=sm_100a}", ok, errors)));
}

} // namespace
