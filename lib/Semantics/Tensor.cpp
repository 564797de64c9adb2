//===- Tensor.cpp - Dense tensors for the reference interpreter -----------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Semantics/Tensor.h"

#include <cassert>

using namespace mirage;
using llvm::ArrayRef;

Shape mirage::getStrides(ArrayRef<int64_t> shape) {
  Shape strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    strides[i - 1] = strides[i] * shape[i];
  return strides;
}

Shape mirage::unflattenIndex(int64_t offset, ArrayRef<int64_t> shape) {
  Shape index(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    index[i] = offset % shape[i];
    offset /= shape[i];
  }
  return index;
}

namespace {
/// Walks the row-major indices of `shape`, maintaining the offset that the
/// current index has under `strides`, and calls `visit(offset)` per element.
template <typename Visit>
void walk(ArrayRef<int64_t> shape, ArrayRef<int64_t> strides, int64_t base,
          Visit visit) {
  int64_t count = getNumElements(shape);
  Shape index(shape.size(), 0);
  int64_t offset = base;
  for (int64_t n = 0; n < count; ++n) {
    visit(offset);
    for (size_t d = shape.size(); d-- > 0;) {
      offset += strides[d];
      if (++index[d] < shape[d])
        break;
      offset -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
}
} // namespace

std::vector<int64_t> mirage::broadcastGather(ArrayRef<int64_t> operand,
                                             ArrayRef<int64_t> result) {
  assert(operand.size() <= result.size() && "operand broadcasts to result");
  Shape operandStrides = getStrides(operand);
  // Align on the right; broadcast dims (size 1 or missing) have stride 0.
  Shape strides(result.size(), 0);
  size_t lead = result.size() - operand.size();
  for (size_t d = 0; d < operand.size(); ++d)
    strides[lead + d] = operand[d] == 1 ? 0 : operandStrides[d];
  std::vector<int64_t> map;
  map.reserve(getNumElements(result));
  walk(result, strides, 0, [&](int64_t offset) { map.push_back(offset); });
  return map;
}

std::vector<int64_t> mirage::transposeGather(ArrayRef<int64_t> shape,
                                             ArrayRef<int64_t> permutation) {
  Shape operandStrides = getStrides(shape);
  Shape resultShape, strides;
  for (int64_t p : permutation) {
    resultShape.push_back(shape[p]);
    strides.push_back(operandStrides[p]);
  }
  std::vector<int64_t> map;
  map.reserve(getNumElements(shape));
  walk(resultShape, strides, 0, [&](int64_t offset) { map.push_back(offset); });
  return map;
}

std::vector<int64_t> mirage::boxOffsets(ArrayRef<int64_t> shape,
                                        ArrayRef<int64_t> offsets,
                                        ArrayRef<int64_t> box) {
  Shape strides = getStrides(shape);
  int64_t base = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    assert(offsets[d] + box[d] <= shape[d] && "box inside the tensor");
    base += offsets[d] * strides[d];
  }
  std::vector<int64_t> map;
  map.reserve(getNumElements(box));
  walk(box, strides, base, [&](int64_t offset) { map.push_back(offset); });
  return map;
}

F64Tensor mirage::gatherTensor(const F64Tensor &in,
                               const std::vector<int64_t> &map,
                               ArrayRef<int64_t> shape) {
  F64Tensor out;
  out.shape.assign(shape.begin(), shape.end());
  out.data = gather(in.data, map);
  return out;
}

FFTensor mirage::gatherTensor(const FFTensor &in,
                              const std::vector<int64_t> &map,
                              ArrayRef<int64_t> shape) {
  FFTensor out;
  out.shape.assign(shape.begin(), shape.end());
  out.p = gather(in.p, map);
  if (in.hasQ())
    out.q = gather(in.q, map);
  return out;
}

BoundedTensor mirage::gatherTensor(const BoundedTensor &in,
                                   const std::vector<int64_t> &map,
                                   ArrayRef<int64_t> shape) {
  BoundedTensor out;
  out.value = gatherTensor(in.value, map, shape);
  out.error = gatherTensor(in.error, map, shape);
  return out;
}

void mirage::scatterTile(F64Tensor &into, ArrayRef<int64_t> offsets,
                         const F64Tensor &tile) {
  std::vector<int64_t> map = boxOffsets(into.shape, offsets, tile.shape);
  for (size_t i = 0; i < map.size(); ++i)
    into.data[map[i]] = tile.data[i];
}

void mirage::scatterTile(FFTensor &into, ArrayRef<int64_t> offsets,
                         const FFTensor &tile) {
  std::vector<int64_t> map = boxOffsets(into.shape, offsets, tile.shape);
  for (size_t i = 0; i < map.size(); ++i)
    into.p[map[i]] = tile.p[i];
  if (into.hasQ() && tile.hasQ())
    for (size_t i = 0; i < map.size(); ++i)
      into.q[map[i]] = tile.q[i];
}

void mirage::scatterTile(BoundedTensor &into, ArrayRef<int64_t> offsets,
                         const BoundedTensor &tile) {
  scatterTile(into.value, offsets, tile.value);
  scatterTile(into.error, offsets, tile.error);
}
