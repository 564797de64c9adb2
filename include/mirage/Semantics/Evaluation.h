//===- Evaluation.h - Evaluating operators on tensors -----------*- C++ -*-===//
//
// The evaluation facets of the operator records: every operator in float64
// and, when it has one, as a finite-field fingerprint; the degree of the
// rational function it computes (for the false-accept bound); and the
// per-iteration semantics of iterators, savers and accumulators that the
// graph interpreter drives.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_SEMANTICS_EVALUATION_H
#define MIRAGE_SEMANTICS_EVALUATION_H

#include "mirage/Semantics/Fingerprint.h"
#include "mirage/Semantics/OpSemantics.h"
#include "mirage/Semantics/Tensor.h"

namespace mirage {

using F64Tensors = llvm::SmallVector<F64Tensor, 1>;
using FFTensors = llvm::SmallVector<FFTensor, 1>;

/// Seeded inputs, one tensor per shape, drawn from `seed`. Reals: uniform
/// in [-1, 1), or with `maxExponent` a random sign and a magnitude 2^t, t
/// uniform in [-10, maxExponent]: large values reach the regions where
/// operators differ (thresholds, clamps, the tails of exp and gelu), small
/// ones make epsilons matter; every element type (f16 included) holds
/// magnitudes from 2^-10 to 2^10. Fingerprints: uniform in Z_p x Z_q.
std::vector<F64Tensor> drawReals(llvm::ArrayRef<Shape> shapes, uint64_t seed,
                                 std::optional<int> maxExponent = std::nullopt);
std::vector<FFTensor> drawResidues(llvm::ArrayRef<Shape> shapes,
                                   uint64_t seed);

/// Evaluates a compute operator (not an iterator, saver or accumulator).
llvm::Expected<F64Tensors> evaluate(OpKind kind,
                                    llvm::ArrayRef<const F64Tensor *> operands,
                                    const OpParams &params);

/// Fingerprints a compute operator. Fails with a ResampleError when the
/// sampled values hit a zero divisor or a non-residue, and with a plain error
/// for an operator outside the fingerprint fragment.
llvm::Expected<FFTensors> evaluate(OpKind kind,
                                   llvm::ArrayRef<const FFTensor *> operands,
                                   const OpParams &params,
                                   const Fingerprinter &fingerprinter);

/// Running error analysis of a compute operator: from its operands' float64
/// values, bounds on their distance from the exact reals (`errors`) and the
/// operator's float64 `results` on those values, bounds on the results'
/// distance from the exact reals: the operands' errors propagated through
/// the operator plus its own rounding. +inf where no finite bound follows
/// (a divisor whose bound includes 0, a square root near 0).
llvm::Expected<F64Tensors>
boundErrors(OpKind kind, llvm::ArrayRef<const F64Tensor *> values,
            llvm::ArrayRef<const F64Tensor *> errors,
            llvm::ArrayRef<F64Tensor> results, const OpParams &params);

/// The unit roundoff of float64, 2^-53.
constexpr double kUnitRoundoff = 0x1.0p-53;

/// Upper bounds on the degrees of the numerator and denominator of a
/// rational function of the inputs, with exp and sqrt outputs counted as new
/// variables. Saturates at UINT64_MAX.
struct Degree {
  uint64_t num = 0;
  uint64_t den = 0;
};

/// The degree of an operator's results from its operands' (all results
/// share it).
Degree getDegree(OpKind kind, llvm::ArrayRef<Degree> operands,
                 llvm::ArrayRef<llvm::ArrayRef<int64_t>> operandShapes,
                 const OpParams &params);

/// Offsets of the tile an input iterator reads for `worker` (grid or thread
/// coordinates) in `iteration`, from a tensor of shape `shape`.
Shape getInputTileOffsets(const TilingParams &tiling,
                          llvm::ArrayRef<int64_t> worker, int64_t iteration,
                          llvm::ArrayRef<int64_t> shape);

/// Offsets at which an output saver writes `worker`'s tile of shape `tile`.
Shape getOutputTileOffsets(const TilingParams &tiling,
                           llvm::ArrayRef<int64_t> worker,
                           llvm::ArrayRef<int64_t> tile);

/// The running state of one accumulator across the iterations of a loop.
template <typename TensorT>
class Accumulator {
public:
  virtual ~Accumulator() = default;
  /// Folds iteration `iteration`'s operands in.
  virtual llvm::Error fold(llvm::ArrayRef<const TensorT *> operands,
                           int64_t iteration) = 0;
  /// The accumulated value after the last iteration.
  virtual TensorT result() = 0;
};

/// A fresh accumulator of kind `kind` (AccumSum, AccumMax, AccumConcat,
/// AccumRescaledSum), or an error for a kind with no such semantics in this
/// number system (max and rescaled sums have no fingerprint).
llvm::Expected<std::unique_ptr<Accumulator<F64Tensor>>>
makeAccumulator(OpKind kind, const OpParams &params,
                llvm::ArrayRef<int64_t> resultShape);
llvm::Expected<std::unique_ptr<Accumulator<FFTensor>>>
makeAccumulator(OpKind kind, const OpParams &params,
                llvm::ArrayRef<int64_t> resultShape,
                const Fingerprinter &fingerprinter);

/// An accumulator over bounded tensors: the float64 accumulator's values
/// and bounds on their errors.
llvm::Expected<std::unique_ptr<Accumulator<BoundedTensor>>>
makeBoundedAccumulator(OpKind kind, const OpParams &params,
                       llvm::ArrayRef<int64_t> resultShape);

/// The degree of an accumulator's result from its operand's.
Degree getAccumulatorDegree(OpKind kind, Degree operand,
                            const OpParams &params);

} // namespace mirage

#endif // MIRAGE_SEMANTICS_EVALUATION_H
