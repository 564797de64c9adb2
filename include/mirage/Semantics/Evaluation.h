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

/// Seeded inputs: reals uniform in [-1, 1), and fingerprints uniform in
/// Z_p x Z_q, one tensor per shape, drawn from `seed`.
std::vector<F64Tensor> drawReals(llvm::ArrayRef<Shape> shapes, uint64_t seed);
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

/// The degree of an accumulator's result from its operand's.
Degree getAccumulatorDegree(OpKind kind, Degree operand,
                            const OpParams &params);

} // namespace mirage

#endif // MIRAGE_SEMANTICS_EVALUATION_H
