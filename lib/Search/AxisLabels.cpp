//===- AxisLabels.cpp - The input axes each tensor axis is indexed with ---===//

#include "AxisLabels.h"

using namespace mirage;
using namespace mirage::search;
using namespace mirage::search::detail;
using llvm::ArrayRef;

namespace {

using MaybeLabels = std::optional<AxisLabels>;

/// The labels of an operator's results from its operands' labels.
template <typename GetLabels, typename GetShape>
MaybeLabels inferFromOperands(OpKind kind, const OpParams &params,
                              ArrayRef<unsigned> operands,
                              ArrayRef<int64_t> result, GetLabels getLabels,
                              GetShape getShape) {
  llvm::SmallVector<const AxisLabels *, 3> labels;
  llvm::SmallVector<ArrayRef<int64_t>, 3> shapes;
  for (unsigned operand : operands) {
    const MaybeLabels &known = getLabels(operand);
    if (!known)
      return std::nullopt;
    labels.push_back(&*known);
    shapes.push_back(getShape(operand));
  }
  return inferAxisSets(kind, labels, shapes, result, params);
}

} // namespace

std::vector<MaybeLabels> detail::labelTensors(const MuGraph &graph) {
  std::vector<MaybeLabels> labels(graph.tensors.size());
  if (graph.numInputs > 64 / kMaxLabelRank ||
      llvm::any_of(graph.tensors, [](const KernelTensor &t) {
        return t.shape.size() > kMaxLabelRank;
      }))
    return labels;
  for (unsigned i = 0; i < graph.numInputs; ++i) {
    const Shape &shape = graph.tensors[i].shape;
    AxisLabels input(shape.size(), 0);
    for (size_t a = 0; a < shape.size(); ++a)
      if (shape[a] != 1)
        input[a] = uint64_t(1) << (i * kMaxLabelRank + a);
    labels[i] = std::move(input);
  }
  auto tensorLabels = [&](unsigned t) -> const MaybeLabels & {
    return labels[t];
  };
  auto tensorShape = [&](unsigned t) -> ArrayRef<int64_t> {
    return graph.tensors[t].shape;
  };
  for (const KernelOp &op : graph.ops) {
    if (!op.isCustom()) {
      MaybeLabels result = inferFromOperands(
          op.kind, op.params, op.operands,
          graph.tensors[op.results.front()].shape, tensorLabels, tensorShape);
      for (unsigned r : op.results)
        labels[r] = result;
      continue;
    }
    // A block graph's skeleton works on whole tensors: the same rules.
    const BlockSkeleton &skeleton = *op.skeleton;
    std::vector<MaybeLabels> nodes(skeleton.nodes.size());
    for (unsigned i = 0; i < skeleton.numInputs; ++i)
      nodes[i] = labels[op.operands[i]];
    for (size_t n = skeleton.numInputs; n < skeleton.nodes.size(); ++n) {
      const BlockNode &node = skeleton.nodes[n];
      nodes[n] = inferFromOperands(
          node.kind, node.params, node.operands, node.shape,
          [&](unsigned m) -> const MaybeLabels & { return nodes[m]; },
          [&](unsigned m) -> ArrayRef<int64_t> {
            return skeleton.nodes[m].shape;
          });
    }
    for (auto [result, output] : llvm::zip(op.results, skeleton.outputs))
      labels[result] = nodes[output];
  }
  return labels;
}

bool detail::sameLabels(const MaybeLabels &a, const MaybeLabels &b,
                        ArrayRef<int64_t> shape) {
  if (!a || !b)
    return true;
  if (a->size() != shape.size() || b->size() != shape.size())
    return false;
  for (size_t axis = 0; axis < shape.size(); ++axis)
    if (shape[axis] != 1 && (*a)[axis] != (*b)[axis])
      return false;
  return true;
}
