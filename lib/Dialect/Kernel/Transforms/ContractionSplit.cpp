//===- ContractionSplit.cpp - Summed dims split over the grid -------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Dialect/Kernel/Transforms/ContractionSplit.h"

#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/IR/OperatorOps.h"
#include "mirage/IR/SemanticsOpInterface.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::kn;

namespace {

/// Sums of batched operands only (attention's heads): a two-dim region is
/// an MLP's hidden dim between its projections, whose split into slices
/// computed side by side has not been measured against the projections'
/// own kernels (a narrow two-dim matmul alone is kn-fuse's split-K).
constexpr int64_t kMinSumRank = 3;

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

int64_t rankOf(Value value) { return shapeOf(value).size(); }

/// How one operand of a sliced op is rebuilt.
struct OperandRole {
  enum Kind {
    /// Carries the dim at `position`: the sliced value.
    Carries,
    /// The op's rank without the dim: a size-1 S is inserted before its two
    /// innermost dims, so it broadcasts over the slices.
    Batched,
    /// Of rank 2 or less (a norm's weight, a right-aligned broadcast): read
    /// as it is.
    Unchanged,
  } kind;
  int64_t position = 0;
};

/// An operator op that slicing may rebuild: one result, no marks, and
/// parameters that name dims only as slicing can shift them.
SemanticsOpInterface getSliceableOp(Operation *op) {
  auto semantics = dyn_cast_or_null<SemanticsOpInterface>(op);
  // Marks (a partition, a data-dependent value) say something about the
  // op as it is, which its slices would not keep.
  if (!semantics || op->getNumResults() != 1 ||
      !op->getDiscardableAttrDictionary().empty())
    return nullptr;
  switch (getOpInfo(semantics.getOpKind()).params) {
  case ParamForm::None:
  case ParamForm::Scalar:
  case ParamForm::Epsilon:
  case ParamForm::ReduceDim:
  case ParamForm::Permutation:
    return semantics;
  default:
    return nullptr;
  }
}

std::optional<DimMap> getDimMapOf(SemanticsOpInterface op) {
  SmallVector<ArrayRef<int64_t>> in;
  for (Value operand : op->getOperands())
    in.push_back(shapeOf(operand));
  std::optional<DimMap> map = getDimMap(
      op.getOpKind(), in, shapeOf(op->getResult(0)), op.getOpParams());
  if (!map || !map->tiled || map->regroups)
    return std::nullopt;
  return map;
}

/// The roles of `op`'s operands when its space dim `space` is sliced and
/// the values that carry it have rank `rank`; none when an operand cannot
/// follow (the dim twice, or outside the two innermost dims, or a rank
/// between 3 and `rank` that the inserted S would misalign).
std::optional<SmallVector<OperandRole>> getOperandRoles(SemanticsOpInterface op,
                                                        const DimMap &map,
                                                        int64_t space,
                                                        int64_t rank) {
  SmallVector<OperandRole> roles;
  for (auto [operand, dims] : llvm::zip(op->getOperands(), map.operands)) {
    auto carried = llvm::find(dims, space);
    int64_t operandRank = rankOf(operand);
    if (carried != dims.end()) {
      int64_t position = carried - dims.begin();
      if (llvm::count(dims, space) != 1 || operandRank != rank ||
          position < rank - 2)
        return std::nullopt;
      roles.push_back({OperandRole::Carries, position});
    } else if (operandRank == rank) {
      roles.push_back({OperandRole::Batched});
    } else if (operandRank <= 2) {
      roles.push_back({OperandRole::Unchanged});
    } else {
      return std::nullopt;
    }
  }
  return roles;
}

/// The operand roles of `value`'s producer when it carries the dim at
/// `position` through a parallel space dim; none if it is not in a region.
std::optional<SmallVector<OperandRole>> getProducerRoles(Value value,
                                                         int64_t position) {
  SemanticsOpInterface op = getSliceableOp(value.getDefiningOp());
  if (!op)
    return std::nullopt;
  std::optional<DimMap> map = getDimMapOf(op);
  if (!map)
    return std::nullopt;
  int64_t space = map->results[0][position];
  if (space < 0 || map->kinds[space] != SpaceDimKind::Parallel)
    return std::nullopt;
  return getOperandRoles(op, *map, space, rankOf(value));
}

/// The operand roles of `user` when it sums operand `index`'s dim at
/// `position` away; none if it does not.
std::optional<SmallVector<OperandRole>>
getSumRoles(Operation *user, unsigned index, int64_t position) {
  SemanticsOpInterface op = getSliceableOp(user);
  if (!op)
    return std::nullopt;
  std::optional<DimMap> map = getDimMapOf(op);
  if (!map || map->accumulator != OpKind::AccumSum)
    return std::nullopt;
  int64_t space = map->operands[index][position];
  if (space < 0 || map->kinds[space] != SpaceDimKind::Reduced)
    return std::nullopt;
  return getOperandRoles(op, *map, space, rankOf(user->getOperand(index)));
}

/// Grows the region of one sum.
class RegionBuilder {
public:
  explicit RegionBuilder(int64_t extent) : extent(extent) {}

  /// Adds a sum and what it reads; false on a conflict (the dim of two
  /// sizes or at two places in one value).
  bool addSum(Operation *sum, ArrayRef<OperandRole> roles) {
    sums.insert(sum);
    for (auto [operand, role] : llvm::zip(sum->getOperands(), roles))
      if (role.kind == OperandRole::Carries &&
          !addValue(operand, role.position))
        return false;
    return true;
  }

  /// Adds the sums among the readers of the region's values until there
  /// are no more; false if something else reads one of them: the unsplit
  /// region can share that value with its other reader on chip (a
  /// softmax's scores with their row maximum), the split one would store it
  /// in full.
  bool close() {
    bool changed = true;
    while (changed) {
      changed = false;
      for (Operation *op : SmallVector<Operation *>(ops.getArrayRef())) {
        Value value = op->getResult(0);
        for (OpOperand &use : value.getUses()) {
          Operation *user = use.getOwner();
          if (ops.contains(user) || sums.contains(user))
            continue;
          auto roles = getSumRoles(user, use.getOperandNumber(),
                                   positions.lookup(value));
          if (!roles || !addSum(user, *roles))
            return false;
          changed = true;
        }
      }
    }
    return true;
  }

  std::optional<ContractedRegion> finish() {
    ContractedRegion region;
    region.ops.assign(ops.begin(), ops.end());
    region.sums.assign(sums.begin(), sums.end());
    auto inOrder = [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    };
    llvm::sort(region.ops, inOrder);
    llvm::sort(region.sums, inOrder);
    if (region.sums.empty() || llvm::none_of(region.ops, [](Operation *op) {
          auto semantics = cast<SemanticsOpInterface>(op);
          return !getOpInfo(semantics.getOpKind()).movesData;
        }))
      return std::nullopt;
    region.positions = std::move(positions);
    region.extent = extent;
    return region;
  }

private:
  bool addValue(Value value, int64_t position) {
    if (shapeOf(value)[position] != extent)
      return false;
    auto [it, inserted] = positions.try_emplace(value, position);
    if (!inserted)
      return it->second == position;
    std::optional<SmallVector<OperandRole>> roles =
        getProducerRoles(value, position);
    if (!roles)
      return true;
    Operation *op = value.getDefiningOp();
    ops.insert(op);
    for (auto [operand, role] : llvm::zip(op->getOperands(), *roles))
      if (role.kind == OperandRole::Carries &&
          !addValue(operand, role.position))
        return false;
    return true;
  }

  int64_t extent;
  llvm::SetVector<Operation *> ops, sums;
  llvm::DenseMap<Value, int64_t> positions;
};

/// `shape` with a size-1 S inserted before its two innermost dims.
SmallVector<int64_t> withUnitSlices(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> sliced(shape);
  sliced.insert(sliced.end() - 2, 1);
  return sliced;
}

/// The parameters of an op of rank `rank` (its carrying operands') once S
/// is inserted before the two innermost dims.
OpParams withSlices(OpParams params, OpKind kind, int64_t rank) {
  auto shifted = [&](int64_t dim) { return dim >= rank - 2 ? dim + 1 : dim; };
  switch (getOpInfo(kind).params) {
  case ParamForm::ReduceDim:
    params.dim = shifted(params.dim);
    break;
  case ParamForm::Permutation: {
    SmallVector<int64_t, 4> permutation;
    for (int64_t i = 0; i < rank; ++i) {
      if (i == rank - 2)
        permutation.push_back(rank - 2);
      permutation.push_back(shifted(params.ints[i]));
    }
    params.ints = std::move(permutation);
    break;
  }
  default:
    break;
  }
  return params;
}

} // namespace

SmallVector<ContractedRegion>
mirage::kn::findContractedRegions(func::FuncOp function) {
  SmallVector<ContractedRegion> regions;
  llvm::DenseSet<Operation *> taken;
  for (Operation &op : function.getBody().front()) {
    if (taken.contains(&op) || op.getNumOperands() == 0 ||
        !isa<ShapedType>(op.getOperand(0).getType()) ||
        rankOf(op.getOperand(0)) < kMinSumRank)
      continue;
    // A sum of its first operand's dim at one of the two innermost places.
    for (int64_t position :
         {rankOf(op.getOperand(0)) - 1, rankOf(op.getOperand(0)) - 2}) {
      std::optional<SmallVector<OperandRole>> roles =
          getSumRoles(&op, 0, position);
      if (!roles)
        continue;
      RegionBuilder builder(shapeOf(op.getOperand(0))[position]);
      if (!builder.addSum(&op, *roles) || !builder.close())
        break;
      std::optional<ContractedRegion> region = builder.finish();
      if (!region || llvm::any_of(region->ops, [&](Operation *member) {
            return taken.contains(member);
          }))
        break;
      taken.insert(region->ops.begin(), region->ops.end());
      taken.insert(region->sums.begin(), region->sums.end());
      regions.push_back(std::move(*region));
      break;
    }
  }
  return regions;
}

SlicedRegion mirage::kn::sliceContractedRegion(const ContractedRegion &region,
                                               int64_t slices,
                                               OpBuilder &builder) {
  SlicedRegion result;
  // Values that carry the dim, and values given a size-1 S, by original.
  IRMapping sliced, batched;
  auto record = [&](Operation *op) {
    result.created.push_back(op);
    return op->getResult(0);
  };
  auto tensorLike = [](Value value, ArrayRef<int64_t> shape) {
    return RankedTensorType::get(
        shape, cast<ShapedType>(value.getType()).getElementType());
  };
  // A leaf that carries the dim: [.., a, n] -> [.., a, S, n/S] -> [.., S,
  // a, n/S], or [.., n, b] -> [.., S, n/S, b].
  auto sliceLeaf = [&](Value leaf, int64_t position) -> Value {
    if (Value done = sliced.lookupOrNull(leaf))
      return done;
    Location loc = leaf.getLoc();
    int64_t rank = rankOf(leaf);
    SmallVector<int64_t> shape(shapeOf(leaf));
    shape[position] = region.extent / slices;
    shape.insert(shape.begin() + position, slices);
    Value view =
        record(ReshapeOp::create(builder, loc, tensorLike(leaf, shape), leaf));
    if (position == rank - 1) {
      SmallVector<int64_t> permutation =
          llvm::to_vector(llvm::seq<int64_t>(0, rank + 1));
      std::swap(permutation[rank - 2], permutation[rank - 1]);
      auto transpose = TransposeOp::create(
          builder, loc, view, builder.getDenseI64ArrayAttr(permutation));
      result.partials.push_back(transpose);
      view = record(transpose);
    }
    sliced.map(leaf, view);
    return view;
  };
  auto getOperand = [&](Value operand, OperandRole role) -> Value {
    switch (role.kind) {
    case OperandRole::Carries:
      return sliceLeaf(operand, role.position);
    case OperandRole::Batched: {
      if (Value done = batched.lookupOrNull(operand))
        return done;
      Value view = record(ReshapeOp::create(
          builder, operand.getLoc(),
          tensorLike(operand, withUnitSlices(shapeOf(operand))), operand));
      batched.map(operand, view);
      return view;
    }
    case OperandRole::Unchanged:
      return operand;
    }
    llvm_unreachable("unknown operand role");
  };
  // Rebuilds an op of the region or a sum on sliced operands.
  auto rebuild = [&](Operation *op, ArrayRef<OperandRole> roles,
                     int64_t rank) -> Value {
    auto semantics = cast<SemanticsOpInterface>(op);
    OpKind kind = semantics.getOpKind();
    SmallVector<Value> operands;
    SmallVector<ArrayRef<int64_t>> shapes;
    for (auto [operand, role] : llvm::zip(op->getOperands(), roles)) {
      operands.push_back(getOperand(operand, role));
      shapes.push_back(shapeOf(operands.back()));
    }
    OpParams params = withSlices(semantics.getOpParams(), kind, rank);
    auto inferred = inferShapes(kind, shapes, params);
    // The sliced shapes follow the op's own dim map, so its shape rule
    // accepts them.
    assert(inferred && "a sliced op's shapes do not fit its operator");
    FailureOr<Operation *> built = createOperatorOp<KernelDialect>(
        builder, op->getLoc(), kind, operands,
        tensorLike(op->getResult(0), (*inferred)[0]),
        getOpAttributes(kind, params, builder));
    assert(succeeded(built) && "kn has every operator it sliced");
    result.partials.push_back(*built);
    return record(*built);
  };
  for (Operation *op : region.ops) {
    Value value = op->getResult(0);
    std::optional<SmallVector<OperandRole>> roles =
        getProducerRoles(value, region.positions.lookup(value));
    sliced.map(value, rebuild(op, *roles, rankOf(value)));
  }
  for (Operation *sum : region.sums) {
    unsigned index = 0;
    while (!region.positions.count(sum->getOperand(index)))
      ++index;
    Value carried = sum->getOperand(index);
    int64_t rank = rankOf(carried);
    std::optional<SmallVector<OperandRole>> roles =
        getSumRoles(sum, index, region.positions.lookup(carried));
    Value partial = rebuild(sum, *roles, rank);
    auto total = ReduceSumOp::create(builder, sum->getLoc(), partial,
                                     /*dim=*/rank - 2, /*keepdim=*/false);
    record(total);
    result.totals.push_back(total);
  }
  return result;
}
