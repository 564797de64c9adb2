//===- GraphUtils.h - Checks shared by block and thread graphs --*- C++ -*-===//
//
// Block graphs (`tb.graph`) and thread graphs (`th.graph`) have the same
// structure one level apart: inputs read by input iterators, a for-loop body,
// accumulators, post-loop ops and output savers. The checks of that structure
// live here so both levels enforce the same rules with the same messages.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_IR_GRAPHUTILS_H
#define MIRAGE_IR_GRAPHUTILS_H

#include "mirage/Semantics/OpSemantics.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseSet.h"

namespace mirage {

/// Checks Mirage v3 Def. 2.1 (3) on a graph body: graph inputs are read only
/// by input iterators; every path from an input iterator to an output saver
/// passes exactly one accumulator when `looped` (at most one otherwise); no op
/// mixes loop-body and post-loop values; output savers feed only the
/// terminator, whose operands are all output-saver results.
llvm::LogicalResult verifyLoopStructure(mlir::Block &body, bool looped);

/// Ops of a graph body that run after the loop: output savers and every op
/// that (transitively) uses an accumulator result. The others run in the loop
/// body (iterators, loop-body compute, accumulators).
llvm::DenseSet<mlir::Operation *> getPostLoopOps(mlir::Block &body);

/// The peak memory of a graph body: the largest total size of values live at
/// once, in execution order (the loop body, then the post-loop ops), where an
/// accumulator's value is live from the start of the loop to its last use.
/// Only values for which `bytesOf` returns a size count.
struct PeakMemory {
  int64_t bytes = 0;
  /// The ops defining the values live at the peak, largest first.
  llvm::SmallVector<mlir::Operation *> liveAtPeak;
};
PeakMemory computePeakMemory(
    mlir::Block &body,
    llvm::function_ref<std::optional<int64_t>(mlir::Value)> bytesOf);

/// "'kn.exp' at file.mlir:12:8": an op and where it is, for messages that
/// outlive the diagnostic engine (verdicts, reports).
std::string describeOp(mlir::Operation *op);

/// "file.mlir:12:8" for file locations, the printed location otherwise.
std::string formatLocation(mlir::Location loc);

/// Element types that values of every level may have: f16, bf16, f32.
bool isSupportedElementType(mlir::Type type);

/// Bytes of a statically shaped value.
int64_t getByteSize(mlir::ShapedType type);

/// Parses the body `<16x64xf16>` of a tile or fragment type and builds it
/// with `ShapedT::getChecked`, which reports bad sizes or element types.
template <typename ShapedT>
mlir::Type parseShapedType(mlir::AsmParser &parser) {
  llvm::SmallVector<int64_t> shape;
  mlir::Type elementType;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseGreater())
    return {};
  return ShapedT::getChecked(
      [&] { return parser.emitError(parser.getNameLoc()); },
      parser.getContext(), shape, elementType);
}

/// Prints the body `<16x64xf16>` of a tile or fragment type.
void printShapedType(mlir::AsmPrinter &printer, mlir::ShapedType type);

/// The tiling an iterator, saver or accumulator nested directly in a graph of
/// type `GraphT` (tb::GraphOp, th::GraphOp) sees, or an empty tiling when it
/// is not nested in one (its verifier reports that first).
template <typename GraphT>
TilingParams getEnclosingTiling(mlir::Operation *op,
                                llvm::ArrayRef<int64_t> gridMap,
                                int64_t loopMap) {
  auto graph = llvm::dyn_cast_or_null<GraphT>(op->getParentOp());
  return graph ? graph.getTiling(gridMap, loopMap) : TilingParams();
}

/// Verifies a shaped type's parameters: positive sizes, supported element type.
llvm::LogicalResult
verifyShapeAndElementType(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                          llvm::StringRef typeName, llvm::ArrayRef<int64_t> shape,
                          mlir::Type elementType);

} // namespace mirage

#endif // MIRAGE_IR_GRAPHUTILS_H
