//===- ContractionSplit.h - Summed dims split over the grid -----*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// kn-fuse's split of a long summed dim (flash decoding): attention's scores
// carry the cache positions from the keys through the scaling and the
// exponential to the two sums over them (the softmax's row sums and the
// product with the values). Cutting the positions into S slices turns each
// sum into S partial sums, computed side by side with S in the grid, and a
// reduction over S after them, where the plain form walks every position in
// one block's loop. The regions are found on the operator records' dimension
// maps (getDimMap), not on named ops; kn-fuse prices the slicings with its
// speed model and keeps the cheapest (docs/Fusion.md).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_DIALECT_KERNEL_TRANSFORMS_CONTRACTIONSPLIT_H
#define MIRAGE_DIALECT_KERNEL_TRANSFORMS_CONTRACTIONSPLIT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace mirage::kn {

/// The ops of a function that carry one dim which only sums contract: every
/// value they compute has the dim in one of its two innermost dims, and is
/// read only by ops of the region or by the sums (ops that contract the dim
/// by addition: a matmul's k, a reduce_sum). The values the region reads
/// from outside (leaves) are sliced as views.
struct ContractedRegion {
  /// The ops whose results carry the dim, in block order.
  llvm::SmallVector<mlir::Operation *> ops;
  /// The sums over the dim, in block order.
  llvm::SmallVector<mlir::Operation *> sums;
  /// Where the dim is in each value that carries it: the ops' results and
  /// the leaves.
  llvm::DenseMap<mlir::Value, int64_t> positions;
  /// The dim's size.
  int64_t extent = 0;
};

/// The regions of `function` with at least one sum of batched operands and at
/// least one op that computes (not only moves data), none sharing an op.
llvm::SmallVector<ContractedRegion>
findContractedRegions(mlir::func::FuncOp function);

/// The ops `sliceContractedRegion` builds.
struct SlicedRegion {
  /// Every op built, in order.
  llvm::SmallVector<mlir::Operation *> created;
  /// The ops of the partial sums' kernel: the region on slices and the
  /// partial sums (the views of the leaves apart).
  llvm::SmallVector<mlir::Operation *> partials;
  /// Per sum of the region, the reduction over the slices that replaces it.
  llvm::SmallVector<mlir::Operation *> totals;
};

/// Builds the region on `slices` slices of its dim at the builder's point:
/// each value [..., a, b] with the dim (of size n) at a or b becomes
/// [..., S, a, b] with n/S in its place, leaves through a reshape (and a
/// transpose when the dim is innermost), values without the dim through a
/// reshape that inserts a size-1 S; each sum becomes a partial sum with S
/// in the same place and a reduce_sum over S (keepdim = false). Replaces
/// nothing: the caller decides.
SlicedRegion sliceContractedRegion(const ContractedRegion &region,
                                   int64_t slices, mlir::OpBuilder &builder);

} // namespace mirage::kn

#endif // MIRAGE_DIALECT_KERNEL_TRANSFORMS_CONTRACTIONSPLIT_H
