//===- OptionChecks.h - Option values checked when parsed ------*- C++ -*-===//
//
// Options that take one of a fixed set of values (chip, device, format,
// rules) are checked when the pipeline is parsed: an unknown value is an
// error naming the option, the value and the valid values, the tool exits
// non-zero and prints no IR.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_IR_OPTIONCHECKS_H
#define MIRAGE_IR_OPTIONCHECKS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace mirage {

/// "<where>: unknown value '<value>' for option '<option>'; valid values:
/// a, b, c", the message of every option value outside its set.
inline std::string formatBadOptionValue(llvm::StringRef where,
                                        llvm::StringRef option,
                                        llvm::StringRef value,
                                        llvm::StringRef validValues) {
  return (where + ": unknown value '" + value + "' for option '" + option +
          "'; valid values: " + validValues)
      .str();
}

/// The error for `value` of `option` when it is not one of `valid`, else
/// nothing.
/// Whether a pass's `progress` option shows progress: as given, or unset,
/// where a person watches (stderr is a terminal: not in lit, not in a log).
inline bool
showsProgress(const mlir::detail::PassOptions::Option<bool> &progress) {
  return progress.hasValue() ? bool(progress) : llvm::errs().is_displayed();
}

inline std::optional<std::string>
checkOptionValue(llvm::StringRef where, llvm::StringRef option,
                 llvm::StringRef value, llvm::ArrayRef<llvm::StringRef> valid) {
  if (llvm::is_contained(valid, value))
    return std::nullopt;
  return formatBadOptionValue(where, option, value, llvm::join(valid, ", "));
}

/// Registers a pipeline like mlir::PassPipelineRegistration, but calls
/// `check` on the parsed options first: a message from it is the pipeline's
/// parse error, and nothing is added to the pass manager.
template <typename Options>
void registerCheckedPassPipeline(
    llvm::StringRef argument, llvm::StringRef description,
    std::function<void(mlir::OpPassManager &, const Options &)> builder,
    std::function<std::optional<std::string>(const Options &)> check) {
  mlir::registerPassPipeline(
      argument, description,
      [builder,
       check](mlir::OpPassManager &pm, llvm::StringRef optionsText,
              llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)>
                  errorHandler) -> mlir::LogicalResult {
        Options options;
        if (mlir::failed(options.parseFromString(optionsText)))
          return mlir::failure();
        if (std::optional<std::string> error = check(options))
          return errorHandler(*error);
        builder(pm, options);
        return mlir::success();
      },
      [](llvm::function_ref<void(const mlir::detail::PassOptions &)>
             optionHandler) { optionHandler(Options()); });
}

} // namespace mirage

/// Put in a pass class that has `std::optional<std::string> checkOptions()
/// const`: its options are checked when a textual pipeline gives them (the
/// pipeline does not parse) and again before the pass runs when it was built
/// with options in C++ (an error without a location, so no IR is printed).
#define MIRAGE_CHECK_PASS_OPTIONS_AT_PARSE                                     \
  ::mlir::LogicalResult initializeOptions(                                     \
      ::llvm::StringRef options,                                               \
      ::llvm::function_ref<::mlir::LogicalResult(const ::llvm::Twine &)>       \
          errorHandler) override {                                             \
    if (::mlir::failed(                                                        \
            ::mlir::Pass::initializeOptions(options, errorHandler)))           \
      return ::mlir::failure();                                                \
    if (std::optional<std::string> error = checkOptions())                     \
      return errorHandler(*error);                                             \
    return ::mlir::success();                                                  \
  }                                                                            \
  ::mlir::LogicalResult initialize(::mlir::MLIRContext *context) override {    \
    if (std::optional<std::string> error = checkOptions())                     \
      return ::mlir::emitError(::mlir::UnknownLoc::get(context)) << *error;    \
    return ::mlir::success();                                                  \
  }

#endif // MIRAGE_IR_OPTIONCHECKS_H
