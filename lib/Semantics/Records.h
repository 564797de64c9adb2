//===- Records.h - The operator records (internal) --------------*- C++ -*-===//
//
// Each operator family (Elementwise.cpp, Contraction.cpp, Normalization.cpp,
// DataMovement.cpp, Structure.cpp) defines its operators' facets side by
// side: shape rule, float64 evaluation, fingerprint, degree, abstract
// expression, work, dimension map (the structure ops' alignedMap is in
// OpSemantics.cpp). OpSemantics.cpp binds them into one record per operator.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_LIB_SEMANTICS_RECORDS_H
#define MIRAGE_LIB_SEMANTICS_RECORDS_H

#include "mirage/Semantics/AbstractExpr.h"
#include "mirage/Semantics/Evaluation.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <limits>

namespace mirage::detail {

using llvm::ArrayRef;
using llvm::Expected;
using llvm::SmallVector;
using Shapes = SmallVector<Shape, 1>;
using OperandShapes = ArrayRef<ArrayRef<int64_t>>;
using F64Operands = ArrayRef<const F64Tensor *>;
using FFOperands = ArrayRef<const FFTensor *>;

using ShapeRule = Expected<Shapes> (*)(OperandShapes, const OpParams &);
using F64Rule = Expected<F64Tensors> (*)(OpKind, F64Operands,
                                         const OpParams &);
using FFRule = Expected<FFTensors> (*)(OpKind, FFOperands, const OpParams &,
                                       const Fingerprinter &);
using DegreeRule = Degree (*)(OpKind, ArrayRef<Degree>, OperandShapes,
                              const OpParams &);
using ExprRule = ExprId (*)(OpKind, ArrayRef<ExprId>, OperandShapes,
                            const OpParams &, ExprContext &);
using WorkRule = OpWork (*)(OpKind, OperandShapes, ArrayRef<int64_t>,
                            const OpParams &);
using ErrorRule = Expected<F64Tensors> (*)(OpKind, F64Operands values,
                                           F64Operands errors,
                                           ArrayRef<F64Tensor> results,
                                           const OpParams &);
/// The dimension map, given the first result's shape.
using MapRule = std::optional<DimMap> (*)(OpKind, OperandShapes,
                                          ArrayRef<int64_t>, const OpParams &);

/// One operator: its facts and its facets. `f64`, `ff` are null where the
/// operator has no such evaluation (structural ops are driven by the graph
/// interpreter; ops outside the fingerprint fragment have no `ff`).
struct OpRecord {
  OpInfo info;
  ShapeRule shape;
  F64Rule f64;
  FFRule ff;
  ErrorRule errors;
  DegreeRule degree;
  ExprRule expr;
  WorkRule work;
  MapRule dims;
};

inline llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

inline Shapes single(ArrayRef<int64_t> shape) { return Shapes{Shape(shape)}; }

/// Checks that `dim` is a dimension index for a tensor of `rank`.
llvm::Error checkDim(int64_t dim, size_t rank, llvm::StringRef what);

//===----------------------------------------------------------------------===//
// Degrees (saturating)
//===----------------------------------------------------------------------===//

inline uint64_t satAdd(uint64_t a, uint64_t b) {
  return a > std::numeric_limits<uint64_t>::max() - b
             ? std::numeric_limits<uint64_t>::max()
             : a + b;
}
inline uint64_t satMul(uint64_t a, uint64_t b) {
  return a != 0 && b > std::numeric_limits<uint64_t>::max() / a
             ? std::numeric_limits<uint64_t>::max()
             : a * b;
}
/// a + b and a - b over a common denominator.
inline Degree addDegree(Degree a, Degree b) {
  return {std::max(satAdd(a.num, b.den), satAdd(b.num, a.den)),
          satAdd(a.den, b.den)};
}
inline Degree mulDegree(Degree a, Degree b) {
  return {satAdd(a.num, b.num), satAdd(a.den, b.den)};
}
inline Degree divDegree(Degree a, Degree b) {
  return {satAdd(a.num, b.den), satAdd(a.den, b.num)};
}
/// A sum of `count` terms of degree `term`.
inline Degree sumDegree(Degree term, int64_t count) {
  uint64_t n = static_cast<uint64_t>(count);
  return {satAdd(term.num, satMul(n - 1, term.den)), satMul(n, term.den)};
}
/// gamma_n = n u / (1 - n u): the relative rounding bound of a sum of n
/// terms or a dot product of length n in float64, in any order.
inline double gamma(int64_t n) {
  double nu = static_cast<double>(n) * kUnitRoundoff;
  return nu < 1.0 ? nu / (1.0 - nu) : std::numeric_limits<double>::infinity();
}

/// |x| elementwise (the magnitudes error bounds are built from).
F64Tensor absolute(const F64Tensor &x);

/// Degree of ops that move data: the largest operand's.
Degree keepDegree(OpKind, ArrayRef<Degree>, OperandShapes, const OpParams &);

/// The dimension map of the graph structure ops: rightAlignedMap, not
/// tiled.
std::optional<DimMap> alignedMap(OpKind, OperandShapes, ArrayRef<int64_t>,
                                 const OpParams &);
/// The map of operands aligned on the right with the result `out` (numpy
/// broadcasting), whose dims are the space: each operand dim indexes the
/// result dim it lines up with when their sizes agree, kBroadcastDim when
/// it is 1 against a larger one, kWholeDim otherwise. Elementwise operators
/// and the structure ops share it.
DimMap rightAlignedMap(OperandShapes in, ArrayRef<int64_t> out);
/// No arithmetic (data movement, structure).
OpWork noWork(OpKind, OperandShapes, ArrayRef<int64_t>, const OpParams &);

//===----------------------------------------------------------------------===//
// Families
//===----------------------------------------------------------------------===//

// Elementwise.cpp
Expected<Shapes> unaryShape(OperandShapes, const OpParams &);
Expected<Shapes> binaryShape(OperandShapes, const OpParams &);
Expected<F64Tensors> elementwiseF64(OpKind, F64Operands, const OpParams &);
Expected<FFTensors> elementwiseFF(OpKind, FFOperands, const OpParams &,
                                  const Fingerprinter &);
Degree elementwiseDegree(OpKind, ArrayRef<Degree>, OperandShapes,
                         const OpParams &);
Expected<F64Tensors> elementwiseErrors(OpKind, F64Operands, F64Operands,
                                       ArrayRef<F64Tensor>, const OpParams &);
ExprId elementwiseExpr(OpKind, ArrayRef<ExprId>, OperandShapes,
                       const OpParams &, ExprContext &);
OpWork elementwiseWork(OpKind, OperandShapes, ArrayRef<int64_t>,
                       const OpParams &);
std::optional<DimMap> elementwiseMap(OpKind, OperandShapes, ArrayRef<int64_t>,
                                     const OpParams &);

// Contraction.cpp
Expected<Shapes> matmulShape(OperandShapes, const OpParams &);
Expected<Shapes> reduceShape(OperandShapes, const OpParams &);
Expected<F64Tensors> contractionF64(OpKind, F64Operands, const OpParams &);
Expected<FFTensors> contractionFF(OpKind, FFOperands, const OpParams &,
                                  const Fingerprinter &);
Degree contractionDegree(OpKind, ArrayRef<Degree>, OperandShapes,
                         const OpParams &);
Expected<F64Tensors> contractionErrors(OpKind, F64Operands, F64Operands,
                                       ArrayRef<F64Tensor>, const OpParams &);
ExprId matmulExpr(OpKind, ArrayRef<ExprId>, OperandShapes, const OpParams &,
                  ExprContext &);
ExprId reduceSumExpr(OpKind, ArrayRef<ExprId>, OperandShapes, const OpParams &,
                     ExprContext &);
ExprId reduceMaxExpr(OpKind, ArrayRef<ExprId>, OperandShapes, const OpParams &,
                     ExprContext &);
OpWork contractionWork(OpKind, OperandShapes, ArrayRef<int64_t>,
                       const OpParams &);
std::optional<DimMap> contractionMap(OpKind, OperandShapes, ArrayRef<int64_t>,
                                     const OpParams &);

// Normalization.cpp
Expected<Shapes> rmsNormShape(OperandShapes, const OpParams &);
Expected<F64Tensors> rmsNormF64(OpKind, F64Operands, const OpParams &);
Expected<FFTensors> rmsNormFF(OpKind, FFOperands, const OpParams &,
                              const Fingerprinter &);
Degree rmsNormDegree(OpKind, ArrayRef<Degree>, OperandShapes,
                     const OpParams &);
Expected<F64Tensors> rmsNormErrors(OpKind, F64Operands, F64Operands,
                                   ArrayRef<F64Tensor>, const OpParams &);
ExprId rmsNormExpr(OpKind, ArrayRef<ExprId>, OperandShapes, const OpParams &,
                   ExprContext &);
OpWork rmsNormWork(OpKind, OperandShapes, ArrayRef<int64_t>, const OpParams &);
std::optional<DimMap> rmsNormMap(OpKind, OperandShapes, ArrayRef<int64_t>,
                                 const OpParams &);

// DataMovement.cpp
Expected<Shapes> concatShape(OperandShapes, const OpParams &);
Expected<Shapes> splitShape(OperandShapes, const OpParams &);
Expected<Shapes> reshapeShape(OperandShapes, const OpParams &);
Expected<Shapes> transposeShape(OperandShapes, const OpParams &);
Expected<F64Tensors> dataMovementF64(OpKind, F64Operands, const OpParams &);
Expected<FFTensors> dataMovementFF(OpKind, FFOperands, const OpParams &,
                                   const Fingerprinter &);
Expected<F64Tensors> dataMovementErrors(OpKind, F64Operands, F64Operands,
                                        ArrayRef<F64Tensor>, const OpParams &);
ExprId dataMovementExpr(OpKind, ArrayRef<ExprId>, OperandShapes,
                        const OpParams &, ExprContext &);
std::optional<DimMap> dataMovementMap(OpKind, OperandShapes, ArrayRef<int64_t>,
                                      const OpParams &);

// Structure.cpp
Expected<Shapes> inputIteratorShape(OperandShapes, const OpParams &);
Expected<Shapes> outputSaverShape(OperandShapes, const OpParams &);
Expected<Shapes> accumConcatShape(OperandShapes, const OpParams &);
Expected<Shapes> accumRescaledSumShape(OperandShapes, const OpParams &);
ExprId structureExpr(OpKind, ArrayRef<ExprId>, OperandShapes, const OpParams &,
                     ExprContext &);

//===----------------------------------------------------------------------===//
// Shared loops
//===----------------------------------------------------------------------===//

/// Splits [0, count) into chunks run by parallelFor: body(begin, end).
void parallelChunks(int64_t count,
                    llvm::function_ref<void(int64_t, int64_t)> body);

} // namespace mirage::detail

#endif // MIRAGE_LIB_SEMANTICS_RECORDS_H
