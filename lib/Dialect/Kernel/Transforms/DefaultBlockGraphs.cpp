//===- DefaultBlockGraphs.cpp - A block graph for every kernel op ---------===//
//
// Predefined kernel ops (kn.matmul, kn.exp, ...) have no block graph of
// their own; to lower a whole kernel graph to the GPU each is wrapped in a
// kn.kernel whose tb.graph computes it with one block-level op of the same
// name, tiled by a fixed scheme per operator family (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "mirage/Dialect/Kernel/Transforms/Passes.h"

#include "mirage/Conversion/Frontend/Guard.h"
#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/Dialect/Kernel/Transforms/BlockGraphBuilder.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <map>

namespace mirage::kn {
#define GEN_PASS_DEF_KNDEFAULTBLOCKGRAPHS
#include "mirage/Dialect/Kernel/Transforms/Passes.h.inc"
} // namespace mirage::kn

using namespace mlir;
using namespace mirage;
using namespace mirage::kn;

namespace {

/// Elementwise and data-movement tiles: at most this many elements along
/// the innermost partitioned dim, and in all.
constexpr int64_t kInnerTile = 256;
constexpr int64_t kTileElements = 2048;
/// Reductions walk the reduced dim in chunks of at most this many elements.
constexpr int64_t kReduceChunk = 1024;
/// rms_norm keeps whole rows, at most this many elements per tile.
constexpr int64_t kNormTileElements = 4096;
/// Matmul output tiles are at most 64x64, at least 16 wide when halved to
/// fill the GPU; k advances 64 per iteration.
constexpr int64_t kMatmulTile = 64;
constexpr int64_t kWideMatmulTile = 32;
constexpr int64_t kMinMatmulTile = 16;
/// Output tiles this small (elements) advance k by 128 per iteration.
constexpr int64_t kSmallOutputTile = 1024;
/// CUDA's limit on grid dims y and z.
constexpr int64_t kMaxGridYZ = 65535;

/// How a block graph cuts its iteration space (the output's dims, or the
/// input's for split and reductions): grid sizes (x, y, z) and, for each
/// grid dim, the dim it partitions.
struct Partition {
  SmallVector<int64_t> grid, dims;

  /// The tile of a space of `extents` one block covers.
  Shape getTile(ArrayRef<int64_t> extents) const {
    Shape tile(extents);
    for (auto [size, dim] : llvm::zip(grid, dims))
      tile[dim] /= size;
    return tile;
  }
};

/// The dims an op's block graph cuts and those it must keep whole (a
/// split's or reduction's dim, a concatenated dim, rms_norm's rows).
struct CutSpace {
  Shape extents;
  SmallVector<bool> whole;
};

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

CutSpace getCutSpace(Operation *op, OpKind kind, const OpParams &params) {
  CutSpace space;
  bool overInput = kind == OpKind::Split || kind == OpKind::ReduceSum ||
                   kind == OpKind::ReduceMax;
  space.extents =
      Shape(shapeOf(overInput ? op->getOperand(0) : op->getResult(0)));
  space.whole.assign(space.extents.size(), false);
  if (overInput || kind == OpKind::Concat)
    space.whole[params.dim] = true;
  if (kind == OpKind::RmsNorm)
    space.whole.back() = true;
  return space;
}

/// The partition cutting each dim of `space` into `parts[d]` pieces, grid
/// dims from the innermost cut dim outwards; an error message when the
/// parts do not fit.
FailureOr<Partition> partitionFromParts(const CutSpace &space,
                                        ArrayRef<int64_t> parts,
                                        std::string &error) {
  llvm::raw_string_ostream os(error);
  int64_t rank = space.extents.size();
  if (static_cast<int64_t>(parts.size()) != rank) {
    os << "has " << parts.size() << " parts for " << rank << " dims";
    return failure();
  }
  Partition partition;
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (parts[d] < 1 || space.extents[d] % parts[d] != 0) {
      os << "cannot cut dim " << d << " of size " << space.extents[d]
         << " into " << parts[d] << " parts";
      return failure();
    }
    if (parts[d] == 1)
      continue;
    if (space.whole[d]) {
      os << "must keep dim " << d << " whole";
      return failure();
    }
    partition.grid.push_back(parts[d]);
    partition.dims.push_back(d);
  }
  if (partition.grid.size() > 3) {
    os << "cuts " << partition.grid.size() << " dims; a grid has at most 3";
    return failure();
  }
  if (partition.grid.empty()) {
    // One block. Its grid dim still maps to a data dim: the innermost one
    // that is not whole.
    int64_t dim = rank - 1;
    while (dim > 0 && space.whole[dim])
      --dim;
    partition.grid.push_back(1);
    partition.dims.push_back(dim);
  }
  return partition;
}

/// Cuts `shape` over up to three grid dims, from the innermost dim
/// outwards, leaving `whole` dims undivided: the innermost cut dim gets at
/// most `innerCap` elements per tile and the tile (whole dims included) at
/// most `maxElements` where the dims allow.
Partition partitionOutput(ArrayRef<int64_t> shape, ArrayRef<bool> whole,
                          int64_t innerCap, int64_t maxElements) {
  Partition partition;
  int64_t inner = 1;
  for (int64_t d : llvm::seq<int64_t>(0, shape.size())) {
    if (whole[d])
      inner *= shape[d];
  }
  bool first = true;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (whole[d])
      continue;
    int64_t cap = maxElements / inner;
    if (first)
      cap = std::min(cap, innerCap);
    first = false;
    int64_t tile = partition.grid.size() < 3
                       ? largestDivisorAtMost(shape[d], cap)
                       : shape[d];
    inner *= tile;
    if (tile == shape[d])
      continue;
    partition.grid.push_back(shape[d] / tile);
    partition.dims.push_back(d);
  }
  if (partition.grid.empty()) {
    // One block. Its grid dim still maps to a data dim: the innermost one
    // that is not whole (a reduced dim may be dropped from the output).
    int64_t dim = static_cast<int64_t>(shape.size()) - 1;
    while (dim > 0 && whole[dim])
      --dim;
    partition.grid.push_back(1);
    partition.dims.push_back(dim);
  }
  return partition;
}

/// Output tile sizes (m, n) of a matmul: 64x64 where the sizes allow,
/// halved while the grid has fewer than `targetBlocks` blocks: n down to
/// kWideMatmulTile, then m down to it, then both down to kMinMatmulTile
/// (wide tiles re-read less of the other operand); n stays a multiple of 8.
std::pair<int64_t, int64_t> chooseMatmulTile(int64_t m, int64_t n,
                                             int64_t batch,
                                             int64_t targetBlocks) {
  int64_t tileM = largestDivisorAtMost(m, kMatmulTile);
  int64_t tileN = largestDivisorAtMost(n, kMatmulTile);
  // The tile halved, or unchanged when that would go below `floor`.
  auto halve = [](int64_t size, int64_t tile, int64_t floor) {
    int64_t half = largestDivisorAtMost(size, tile / 2);
    return half >= floor && half % 8 == 0 ? half : tile;
  };
  while (batch * (m / tileM) * (n / tileN) < targetBlocks) {
    if (int64_t next = halve(n, tileN, kWideMatmulTile); next != tileN)
      tileN = next;
    else if (int64_t next = halve(m, tileM, kWideMatmulTile); next != tileM)
      tileM = next;
    else if (int64_t next = halve(n, tileN, kMinMatmulTile); next != tileN)
      tileN = next;
    else if (int64_t next = halve(m, tileM, kMinMatmulTile); next != tileM)
      tileM = next;
    else
      break;
  }
  return {tileM, tileN};
}

/// Starts the kernel of `op` before it: its operands and results are the
/// kernel's.
void startGraph(std::optional<BlockGraphBuilder> &graph, OpBuilder &b,
                Operation *op, ArrayRef<int64_t> grid, int64_t forloop) {
  graph.emplace(b, op->getLoc(), op->getOperands(), op->getResultTypes(), grid,
                kDefaultThreads, forloop, op, "has no default block graph");
}

/// The imap of an operand that broadcasts (right-aligned) to an output cut
/// by `partition`: each grid dim maps to the operand's matching dim, or
/// replicates where the operand has no such dim or a broadcast dim of 1.
SmallVector<int64_t> broadcastMap(const Partition &partition,
                                  ArrayRef<int64_t> operandShape,
                                  int64_t outputRank) {
  SmallVector<int64_t> map;
  int64_t skip = outputRank - static_cast<int64_t>(operandShape.size());
  for (int64_t dim : partition.dims) {
    int64_t d = dim - skip;
    map.push_back(d < 0 || operandShape[d] == 1 ? kReplica : d);
  }
  return map;
}

/// Elementwise ops, transpose, concat: operands follow the output tile
/// (broadcast dims replicated, a transpose reads the input tile its output
/// tile comes from).
LogicalResult buildElementwise(OpBuilder &b, Operation *op, OpKind kind,
                               const OpParams &params,
                               const Partition &partition,
                               std::optional<BlockGraphBuilder> &graph) {
  int64_t rank = shapeOf(op->getResult(0)).size();
  startGraph(graph, b, op, partition.grid, 1);
  SmallVector<Value> tiles;
  for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
    SmallVector<int64_t> imap;
    if (kind == OpKind::Transpose) {
      for (int64_t dim : partition.dims)
        imap.push_back(params.ints[dim]);
    } else {
      imap = broadcastMap(partition, shapeOf(operand), rank);
    }
    FailureOr<Value> tile = graph->iterate(graph->getInput(index), imap,
                                           kReplica);
    if (failed(tile))
      return failure();
    tiles.push_back(*tile);
  }
  auto computed = graph->compute(op, tiles, params, op->getAttrs());
  if (failed(computed))
    return failure();
  graph->save(*computed, {partition.dims});
  return success();
}

/// split: input tiles with the split dim whole, one saver per piece.
LogicalResult buildSplit(OpBuilder &b, Operation *op, const OpParams &params,
                         const Partition &partition,
                         std::optional<BlockGraphBuilder> &graph) {
  startGraph(graph, b, op, partition.grid, 1);
  FailureOr<Value> tile =
      graph->iterate(graph->getInput(0), partition.dims, kReplica);
  if (failed(tile))
    return failure();
  auto computed = graph->compute(op, *tile, params, op->getAttrs());
  if (failed(computed))
    return failure();
  SmallVector<SmallVector<int64_t>> omaps(computed->size(), partition.dims);
  graph->save(*computed, omaps);
  return success();
}

/// Reductions: the for-loop walks the reduced dim kReduceChunk at a time
/// into an accumulator; the partition cuts the other input dims.
LogicalResult buildReduction(OpBuilder &b, Operation *op, OpKind kind,
                             const OpParams &params, const Partition &partition,
                             std::optional<BlockGraphBuilder> &graph) {
  ArrayRef<int64_t> inShape = shapeOf(op->getOperand(0));
  int64_t dim = params.dim;
  int64_t chunk = largestDivisorAtMost(inShape[dim], kReduceChunk);
  int64_t iterations = inShape[dim] / chunk;
  startGraph(graph, b, op, partition.grid, iterations);
  FailureOr<Value> tile = graph->iterate(
      graph->getInput(0), partition.dims, iterations > 1 ? dim : kReplica);
  if (failed(tile))
    return failure();
  OpParams kept = params;
  kept.keepDim = true;
  SmallVector<NamedAttribute> attributes(op->getAttrs());
  llvm::erase_if(attributes, [](NamedAttribute attr) {
    return attr.getName() == "keepdim";
  });
  auto computed = graph->compute(op, *tile, kept, attributes);
  if (failed(computed))
    return failure();
  Value total = (*computed)[0];
  if (iterations > 1)
    total = graph->accumulate(total, kind);
  SmallVector<int64_t> omap(partition.dims);
  if (!params.keepDim && llvm::is_contained(omap, dim))
    return op->emitOpError() << "has no default block graph: it reduces its "
                                "only dim to a rank-0 result";
  if (!params.keepDim) {
    Shape dropped(cast<tb::TileType>(total.getType()).getShape());
    dropped.erase(dropped.begin() + dim);
    total = graph->reshape(total, dropped);
    for (int64_t &d : omap)
      if (d > dim)
        --d;
  }
  graph->save(total, {omap});
  return success();
}

/// rms_norm: whole rows; the weight replicated.
LogicalResult buildRmsNorm(OpBuilder &b, Operation *op, const OpParams &params,
                           const Partition &partition,
                           std::optional<BlockGraphBuilder> &graph) {
  startGraph(graph, b, op, partition.grid, 1);
  SmallVector<Value> tiles;
  FailureOr<Value> x =
      graph->iterate(graph->getInput(0), partition.dims, kReplica);
  if (failed(x))
    return failure();
  tiles.push_back(*x);
  if (op->getNumOperands() > 1) {
    SmallVector<int64_t> replicated(partition.dims.size(), kReplica);
    FailureOr<Value> w =
        graph->iterate(graph->getInput(1), replicated, kReplica);
    if (failed(w))
      return failure();
    tiles.push_back(*w);
  }
  auto computed = graph->compute(op, tiles, params, op->getAttrs());
  if (failed(computed))
    return failure();
  graph->save(*computed, {partition.dims});
  return success();
}

/// matmul: k by the for-loop into accum_sum; the partition cuts n (grid
/// x), m (y) and the batch dim (z).
LogicalResult buildMatmul(OpBuilder &b, Operation *op, const OpParams &params,
                          const Partition &partition,
                          std::optional<BlockGraphBuilder> &graph) {
  ArrayRef<int64_t> outShape = shapeOf(op->getResult(0));
  int64_t rank = outShape.size();
  ArrayRef<int64_t> a = shapeOf(op->getOperand(0));
  ArrayRef<int64_t> w = shapeOf(op->getOperand(1));
  if (rank > 3)
    return op->emitOpError()
           << "has no default block graph: more than one batch dim";
  int64_t k = a.back();
  Shape tile = partition.getTile(outShape);
  // Small output tiles read more of k per iteration, so that each
  // iteration still moves a few KiB.
  int64_t tileK = largestDivisorAtMost(
      k, tile[rank - 2] * tile[rank - 1] <= kSmallOutputTile ? 2 * kMatmulTile
                                                             : kMatmulTile);
  int64_t iterations = k / tileK;
  // Each grid dim's role: 0 cuts n (B only), 1 m (A only), 2 the batch.
  SmallVector<int64_t> roles;
  for (int64_t dim : partition.dims)
    roles.push_back(dim == rank - 1 ? 0 : dim == rank - 2 ? 1 : 2);
  // Operand maps: n cuts only B, m only A, the batch both (where batched).
  auto operandMap = [&](ArrayRef<int64_t> shape, int64_t cutRole,
                        int64_t cutDim) {
    SmallVector<int64_t> map;
    int64_t opRank = shape.size();
    for (int64_t role : roles) {
      if (role == cutRole)
        map.push_back(cutDim);
      else if (role == 2 && opRank == 3 && shape[0] != 1)
        map.push_back(0);
      else
        map.push_back(kReplica);
    }
    return map;
  };
  startGraph(graph, b, op, partition.grid, iterations);
  int64_t aRank = a.size(), wRank = w.size();
  FailureOr<Value> lhs = graph->iterate(
      graph->getInput(0), operandMap(a, 1, aRank - 2),
      iterations > 1 ? aRank - 1 : kReplica);
  FailureOr<Value> rhs = graph->iterate(
      graph->getInput(1), operandMap(w, 0, wRank - 1),
      iterations > 1 ? wRank - 2 : kReplica);
  if (failed(lhs) || failed(rhs))
    return failure();
  auto computed = graph->compute(op, {*lhs, *rhs}, params, op->getAttrs());
  if (failed(computed))
    return failure();
  graph->save(graph->accumulate((*computed)[0], OpKind::AccumSum),
              {partition.dims});
  return success();
}

/// Builds the kernel computing `op` with `partition` into `graph`; fails
/// (with a diagnostic) when its shapes fit no scheme.
LogicalResult buildGraph(OpBuilder &b, Operation *op,
                         const Partition &partition,
                         std::optional<BlockGraphBuilder> &graph) {
  auto semantics = cast<SemanticsOpInterface>(op);
  OpKind kind = semantics.getOpKind();
  OpParams params = semantics.getOpParams();
  LogicalResult built = failure();
  if (getOpInfo(kind).elementwise || kind == OpKind::Transpose ||
      kind == OpKind::Concat)
    built = buildElementwise(b, op, kind, params, partition, graph);
  else if (kind == OpKind::Split)
    built = buildSplit(b, op, params, partition, graph);
  else if (kind == OpKind::ReduceSum || kind == OpKind::ReduceMax)
    built = buildReduction(b, op, kind, params, partition, graph);
  else if (kind == OpKind::RmsNorm)
    built = buildRmsNorm(b, op, params, partition, graph);
  else if (kind == OpKind::Matmul)
    built = buildMatmul(b, op, params, partition, graph);
  else
    return op->emitOpError() << "has no default block graph";
  if (failed(built))
    return failure();
  for (auto [g, size] : llvm::enumerate(graph->getGrid()))
    if (g > 0 && size > kMaxGridYZ)
      return op->emitOpError()
             << "has no default block graph: grid dim " << gridDimName(g)
             << " would have " << size << " blocks, more than " << kMaxGridYZ;
  return success();
}

/// The fixed tiling of the pass description: small tiles for elementwise
/// ops, reductions and rows; matmul tiles shrunk until `targetBlocks`.
Partition getDefaultPartition(Operation *op, OpKind kind,
                              const OpParams &params, const CutSpace &space,
                              int64_t targetBlocks) {
  if (kind == OpKind::Matmul && space.extents.size() <= 3) {
    ArrayRef<int64_t> out = space.extents;
    int64_t rank = out.size();
    int64_t m = out[rank - 2], n = out[rank - 1];
    int64_t batch = rank == 3 ? out[0] : 1;
    auto [tileM, tileN] = chooseMatmulTile(m, n, batch, targetBlocks);
    Shape parts(rank, 1);
    parts[rank - 1] = n / tileN;
    parts[rank - 2] = m / tileM;
    if (rank == 3)
      parts[0] = batch;
    std::string error;
    return *partitionFromParts(space, parts, error);
  }
  if (kind == OpKind::ReduceSum || kind == OpKind::ReduceMax) {
    // Cut the other dims as if one chunk were the whole reduced dim.
    Shape chunkShape(space.extents);
    chunkShape[params.dim] =
        largestDivisorAtMost(chunkShape[params.dim], kReduceChunk);
    return partitionOutput(chunkShape, space.whole, kInnerTile, kTileElements);
  }
  if (kind == OpKind::RmsNorm)
    return partitionOutput(space.extents, space.whole, kNormTileElements,
                           kNormTileElements);
  return partitionOutput(space.extents, space.whole, kInnerTile, kTileElements);
}

/// Builds the kernel of `op` with `partition` before `op`; null (with a
/// diagnostic) when no graph fits.
kn::KernelOp buildKernel(Operation *op, const Partition &partition) {
  OpBuilder b(op);
  std::optional<BlockGraphBuilder> graph;
  if (failed(buildGraph(b, op, partition, graph))) {
    if (graph)
      graph->getKernel()->erase();
    return {};
  }
  return graph->getKernel();
}

} // namespace

KernelOp kn::buildDefaultKernel(Operation *op, int64_t targetBlocks) {
  auto semantics = cast<SemanticsOpInterface>(op);
  OpKind kind = semantics.getOpKind();
  OpParams params = semantics.getOpParams();
  CutSpace space = getCutSpace(op, kind, params);
  return buildKernel(
      op, getDefaultPartition(op, kind, params, space, targetBlocks));
}

namespace {

/// Chooses partitions for a persistent kernel of `workers` workers (MPK
/// section 4.2): among the cuts of the iteration space into at most
/// 4 * workers tasks whose block graphs verify, the one that moves the
/// fewest bytes on its busiest worker plus on all workers spread over them,
/// counting each task as its bytes plus a fixed per-task cost. Decisions
/// are kept per op signature (ops of the same kind, attributes and types
/// get the same partition).
class WorkerPartitioner {
public:
  explicit WorkerPartitioner(int64_t workers) : workers(workers) {}

  FailureOr<Partition> choose(Operation *op, OpKind kind,
                              const CutSpace &space) {
    std::string key = getSignature(op);
    auto known = chosen.find(key);
    if (known != chosen.end()) {
      std::string error;
      return partitionFromParts(space, known->second, error);
    }
    SmallVector<SmallVector<int64_t>> candidates;
    SmallVector<int64_t> parts(space.extents.size(), 1);
    enumerate(op, kind, space, 0, 1, 0, parts, candidates);

    using Score = std::tuple<double, double, int64_t>;
    std::optional<Score> best;
    SmallVector<int64_t> bestParts;
    for (ArrayRef<int64_t> candidate : candidates) {
      std::string error;
      FailureOr<Partition> partition =
          partitionFromParts(space, candidate, error);
      if (failed(partition))
        continue;
      std::optional<int64_t> bytes = measure(op, *partition);
      if (!bytes)
        continue;
      int64_t tasks = getNumElements(partition->grid);
      double waves = static_cast<double>((tasks + workers - 1) / workers);
      double perTask = static_cast<double>(*bytes + kTaskOverheadBytes);
      // The busiest worker's load, plus the load on all workers spread
      // over them: workers a cut leaves idle can run other operators.
      Score score = std::make_tuple(
          waves * perTask + static_cast<double>(tasks) * perTask / workers,
          static_cast<double>(tasks) * static_cast<double>(*bytes), tasks);
      if (!best || score < *best) {
        best = score;
        bestParts.assign(candidate.begin(), candidate.end());
      }
    }
    if (!best)
      return op->emitOpError() << "has no default block graph for " << workers
                               << " workers: no partition of its dims verifies";
    chosen[key] = bestParts;
    std::string error;
    return partitionFromParts(space, bestParts, error);
  }

private:
  /// Every `parts` vector cutting at most 3 dims into divisors of their
  /// sizes with at most 4 * workers tasks in all; matmul n tiles stay
  /// multiples of 8 where n is (tensor-core fragments).
  void enumerate(Operation *op, OpKind kind, const CutSpace &space, size_t dim,
                 int64_t tasks, unsigned cutDims, SmallVector<int64_t> &parts,
                 SmallVector<SmallVector<int64_t>> &out) {
    if (dim == space.extents.size()) {
      out.push_back(parts);
      return;
    }
    int64_t extent = space.extents[dim];
    bool matmulN = kind == OpKind::Matmul && dim + 1 == space.extents.size();
    for (int64_t p = 1; p <= extent && tasks * p <= 4 * workers; ++p) {
      if (extent % p != 0 || (p > 1 && (space.whole[dim] || cutDims == 3)))
        continue;
      if (matmulN && extent % 8 == 0 && (extent / p) % 8 != 0)
        continue;
      parts[dim] = p;
      enumerate(op, kind, space, dim + 1, tasks * p, cutDims + (p > 1), parts,
                out);
    }
    parts[dim] = 1;
  }

  /// Bytes one block of the partition's graph moves, when it verifies.
  std::optional<int64_t> measure(Operation *op, const Partition &partition) {
    ScopedDiagnosticHandler quiet(op->getContext(),
                                  [](Diagnostic &) { return success(); });
    kn::KernelOp kernel = buildKernel(op, partition);
    if (!kernel)
      return std::nullopt;
    std::optional<int64_t> bytes;
    if (succeeded(mlir::verify(kernel)))
      bytes = kernel.getBlockGraph().getDeviceBytesPerBlock();
    kernel->erase();
    return bytes;
  }

  static std::string getSignature(Operation *op) {
    std::string key;
    llvm::raw_string_ostream os(key);
    os << op->getName() << op->getAttrDictionary();
    for (Type type : op->getOperandTypes())
      os << type;
    for (Type type : op->getResultTypes())
      os << type;
    return key;
  }

  /// What a task costs besides its bytes (waiting on and signalling
  /// events, reading its description), as bytes: about 0.6 us of an SM's
  /// share of H100 DRAM bandwidth.
  static constexpr int64_t kTaskOverheadBytes = 16 * 1024;

  int64_t workers;
  std::map<std::string, SmallVector<int64_t>> chosen;
};

} // namespace

KernelOp kn::buildPersistentKernel(Operation *op, int64_t workers) {
  auto semantics = cast<SemanticsOpInterface>(op);
  OpKind kind = semantics.getOpKind();
  CutSpace space = getCutSpace(op, kind, semantics.getOpParams());
  FailureOr<Partition> partition =
      WorkerPartitioner(workers).choose(op, kind, space);
  return succeeded(partition) ? buildKernel(op, *partition) : KernelOp();
}

namespace {

/// Replaces `op` by a kn.kernel computing it, with the partition its
/// `kn.partition` attribute gives, else `partitioner`'s choice, else the
/// fixed tiling.
LogicalResult wrapOp(Operation *op, int64_t targetBlocks,
                     WorkerPartitioner *partitioner) {
  auto semantics = cast<SemanticsOpInterface>(op);
  OpKind kind = semantics.getOpKind();
  OpParams params = semantics.getOpParams();
  CutSpace space = getCutSpace(op, kind, params);
  FailureOr<Partition> partition;
  if (auto parts = op->getAttrOfType<DenseI64ArrayAttr>(
          kn::KernelDialect::getPartitionAttrName())) {
    std::string error;
    partition = partitionFromParts(space, parts.asArrayRef(), error);
    if (failed(partition))
      return op->emitOpError()
             << "has a '" << kn::KernelDialect::getPartitionAttrName()
             << "' that " << error;
  } else if (partitioner) {
    partition = partitioner->choose(op, kind, space);
  } else {
    partition = getDefaultPartition(op, kind, params, space, targetBlocks);
  }
  if (failed(partition))
    return failure();
  kn::KernelOp kernel = buildKernel(op, *partition);
  if (!kernel)
    return failure();
  if (Attribute mark =
          op->getAttr(kn::KernelDialect::getDataDependentAttrName()))
    kernel->setAttr(kn::KernelDialect::getDataDependentAttrName(), mark);
  op->replaceAllUsesWith(kernel);
  op->erase();
  return success();
}

struct KnDefaultBlockGraphs
    : public kn::impl::KnDefaultBlockGraphsBase<KnDefaultBlockGraphs> {
  using Base::Base;

  void runOnOperation() override {
    if (workers < 0) {
      getOperation().emitError()
          << "kn-default-block-graphs: workers must be 0 or positive, got "
          << static_cast<int64_t>(workers);
      return signalPassFailure();
    }
    if (failed(checkNoFrontendOps(getOperation(), "kn-default-block-graphs")))
      return signalPassFailure();
    SmallVector<Operation *> ops;
    for (Operation &op : getOperation().getBody().getOps())
      if (isa<SemanticsOpInterface>(op) &&
          !isa<kn::ReshapeOp, kn::AllReduceOp>(op))
        ops.push_back(&op);
    // One partitioner per worker count, so that decisions are shared
    // between ops of one signature (a cache: each function is cut alike).
    std::map<int64_t, WorkerPartitioner> partitioners;
    for (Operation *op : ops) {
      WorkerPartitioner *partitioner = nullptr;
      if (persistent) {
        int64_t count = workers ? workers : tb::TargetAttr::lookup(op).getSms();
        partitioner = &partitioners.try_emplace(count, count).first->second;
      }
      if (failed(wrapOp(op, targetBlocks, partitioner)))
        return signalPassFailure();
    }
  }
};

} // namespace
