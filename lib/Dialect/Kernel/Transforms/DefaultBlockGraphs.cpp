//===- DefaultBlockGraphs.cpp - A block graph for every kernel op ---------===//
//
// Predefined kernel ops (kn.matmul, kn.exp, ...) have no block graph of
// their own; to lower a whole kernel graph to the GPU each is wrapped in a
// kn.kernel whose tb.graph computes it with one block-level op of the same
// name. The op's dimension map says how each tensor follows the grid and
// the loop; tile sizes follow a fixed scheme per family (see Passes.td).
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

/// How a block graph cuts its operator's iteration space: grid sizes
/// (x, y, z) and, for each grid dim, the space dim it partitions.
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

/// An op's iteration space, from its dimension map (getDimMap): the
/// result's dims, the operand's for split and reductions, a matmul's result
/// dims then k. Block graphs cut only the dims the operator computes
/// independently; the others (reduced, normalized, concatenated or split)
/// stay whole in every tile.
struct CutSpace {
  DimMap map;
  SmallVector<bool> whole;

  ArrayRef<int64_t> getExtents() const { return map.space; }
  /// The space dim the operator reduces, if any.
  std::optional<int64_t> getReducedDim() const {
    for (auto [s, kind] : llvm::enumerate(map.kinds))
      if (kind == SpaceDimKind::Reduced)
        return s;
    return std::nullopt;
  }
};

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

FailureOr<CutSpace> getCutSpace(Operation *op) {
  auto semantics = cast<SemanticsOpInterface>(op);
  SmallVector<ArrayRef<int64_t>, 3> shapes;
  for (Value operand : op->getOperands())
    shapes.push_back(shapeOf(operand));
  std::optional<DimMap> map =
      op->getNumResults() == 0
          ? std::nullopt
          : getDimMap(semantics.getOpKind(), shapes, shapeOf(op->getResult(0)),
                      semantics.getOpParams());
  // Reshapes regroup dims and collectives are not computed tile by tile.
  if (!map || !map->tiled || map->regroups)
    return op->emitOpError() << "has no default block graph";
  CutSpace space;
  space.map = std::move(*map);
  for (SpaceDimKind kind : space.map.kinds)
    space.whole.push_back(kind != SpaceDimKind::Parallel);
  return space;
}

/// The dim of a tensor (its dimension-map dims `tensorDims`) on space dim
/// `space`, or kReplica.
int64_t getTensorDim(ArrayRef<int64_t> tensorDims, int64_t space) {
  const auto *dim = llvm::find(tensorDims, space);
  return dim == tensorDims.end() ? kReplica : dim - tensorDims.begin();
}

/// The map from the grid dims of `partition` to the dims of a tensor whose
/// dims index the space dims `tensorDims` (a dimension map's operand or
/// result): the dim on each partitioned space dim, else kReplica.
SmallVector<int64_t> getTensorMap(const Partition &partition,
                                  ArrayRef<int64_t> tensorDims) {
  SmallVector<int64_t> map;
  for (int64_t space : partition.dims)
    map.push_back(getTensorDim(tensorDims, space));
  return map;
}

/// The partition cutting each dim of `space` into `parts[d]` pieces, grid
/// dims from the innermost cut dim outwards; an error message when the
/// parts do not fit. Trailing dims the op reduces and no result indexes (a
/// matmul's k, a reduction's last dim) may be left out of `parts`.
FailureOr<Partition> partitionFromParts(const CutSpace &space,
                                        ArrayRef<int64_t> givenParts,
                                        std::string &error) {
  llvm::raw_string_ostream os(error);
  ArrayRef<int64_t> extents = space.getExtents();
  int64_t rank = extents.size();
  auto inResults = [&](int64_t s) {
    return llvm::any_of(space.map.results, [&](ArrayRef<int64_t> dims) {
      return llvm::is_contained(dims, s);
    });
  };
  int64_t required = rank;
  while (required > 0 &&
         space.map.kinds[required - 1] == SpaceDimKind::Reduced &&
         !inResults(required - 1))
    --required;
  int64_t given = givenParts.size();
  if (given > rank || given < required) {
    os << "has " << given << " parts for " << rank << " dims";
    if (required < rank)
      os << " (" << required << " without the trailing reduced dims)";
    return failure();
  }
  SmallVector<int64_t> parts(givenParts);
  parts.resize(rank, 1);
  Partition partition;
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (parts[d] < 1 || extents[d] % parts[d] != 0) {
      os << "cannot cut dim " << d << " of size " << extents[d] << " into "
         << parts[d] << " parts";
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

/// The tiles of `op`'s operands one block reads: each operand cut as its
/// dimension map says, walking the loop's space dim `loopDim` (if any).
FailureOr<SmallVector<Value>> iterateOperands(Operation *op,
                                              const CutSpace &space,
                                              const Partition &partition,
                                              std::optional<int64_t> loopDim,
                                              BlockGraphBuilder &graph) {
  SmallVector<Value> tiles;
  for (auto [index, dims] : llvm::enumerate(space.map.operands)) {
    FailureOr<Value> tile =
        graph.iterate(graph.getInput(index), getTensorMap(partition, dims),
                      loopDim ? getTensorDim(dims, *loopDim) : kReplica);
    if (failed(tile))
      return failure();
    tiles.push_back(*tile);
  }
  return tiles;
}

/// Saves `results`, each cut as its dimension map says. An omap cannot
/// replicate: a one-block grid dim on a space dim a result lacks (the kept
/// dim of a rank-1 reduction) maps to a dim of the result it leaves unused.
void saveResults(ArrayRef<Value> results, const CutSpace &space,
                 const Partition &partition, BlockGraphBuilder &graph) {
  SmallVector<SmallVector<int64_t>> omaps;
  for (ArrayRef<int64_t> dims : space.map.results) {
    SmallVector<int64_t> omap = getTensorMap(partition, dims);
    for (auto [g, d] : llvm::enumerate(omap)) {
      if (d != kReplica || partition.grid[g] != 1)
        continue;
      for (int64_t r = static_cast<int64_t>(dims.size()) - 1; r >= 0; --r)
        if (!llvm::is_contained(omap, r)) {
          d = r;
          break;
        }
    }
    omaps.push_back(omap);
  }
  graph.save(results, omaps);
}

/// Operators without a reduced dim (elementwise, data movement, rms_norm):
/// one block computes its tile of every result from the operand tiles it
/// covers, whole dims whole.
LogicalResult buildTiled(OpBuilder &b, Operation *op, const CutSpace &space,
                         const OpParams &params, const Partition &partition,
                         std::optional<BlockGraphBuilder> &graph) {
  startGraph(graph, b, op, partition.grid, 1);
  auto tiles = iterateOperands(op, space, partition, std::nullopt, *graph);
  if (failed(tiles))
    return failure();
  auto computed = graph->compute(op, *tiles, params, op->getAttrs());
  if (failed(computed))
    return failure();
  saveResults(*computed, space, partition, *graph);
  return success();
}

/// Reductions: the for-loop walks the reduced dim kReduceChunk at a time
/// into the operator's accumulator; the partition cuts the other dims.
LogicalResult buildReduction(OpBuilder &b, Operation *op, const CutSpace &space,
                             const OpParams &params, const Partition &partition,
                             std::optional<BlockGraphBuilder> &graph) {
  int64_t dim = *space.getReducedDim();
  int64_t extent = space.getExtents()[dim];
  int64_t chunk = largestDivisorAtMost(extent, kReduceChunk);
  int64_t iterations = extent / chunk;
  if (shapeOf(op->getResult(0)).empty())
    return op->emitOpError() << "has no default block graph: it reduces its "
                                "only dim to a rank-0 result";
  startGraph(graph, b, op, partition.grid, iterations);
  auto tiles = iterateOperands(
      op, space, partition,
      iterations > 1 ? std::optional<int64_t>(dim) : std::nullopt, *graph);
  if (failed(tiles))
    return failure();
  // The block-level reduction keeps the dim; the kernel's result drops it
  // where the op does.
  OpParams kept = params;
  kept.keepDim = true;
  SmallVector<NamedAttribute> attributes(op->getAttrs());
  llvm::erase_if(attributes, [](NamedAttribute attr) {
    return attr.getName() == "keepdim";
  });
  auto computed = graph->compute(op, *tiles, kept, attributes);
  if (failed(computed))
    return failure();
  Value total = (*computed)[0];
  if (iterations > 1)
    total = graph->accumulate(total, space.map.accumulator);
  if (!params.keepDim) {
    Shape dropped(cast<tb::TileType>(total.getType()).getShape());
    dropped.erase(dropped.begin() + dim);
    total = graph->reshape(total, dropped);
  }
  saveResults(total, space, partition, *graph);
  return success();
}

/// matmul: k by the for-loop into accum_sum; the partition cuts n (grid
/// x), m (y) and the batch dim (z).
LogicalResult buildMatmul(OpBuilder &b, Operation *op, const CutSpace &space,
                          const OpParams &params, const Partition &partition,
                          std::optional<BlockGraphBuilder> &graph) {
  ArrayRef<int64_t> outShape = shapeOf(op->getResult(0));
  int64_t rank = outShape.size();
  if (rank > 3)
    return op->emitOpError()
           << "has no default block graph: more than one batch dim";
  int64_t kDim = *space.getReducedDim();
  int64_t k = space.getExtents()[kDim];
  Shape tile = partition.getTile(space.getExtents());
  // Small output tiles read more of k per iteration, so that each
  // iteration still moves a few KiB.
  int64_t tileK = largestDivisorAtMost(
      k, tile[rank - 2] * tile[rank - 1] <= kSmallOutputTile ? 2 * kMatmulTile
                                                             : kMatmulTile);
  int64_t iterations = k / tileK;
  startGraph(graph, b, op, partition.grid, iterations);
  auto tiles = iterateOperands(
      op, space, partition,
      iterations > 1 ? std::optional<int64_t>(kDim) : std::nullopt, *graph);
  if (failed(tiles))
    return failure();
  auto computed = graph->compute(op, *tiles, params, op->getAttrs());
  if (failed(computed))
    return failure();
  saveResults(graph->accumulate((*computed)[0], space.map.accumulator), space,
              partition, *graph);
  return success();
}

/// Builds the kernel computing `op` with `partition` into `graph`; fails
/// (with a diagnostic) when its shapes fit no scheme.
LogicalResult buildGraph(OpBuilder &b, Operation *op, const CutSpace &space,
                         const Partition &partition,
                         std::optional<BlockGraphBuilder> &graph) {
  auto semantics = cast<SemanticsOpInterface>(op);
  OpParams params = semantics.getOpParams();
  LogicalResult built = failure();
  if (!space.getReducedDim())
    built = buildTiled(b, op, space, params, partition, graph);
  else if (isa<kn::MatmulOp>(op))
    built = buildMatmul(b, op, space, params, partition, graph);
  else
    built = buildReduction(b, op, space, params, partition, graph);
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
Partition getDefaultPartition(Operation *op, const CutSpace &space,
                              int64_t targetBlocks) {
  ArrayRef<int64_t> extents = space.getExtents();
  std::optional<int64_t> reduced = space.getReducedDim();
  if (isa<kn::MatmulOp>(op) && extents.size() <= 4) {
    ArrayRef<int64_t> out = extents.drop_back();
    int64_t rank = out.size();
    int64_t m = out[rank - 2], n = out[rank - 1];
    int64_t batch = rank == 3 ? out[0] : 1;
    auto [tileM, tileN] = chooseMatmulTile(m, n, batch, targetBlocks);
    Shape parts(extents.size(), 1);
    parts[rank - 1] = n / tileN;
    parts[rank - 2] = m / tileM;
    if (rank == 3)
      parts[0] = batch;
    std::string error;
    return *partitionFromParts(space, parts, error);
  }
  if (reduced) {
    // Cut the other dims as if one chunk were the whole reduced dim.
    Shape chunkShape(extents);
    chunkShape[*reduced] =
        largestDivisorAtMost(extents[*reduced], kReduceChunk);
    return partitionOutput(chunkShape, space.whole, kInnerTile, kTileElements);
  }
  if (llvm::is_contained(space.map.kinds, SpaceDimKind::Normalized))
    return partitionOutput(extents, space.whole, kNormTileElements,
                           kNormTileElements);
  return partitionOutput(extents, space.whole, kInnerTile, kTileElements);
}

/// Builds the kernel of `op` with `partition` before `op`; null (with a
/// diagnostic) when no graph fits.
kn::KernelOp buildKernel(Operation *op, const CutSpace &space,
                         const Partition &partition) {
  OpBuilder b(op);
  std::optional<BlockGraphBuilder> graph;
  if (failed(buildGraph(b, op, space, partition, graph))) {
    if (graph)
      graph->getKernel()->erase();
    return {};
  }
  return graph->getKernel();
}

} // namespace

KernelOp kn::buildDefaultKernel(Operation *op, int64_t targetBlocks) {
  FailureOr<CutSpace> space = getCutSpace(op);
  if (failed(space))
    return {};
  return buildKernel(op, *space, getDefaultPartition(op, *space, targetBlocks));
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

  FailureOr<Partition> choose(Operation *op, const CutSpace &space) {
    std::string key = getSignature(op);
    auto known = chosen.find(key);
    if (known != chosen.end()) {
      std::string error;
      return partitionFromParts(space, known->second, error);
    }
    SmallVector<SmallVector<int64_t>> candidates;
    SmallVector<int64_t> parts(space.getExtents().size(), 1);
    enumerate(op, space, 0, 1, 0, parts, candidates);

    using Score = std::tuple<double, double, int64_t>;
    std::optional<Score> best;
    SmallVector<int64_t> bestParts;
    for (ArrayRef<int64_t> candidate : candidates) {
      std::string error;
      FailureOr<Partition> partition =
          partitionFromParts(space, candidate, error);
      if (failed(partition))
        continue;
      std::optional<int64_t> bytes = measure(op, space, *partition);
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
  void enumerate(Operation *op, const CutSpace &space, size_t dim,
                 int64_t tasks, unsigned cutDims, SmallVector<int64_t> &parts,
                 SmallVector<SmallVector<int64_t>> &out) {
    ArrayRef<int64_t> extents = space.getExtents();
    if (dim == extents.size()) {
      out.push_back(parts);
      return;
    }
    int64_t extent = extents[dim];
    bool matmulN = isa<kn::MatmulOp>(op) && dim + 2 == extents.size();
    for (int64_t p = 1; p <= extent && tasks * p <= 4 * workers; ++p) {
      if (extent % p != 0 || (p > 1 && (space.whole[dim] || cutDims == 3)))
        continue;
      if (matmulN && extent % 8 == 0 && (extent / p) % 8 != 0)
        continue;
      parts[dim] = p;
      enumerate(op, space, dim + 1, tasks * p, cutDims + (p > 1), parts, out);
    }
    parts[dim] = 1;
  }

  /// Bytes one block of the partition's graph moves, when it verifies.
  std::optional<int64_t> measure(Operation *op, const CutSpace &space,
                                 const Partition &partition) {
    ScopedDiagnosticHandler quiet(op->getContext(),
                                  [](Diagnostic &) { return success(); });
    kn::KernelOp kernel = buildKernel(op, space, partition);
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
  FailureOr<CutSpace> space = getCutSpace(op);
  if (failed(space))
    return {};
  FailureOr<Partition> partition =
      WorkerPartitioner(workers).choose(op, *space);
  return succeeded(partition) ? buildKernel(op, *space, *partition)
                              : KernelOp();
}

namespace {

/// Replaces `op` by a kn.kernel computing it, with the partition its
/// `kn.partition` attribute gives, else `partitioner`'s choice, else the
/// fixed tiling.
LogicalResult wrapOp(Operation *op, int64_t targetBlocks,
                     WorkerPartitioner *partitioner) {
  FailureOr<CutSpace> space = getCutSpace(op);
  if (failed(space))
    return failure();
  FailureOr<Partition> partition;
  if (auto parts = op->getAttrOfType<DenseI64ArrayAttr>(
          kn::KernelDialect::getPartitionAttrName())) {
    std::string error;
    partition = partitionFromParts(*space, parts.asArrayRef(), error);
    if (failed(partition))
      return op->emitOpError()
             << "has a '" << kn::KernelDialect::getPartitionAttrName()
             << "' that " << error;
  } else if (partitioner) {
    partition = partitioner->choose(op, *space);
  } else {
    partition = getDefaultPartition(op, *space, targetBlocks);
  }
  if (failed(partition))
    return failure();
  kn::KernelOp kernel = buildKernel(op, *space, *partition);
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
          !isa<kn::ReshapeOp, kn::AllReduceOp>(op) && !kn::isConcatView(&op))
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
