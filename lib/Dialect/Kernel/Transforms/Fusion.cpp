//===- Fusion.cpp - Fuse kernel-graph ops into graph-defined kernels ------===//
//
// kn-fuse (see Passes.td). A group of kernel ops is planned on classes of
// dims: the operator records' tiling facet lines every operand and result
// dim up with a dim of the operator's iteration space, and joining those
// across the group gives the dims that must be cut together. A plan cuts
// some classes over the grid and may walk one contracted class in the
// for-loop; the speed model picks the plan, the tb verifiers check the
// block graph built from it. Groups grow greedily while the fused kernel is
// estimated faster than the kernels it replaces.
//
//===----------------------------------------------------------------------===//

#include "mirage/Dialect/Kernel/Transforms/Passes.h"

#include "mirage/Conversion/Frontend/Guard.h"
#include "mirage/Conversion/KernelToGPU.h"
#include "mirage/CostModel/CostModel.h"
#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/Dialect/Kernel/Transforms/BlockGraphBuilder.h"
#include "mirage/Dialect/Kernel/Transforms/ContractionSplit.h"
#include "mirage/IR/GraphUtils.h"
#include "mirage/IR/OptionChecks.h"
#include "mirage/IR/SemanticsOpInterface.h"
#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>
#include <limits>
#include <map>
#include <tuple>

namespace mirage::kn {
#define GEN_PASS_DEF_KNFUSE
#include "mirage/Dialect/Kernel/Transforms/Passes.h.inc"
} // namespace mirage::kn

using namespace mlir;
using namespace mirage;
using namespace mirage::kn;

namespace {

/// CUDA's limit on grid dims y and z.
constexpr int64_t kMaxGridYZ = 65535;
/// Tiles are loaded and stored in runs of this many elements where the
/// innermost dim allows (16 bytes of a 16-bit type).
constexpr int64_t kVectorRun = 8;
/// A cache line: a tile row that is a multiple of it reads no partial lines.
constexpr int64_t kLineBytes = 128;
/// Candidate plans whose block graphs are built and verified, cheapest
/// first, before a group is given up.
constexpr int kMaxPlansTried = 12;
/// The most f32 registers per thread a kernel's tensor-core accumulators
/// may take: half of a thread's 255, the rest for operand fragments and
/// addresses (beyond it ptxas spills).
constexpr int64_t kMaxAccumulatorRegisters = 128;
/// A lone op gets a planned launch shape when its estimate beats its
/// default kernel's by this fraction.
constexpr double kRelaunchGain = 0.05;
/// In a persistent kernel whose first-ranked plan leaves workers idle, a
/// plan that gives (nearly: this fraction of) every worker a task in each
/// round, reading its tiles in whole 128-byte rows, goes first if its
/// estimate is at most kFillWorkersTolerance above the cheapest (grid
/// sizes are divisors: 128 tasks is as close as 132 workers get for the
/// Qwen3 decode projections). A phase that leaves workers idle varies with
/// where its buffers were allocated: on an H200 the decode layer's 96-task
/// gate/up projection took 45 to 58 us from one load of the bundle to the
/// next, as 128 tasks 46 to 48 us. Rows of partial lines cost more than
/// idle workers: its QKV projection as 128 tasks of 48 columns (96-byte
/// rows) took 15.5 us in every load, as 96 tasks of 64 columns 12.5 to
/// 15.4 (docs/results/2026-11-27-h200-placement.md).
constexpr double kFillWorkersFraction = 0.9;
constexpr double kFillWorkersTolerance = 0.10;
/// Matmuls planned side by side in a persistent kernel get at least this
/// many workers each: more of them (say the experts of an MoE layer, which
/// all read x) share the workers unevenly rather than plan tasks for one.
constexpr int64_t kMinSideBySideWorkers = 16;
/// A split matmul's slices of k are at least this long: shorter ones make
/// the partial products' tensor larger than the operands they save reading
/// on fewer blocks.
constexpr int64_t kMinSplitSlice = 128;

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

int64_t elementBytesOf(Value value) {
  return cast<ShapedType>(value.getType()).getElementTypeBitWidth() / 8;
}

SmallVector<int64_t> divisorsOf(int64_t n) {
  SmallVector<int64_t> divisors;
  for (int64_t d = 1; d * d <= n; ++d)
    if (n % d == 0) {
      divisors.push_back(d);
      if (d != n / d)
        divisors.push_back(n / d);
    }
  llvm::sort(divisors);
  return divisors;
}

/// Disjoint sets over dim nodes.
struct UnionFind {
  SmallVector<int> parent;
  int add() {
    parent.push_back(parent.size());
    return parent.size() - 1;
  }
  int find(int x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  }
  void unite(int a, int b) { parent[find(a)] = find(b); }
};

/// A class of dims cut together.
struct DimClass {
  int64_t extent = 1;
  /// Some op needs it whole; some op contracts it (folded by `accumulator`);
  /// two dims of one value or space fall into it; the extents disagree.
  bool whole = false, reduced = false, conflict = false;
  /// Every group output has a dim in it; some output has.
  bool inAllOutputs = true, inSomeOutput = false;
};

enum class Phase { Input, Free, Body, Post };

/// Where a group's ops run for one choice of loop class.
struct Phases {
  int loopClass = -1;
  llvm::DenseMap<Operation *, Phase> ops;
  llvm::DenseMap<Value, Phase> values;
  /// Ops whose results are partial sums over the loop class.
  llvm::DenseSet<Operation *> accumulated;
  /// Group inputs read in the loop body and after the loop.
  llvm::SetVector<Value> bodyInputs, postInputs;
};

/// One launch shape of a group.
struct Plan {
  const Phases *phases = nullptr;
  int64_t forloop = 1;
  int64_t threads = kDefaultThreads;
  SmallVector<int> gridClasses;
  SmallVector<int64_t> gridSizes;
  double cost = 0;
  int64_t smemEstimate = 0;
};

/// A group of kernel ops, analyzed: its ops in program order (the members
/// and the reshapes between them), inputs, outputs and dim classes.
class Group {
public:
  /// With `zipSiblings`, same-shaped outputs are cut together
  /// (zipSiblingOutputs).
  Group(ArrayRef<Operation *> members, Block &body, bool zipSiblings);

  bool isValid() const { return valid; }

  /// The cheapest plans of at most `maxBlocks` blocks and `maxThreads`
  /// threads per block, best first, at most `limit`; with `workers` (a
  /// persistent kernel's) and a first plan that leaves workers idle, those
  /// near it that give (nearly) every worker a task, reading whole lines,
  /// first (kFillWorkersFraction).
  SmallVector<Plan> getPlans(const DeviceModel &device, int64_t smemLimit,
                             int64_t maxBlocks, int64_t maxThreads,
                             size_t limit, int64_t workers);

  /// Builds the plan's kernel before `insertionPoint`; null when its block
  /// graph does not verify or does not leave room for the lowering.
  KernelOp build(const Plan &plan, Operation *insertionPoint,
                 int64_t smemLimit);

  /// Replaces the group's outputs by `kernel`'s results and erases the ops.
  void replace(KernelOp kernel);

  ArrayRef<Operation *> getOps() const { return ops; }

private:
  void analyze(bool zipSiblings);
  /// Cuts the same-position dims of same-shaped outputs together (analyze).
  void zipSiblingOutputs(ArrayRef<int> reducedNodes);
  std::optional<Phases> computePhases(int loopClass);
  /// The tile of `value` under `plan`, read in `phase` (Body tiles take a
  /// loop chunk of the loop class).
  Shape getTile(Value value, const Plan &plan, Phase phase);
  /// Whether every input tile of `plan` whose rows are cut reads rows of
  /// whole 128-byte lines.
  bool readsWholeLines(const Plan &plan);
  /// Whether `accepts(row bytes, line bytes)` holds for every input tile of
  /// `plan` whose rows are cut.
  bool allInputRows(const Plan &plan,
                    llvm::function_ref<bool(int64_t, int64_t)> accepts);
  /// Whether some input tile of `plan` reads rows cut to a width that
  /// straddles 128-byte lines (neither a multiple nor a divisor of 128
  /// bytes: a 96-byte row at every 96 bytes spans two lines every other
  /// time).
  bool readsStraddlingRows(const Plan &plan);
  /// The data dim of `value` each grid dim of `plan` cuts, or kReplica.
  SmallVector<int64_t> getGridMap(Value value, const Plan &plan);
  /// The dim along which a post-loop input arrives in slices.
  std::optional<int64_t> getSliceDim(Value value, const Plan &plan);
  std::optional<double> estimate(Plan &plan, const DeviceModel &device,
                                 int64_t smemLimit);

  SmallVector<Operation *> ops;
  llvm::DenseSet<Operation *> opSet;
  SmallVector<Value> inputs, outputs;
  bool valid = true;

  UnionFind uf;
  llvm::DenseMap<Value, SmallVector<int>> valueDims;
  llvm::DenseMap<Operation *, SmallVector<int>> spaceDims;
  llvm::DenseMap<Operation *, TileDims> tileDims;
  /// Class index of each union-find root.
  llvm::DenseMap<int, int> classIndex;
  SmallVector<DimClass> classes;
  std::vector<std::unique_ptr<Phases>> phaseChoices;
};

bool isMember(Operation *op) {
  return isa<SemanticsOpInterface>(op) && !isa<ReshapeOp>(op) &&
         !isConcatView(op);
}

Group::Group(ArrayRef<Operation *> members, Block &body, bool zipSiblings) {
  llvm::DenseSet<Operation *> memberSet(members.begin(), members.end());
  // Internal values: member results, and reshapes of internal values that
  // lead to a member.
  llvm::DenseSet<Value> internal;
  SmallVector<Operation *> candidates;
  for (Operation &op : body) {
    if (memberSet.contains(&op)) {
      candidates.push_back(&op);
      for (Value result : op.getResults())
        internal.insert(result);
    } else if (isa<ReshapeOp>(op) && internal.contains(op.getOperand(0))) {
      candidates.push_back(&op);
      internal.insert(op.getResult(0));
    }
  }
  // Drop reshapes that lead to no member (outputs seen through a view).
  llvm::DenseSet<Operation *> kept(memberSet.begin(), memberSet.end());
  for (Operation *op : llvm::reverse(candidates)) {
    if (!isa<ReshapeOp>(op))
      continue;
    if (llvm::any_of(op->getUsers(),
                     [&](Operation *user) { return kept.contains(user); }))
      kept.insert(op);
  }
  for (Operation *op : candidates)
    if (kept.contains(op))
      ops.push_back(op);
  opSet.insert(ops.begin(), ops.end());

  llvm::SetVector<Value> inputSet;
  for (Operation *op : ops)
    for (Value operand : op->getOperands())
      if (!operand.getDefiningOp() || !opSet.contains(operand.getDefiningOp()))
        inputSet.insert(operand);
  inputs = inputSet.takeVector();
  for (Operation *op : ops)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !opSet.contains(user);
          }))
        outputs.push_back(result);
  analyze(zipSiblings);
}

void Group::analyze(bool zipSiblings) {
  auto addValue = [&](Value value) {
    if (valueDims.count(value))
      return;
    SmallVector<int> dims;
    for (size_t d = 0; d < shapeOf(value).size(); ++d)
      dims.push_back(uf.add());
    valueDims[value] = dims;
  };
  for (Value input : inputs)
    addValue(input);
  // Nodes marked whole, and the extent of every node.
  SmallVector<bool> wholeNode;
  SmallVector<int64_t> extent;
  auto grow = [&] {
    wholeNode.resize(uf.parent.size(), false);
    extent.resize(uf.parent.size(), 1);
  };
  for (Value input : inputs) {
    grow();
    for (auto [d, node] : llvm::enumerate(valueDims[input]))
      extent[node] = shapeOf(input)[d];
  }
  SmallVector<int> reducedNodes;
  for (Operation *op : ops) {
    for (Value result : op->getResults())
      addValue(result);
    auto semantics = cast<SemanticsOpInterface>(op);
    SmallVector<ArrayRef<int64_t>> in;
    for (Value operand : op->getOperands())
      in.push_back(shapeOf(operand));
    std::optional<TileDims> tiles =
        getTileDims(semantics.getOpKind(), in, semantics.getOpParams());
    if (!tiles || tiles->operands.size() != op->getNumOperands() ||
        tiles->results.size() != op->getNumResults()) {
      valid = false;
      return;
    }
    SmallVector<int> space;
    for (size_t s = 0; s < tiles->space.size(); ++s)
      space.push_back(uf.add());
    grow();
    for (auto [s, node] : llvm::enumerate(space)) {
      extent[node] = tiles->space[s];
      if (tiles->reduced[s])
        reducedNodes.push_back(node);
    }
    auto link = [&](Value value, ArrayRef<int64_t> dims) {
      for (auto [d, node] : llvm::enumerate(valueDims[value])) {
        extent[node] = shapeOf(value)[d];
        if (dims[d] == kWholeDim)
          wholeNode[node] = true;
        else if (dims[d] >= 0)
          uf.unite(node, space[dims[d]]);
      }
    };
    for (auto [operand, dims] : llvm::zip(op->getOperands(), tiles->operands))
      link(operand, dims);
    for (auto [result, dims] : llvm::zip(op->getResults(), tiles->results))
      link(result, dims);
    spaceDims[op] = space;
    tileDims[op] = std::move(*tiles);
  }
  if (zipSiblings)
    zipSiblingOutputs(reducedNodes);
  // Classes.
  grow();
  for (int node = 0; node < static_cast<int>(uf.parent.size()); ++node) {
    int root = uf.find(node);
    auto [it, inserted] = classIndex.try_emplace(root, classes.size());
    if (inserted) {
      classes.emplace_back();
      classes.back().extent = extent[node];
    }
    DimClass &cls = classes[it->second];
    if (cls.extent != extent[node])
      cls.conflict = true;
    cls.whole |= wholeNode[node];
  }
  for (int node : reducedNodes)
    classes[classIndex[uf.find(node)]].reduced = true;
  // A value or space with two dims in one class cannot be cut along it.
  auto checkDistinct = [&](ArrayRef<int> nodes) {
    llvm::SmallDenseSet<int> seen;
    for (int node : nodes)
      if (!seen.insert(classIndex[uf.find(node)]).second)
        classes[classIndex[uf.find(node)]].conflict = true;
  };
  for (auto &entry : valueDims) {
    checkDistinct(entry.second);
    if (shapeOf(entry.first).empty())
      valid = false;
  }
  for (auto &entry : spaceDims)
    checkDistinct(entry.second);
  for (Value output : outputs) {
    llvm::SmallDenseSet<int> has;
    for (int node : valueDims[output])
      has.insert(classIndex[uf.find(node)]);
    for (auto [index, cls] : llvm::enumerate(classes)) {
      if (has.contains(index))
        cls.inSomeOutput = true;
      else
        cls.inAllOutputs = false;
    }
  }
  // Store class indices in place of nodes.
  for (auto &entry : valueDims)
    for (int &node : entry.second)
      node = classIndex[uf.find(node)];
  for (auto &entry : spaceDims)
    for (int &node : entry.second)
      node = classIndex[uf.find(node)];
  uf.parent.clear();
  for (size_t c = 0; c < classes.size(); ++c)
    uf.add();
  if (outputs.empty())
    valid = false;
}

void Group::zipSiblingOutputs(ArrayRef<int> reducedNodes) {
  // Outputs of one shape computed side by side (the q, k and v projections
  // of one x) have unrelated dims, so no class is in every output and the
  // group could only be cut along what they share (x's 16 rows). Their
  // dims at one position are cut together instead, where that puts no two
  // dims of one value or op into one class and joins no contracted dim: a
  // block then computes the same tile of each.
  llvm::DenseSet<int> reducedRoots;
  for (int node : reducedNodes)
    reducedRoots.insert(uf.find(node));
  auto sharesOwner = [&](int rootA, int rootB) {
    auto has = [&](ArrayRef<int> nodes, int root) {
      return llvm::any_of(nodes,
                          [&](int node) { return uf.find(node) == root; });
    };
    for (auto &entry : valueDims)
      if (has(entry.second, rootA) && has(entry.second, rootB))
        return true;
    for (auto &entry : spaceDims)
      if (has(entry.second, rootA) && has(entry.second, rootB))
        return true;
    return false;
  };
  for (size_t i = 0; i < outputs.size(); ++i)
    for (size_t j = i + 1; j < outputs.size(); ++j) {
      if (shapeOf(outputs[i]) != shapeOf(outputs[j]))
        continue;
      for (auto [a, b] :
           llvm::zip(valueDims[outputs[i]], valueDims[outputs[j]])) {
        int rootA = uf.find(a), rootB = uf.find(b);
        if (rootA == rootB || reducedRoots.contains(rootA) ||
            reducedRoots.contains(rootB) || sharesOwner(rootA, rootB))
          continue;
        uf.unite(rootA, rootB);
      }
    }
}

std::optional<Phases> Group::computePhases(int loopClass) {
  Phases phases;
  phases.loopClass = loopClass;
  for (Value input : inputs)
    phases.values[input] = Phase::Input;
  if (loopClass < 0) {
    for (Operation *op : ops) {
      phases.ops[op] = Phase::Body;
      for (Value result : op->getResults())
        phases.values[result] = Phase::Body;
      for (Value operand : op->getOperands())
        if (phases.values[operand] == Phase::Input)
          phases.bodyInputs.insert(operand);
    }
    return phases;
  }
  for (Operation *op : ops) {
    bool hasLoop = llvm::is_contained(spaceDims[op], loopClass);
    bool post = false, body = false;
    for (Value operand : op->getOperands()) {
      Phase phase = phases.values[operand];
      post |= phase == Phase::Post;
      body |= phase == Phase::Body;
    }
    Phase phase;
    if (hasLoop) {
      if (post)
        return std::nullopt;
      phase = Phase::Body;
      const TileDims &tiles = tileDims[op];
      bool reduces = false;
      for (auto [s, cls] : llvm::enumerate(spaceDims[op]))
        reduces |= cls == loopClass && tiles.reduced[s];
      if (reduces)
        phases.accumulated.insert(op);
      for (Value result : op->getResults())
        phases.values[result] = reduces ? Phase::Post : Phase::Body;
    } else {
      if (post && body)
        return std::nullopt;
      phase = post ? Phase::Post : body ? Phase::Body : Phase::Free;
      for (Value result : op->getResults())
        phases.values[result] = phase;
    }
    phases.ops[op] = phase;
  }
  // Ops on group inputs only run where their users do; outputs are saved
  // after the loop.
  llvm::DenseSet<Value> outputSet(outputs.begin(), outputs.end());
  for (Operation *op : llvm::reverse(ops)) {
    if (phases.ops[op] != Phase::Free)
      continue;
    bool post = false, body = false;
    for (Value result : op->getResults()) {
      post |= outputSet.contains(result);
      for (Operation *user : result.getUsers()) {
        if (!opSet.contains(user))
          continue;
        post |= phases.ops[user] == Phase::Post;
        body |= phases.ops[user] == Phase::Body;
      }
    }
    if (post && body)
      return std::nullopt;
    Phase phase = post ? Phase::Post : Phase::Body;
    phases.ops[op] = phase;
    for (Value result : op->getResults())
      phases.values[result] = phase;
  }
  for (Value output : outputs)
    if (phases.values[output] != Phase::Post)
      return std::nullopt;
  for (Operation *op : ops) {
    Phase phase = phases.ops[op];
    for (Value operand : op->getOperands()) {
      Phase operandPhase = phases.values[operand];
      if (operandPhase == Phase::Input)
        (phase == Phase::Post ? phases.postInputs : phases.bodyInputs)
            .insert(operand);
      else if (phase == Phase::Post && operandPhase == Phase::Body)
        return std::nullopt;
    }
  }
  return phases;
}

Shape Group::getTile(Value value, const Plan &plan, Phase phase) {
  Shape tile(shapeOf(value));
  ArrayRef<int> dims = valueDims[value];
  for (auto [d, cls] : llvm::enumerate(dims)) {
    for (auto [gridClass, size] : llvm::zip(plan.gridClasses, plan.gridSizes))
      if (cls == gridClass)
        tile[d] /= size;
    if (phase == Phase::Body && cls == plan.phases->loopClass)
      tile[d] /= plan.forloop;
  }
  return tile;
}

bool Group::allInputRows(const Plan &plan,
                         function_ref<bool(int64_t, int64_t)> accepts) {
  // The innermost extent of what one step reads of `input` in `phase`: a
  // post-loop input arrives in forloop slices along its slice dim.
  auto acceptsRows = [&](Value input, Phase phase) {
    Shape tile = getTile(input, plan, phase);
    if (tile.empty())
      return true;
    int64_t row = tile.back();
    if (phase == Phase::Post && plan.forloop > 1 &&
        getSliceDim(input, plan) == static_cast<int64_t>(tile.size() - 1))
      row /= plan.forloop;
    return row == shapeOf(input).back() ||
           accepts(row * elementBytesOf(input), kLineBytes);
  };
  return llvm::all_of(inputs, [&](Value input) {
    bool post = plan.phases->postInputs.contains(input);
    bool body = !post || plan.phases->bodyInputs.contains(input);
    return (!post || acceptsRows(input, Phase::Post)) &&
           (!body || acceptsRows(input, Phase::Body));
  });
}

bool Group::readsWholeLines(const Plan &plan) {
  return allInputRows(
      plan, [](int64_t bytes, int64_t line) { return bytes % line == 0; });
}

bool Group::readsStraddlingRows(const Plan &plan) {
  return !allInputRows(plan, [](int64_t bytes, int64_t line) {
    return bytes % line == 0 || line % bytes == 0;
  });
}

SmallVector<int64_t> Group::getGridMap(Value value, const Plan &plan) {
  SmallVector<int64_t> map;
  ArrayRef<int> dims = valueDims[value];
  for (int gridClass : plan.gridClasses) {
    const int *it = llvm::find(dims, gridClass);
    map.push_back(it == dims.end() ? kReplica : it - dims.begin());
  }
  return map;
}

std::optional<int64_t> Group::getSliceDim(Value value, const Plan &plan) {
  Shape tile = getTile(value, plan, Phase::Post);
  for (auto [d, size] : llvm::enumerate(tile))
    if (size % plan.forloop == 0)
      return d;
  return std::nullopt;
}

std::optional<double> Group::estimate(Plan &plan, const DeviceModel &device,
                                      int64_t smemLimit) {
  const Phases &phases = *plan.phases;
  KernelProfile profile;
  profile.blocks = 1;
  for (int64_t size : plan.gridSizes)
    profile.blocks *= size;
  profile.threads = plan.threads;
  profile.iterations = plan.forloop;
  bool looped = plan.forloop > 1;
  int64_t smem = 0;
  for (Value input : phases.bodyInputs) {
    Shape tile = getTile(input, plan, Phase::Body);
    int64_t bytes = getNumElements(tile) * elementBytesOf(input);
    bool varies =
        looped && llvm::is_contained(valueDims[input], phases.loopClass);
    (varies ? profile.loopBytes : profile.onceBytes) += bytes;
    (varies ? profile.loopRows : profile.onceRows) +=
        getTileRows(tile, shapeOf(input));
    smem += varies ? 2 * bytes : bytes;
  }
  for (Value input : phases.postInputs) {
    Shape tile = getTile(input, plan, Phase::Post);
    int64_t bytes = getNumElements(tile) * elementBytesOf(input);
    profile.loopBytes += static_cast<double>(bytes) / plan.forloop;
    profile.loopRows += getTileRows(tile, shapeOf(input)) / plan.forloop;
    smem += bytes + 2 * bytes / plan.forloop;
  }
  for (Value output : outputs)
    profile.outputBytes += getNumElements(getTile(output, plan, Phase::Post)) *
                           elementBytesOf(output);
  for (Value input : inputs)
    profile.uniqueBytes += getNumElements(shapeOf(input)) * elementBytesOf(input);
  for (Value output : outputs)
    profile.uniqueBytes +=
        getNumElements(shapeOf(output)) * elementBytesOf(output);
  // The values the lowering gives no tile: elementwise chains computed in
  // their users, and views read in place (its rules, from KernelToGPU.h).
  auto samePhase = [&](Operation *a, Operation *b) {
    auto inA = phases.ops.find(a), inB = phases.ops.find(b);
    return inA != phases.ops.end() && inB != phases.ops.end() &&
           inA->second == inB->second;
  };
  llvm::DenseSet<Operation *> untiled, views;
  findUntiledOps(ops, samePhase, views, untiled);
  int64_t largestTile = 0;
  for (Operation *op : ops) {
    Phase phase = phases.ops.lookup(op);
    auto semantics = cast<SemanticsOpInterface>(op);
    SmallVector<Shape> inTiles;
    for (Value operand : op->getOperands()) {
      Phase read = phase == Phase::Post ? Phase::Post : Phase::Body;
      inTiles.push_back(getTile(operand, plan, read));
    }
    SmallVector<ArrayRef<int64_t>> in(inTiles.begin(), inTiles.end());
    Shape out = getTile(op->getResult(0), plan,
                        phases.accumulated.contains(op) ? Phase::Post : phase);
    largestTile = std::max(largestTile, getNumElements(out));
    for (ArrayRef<int64_t> tile : in)
      largestTile = std::max(largestTile, getNumElements(tile));
    unsigned elementBytes = elementBytesOf(op->getResult(0));
    OpKind kind = semantics.getOpKind();
    OpParams params = semantics.getOpParams();
    if (isa<ReshapeOp>(op))
      params.ints.assign(out.begin(), out.end());
    Flops flops = getFlops(kind, params, in, out, elementBytes);
    double latency = getTileOpLatencyUs(kind, params, in, out, plan.threads,
                                        elementBytes, device);
    bool post = phase == Phase::Post;
    Flops &sum = post ? profile.postFlops : profile.bodyFlops;
    sum.tensor += flops.tensor;
    sum.simt += flops.simt;
    (post ? profile.postLatencyUs : profile.bodyLatencyUs) += latency;
    if (!untiled.contains(op))
      for (Value result : op->getResults())
        smem += getNumElements(getTile(result, plan, phase == Phase::Post
                                                         ? Phase::Post
                                                         : Phase::Body)) *
                elementBytes;
    if (phases.accumulated.contains(op))
      for (Value result : op->getResults())
        smem += getNumElements(getTile(result, plan, Phase::Post)) * 4;
  }
  // The sum of all tiles bounds what the lowering places; a plan far above
  // the limit will not verify.
  if (smem > 2 * smemLimit)
    return std::nullopt;
  // Threads past the default each take a vector run of the largest tile.
  if (plan.threads > kDefaultThreads && plan.threads * kVectorRun > largestTile)
    return std::nullopt;
  profile.sharedMemoryBytes = std::min(smem, smemLimit);
  plan.smemEstimate = smem;
  return estimateKernelUs(profile, device);
}

SmallVector<Plan> Group::getPlans(const DeviceModel &device, int64_t smemLimit,
                                  int64_t maxBlocks, int64_t maxThreads,
                                  size_t limit, int64_t workers) {
  SmallVector<Plan> plans;
  if (!valid)
    return plans;
  SmallVector<int> gridCapable, loopCapable;
  for (auto [index, cls] : llvm::enumerate(classes)) {
    if (cls.whole || cls.conflict || cls.extent <= 1)
      continue;
    if (!cls.reduced && cls.inAllOutputs)
      gridCapable.push_back(index);
    if (cls.reduced && !cls.inSomeOutput)
      loopCapable.push_back(index);
  }
  // Larger classes first: they go to grid dim x, which has no 65535 limit.
  llvm::sort(gridCapable, [&](int a, int b) {
    return classes[a].extent != classes[b].extent
               ? classes[a].extent > classes[b].extent
               : a < b;
  });
  if (gridCapable.size() > 3)
    gridCapable.resize(3);
  // Classes holding the innermost dim of a group input or output: cutting
  // them below a vector run would make every load and store scalar.
  llvm::DenseSet<int> innermost;
  for (Value value : llvm::concat<Value>(inputs, outputs))
    if (!valueDims[value].empty())
      innermost.insert(valueDims[value].back());

  // Threads per block: more than the default shorten the passes of a few
  // large blocks (one row of a norm each, an attention block's copy of
  // its cache slice beside its P V product). A matmul group takes more only
  // in a single pass, and only in the tiling it would have at the default
  // (below): the speed model prices extra warps in a loop, or the larger
  // tiles they seem to afford, far too cheap (on an H200, kn-fuse's
  // 512-thread choices made gqa_bs8 1.5x and qknorm_gqa_bs8 4.8x slower,
  // while Trinity's single-pass P V kernels with 512 threads and the same
  // tiles made their blocks 4-6% faster).
  bool hasMatmul =
      llvm::any_of(ops, [](Operation *op) { return isa<MatmulOp>(op); });
  SmallVector<int64_t> threadChoices{kDefaultThreads};
  for (int64_t threads = 2 * kDefaultThreads; threads <= maxThreads;
       threads *= 2)
    threadChoices.push_back(threads);
  SmallVector<int> loopChoices{-1};
  loopChoices.append(loopCapable.begin(), loopCapable.end());
  for (int loopClass : loopChoices) {
    std::optional<Phases> phases = computePhases(loopClass);
    if (!phases)
      continue;
    phaseChoices.push_back(std::make_unique<Phases>(std::move(*phases)));
    const Phases *chosen = phaseChoices.back().get();
    SmallVector<int64_t> forloops{1};
    if (loopClass >= 0) {
      forloops = divisorsOf(classes[loopClass].extent);
      forloops.erase(forloops.begin());
    }
    SmallVector<SmallVector<int64_t>> sizes;
    for (int cls : gridCapable) {
      SmallVector<int64_t> options;
      int64_t extent = classes[cls].extent;
      for (int64_t size : divisorsOf(extent)) {
        int64_t tile = extent / size;
        if (innermost.contains(cls) && tile < std::min(extent, kVectorRun))
          continue;
        options.push_back(size);
      }
      sizes.push_back(options);
    }
    for (int64_t forloop : forloops) {
      if (forloop > 1 && innermost.contains(loopClass) &&
          classes[loopClass].extent / forloop <
              std::min(classes[loopClass].extent, kVectorRun))
        continue;
      // Every combination of sizes (1 leaves a class uncut).
      SmallVector<size_t> index(gridCapable.size(), 0);
      while (true) {
        Plan plan;
        plan.phases = chosen;
        plan.forloop = forloop;
        int64_t blocks = 1;
        for (auto [c, cls] : llvm::enumerate(gridCapable)) {
          int64_t size = sizes[c][index[c]];
          if (size == 1)
            continue;
          plan.gridClasses.push_back(cls);
          plan.gridSizes.push_back(size);
          blocks *= size;
        }
        bool fits = blocks <= maxBlocks;
        for (auto [g, size] : llvm::enumerate(plan.gridSizes))
          fits &= g == 0 || size <= kMaxGridYZ;
        if (plan.gridClasses.empty()) {
          // One block; its grid dim maps to no class.
          plan.gridSizes.clear();
        }
        if (fits && forloop > 1)
          for (Value input : chosen->postInputs)
            fits &= getSliceDim(input, plan).has_value();
        for (int64_t threads : threadChoices) {
          if (!fits || (hasMatmul && forloop > 1 && threads > kDefaultThreads))
            break;
          plan.threads = threads;
          if (std::optional<double> cost =
                  estimate(plan, device, smemLimit)) {
            plan.cost = *cost;
            plans.push_back(plan);
          }
        }
        // Next combination.
        size_t c = 0;
        for (; c < index.size(); ++c) {
          if (++index[c] < sizes[c].size())
            break;
          index[c] = 0;
        }
        if (c == index.size())
          break;
      }
    }
  }
  // Rows that straddle lines stream slower than the model charges (the
  // Qwen3 decode step's norm computed in its QKV projection's 256 blocks of
  // 48-byte rows: 140 µs on an H200, against 126 with the Linear reading
  // 128-byte rows): only where nothing else fits.
  if (llvm::any_of(
          plans, [&](const Plan &plan) { return !readsStraddlingRows(plan); }))
    llvm::erase_if(plans,
                   [&](const Plan &plan) { return readsStraddlingRows(plan); });
  // Cheapest first, in bands of 1% of the best cost; within a band fewer
  // blocks (larger tiles, fewer re-read operands), then enumeration order.
  auto blocks = [](const Plan &plan) {
    int64_t count = 1;
    for (int64_t size : plan.gridSizes)
      count *= size;
    return count;
  };
  auto rank = [&](SmallVectorImpl<size_t> &order) {
    double cheapest = std::numeric_limits<double>::infinity();
    for (size_t i : order)
      cheapest = std::min(cheapest, plans[i].cost);
    auto band = [&](const Plan &plan) {
      return static_cast<int64_t>(plan.cost / (0.01 * cheapest));
    };
    llvm::sort(order, [&](size_t a, size_t b) {
      return std::make_tuple(band(plans[a]), blocks(plans[a]), a) <
             std::make_tuple(band(plans[b]), blocks(plans[b]), b);
    });
  };
  if (hasMatmul) {
    SmallVector<size_t> atDefault;
    for (auto [i, plan] : llvm::enumerate(plans))
      if (plan.threads == kDefaultThreads)
        atDefault.push_back(i);
    rank(atDefault);
    if (!atDefault.empty()) {
      Plan tiling = plans[atDefault.front()];
      llvm::erase_if(plans, [&](const Plan &plan) {
        return plan.threads != kDefaultThreads &&
               (plan.phases != tiling.phases ||
                plan.forloop != tiling.forloop ||
                plan.gridClasses != tiling.gridClasses ||
                plan.gridSizes != tiling.gridSizes);
      });
    }
  }
  double best = std::numeric_limits<double>::infinity();
  for (const Plan &plan : plans)
    best = std::min(best, plan.cost);
  SmallVector<size_t> order(plans.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  rank(order);
  // Where the first leaves workers idle, plans near the cheapest that
  // occupy them (every round of tasks nearly full, in whole lines) go
  // first, at most half of those returned, so that the cheapest are still
  // tried when none of them builds.
  auto fillsWorkers = [&](const Plan &plan) {
    int64_t lastRound = blocks(plan) % workers;
    return blocks(plan) >= kFillWorkersFraction * workers &&
           (lastRound == 0 || lastRound >= kFillWorkersFraction * workers);
  };
  SmallVector<size_t> first;
  if (workers > 0 && !order.empty() && !fillsWorkers(plans[order.front()]))
    for (size_t i : order)
      if (first.size() < limit / 2 && fillsWorkers(plans[i]) &&
          plans[i].cost <= (1 + kFillWorkersTolerance) * best &&
          readsWholeLines(plans[i]))
        first.push_back(i);
  SmallVector<Plan> sorted;
  for (size_t i : first)
    sorted.push_back(plans[i]);
  for (size_t i : order)
    if (sorted.size() < limit && !llvm::is_contained(first, i))
      sorted.push_back(plans[i]);
  return sorted;
}

KernelOp Group::build(const Plan &plan, Operation *insertionPoint,
                      int64_t smemLimit) {
  const Phases &phases = *plan.phases;
  OpBuilder b(insertionPoint);
  Location loc = ops.front()->getLoc();
  SmallVector<Type> resultTypes;
  for (Value output : outputs)
    resultTypes.push_back(output.getType());
  SmallVector<int64_t> grid(plan.gridSizes);
  if (grid.empty())
    grid.push_back(1);
  BlockGraphBuilder builder(b, loc, inputs, resultTypes, grid, plan.threads,
                            plan.forloop, ops.front(), "cannot be fused");
  KernelOp kernel = builder.getKernel();
  auto fail = [&]() -> KernelOp {
    kernel->erase();
    return {};
  };
  // The graph map of a value: one entry per grid dim (a one-block grid
  // replicates).
  auto gridMap = [&](Value value) {
    if (plan.gridClasses.empty())
      return SmallVector<int64_t>{kReplica};
    return getGridMap(value, plan);
  };
  llvm::DenseMap<Value, unsigned> inputIndex;
  for (auto [index, input] : llvm::enumerate(inputs))
    inputIndex[input] = index;
  llvm::DenseMap<Value, Value> bodyTiles, postTiles;
  auto inputTile = [&](Value input, bool post) -> FailureOr<Value> {
    auto &cache = post ? postTiles : bodyTiles;
    if (Value tile = cache.lookup(input))
      return tile;
    Value arg = builder.getInput(inputIndex[input]);
    SmallVector<int64_t> imap = gridMap(input);
    FailureOr<Value> tile;
    if (post && plan.forloop > 1) {
      std::optional<int64_t> dim = getSliceDim(input, plan);
      if (!dim)
        return failure();
      tile = builder.iterate(arg, imap, *dim);
      if (succeeded(tile))
        tile = builder.accumulateConcat(*tile, *dim);
    } else {
      int64_t fmap = kReplica;
      if (plan.forloop > 1)
        if (const int *it = llvm::find(valueDims[input], phases.loopClass);
            it != valueDims[input].end())
          fmap = it - valueDims[input].begin();
      tile = builder.iterate(arg, imap, fmap);
    }
    if (succeeded(tile))
      cache[input] = *tile;
    return tile;
  };
  llvm::DenseMap<Value, Value> tiles;
  for (Operation *op : ops) {
    bool post = phases.ops.lookup(op) == Phase::Post;
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      if (Value tile = tiles.lookup(operand)) {
        operands.push_back(tile);
        continue;
      }
      FailureOr<Value> tile = inputTile(operand, post);
      if (failed(tile))
        return fail();
      operands.push_back(*tile);
    }
    auto semantics = cast<SemanticsOpInterface>(op);
    Phase resultPhase = post ? Phase::Post : Phase::Body;
    SmallVector<Shape> expected;
    for (Value result : op->getResults())
      expected.push_back(getTile(result, plan, resultPhase));
    std::optional<ArrayRef<Shape>> written;
    if (isa<ReshapeOp>(op))
      written = ArrayRef<Shape>(expected);
    Type elementType =
        cast<ShapedType>(op->getResult(0).getType()).getElementType();
    auto computed = builder.compute(semantics.getOpKind(), operands,
                                    semantics.getOpParams(), op->getAttrs(),
                                    elementType, written);
    if (failed(computed))
      return fail();
    for (auto [result, tile, shape] :
         llvm::zip(op->getResults(), *computed, expected)) {
      if (cast<tb::TileType>(tile.getType()).getShape() != ArrayRef(shape))
        return fail();
      Value value = tile;
      if (phases.accumulated.contains(op))
        value = builder.accumulate(value, tileDims[op].accumulator);
      tiles[result] = value;
    }
  }
  SmallVector<Value> saved;
  SmallVector<SmallVector<int64_t>> omaps;
  for (Value output : outputs) {
    saved.push_back(tiles.lookup(output));
    SmallVector<int64_t> omap = gridMap(output);
    if (plan.gridClasses.empty()) {
      // One block: map grid dim x to the output's innermost dim.
      omap = {static_cast<int64_t>(shapeOf(output).size()) - 1};
    }
    if (llvm::is_contained(omap, kReplica))
      return fail();
    omaps.push_back(omap);
  }
  builder.save(saved, omaps);

  // The tb verifiers, then the lowering's own plan of shared memory
  // (input tiles loaded up front, pipeline stages, f32 sums; at least two
  // stages for a loop, so that loads overlap compute) and of the registers
  // its tensor-core accumulators hold.
  {
    ScopedDiagnosticHandler quiet(kernel->getContext(),
                                  [](Diagnostic &) { return success(); });
    if (failed(mlir::verify(kernel)) ||
        failed(planBlockGraphSharedMemory(kernel.getBlockGraph(), smemLimit,
                                          /*requirePipeline=*/true)) ||
        getBlockGraphAccumulatorRegisters(kernel.getBlockGraph()) >
            kMaxAccumulatorRegisters)
      return fail();
  }
  return kernel;
}

void Group::replace(KernelOp kernel) {
  for (auto [output, result] : llvm::zip(outputs, kernel.getResults()))
    output.replaceUsesWithIf(result, [&](OpOperand &use) {
      return !opSet.contains(use.getOwner());
    });
  bool dataDependent = false;
  for (Operation *op : llvm::reverse(ops)) {
    dataDependent |=
        op->hasAttr(KernelDialect::getDataDependentAttrName());
    op->erase();
  }
  if (dataDependent)
    kernel->setAttr(KernelDialect::getDataDependentAttrName(),
                    UnitAttr::get(kernel->getContext()));
}

/// The concatenations that may be views (getConcatViewRefusal) and are
/// read, with no launch shape of their own: `markConcatViews` makes them
/// views.
SmallVector<ConcatOp> getViewableConcats(func::FuncOp function) {
  SmallVector<ConcatOp> concats;
  function.walk([&](ConcatOp concat) {
    if (!concat->use_empty() &&
        !concat->hasAttr(KernelDialect::getPartitionAttrName()) &&
        !getConcatViewRefusal(concat))
      concats.push_back(concat);
  });
  return concats;
}

/// Marks as views (`kn.view`) the concatenations `getViewableConcats`
/// finds: their readers' kernels load each tile's rows from the operand
/// holding them. A decode step's KV-cache append (1023 cached positions and
/// the new one) then costs no kernel, and the attention reads the cache in
/// place, cut along the positions like any input, where a concatenation's
/// dim must otherwise stay whole in a tile.
void markConcatViews(func::FuncOp function) {
  for (ConcatOp concat : getViewableConcats(function))
    concat->setAttr(KernelDialect::getViewAttrName(),
                    UnitAttr::get(concat.getContext()));
}

/// Rewrites every kn.split into P equal pieces of size s along dim d as a
/// view of its operand with dim d cut into [P, s], a split of the size-P
/// dim and views dropping it from each piece. A split keeps its dim whole in
/// a tile; afterwards that is only the size-P dim, and the pieces' s-dims
/// line up with each other, so a gate | up split lets the gated product be
/// cut (and looped over as a matmul's k) like any elementwise op.
void exposeEqualSplits(func::FuncOp function) {
  SmallVector<SplitOp> splits;
  function.walk([&](SplitOp split) { splits.push_back(split); });
  for (SplitOp split : splits) {
    ArrayRef<int64_t> sizes = split.getSizes();
    int64_t pieces = sizes.size();
    if (pieces < 2 || sizes.front() == 1 ||
        !llvm::all_equal(sizes) ||
        split->hasAttr(KernelDialect::getPartitionAttrName()))
      continue;
    int64_t dim = split.getDim();
    auto type = cast<RankedTensorType>(split.getInput().getType());
    Shape shape(type.getShape());
    shape[dim] = pieces;
    shape.insert(shape.begin() + dim + 1, sizes.front());
    OpBuilder b(split);
    Location loc = split.getLoc();
    Value view = ReshapeOp::create(
        b, loc, RankedTensorType::get(shape, type.getElementType()),
        split.getInput());
    auto cut = SplitOp::create(b, loc, view, dim,
                               SmallVector<int64_t>(pieces, 1));
    for (auto [piece, result] : llvm::zip(cut.getResults(), split.getResults()))
      result.replaceAllUsesWith(
          ReshapeOp::create(b, loc, result.getType(), piece).getResult());
    split->erase();
  }
}

/// Whether every use of `value` is the left operand (only) of a matmul that
/// kn-fuse may regroup.
bool onlyLeftOperandOfMatmuls(Value value) {
  return !value.use_empty() &&
         llvm::all_of(value.getUses(), [](OpOperand &use) {
           auto matmul = dyn_cast<MatmulOp>(use.getOwner());
           return matmul && use.getOperandNumber() == 0 &&
                  matmul.getRhs() != use.get() &&
                  !matmul->hasAttr(KernelDialect::getPartitionAttrName());
         });
}

/// The widest RMSNorm rows `foldNormsIntoMatmuls` takes: a head's. Folded,
/// every block of the products sums the squares of the rows it reads; with
/// a head's rows that is one k step (qknorm_gqa_bs1 on an H200: 13.6
/// against 16.7 µs), with a hidden state's every block sums all 4096 columns
/// (rmsnorm_linear_bs8: 24.1 against 17.9 µs; the Qwen3 decode step with
/// PDL 129 against 116.5), docs/Fusion.md.
constexpr int64_t kMaxFoldedNormWidth = 128;

/// The RMSNorms `foldNormsIntoMatmuls` rewrites.
SmallVector<RmsNormOp> getFoldableNorms(func::FuncOp function) {
  SmallVector<RmsNormOp> norms;
  function.walk([&](RmsNormOp norm) {
    ArrayRef<int64_t> shape = shapeOf(norm.getInput());
    if (!norm->hasAttr(KernelDialect::getPartitionAttrName()) &&
        shape.size() >= 2 && shape.back() <= kMaxFoldedNormWidth &&
        onlyLeftOperandOfMatmuls(norm.getResult()))
      norms.push_back(norm);
  });
  return norms;
}

/// Writes each RMSNorm read only as the left operand of matmuls as its
/// parts (the formula of its record, rmsNormExpr in
/// lib/Semantics/Normalization.cpp, which the equivalence verifier checks
/// the result against), (x * w) * r with r = 1 / sqrt(mean(x^2) + eps)
/// last, so that
/// moveScalesPastMatmuls applies r to the products: the sum of squares then
/// runs in the products' k loop beside them, and the norm's kernel (a block
/// per few rows and a round trip through device memory) goes. Unlike
/// rms_norm's own f32 arithmetic, the sum is held in the element type; it
/// sums the squares of x / (4 sqrt(n)), scaled by 16 after, so f16 holds it
/// up to an rms of 1024 (and resolves it to 1% down to about 0.01).
void foldNormsIntoMatmuls(func::FuncOp function) {
  for (RmsNormOp norm : getFoldableNorms(function)) {
    OpBuilder b(norm);
    Location loc = norm.getLoc();
    Value x = norm.getInput();
    ArrayRef<int64_t> shape = shapeOf(x);
    int64_t n = shape.back();
    auto scalar = [&](double value) { return b.getF64FloatAttr(value); };
    // The squares of x / (c sqrt(n)) sum to mean(x^2) / c^2.
    constexpr double c = 4.0;
    double prescale = c * std::sqrt(static_cast<double>(n));
    Value scaled = MulScalarOp::create(b, loc, x, scalar(1.0 / prescale));
    Value squares = SquareOp::create(b, loc, scaled);
    Value sum = ReduceSumOp::create(b, loc, squares,
                                    static_cast<int64_t>(shape.size() - 1),
                                    /*keepdim=*/true);
    Value mean = MulScalarOp::create(b, loc, sum, scalar(c * c));
    Value shifted = AddScalarOp::create(
        b, loc, mean, scalar(norm.getEpsAttr().getValueAsDouble()));
    Value inverse = RsqrtOp::create(b, loc, shifted);
    Value weighted =
        norm.getWeight() ? MulOp::create(b, loc, x, norm.getWeight()) : x;
    norm.getResult().replaceAllUsesWith(
        MulOp::create(b, loc, weighted, inverse).getResult());
    norm->erase();
  }
}

/// A scaling op (its record's `scales`: mul, div) whose factor does not vary
/// along the last dim of the scaled tensor, used only as the left operand
/// of matmuls, is applied to the matmuls' results instead: matmul(e * r, v)
/// = matmul(e, v) * r when r is constant along the contracted dim. Then the
/// matmul reads e itself, so a softmax's division follows the loop over the
/// contracted dim and the whole chain fuses (the form of Mirage's fused
/// attention and of flash attention without the running maximum).
void moveScalesPastMatmuls(func::FuncOp function) {
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<Operation *> scales;
    for (Operation &op : function.getBody().front()) {
      auto semantics = dyn_cast<SemanticsOpInterface>(op);
      if (!semantics || !getOpInfo(semantics.getOpKind()).scales ||
          op.getNumOperands() != 2 || op.getNumResults() != 1 ||
          op.hasAttr(KernelDialect::getPartitionAttrName()))
        continue;
      ArrayRef<int64_t> scaled = shapeOf(op.getOperand(0));
      ArrayRef<int64_t> factor = shapeOf(op.getOperand(1));
      if (scaled.size() < 2 || factor.empty() || factor.back() != 1 ||
          scaled.back() == 1 || shapeOf(op.getResult(0)) != scaled)
        continue;
      if (!onlyLeftOperandOfMatmuls(op.getResult(0)))
        continue;
      scales.push_back(&op);
    }
    for (Operation *op : scales) {
      auto semantics = cast<SemanticsOpInterface>(op);
      Value scaled = op->getOperand(0), factor = op->getOperand(1);
      SmallVector<MatmulOp> users;
      for (Operation *user : op->getResult(0).getUsers())
        users.push_back(cast<MatmulOp>(user));
      // Every new scale must broadcast the factor into the product.
      bool fits = true;
      for (MatmulOp matmul : users) {
        auto product = inferShapes(OpKind::Matmul,
                                   {shapeOf(scaled), shapeOf(matmul.getRhs())},
                                   OpParams());
        if (!product) {
          llvm::consumeError(product.takeError());
          fits = false;
          continue;
        }
        auto shapes = inferShapes(semantics.getOpKind(),
                                  {(*product)[0], shapeOf(factor)},
                                  semantics.getOpParams());
        if (!shapes) {
          llvm::consumeError(shapes.takeError());
          fits = false;
          continue;
        }
        fits &= (*shapes)[0] == (*product)[0];
      }
      if (!fits)
        continue;
      for (MatmulOp matmul : users) {
        OpBuilder b(matmul);
        auto product =
            MatmulOp::create(b, matmul.getLoc(), scaled, matmul.getRhs());
        OperationState state(op->getLoc(), op->getName());
        state.addOperands({product.getResult(), factor});
        state.addAttributes(op->getAttrs());
        state.addTypes(matmul.getResult().getType());
        Operation *moved = b.create(state);
        matmul.getResult().replaceAllUsesWith(moved->getResult(0));
        matmul->erase();
      }
      op->erase();
      changed = true;
    }
  }
}

/// Forms the fusion groups of one function and builds their kernels.
class Fuser {
public:
  /// `persistentWorkers`: the workers of the persistent kernel the groups
  /// become tasks of, 0 for kernels of their own.
  Fuser(func::FuncOp function, const DeviceModel &device, int64_t smemLimit,
        int64_t maxBlocks, int64_t maxThreads, int64_t targetBlocks,
        int64_t persistentWorkers, int64_t maxGroupOps, double tolerance,
        bool splitSums)
      : function(function), device(device), smemLimit(smemLimit),
        maxBlocks(maxBlocks), maxThreads(maxThreads),
        targetBlocks(targetBlocks), persistentWorkers(persistentWorkers),
        maxGroupOps(maxGroupOps), tolerance(tolerance), splitSums(splitSums) {}

  LogicalResult run();
  /// The speed model's time of the kernels `run` built.
  double getEstimatedUs() const { return estimatedUs; }
  /// Whether `run` split the sums of a region (splitContractedRegions).
  bool splitAnySums() const { return splitRegions; }

private:
  struct Best {
    double cost = 0;
    std::optional<Plan> plan;
    std::shared_ptr<Group> group;
  };

  /// Split-K for matmuls whose output is too small to fill the GPU (see
  /// the definition).
  void splitNarrowMatmuls();
  /// Flash decoding: the sums over a long dim that a chain of ops carries
  /// (attention's positions) split over the grid (see the definition).
  void splitContractedRegions();
  /// Splits one region's sums where that is cheaper; whether it did.
  bool splitContractedRegion(const ContractedRegion &region);
  /// The estimated time of the cheapest plan of `ops` whose block graph
  /// verifies and lowers, with the plan's blocks; none if there is none.
  std::optional<std::pair<double, int64_t>>
  getBuildableCost(ArrayRef<Operation *> ops);
  /// The producers of `op` among the candidates, seen through reshapes.
  SmallVector<Operation *> getProducers(Operation *op);
  /// The best plan of a set of candidates (cached), or none.
  const Best *getBest(ArrayRef<int> members);
  /// The estimated time of a group: its fused kernel, or for one op the
  /// kernel kn-default-block-graphs gives it (with `persistentWorkers`,
  /// its persistent partition).
  std::optional<double> getCost(int group);
  bool wouldCycle(int a, int b);
  /// For each group with a matmul in a persistent kernel, how many such
  /// groups (itself included) read one of its values and depend neither on
  /// it nor it on them: they run side by side (see the definition).
  llvm::DenseMap<int, int64_t> countSideBySideMatmuls();
  bool tryMerge(int a, int b);

  func::FuncOp function;
  const DeviceModel &device;
  /// Same-shaped outputs are cut together in per-operator kernels only: as
  /// persistent-kernel tasks, Trinity's q, k and v projections in one set
  /// ran 1-5% slower than as three side-by-side sets (H200, 2026-11-28).
  bool zipSiblings() const { return persistentWorkers == 0; }

  int64_t smemLimit, maxBlocks, maxThreads, targetBlocks, persistentWorkers,
      maxGroupOps;
  double tolerance;
  bool splitSums;
  double estimatedUs = 0;
  bool splitRegions = false;

  SmallVector<Operation *> candidates;
  llvm::DenseMap<Operation *, int> indexOf;
  SmallVector<int> groupOf;
  std::map<int, SmallVector<int>> groups;
  std::map<SmallVector<int>, Best> cache;
  llvm::DenseMap<Operation *, double> singleCost;
  /// The reduction of each split matmul and its partial products, which
  /// never share a kernel: that kernel would walk the slices in its loop,
  /// the plain matmul again with every slice's sum rounded.
  llvm::DenseMap<Operation *, Operation *> partialsOfSplitSum;
};

std::optional<std::pair<double, int64_t>>
Fuser::getBuildableCost(ArrayRef<Operation *> ops) {
  Group group(ops, function.getBody().front(), zipSiblings());
  for (const Plan &plan :
       group.getPlans(device, smemLimit, maxBlocks, maxThreads, kMaxPlansTried,
                      persistentWorkers)) {
    KernelOp kernel = group.build(plan, group.getOps().back(), smemLimit);
    if (!kernel)
      continue;
    kernel->erase();
    int64_t blocks = 1;
    for (int64_t size : plan.gridSizes)
      blocks *= size;
    return std::make_pair(plan.cost, blocks);
  }
  return std::nullopt;
}

/// Whether an elementwise or reduction op reads `op`'s result: a reduction
/// of partial sums that replaces `op` then fuses into that op's kernel.
static bool hasFusingReader(Operation *op) {
  return llvm::any_of(op->getUsers(), [](Operation *user) {
    auto semantics = dyn_cast<SemanticsOpInterface>(user);
    return semantics && !isa<MatmulOp>(user) &&
           !getOpInfo(semantics.getOpKind()).movesData;
  });
}

/// The [n, k] weight of which `rhs` is the transpose (nn.Linear's layout),
/// or null.
static Value getTransposedWeight(Value rhs) {
  auto transpose = rhs.getDefiningOp<TransposeOp>();
  if (!transpose || transpose.getPermutation() != ArrayRef<int64_t>{1, 0})
    return Value();
  return transpose.getInput();
}

/// A matmul [m, k] x [k, n] whose best kernel has fewer blocks than half the
/// SMs (a decode-shaped product with a narrow n, such as an MoE router)
/// streams its whole right operand through those few SMs. It becomes
/// partial products over S slices of k, one kernel cutting S over the grid,
/// summed by a reduction:
///
///   lhs [m, k] -> view [m, S, k/S] -> transpose [S, m, k/S]
///   rhs [k, n] -> view [S, k/S, n]
///   partial = matmul (batched over S) : [S, m, n]
///   result  = reduce_sum partial dim 0 (keepdim = false) : [m, n]
///
/// exact in real arithmetic (the partial sums round to the element type once
/// each). S is the divisor of k (slices of at least kMinSplitSlice) that
/// the speed model prices cheapest, counting the reduction without its
/// launch when an elementwise or reduction op reads the result (it fuses
/// into that op's kernel); the split is taken when it beats the plain
/// matmul by kRelaunchGain.
void Fuser::splitNarrowMatmuls() {
  SmallVector<MatmulOp> matmuls;
  for (Operation &op : function.getBody().front())
    if (auto matmul = dyn_cast<MatmulOp>(op))
      if (!matmul->hasAttr(KernelDialect::getPartitionAttrName()) &&
          shapeOf(matmul.getLhs()).size() == 2 &&
          shapeOf(matmul.getRhs()).size() == 2)
        matmuls.push_back(matmul);
  for (MatmulOp matmul : matmuls) {
    std::optional<std::pair<double, int64_t>> plain =
        getBuildableCost({matmul.getOperation()});
    if (!plain || 2 * plain->second > device.sms)
      continue;
    int64_t m = shapeOf(matmul.getLhs())[0], k = shapeOf(matmul.getLhs())[1],
            n = shapeOf(matmul.getRhs())[1];
    Type element = cast<ShapedType>(matmul.getType()).getElementType();
    bool reductionFuses = hasFusingReader(matmul);
    struct Split {
      int64_t slices;
      double cost;
      SmallVector<Operation *> ops;
      Value result;
    };
    std::optional<Split> best;
    SmallVector<SmallVector<Operation *>> tried;
    for (int64_t slices : divisorsOf(k)) {
      if (slices < 2 || k / slices < kMinSplitSlice ||
          slices * plain->second > maxBlocks)
        continue;
      OpBuilder b(matmul);
      Location loc = matmul.getLoc();
      auto tensor = [&](ArrayRef<int64_t> shape) {
        return RankedTensorType::get(shape, element);
      };
      auto lhsView = ReshapeOp::create(b, loc, tensor({m, slices, k / slices}),
                                       matmul.getLhs());
      auto lhs = TransposeOp::create(b, loc, lhsView,
                                     b.getDenseI64ArrayAttr({1, 0, 2}));
      SmallVector<Operation *> ops{lhsView, lhs};
      SmallVector<Operation *> productOps{lhs};
      Value rhs;
      if (Value weight = getTransposedWeight(matmul.getRhs())) {
        // nn.Linear's [n, k]: slice k in place, then move n last; slicing the
        // transpose instead would need every block to load all of k.
        auto sliced =
            ReshapeOp::create(b, loc, tensor({n, slices, k / slices}), weight);
        auto moved = TransposeOp::create(b, loc, sliced,
                                         b.getDenseI64ArrayAttr({1, 2, 0}));
        ops.append({sliced, moved});
        productOps.push_back(moved);
        rhs = moved;
      } else {
        auto view = ReshapeOp::create(b, loc, tensor({slices, k / slices, n}),
                                      matmul.getRhs());
        ops.push_back(view);
        rhs = view;
      }
      auto partial = MatmulOp::create(b, loc, lhs, rhs);
      auto sum = ReduceSumOp::create(b, loc, partial, /*dim=*/0,
                                     /*keepdim=*/false);
      ops.append({partial, sum});
      productOps.push_back(partial);
      tried.push_back(ops);
      std::optional<std::pair<double, int64_t>> products =
          getBuildableCost(productOps);
      // The reduction's group has an output only while it has readers.
      matmul.getResult().replaceAllUsesWith(sum.getResult());
      std::optional<std::pair<double, int64_t>> reduction =
          getBuildableCost({sum.getOperation()});
      sum.getResult().replaceAllUsesWith(matmul.getResult());
      if (!products || !reduction)
        continue;
      double cost = products->first + reduction->first -
                    (reductionFuses ? device.launchUs : 0.0);
      if (!best || cost < best->cost)
        best = Split{slices, cost, ops, sum.getResult()};
    }
    // Only the chosen split's ops stay.
    for (SmallVector<Operation *> &ops : tried)
      if (!best || ops != best->ops)
        for (Operation *op : llvm::reverse(ops))
          op->erase();
    if (!best)
      continue;
    if (best->cost >= plain->first * (1 - kRelaunchGain)) {
      for (Operation *op : llvm::reverse(best->ops))
        op->erase();
      continue;
    }
    matmul.getResult().replaceAllUsesWith(best->result);
    Operation *oldRhs = matmul.getRhs().getDefiningOp();
    matmul->erase();
    // A weight's transpose that only the plain matmul read is gone with it.
    if (oldRhs && isa<TransposeOp>(oldRhs) && oldRhs->use_empty())
      oldRhs->erase();
    partialsOfSplitSum[best->result.getDefiningOp()] =
        best->result.getDefiningOp()->getOperand(0).getDefiningOp();
  }
}

/// Whether slicing `region` would reshape a concatenation view (one of its
/// leaves), which only kernels may read: its positions do not fall into
/// slices along the concatenated operands.
static bool slicesView(const ContractedRegion &region) {
  return llvm::any_of(region.positions, [](const auto &entry) {
    return static_cast<bool>(getConcatView(entry.first));
  });
}

/// A region of ops that carry a dim only sums contract (ContractionSplit.h:
/// attention's scores along the cache positions, summed by the softmax's
/// row sums and the product with the values) walks the whole dim in each
/// block's loop when fused: a decode step has too few rows to fill the GPU
/// otherwise, so a few blocks stream the whole cache. Cut into S slices,
/// the region computes S partial sums side by side (S cut over the grid)
/// and a reduction over S adds them (flash decoding). S is the divisor of
/// the dim (slices of at least kMinSplitSlice) that the speed model prices
/// cheapest: the partial sums' kernel plus the reduction's, without its
/// launch when an elementwise or reduction op reads a sum (it fuses into
/// that op's kernel). The split is taken when it beats the region unsplit,
/// as one kernel or op by op, whichever is cheaper, by kRelaunchGain; the
/// pass then fuses the whole function both ways and keeps the split only
/// where it is cheaper there too (KnFuse::runOnOperation). The partial
/// sums round to the element type once each.
void Fuser::splitContractedRegions() {
  // Regions are found again after each split: a split erases the ops and
  // sums of its region, which another region may have read as leaves.
  llvm::DenseSet<Operation *> tried;
  bool split = true;
  while (split) {
    split = false;
    for (ContractedRegion &region : findContractedRegions(function))
      if (tried.insert(region.sums.front()).second && !slicesView(region) &&
          splitContractedRegion(region)) {
        split = true;
        break;
      }
  }
}

bool Fuser::splitContractedRegion(const ContractedRegion &region) {
  Block &body = function.getBody().front();
  SmallVector<Operation *> whole(region.ops);
  whole.append(region.sums);
  llvm::sort(whole,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  double plain = std::numeric_limits<double>::infinity();
  if (auto fused = getBuildableCost(whole))
    plain = fused->first;
  double byOp = 0;
  for (Operation *op : whole) {
    auto single = getBuildableCost({op});
    byOp += single ? single->first : std::numeric_limits<double>::infinity();
  }
  plain = std::min(plain, byOp);
  bool sumFuses = llvm::any_of(region.sums, hasFusingReader);
  std::optional<SlicedRegion> best;
  double bestCost = 0;
  auto erase = [](SlicedRegion &sliced) {
    for (Operation *op : llvm::reverse(sliced.created))
      op->erase();
  };
  for (int64_t slices : divisorsOf(region.extent)) {
    if (slices < 2 || region.extent / slices < kMinSplitSlice)
      continue;
    OpBuilder b(region.sums.back());
    SlicedRegion sliced = sliceContractedRegion(region, slices, b);
    std::optional<std::pair<double, int64_t>> partials =
        getBuildableCost(sliced.partials);
    // The reduction's group has outputs only while the sums' readers
    // read it.
    for (auto [sum, total] : llvm::zip(region.sums, sliced.totals))
      sum->getResult(0).replaceAllUsesWith(total->getResult(0));
    // The totals fuse with what reads them; alone they may not share a
    // kernel (unrelated outputs), then each is priced by itself.
    std::optional<double> totals;
    if (auto together = getBuildableCost(sliced.totals)) {
      totals = together->first;
    } else {
      totals = 0.0;
      for (Operation *total : sliced.totals) {
        auto single = getBuildableCost({total});
        totals = single ? std::optional<double>(*totals + single->first)
                        : std::nullopt;
        if (!totals)
          break;
      }
    }
    for (auto [sum, total] : llvm::zip(region.sums, sliced.totals))
      total->getResult(0).replaceAllUsesWith(sum->getResult(0));
    if (!partials || !totals) {
      erase(sliced);
      continue;
    }
    double cost =
        partials->first + *totals - (sumFuses ? device.launchUs : 0.0);
    if (best && cost >= bestCost) {
      erase(sliced);
      continue;
    }
    if (best)
      erase(*best);
    best = std::move(sliced);
    bestCost = cost;
  }
  if (!best)
    return false;
  if (bestCost >= plain * (1 - kRelaunchGain)) {
    erase(*best);
    return false;
  }
  for (auto [sum, total] : llvm::zip(region.sums, best->totals)) {
    sum->getResult(0).replaceAllUsesWith(total->getResult(0));
    partialsOfSplitSum[total] = total->getOperand(0).getDefiningOp();
  }
  for (Operation *op : llvm::reverse(whole))
    if (op->use_empty())
      op->erase();
  sortTopologically(&body);
  splitRegions = true;
  return true;
}

SmallVector<Operation *> Fuser::getProducers(Operation *op) {
  SmallVector<Operation *> producers;
  for (Value operand : op->getOperands()) {
    Operation *def = operand.getDefiningOp();
    while (def && isa<ReshapeOp>(def))
      def = def->getOperand(0).getDefiningOp();
    if (def && indexOf.count(def) && !llvm::is_contained(producers, def))
      producers.push_back(def);
  }
  return producers;
}

const Fuser::Best *Fuser::getBest(ArrayRef<int> members) {
  SmallVector<int> key(members);
  llvm::sort(key);
  auto it = cache.find(key);
  if (it != cache.end())
    return it->second.plan ? &it->second : nullptr;
  Best &best = cache[key];
  SmallVector<Operation *> ops;
  for (int index : key)
    ops.push_back(candidates[index]);
  best.group =
      std::make_shared<Group>(ops, function.getBody().front(), zipSiblings());
  // The cheapest plan whose block graph verifies and lowers.
  for (const Plan &plan :
       best.group->getPlans(device, smemLimit, maxBlocks, maxThreads,
                            kMaxPlansTried, persistentWorkers)) {
    KernelOp kernel =
        best.group->build(plan, best.group->getOps().back(), smemLimit);
    if (!kernel)
      continue;
    kernel->erase();
    best.plan = plan;
    best.cost = plan.cost;
    return &best;
  }
  return nullptr;
}

std::optional<double> Fuser::getCost(int group) {
  const SmallVector<int> &members = groups[group];
  if (members.size() > 1) {
    const Best *best = getBest(members);
    return best ? std::optional<double>(best->cost) : std::nullopt;
  }
  Operation *op = candidates[members.front()];
  auto known = singleCost.find(op);
  if (known != singleCost.end())
    return known->second;
  double cost;
  {
    ScopedDiagnosticHandler quiet(op->getContext(),
                                  [](Diagnostic &) { return success(); });
    KernelOp kernel = persistentWorkers
                          ? buildPersistentKernel(op, persistentWorkers)
                          : buildDefaultKernel(op, targetBlocks);
    if (!kernel) {
      // No default kernel: only its group's plan can build it.
      return std::nullopt;
    }
    cost = estimateKernelUs(getKernelProfile(kernel, device), device);
    kernel->erase();
  }
  singleCost[op] = cost;
  return cost;
}

bool Fuser::wouldCycle(int a, int b) {
  // A path from one group to the other through a third group, or through an
  // op no group takes (a concatenation view, which stays outside every
  // kernel: merged, the groups would read the view of their own result; an
  // op with its own kn.partition, a collective: merged, the group would
  // both feed it and read it).
  auto reaches = [&](int from, int to) {
    SmallVector<int> stack;
    llvm::DenseSet<int> seen;
    auto pushUsers = [&](int group, bool skipDirect) {
      for (int member : groups[group]) {
        SmallVector<std::pair<Value, bool>> values;
        llvm::DenseSet<std::pair<Value, unsigned>> visited;
        for (Value result : candidates[member]->getResults())
          values.push_back({result, false});
        while (!values.empty()) {
          auto [value, indirect] = values.pop_back_val();
          if (!visited.insert({value, unsigned(indirect)}).second)
            continue;
          for (Operation *user : value.getUsers()) {
            bool view = isConcatView(user);
            if (isa<ReshapeOp>(user) || view) {
              values.push_back({user->getResult(0), indirect || view});
              continue;
            }
            auto it = indexOf.find(user);
            if (it == indexOf.end()) {
              for (Value through : user->getResults())
                values.push_back({through, true});
              continue;
            }
            int target = groupOf[it->second];
            if (target == group || (skipDirect && target == to && !indirect))
              continue;
            if (seen.insert(target).second)
              stack.push_back(target);
          }
        }
      }
    };
    pushUsers(from, true);
    while (!stack.empty()) {
      int group = stack.pop_back_val();
      if (group == to)
        return true;
      pushUsers(group, false);
    }
    return false;
  };
  return reaches(a, b) || reaches(b, a);
}

/// Whether `op` is a transpose of the last two dims whose every reader is a
/// matmul taking it as the right operand (as BlockGraphPlan::isTransposedRhs
/// reads it in place),
/// of a value that is written to device memory anyway (a function result, or
/// read by other ops too).
static bool feedsMatmulsTransposed(Operation *op) {
  auto transpose = dyn_cast<TransposeOp>(op);
  if (!transpose || transpose.getInput().hasOneUse() ||
      !swapsLastTwoDims(transpose.getPermutation()))
    return false;
  return llvm::all_of(transpose->getUses(), [](OpOperand &use) {
    return isa<MatmulOp>(use.getOwner()) && use.getOperandNumber() == 1;
  });
}

bool Fuser::tryMerge(int a, int b) {
  if (a == b)
    return false;
  if (static_cast<int64_t>(groups[a].size() + groups[b].size()) > maxGroupOps)
    return false;
  if (wouldCycle(a, b))
    return false;
  SmallVector<int> merged(groups[a]);
  merged.append(groups[b]);
  llvm::DenseSet<Operation *> mergedOps;
  for (int member : merged)
    mergedOps.insert(candidates[member]);
  for (Operation *op : mergedOps) {
    auto split = partialsOfSplitSum.find(op);
    if (split != partialsOfSplitSum.end() && mergedOps.contains(split->second))
      return false;
  }
  const Best *best = getBest(merged);
  if (!best)
    return false;
  std::optional<double> costA = getCost(a), costB = getCost(b);
  // An op without a default kernel joins any group that can take it.
  // Within `tolerance` of the kernels it replaces, the fused kernel wins:
  // it moves fewer bytes through device memory, which the estimate of each
  // kernel alone does not credit (other kernels' traffic, L2 pollution).
  if (costA && costB && best->cost > (*costA + *costB) * (1 + tolerance))
    return false;
  for (int member : groups[b])
    groupOf[member] = a;
  groups[a] = merged;
  groups.erase(b);
  return true;
}

llvm::DenseMap<int, int64_t> Fuser::countSideBySideMatmuls() {
  // The ops each group's results reach, through the function's uses.
  llvm::DenseMap<int, llvm::DenseSet<Operation *>> reached;
  auto reaches = [&](int from, int to) {
    auto found = reached.try_emplace(from);
    auto it = found.first;
    if (found.second) {
      SmallVector<Operation *> work;
      for (int member : groups[from])
        work.push_back(candidates[member]);
      while (!work.empty())
        for (Operation *user : work.pop_back_val()->getUsers())
          if (it->second.insert(user).second)
            work.push_back(user);
    }
    return llvm::any_of(groups[to], [&](int member) {
      return it->second.contains(candidates[member]);
    });
  };
  llvm::MapVector<Value, SmallVector<int>> readers;
  for (auto &[id, members] : groups) {
    if (llvm::none_of(members, [&](int member) {
          return isa<MatmulOp>(candidates[member]);
        }))
      continue;
    for (int member : members)
      for (Value operand : candidates[member]->getOperands()) {
        SmallVector<int> &list = readers[getReshapeRoot(operand)];
        if (!llvm::is_contained(list, id))
          list.push_back(id);
      }
  }
  // Per group, the groups among its value's readers that depend neither on
  // it nor on one another (taken in order), itself included.
  llvm::DenseMap<int, int64_t> count;
  for (auto &[value, list] : readers)
    for (int a : list) {
      SmallVector<int> together{a};
      for (int b : list)
        if (llvm::all_of(together, [&](int c) {
              return b != c && !reaches(b, c) && !reaches(c, b);
            }))
          together.push_back(b);
      count[a] = std::max<int64_t>(count.lookup(a), together.size());
    }
  return count;
}

LogicalResult Fuser::run() {
  exposeEqualSplits(function);
  moveScalesPastMatmuls(function);
  splitNarrowMatmuls();
  if (splitSums)
    splitContractedRegions();
  Block &body = function.getBody().front();
  for (Operation &op : body) {
    if (!isMember(&op) || op.hasAttr(KernelDialect::getPartitionAttrName()))
      continue;
    auto semantics = cast<SemanticsOpInterface>(op);
    SmallVector<ArrayRef<int64_t>> in;
    for (Value operand : op.getOperands())
      in.push_back(shapeOf(operand));
    if (!getTileDims(semantics.getOpKind(), in, semantics.getOpParams()))
      continue;
    indexOf[&op] = candidates.size();
    groupOf.push_back(candidates.size());
    groups[candidates.size()] = {static_cast<int>(candidates.size())};
    candidates.push_back(&op);
  }
  // Producer into consumer, largest intermediate first; then ops that
  // share an input; until nothing changes. A transpose that only feeds
  // matmuls as their right operand, of a value stored anyway, waits for them
  // until then: there the lowering reads the stored value in place, while
  // in its producer's kernel it is a second, transposed copy written out
  // and read back (Trinity's K^T beside the updated K cache).
  bool changed = true;
  bool deferTransposes = true;
  auto deferred = [&](Operation *op) {
    return deferTransposes && feedsMatmulsTransposed(op) &&
           groups[groupOf[indexOf[op]]].size() == 1;
  };
  while (changed) {
    changed = false;
    for (Operation *op : candidates) {
      if (deferred(op))
        continue;
      SmallVector<Operation *> producers = getProducers(op);
      auto bytes = [](Operation *o) {
        int64_t total = 0;
        for (Value result : o->getResults())
          total += getByteSize(cast<ShapedType>(result.getType()));
        return total;
      };
      llvm::sort(producers, [&](Operation *x, Operation *y) {
        return bytes(x) != bytes(y) ? bytes(x) > bytes(y)
                                    : indexOf[x] < indexOf[y];
      });
      for (Operation *producer : producers)
        if (tryMerge(groupOf[indexOf[op]], groupOf[indexOf[producer]])) {
          changed = true;
          break;
        }
    }
    if (changed)
      continue;
    // Siblings: groups reading the same value (a deferred transpose is
    // nobody's sibling: in its input's other reader it is a copy again).
    llvm::DenseMap<Value, SmallVector<int>> readers;
    SmallVector<Value> order;
    for (Operation *op : candidates) {
      if (deferred(op))
        continue;
      for (Value operand : op->getOperands()) {
        Value source = getReshapeRoot(operand);
        auto &list = readers[source];
        if (list.empty())
          order.push_back(source);
        int group = groupOf[indexOf[op]];
        if (!llvm::is_contained(list, group))
          list.push_back(group);
      }
    }
    for (Value value : order) {
      SmallVector<int> &list = readers[value];
      for (size_t i = 0; i < list.size() && !changed; ++i)
        for (size_t j = i + 1; j < list.size() && !changed; ++j)
          if (groups.count(list[i]) && groups.count(list[j]))
            changed = tryMerge(list[i], list[j]);
      if (changed)
        break;
    }
    if (!changed && deferTransposes) {
      deferTransposes = false;
      changed = true;
    }
  }
  // An op left alone gets the speed model's launch shape where that beats
  // the fixed tiling of its default kernel by more than the model's noise;
  // in a persistent kernel wherever there is one: the persistent partition
  // counts bytes only, and its narrow, short-stepped matmul tiles ran
  // slower than the planned ones (QKV of the Qwen3 decode layer: 17.4
  // against 14.4 us, docs/results/2026-11-27-h200-swizzle.md).
  llvm::DenseSet<int> relaunched;
  for (auto &[id, members] : groups) {
    if (members.size() != 1)
      continue;
    std::optional<double> fixed = getCost(id);
    const Best *best = getBest(members);
    if (best && (persistentWorkers || !fixed ||
                 best->cost < *fixed * (1 - kRelaunchGain)))
      relaunched.insert(id);
  }
  estimatedUs = 0;
  for (auto &[id, members] : groups) {
    const Best *best = relaunched.contains(id) ? getBest(members) : nullptr;
    std::optional<double> cost = best ? best->cost : getCost(id);
    estimatedUs += cost.value_or(0.0);
  }
  // In a persistent kernel, matmuls that read one value and do not depend
  // on one another (Trinity's q, k and v projections of x) run side by
  // side, so each is planned for its share of the workers: as many tasks
  // as there are workers, each on wider tiles, rather than each matmul
  // cut for all of them into narrow tiles taken in turn.
  llvm::DenseMap<int, int64_t> sideBySide;
  if (persistentWorkers)
    sideBySide = countSideBySideMatmuls();
  // Build every group of two or more ops (and the relaunched ones), each
  // analyzed afresh: the groups built before it changed its inputs.
  for (auto &[id, members] : groups) {
    if (members.size() < 2 && !relaunched.contains(id))
      continue;
    SmallVector<Operation *> ops;
    for (int index : members)
      ops.push_back(candidates[index]);
    Group group(ops, body, zipSiblings());
    if (!group.isValid())
      continue;
    Operation *last = group.getOps().back();
    DeviceModel share = device;
    int64_t workers = persistentWorkers;
    if (int64_t together = sideBySide.lookup(id); together > 1) {
      workers = std::max(std::min(kMinSideBySideWorkers, persistentWorkers),
                         persistentWorkers / together);
      // The group's workers with their share of the chip's rates.
      double fraction = double(workers) / double(persistentWorkers);
      share.sms = workers;
      share.dramBytesPerUs *= fraction;
      share.l2BytesPerUs *= fraction;
      share.tensorFlopsPerUs *= fraction;
      share.simtFlopsPerUs *= fraction;
    }
    SmallVector<Plan> plans = group.getPlans(
        share, smemLimit, maxBlocks, maxThreads, kMaxPlansTried, workers);
    KernelOp kernel;
    for (const Plan &plan : plans)
      if ((kernel = group.build(plan, last, smemLimit)))
        break;
    if (!kernel)
      continue;
    group.replace(kernel);
  }
  if (!sortTopologically(&body))
    return function.emitError() << "kn-fuse: the fused program has a cycle";
  return success();
}

struct KnFuse : public kn::impl::KnFuseBase<KnFuse> {
  using Base::Base;

  std::optional<std::string> checkOptions() const {
    if (auto error = checkOptionValue("kn-fuse", "device", device,
                                      DeviceModel::getNames()))
      return error;
    if (!chip.empty())
      if (auto error = checkOptionValue("kn-fuse", "chip", chip,
                                        tb::TargetAttr::getKnownChips()))
        return error;
    if (workers < 0 || maxGroupOps < 1 || tolerance < 0)
      return std::string("kn-fuse: workers and tolerance must be 0 or "
                         "positive and max-group-ops positive");
    return std::nullopt;
  }
  MIRAGE_CHECK_PASS_OPTIONS_AT_PARSE

  void runOnOperation() override {
    // checkOptions() passed in initialize().
    std::optional<DeviceModel> model = DeviceModel::get(device);
    tb::TargetAttr compiledChip;
    if (!this->chip.empty())
      compiledChip = tb::TargetAttr::getKnown(&getContext(), this->chip);
    // One function at a time: nothing here looks at the others.
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    if (failed(checkNoFrontendOps(function, "kn-fuse")))
      return signalPassFailure();
    DeviceModel chip = *model;
    tb::TargetAttr target = tb::TargetAttr::lookup(function);
    int64_t smemLimit = target.getSmemPerBlock();
    if (target.getSms() > 0)
      chip.sms = target.getSms();
    if (compiledChip) {
      smemLimit = std::min(smemLimit, compiledChip.getSmemPerBlock());
      chip.sms = compiledChip.getSms() > 0 ? compiledChip.getSms() : chip.sms;
    }
    if (persistent) {
      // A worker runs its tasks one after another. Without `workers`, one
      // worker per SM is assumed, although tg-schedule may later run up to
      // 4 per SM on a small graph.
      chip = chip.forPersistentTasks();
      if (workers > 0)
        chip.sms = workers;
    }
    // A launch may have many waves of blocks; a persistent kernel's tasks
    // are at most 4 per worker (as kn-default-block-graphs{persistent}).
    int64_t maxBlocks =
        persistent ? 4 * chip.sms : 16 * chip.sms * chip.maxBlocksPerSM;
    // A persistent kernel runs one block size, that of its matmul tasks.
    int64_t maxThreads = persistent ? kDefaultThreads : 4 * kDefaultThreads;
    auto fuse = [&](func::FuncOp on, bool split) {
      return Fuser(on, chip, smemLimit, maxBlocks, maxThreads, targetBlocks,
                   persistent ? chip.sms : 0, maxGroupOps, tolerance, split);
    };
    // In a persistent kernel the split ran slower on an H200 (the partial
    // sums' tasks and their reduction's: docs/Fusion.md).
    bool maySplit = splitSums && !persistent;
    bool mayFold = foldNorms && !getFoldableNorms(function).empty();
    bool mayView = !getViewableConcats(function).empty();
    if (!maySplit && !mayFold && !mayView) {
      if (failed(fuse(function, false).run()))
        return signalPassFailure();
      return;
    }
    // Split sums, folded norms and concatenation views change what fuses
    // around them, so the function is fused each way, each on a copy, and
    // the cheapest estimate is kept: a split where it beats the plain form
    // by kRelaunchGain, a fold or views where they are cheaper at all (a
    // view spares a copy of the concatenation but keeps its producer and
    // readers apart: decoder_small's 64-entry caches fuse better copied).
    struct Trial {
      func::FuncOp copy;
      double us;
    };
    SmallVector<func::FuncOp> copies;
    llvm::scope_exit discard([&] {
      for (func::FuncOp copy : copies)
        copy->erase();
    });
    auto attempt = [&](bool fold, bool views) -> FailureOr<Trial> {
      func::FuncOp first = function.clone();
      copies.push_back(first);
      first->setAttr(tb::BlockDialect::getTargetAttrName(), target);
      if (fold)
        foldNormsIntoMatmuls(first);
      if (views)
        markConcatViews(first);
      // Fused with splits first: where none is made, that is the plain form.
      func::FuncOp plainCopy = maySplit ? first.clone() : first;
      if (maySplit)
        copies.push_back(plainCopy);
      Fuser firstFuser = fuse(first, maySplit);
      if (failed(firstFuser.run()))
        return failure();
      Trial best{first, firstFuser.getEstimatedUs()};
      if (!maySplit || !firstFuser.splitAnySums())
        return best;
      Fuser plain = fuse(plainCopy, false);
      if (failed(plain.run()))
        return failure();
      if (best.us >= plain.getEstimatedUs() * (1 - kRelaunchGain))
        best = {plainCopy, plain.getEstimatedUs()};
      return best;
    };
    FailureOr<Trial> chosen = attempt(/*fold=*/false, /*views=*/false);
    if (failed(chosen))
      return signalPassFailure();
    for (bool views : {false, true})
      for (bool fold : {false, true}) {
        if ((!views && !fold) || (views && !mayView) || (fold && !mayFold))
          continue;
        FailureOr<Trial> trial = attempt(fold, views);
        if (failed(trial))
          return signalPassFailure();
        if (trial->us < chosen->us)
          chosen = trial;
      }
    function.getBody().takeBody(chosen->copy.getBody());
  }
};

} // namespace
