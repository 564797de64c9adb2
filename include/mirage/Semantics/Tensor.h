//===- Tensor.h - Dense tensors for the reference interpreter --*- C++ -*-===//
//
// Row-major dense tensors in the two number systems of the interpreter:
// float64 values and finite-field fingerprints (a residue mod p and one mod
// q per element). Data movement (slicing, transposition, broadcasting) is
// expressed as gather maps shared by both.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_SEMANTICS_TENSOR_H
#define MIRAGE_SEMANTICS_TENSOR_H

#include "mirage/Semantics/OpSemantics.h"

#include <cstdint>
#include <vector>

namespace mirage {

/// A tensor of doubles.
struct F64Tensor {
  Shape shape;
  std::vector<double> data;

  F64Tensor() = default;
  explicit F64Tensor(llvm::ArrayRef<int64_t> shape, double fill = 0.0)
      : shape(shape), data(getNumElements(shape), fill) {}
  int64_t size() const { return static_cast<int64_t>(data.size()); }
};

/// A tensor of fingerprints: element i is the pair (p[i], q[i]) of residues
/// mod the fingerprint primes p and q. `q` is empty where the exponent-field
/// component is undefined (downstream of an exponential).
struct FFTensor {
  Shape shape;
  std::vector<uint64_t> p;
  std::vector<uint64_t> q;

  FFTensor() = default;
  explicit FFTensor(llvm::ArrayRef<int64_t> shape, bool withQ = true)
      : shape(shape), p(getNumElements(shape)),
        q(withQ ? getNumElements(shape) : 0) {}
  int64_t size() const { return static_cast<int64_t>(p.size()); }
  bool hasQ() const { return !q.empty(); }
};

/// A float64 tensor with, per element, a bound on its distance from the
/// exact real value of the computation that produced it (running error
/// analysis: every operator adds its own rounding and propagates its
/// operands' bounds; docs/Verification.md).
struct BoundedTensor {
  F64Tensor value;
  F64Tensor error;

  BoundedTensor() = default;
  explicit BoundedTensor(llvm::ArrayRef<int64_t> shape)
      : value(shape), error(shape) {}
  /// Exact inputs: zero error.
  explicit BoundedTensor(F64Tensor exact)
      : value(std::move(exact)), error(value.shape) {}
  BoundedTensor(F64Tensor value, F64Tensor error)
      : value(std::move(value)), error(std::move(error)) {}
  int64_t size() const { return value.size(); }
};

inline llvm::ArrayRef<int64_t> shapeOf(const F64Tensor &t) { return t.shape; }
inline llvm::ArrayRef<int64_t> shapeOf(const FFTensor &t) { return t.shape; }
inline llvm::ArrayRef<int64_t> shapeOf(const BoundedTensor &t) {
  return t.value.shape;
}

/// Row-major strides of a shape.
Shape getStrides(llvm::ArrayRef<int64_t> shape);

/// For every element of `result` (row-major), the offset of the element of an
/// operand of shape `operand` it reads under numpy broadcasting.
std::vector<int64_t> broadcastGather(llvm::ArrayRef<int64_t> operand,
                                     llvm::ArrayRef<int64_t> result);

/// For every element of the transposed tensor, the offset it reads in the
/// operand of shape `shape`.
std::vector<int64_t> transposeGather(llvm::ArrayRef<int64_t> shape,
                                     llvm::ArrayRef<int64_t> permutation);

/// For every element of the box of shape `box` at `offsets` in a tensor of
/// shape `shape`, its offset in that tensor.
std::vector<int64_t> boxOffsets(llvm::ArrayRef<int64_t> shape,
                                llvm::ArrayRef<int64_t> offsets,
                                llvm::ArrayRef<int64_t> box);

/// out[i] = in[gather[i]] for a plain array.
template <typename T>
std::vector<T> gather(const std::vector<T> &in,
                      const std::vector<int64_t> &indices) {
  std::vector<T> out(indices.size());
  for (size_t i = 0; i < indices.size(); ++i)
    out[i] = in[indices[i]];
  return out;
}

/// Applies a gather to every component of a tensor, giving it `shape`.
F64Tensor gatherTensor(const F64Tensor &in, const std::vector<int64_t> &map,
                       llvm::ArrayRef<int64_t> shape);
FFTensor gatherTensor(const FFTensor &in, const std::vector<int64_t> &map,
                      llvm::ArrayRef<int64_t> shape);
BoundedTensor gatherTensor(const BoundedTensor &in,
                           const std::vector<int64_t> &map,
                           llvm::ArrayRef<int64_t> shape);

/// Writes `tile` into the box of `into` at `offsets` (the exponent-field
/// component only where both have one).
void scatterTile(F64Tensor &into, llvm::ArrayRef<int64_t> offsets,
                 const F64Tensor &tile);
void scatterTile(FFTensor &into, llvm::ArrayRef<int64_t> offsets,
                 const FFTensor &tile);
void scatterTile(BoundedTensor &into, llvm::ArrayRef<int64_t> offsets,
                 const BoundedTensor &tile);

/// Reads the box of shape `box` of `from` at `offsets`.
template <typename TensorT>
TensorT extractTile(const TensorT &from, llvm::ArrayRef<int64_t> offsets,
                    llvm::ArrayRef<int64_t> box) {
  return gatherTensor(from, boxOffsets(shapeOf(from), offsets, box), box);
}

/// The multi-dimensional index of row-major offset `offset` in `shape`.
Shape unflattenIndex(int64_t offset, llvm::ArrayRef<int64_t> shape);

} // namespace mirage

#endif // MIRAGE_SEMANTICS_TENSOR_H
