//===- BlockGraphPlan.cpp - Fusion, schedule and shared memory ------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "BlockGraphPlan.h"

#include "mirage/Conversion/KernelToGPU.h"
#include "mirage/CostModel/CostModel.h"
#include "mirage/Dialect/Thread/IR/Thread.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <functional>

using namespace mlir;
using namespace mirage;
using namespace mirage::codegen;

/// Tiles and auxiliary buffers are placed at multiples of 128 bytes, so a
/// swizzled tile's rows start on the 128-byte bank period.
static constexpr int64_t kTileAlignment = 128;
/// Tiles the copy engine writes or wgmma reads start at multiples of 1024
/// bytes: their swizzles XOR address bits, and the 128-byte swizzle repeats
/// every 1024.
static constexpr int64_t kTmaTileAlignment = 1024;
/// Shared memory taken by the mbarriers (static, before the dynamic
/// buffer, which is aligned to kTmaTileAlignment behind them).
static constexpr int64_t kTmaReservedBytes = kTmaTileAlignment;
/// The largest box dim and rank of a tensor map.
static constexpr int64_t kTmaMaxBoxDim = 256;
static constexpr size_t kTmaMaxRank = 5;
/// Smaller boxes ran slower than cp.async on an H100 (2026-11-26): tiles of
/// 32 and 64-byte rows took gqa_bs1 from 19 to 30 us and lora_bs1 from 4.6
/// to 7.1 us; boxes of one or two 128-byte rows (decode activations) took
/// rmsnorm_linear_bs1 from 24.0 to 25.9 us and moe_router from 12.3 to
/// 13.4. Boxes of 1 KiB and more gained up to 20%.
static constexpr int64_t kTmaMinRowBytes = 128;
static constexpr int64_t kTmaMinBoxBytes = 1024;

static bool isElementwise(Operation *op) {
  auto semantics = dyn_cast_or_null<SemanticsOpInterface>(op);
  return semantics && op->getNumResults() == 1 &&
         getOpInfo(semantics.getOpKind()).elementwise;
}

static ArrayRef<int64_t> getShape(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

static Operation *getOnlyUser(Value value) {
  return value.hasOneUse() ? *value.getUsers().begin() : nullptr;
}

/// Whether `from` becomes `to` by adding or dropping unit dims only.
static bool isUnitDimReshape(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  auto nonUnit = [](ArrayRef<int64_t> shape) {
    SmallVector<int64_t> dims;
    llvm::copy_if(shape, std::back_inserter(dims),
                  [](int64_t dim) { return dim != 1; });
    return dims;
  };
  return nonUnit(from) == nonUnit(to);
}

static std::optional<OpKind> getKind(Operation *op) {
  if (auto semantics = dyn_cast_or_null<SemanticsOpInterface>(op))
    return semantics.getOpKind();
  return std::nullopt;
}

/// Whether `op` (a transpose or reshape) only adds, drops or moves unit dims
/// and keeps the last dim: its result lists the source's elements in their
/// order, in rows of the same length, so both shapes have one tile layout.
static bool keepsTileLayout(Operation *op) {
  if (!isa<tb::TransposeOp>(op) && getKind(op) != OpKind::Reshape)
    return false;
  ArrayRef<int64_t> from = getShape(op->getOperand(0));
  ArrayRef<int64_t> to = getShape(op->getResult(0));
  if (from.empty() || to.empty() || from.back() != to.back())
    return false;
  if (auto transpose = dyn_cast<tb::TransposeOp>(op)) {
    int64_t last = -1;
    for (auto [dim, source] : llvm::enumerate(transpose.getPermutation())) {
      if (to[dim] == 1)
        continue;
      if (source < last)
        return false;
      last = source;
    }
    return true;
  }
  return isUnitDimReshape(from, to);
}

/// Whether `op` ends a chain of single-use elementwise ops whose only input
/// is a matmul's result: the matmul applies such a chain to its f32 sums
/// before storing (an epilogue), which a saver computing the chain from the
/// stored (rounded) product could not.
static bool endsMatmulEpilogue(Operation *op) {
  SmallVector<Value> leaves;
  std::function<void(Operation *)> collect = [&](Operation *chain) {
    for (Value operand : chain->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && operand.hasOneUse() && isElementwise(def))
        collect(def);
      else
        leaves.push_back(operand);
    }
  };
  collect(op);
  return leaves.size() == 1 && leaves.front().hasOneUse() &&
         getKind(leaves.front().getDefiningOp()) == OpKind::Matmul;
}

bool mirage::isComputedInUser(
    Operation *op, function_ref<bool(Operation *, Operation *)> samePhase,
    function_ref<bool(Operation *)> isView) {
  if (!isElementwise(op))
    return false;
  Operation *user = getOnlyUser(op->getResult(0));
  if (!user || !samePhase(op, user))
    return false;
  // A concat read in place evaluates each part where its users read it.
  if (getKind(user) == OpKind::Concat)
    return isView(user);
  // A reduction folds the chain as it reads it.
  std::optional<OpKind> userKind = getKind(user);
  if (userKind == OpKind::ReduceSum || userKind == OpKind::ReduceMax)
    return true;
  // The output saver stores it to global memory as it computes it.
  if (isa<tb::OutputSaverOp>(user))
    return !endsMatmulEpilogue(op);
  if (!isElementwise(user))
    return false;
  // A per-row value (a mean, a norm) broadcast along the user's rows is
  // recomputed once per run of elements: cheaper than a level of its own.
  ArrayRef<int64_t> shape = getShape(op->getResult(0));
  ArrayRef<int64_t> userShape = getShape(user->getResult(0));
  return shape == userShape || (shape.back() == 1 && userShape.back() > 1);
}

bool mirage::isReadInPlace(
    Operation *op, function_ref<bool(Operation *)> isView,
    function_ref<bool(Operation *, Operation *)> samePhase) {
  std::optional<OpKind> kind = getKind(op);
  bool viewable =
      kind == OpKind::Split || kind == OpKind::Concat ||
      (kind == OpKind::Reshape && isUnitDimReshape(getShape(op->getOperand(0)),
                                                   getShape(op->getResult(0))));
  auto isMatmulResult = [](Value operand) {
    return getKind(operand.getDefiningOp()) == OpKind::Matmul;
  };
  if (!viewable || op->use_empty() ||
      llvm::any_of(op->getOperands(), isMatmulResult))
    return false;
  // A concat's users choose the part per element: no view may index it.
  bool viewUsers = kind != OpKind::Concat;
  return llvm::all_of(op->getUsers(), [&](Operation *user) {
    return (isElementwise(user) || (viewUsers && isView(user))) &&
           samePhase(op, user);
  });
}

void mirage::findUntiledOps(
    ArrayRef<Operation *> ops,
    function_ref<bool(Operation *, Operation *)> samePhase,
    llvm::DenseSet<Operation *> &views, llvm::DenseSet<Operation *> &untiled) {
  for (Operation *op : llvm::reverse(ops))
    if (isReadInPlace(
            op, [&](Operation *user) { return views.contains(user); },
            samePhase))
      views.insert(op);
  auto isView = [&](Operation *op) { return views.contains(op); };
  for (Operation *op : ops)
    if (views.contains(op) || isComputedInUser(op, samePhase, isView))
      untiled.insert(op);
}

BlockGraphPlan::BlockGraphPlan(tb::GraphOp graph, const Options &options,
                               ArrayRef<ConcatInput> concats)
    : graph(graph), options(options),
      iterations(static_cast<int64_t>(graph.getForloopRange())),
      concats(concats.begin(), concats.end()) {}

const ConcatInput *
BlockGraphPlan::getConcat(tb::InputIteratorOp iterator) const {
  auto arg = dyn_cast<BlockArgument>(iterator.getInput());
  if (!arg)
    return nullptr;
  for (const ConcatInput &concat : concats)
    if (concat.input == arg.getArgNumber())
      return &concat;
  return nullptr;
}

bool BlockGraphPlan::isPipelined(Operation *op) const {
  return llvm::is_contained(pipelined, op);
}

const RegisterSum *BlockGraphPlan::getRegisterSum(Operation *matmul) const {
  for (const RegisterSum &sum : registerSums)
    if (sum.matmul == matmul)
      return &sum;
  return nullptr;
}

const RegisterChain *BlockGraphPlan::getRegisterChain(Operation *matmul) const {
  for (const RegisterChain &chain : registerChains)
    if (chain.matmul == matmul)
      return &chain;
  return nullptr;
}

bool BlockGraphPlan::isSummedInRegisters(Operation *op) const {
  if (isRegisterMatmul(op->getOperand(0).getDefiningOp()))
    return true;
  return llvm::any_of(registerChains, [&](const RegisterChain &chain) {
    return llvm::any_of(chain.rowSums,
                        [&](auto rowSum) { return rowSum.second == op; });
  });
}

const MmaMatmul *BlockGraphPlan::getMma(Operation *op) const {
  auto it = mmaMatmuls.find(op);
  return it == mmaMatmuls.end() ? nullptr : &it->second;
}

const TileLayout &BlockGraphPlan::getLayout(Value value) const {
  return layouts.find(value)->second;
}

int64_t BlockGraphPlan::getOffset(Value value) const {
  return intervals[slots.lookup(value)].offset;
}

/// The box one copy moves for a tile of `layout`: a column block, at most
/// 256 rows of it.
static Shape getTmaBoxShape(const TileLayout &layout) {
  Shape box(layout.shape);
  box.back() = layout.getStoredRowLength();
  if (box.size() >= 2)
    box[box.size() - 2] = std::min(box[box.size() - 2], kTmaMaxBoxDim);
  return box;
}

int64_t BlockGraphPlan::getStageStride(Value value) const {
  bool swizzlePeriod = usesTma() || wgmmaOperands.contains(value);
  return llvm::alignTo(getLayout(value).getBytes(),
                       swizzlePeriod ? kTmaTileAlignment : kTileAlignment);
}

bool BlockGraphPlan::usesWgmma() const { return !wgmmaOperands.empty(); }

bool BlockGraphPlan::isWarpSpecialized() const {
  int64_t threads = getGraph().getThreads();
  return options.warpSpecialize && usesTma() &&
         threads % kProducerThreads == 0 &&
         threads + kProducerThreads <= kMaxThreadsPerBlock;
}

int64_t BlockGraphPlan::getBlockThreads() const {
  return getGraph().getThreads() + (isWarpSpecialized() ? kProducerThreads : 0);
}

int64_t BlockGraphPlan::getResidentBlocks() const {
  return getResidentBlocksPerSM(getNumElements(getGraph().getGrid()),
                                getBlockThreads(), sharedBytes);
}

bool BlockGraphPlan::keepsWgmmaInFlight() const {
  return stages >= 3 && isWgmmaMainLoop();
}

bool BlockGraphPlan::isWgmmaMainLoop() const {
  // A register chain reads its scores in the step that computes them.
  // Warp specialized, the consumers free each stage themselves, when its
  // group has completed; with TMA alone the next copy follows the barrier.
  if (!options.asyncCopy || (usesTma() && !isWarpSpecialized()) ||
      !registerChains.empty() ||
      llvm::any_of(registerSums,
                   [](const RegisterSum &sum) { return sum.isRescaled(); }))
    return false;
  bool any = false;
  for (Operation *op : loopOps) {
    const MmaMatmul *mma = getMma(op);
    if (!mma || !mma->isWarpgroup())
      continue;
    if (!getRegisterSum(op))
      return false;
    for (Value operand : op->getOperands()) {
      Operation *stored = getStoredOperand(operand).getDefiningOp();
      if (!stored || !isa<tb::InputIteratorOp>(stored) || !isPipelined(stored))
        return false;
    }
    any = true;
  }
  return any;
}

nvgpu::TensorMapDescriptorType
BlockGraphPlan::getTensorMapType(tb::InputIteratorOp iterator) const {
  const TileLayout &layout = getLayout(iterator.getResult());
  MLIRContext *context = iterator.getContext();
  auto workgroup = gpu::AddressSpaceAttr::get(
      context, gpu::GPUDialect::getWorkgroupAddressSpace());
  auto box = MemRefType::get(getTmaBoxShape(layout), layout.elementType,
                             MemRefLayoutAttrInterface(), workgroup);
  auto index = llvm::find(pipelined, iterator) - pipelined.begin();
  return nvgpu::TensorMapDescriptorType::get(
      context, box, tmaSwizzles[index],
      nvgpu::TensorMapL2PromoKind::L2PROMO_128B,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
}

int64_t BlockGraphPlan::getRunningMaxOffset(Operation *op) const {
  return intervals[runningMaxSlots.lookup(op)].offset;
}

std::optional<std::pair<int64_t, int64_t>>
BlockGraphPlan::getReductionScratch(Operation *op) const {
  auto it = scratchSlots.find(op);
  if (it == scratchSlots.end())
    return std::nullopt;
  const LiveInterval &interval = intervals[it->second];
  return std::make_pair(interval.offset, interval.bytes);
}

/// The scratch bytes a reduction or rms_norm step needs to split its
/// results over the block's warps (0 for other ops).
static int64_t getScratchBytes(Operation *op, int64_t warps) {
  if (!isa<tb::ReduceSumOp, tb::ReduceMaxOp, tb::RmsNormOp>(op))
    return 0;
  ArrayRef<int64_t> input = getShape(op->getOperand(0));
  int64_t dim = isa<tb::RmsNormOp>(op)
                    ? static_cast<int64_t>(input.size()) - 1
                    : cast<SemanticsOpInterface>(op).getOpParams().dim;
  int64_t extent = input[dim];
  return getReductionScratchBytes(getNumElements(input) / extent, extent,
                                  warps);
}

//===----------------------------------------------------------------------===//
// Decisions
//===----------------------------------------------------------------------===//

LogicalResult BlockGraphPlan::build(bool report) {
  Block &body = graph.getBodyBlock();
  if (graph.getThreads() % 32 != 0) {
    if (!report)
      return failure();
    return graph.emitOpError()
           << "has " << graph.getThreads()
           << " threads per block; code generation needs a multiple of 32 "
              "(whole warps)";
  }
  llvm::DenseSet<Operation *> postLoop = getPostLoopOps(body);
  for (Operation &op : body.without_terminator()) {
    (postLoop.contains(&op) ? postLoopOps : loopOps).push_back(&op);
    if (op.hasTrait<mirage::OpTrait::IsAccumulator>())
      accumulators.push_back(&op);
    if (auto iterator = dyn_cast<tb::InputIteratorOp>(op)) {
      bool varies = iterations > 1 && iterator.getFmap().getDim() != kReplica;
      (varies ? pipelined : invariant).push_back(iterator);
    }
    for (Value result : op.getResults()) {
      auto tile = dyn_cast<tb::TileType>(result.getType());
      if (!tile)
        continue;
      // Sums over the loop are kept in f32 whatever type the tile declares.
      Type storage = op.hasTrait<mirage::OpTrait::IsAccumulator>()
                         ? Float32Type::get(op.getContext())
                         : tile.getElementType();
      tileValues.push_back(result);
      layouts[result] = TileLayout{Shape(tile.getShape()), storage};
    }
  }
  decideFusion();
  decideMatmuls();
  decideRegisterChains();
  llvm::DenseMap<Value, TileLayout> layoutsWithoutTma = layouts;
  decideTma();
  decideProducerStores();
  schedule();
  decideGlobalReads();
  // The copy engine's tiles take a reserve and 1024-byte offsets; where
  // they do not fit even with one stage, cp.async loads the same tiles.
  LogicalResult placed = planSharedMemory();
  if (failed(placed) && usesTma()) {
    tmaSwizzles.clear();
    layouts = std::move(layoutsWithoutTma);
    placed = planSharedMemory();
  }
  if (succeeded(placed)) {
    built = true;
    return success();
  }
  outOfSharedMemory = true;
  if (!report)
    return failure();
  return graph.emitOpError()
         << "needs " << sharedBytes << " bytes of shared memory for its "
         << "tiles with " << stages << " pipeline stage(s), more than the "
         << getSharedMemoryLimit() << " bytes per block of the target";
}

SmallVector<Operation *> BlockGraphPlan::getLargestBuffers(size_t count) const {
  SmallVector<std::pair<int64_t, Operation *>> buffers;
  for (Value value : tileValues)
    if (auto slot = slots.find(value); slot != slots.end())
      buffers.push_back({intervals[slot->second].bytes, value.getDefiningOp()});
  llvm::stable_sort(buffers, [](auto a, auto b) { return a.first > b.first; });
  SmallVector<Operation *> largest;
  for (auto [bytes, op] : ArrayRef(buffers).take_front(count))
    largest.push_back(op);
  return largest;
}

int64_t BlockGraphPlan::getSharedMemoryLimit() const {
  int64_t limit = tb::TargetAttr::lookup(graph).getSmemPerBlock();
  if (options.chipSharedMemory)
    limit = std::min(limit, options.chipSharedMemory);
  return usesTma() ? limit - kTmaReservedBytes : limit;
}

/// The swizzle with which the copy engine writes the boxes of `layout`,
/// copied from a tensor whose rows are `globalRowBytes` long, exactly as the
/// lowering reads the tile; nothing when it cannot or should not. TileLayout
/// puts 16-byte chunk c of row r at c ^ (r % 8) when rows have 8 chunks or
/// more: the copy engine's 128-byte swizzle (chunk address bits XOR address
/// bits 7 to 9) on a tile whose offset is a multiple of 1024 bytes. Longer
/// swizzled rows are stored in 128-byte column blocks
/// (TileLayout::blockColumns), one box each; more rows than a box holds
/// (256) take one box per 256 rows. (The 32 and 64-byte swizzles match the
/// layout of rows of 2 and 4 chunks, but rows that short are not worth it.)
static std::optional<nvgpu::TensorMapSwizzleKind>
getTmaSwizzle(const TileLayout &layout, int64_t globalRowBytes) {
  Type element = layout.elementType;
  if (!element.isF16() && !element.isBF16() && !element.isF32())
    return std::nullopt;
  int64_t rowBytes = layout.shape.back() * layout.getElementBytes();
  ArrayRef<int64_t> shape = layout.shape;
  auto outer = shape.drop_back(std::min<size_t>(shape.size(), 2));
  auto isLarge = [](int64_t dim) { return dim > kTmaMaxBoxDim; };
  if (shape.size() > kTmaMaxRank || rowBytes % 16 != 0 ||
      rowBytes < kTmaMinRowBytes || globalRowBytes % 16 != 0 ||
      llvm::any_of(outer, isLarge))
    return std::nullopt;
  // Row boxes are consecutive in shared memory only without outer dims.
  if (shape.size() >= 2 && isLarge(shape[shape.size() - 2]) &&
      (shape[shape.size() - 2] % kTmaMaxBoxDim != 0 ||
       getNumElements(outer) != 1))
    return std::nullopt;
  if (!layout.swizzled)
    return layout.shape.back() <= kTmaMaxBoxDim
               ? std::optional(nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE)
               : std::nullopt;
  if (rowBytes % 128 == 0)
    return nvgpu::TensorMapSwizzleKind::SWIZZLE_128B;
  return std::nullopt;
}

void BlockGraphPlan::decideTma() {
  if (!options.tma || !options.asyncCopy || pipelined.empty())
    return;
  // A tensor map describes one buffer.
  if (llvm::any_of(pipelined, [&](tb::InputIteratorOp iterator) {
        return getConcat(iterator) != nullptr;
      }))
    return;
  SmallVector<nvgpu::TensorMapSwizzleKind> swizzles;
  SmallVector<TileLayout> boxedLayouts;
  for (tb::InputIteratorOp iterator : pipelined) {
    TileLayout layout = getLayout(iterator.getResult());
    int64_t elementBytes = layout.getElementBytes();
    // The copy engine swizzles a row's chunks in groups of min(chunks, 8).
    // Rows our layout swizzles in smaller groups (6, 10, 12, ... chunks) are
    // copied unswizzled instead, as they were before such rows were
    // swizzled at all.
    int64_t chunks = layout.shape.back() * elementBytes / 16;
    if (layout.swizzled &&
        getSwizzlePeriod(chunks) != std::min<int64_t>(chunks, 8))
      layout.swizzled = false;
    int64_t globalRowBytes =
        iterator.getInput().getType().getShape().back() * elementBytes;
    std::optional<nvgpu::TensorMapSwizzleKind> swizzle =
        getTmaSwizzle(layout, globalRowBytes);
    if (!swizzle)
      return;
    if (layout.swizzled && layout.shape.back() * elementBytes > 128)
      layout.blockColumns = 128 / elementBytes;
    if (getNumElements(getTmaBoxShape(layout)) * elementBytes < kTmaMinBoxBytes)
      return;
    swizzles.push_back(*swizzle);
    boxedLayouts.push_back(layout);
  }
  tmaSwizzles = std::move(swizzles);
  for (auto [iterator, layout] : llvm::zip(pipelined, boxedLayouts))
    layouts[iterator.getResult()] = layout;
}

void BlockGraphPlan::getViewMap(Operation *op, unsigned result,
                                SmallVectorImpl<int64_t> &fromDim,
                                SmallVectorImpl<int64_t> &offset) {
  ArrayRef<int64_t> operand = getShape(op->getOperand(0));
  ArrayRef<int64_t> shape = getShape(op->getResult(result));
  fromDim.clear();
  offset.assign(operand.size(), 0);
  if (auto split = dyn_cast<tb::SplitOp>(op)) {
    int64_t dim = split.getDim();
    for (unsigned piece = 0; piece < result; ++piece)
      offset[dim] += getShape(op->getResult(piece))[dim];
    for (int64_t d = 0, rank = operand.size(); d < rank; ++d)
      fromDim.push_back(d);
    return;
  }
  // A unit-dim reshape: the operand's other dims in order are the result's.
  int64_t next = 0, rank = shape.size();
  for (int64_t size : operand) {
    if (size == 1) {
      fromDim.push_back(-1);
      continue;
    }
    while (next < rank && shape[next] == 1)
      ++next;
    fromDim.push_back(next++);
  }
}

void BlockGraphPlan::decideFusion() {
  llvm::DenseSet<Operation *> postLoop(postLoopOps.begin(),
                                       postLoopOps.end());
  SmallVector<Operation *> ops(loopOps);
  llvm::append_range(ops, postLoopOps);
  // Splits and unit-dim reshapes of a tile that only elementwise ops (or
  // such views) of their phase read are read in place; users first, so that
  // a view of a view is one. A matmul's result may never get a tile
  // (register sums, epilogues): not through a view.
  // Without a loop, the loop body runs once right before the rest: one
  // phase.
  auto samePhase = [&](Operation *a, Operation *b) {
    return iterations == 1 || postLoop.contains(a) == postLoop.contains(b);
  };
  findUntiledOps(ops, samePhase, views, inlined);
}

void BlockGraphPlan::collectLeaves(Value value,
                                   SmallVectorImpl<Value> &leaves) const {
  Operation *def = value.getDefiningOp();
  if (def && inlined.contains(def)) {
    for (Value operand : def->getOperands())
      collectLeaves(operand, leaves);
    return;
  }
  leaves.push_back(value);
}

/// Whether `user` is an accum_rescaled_sum of `value` whose maximum has one
/// entry per row of `value` (shape [..., m, 1]), as registers can apply.
static bool isRowRescaledSum(Operation *user, Value value) {
  auto sum = dyn_cast<tb::AccumRescaledSumOp>(user);
  if (!sum || sum.getInput() != value)
    return false;
  ArrayRef<int64_t> shape = getShape(value);
  ArrayRef<int64_t> maxShape = getShape(sum.getLocalMax());
  return maxShape.size() == shape.size() && maxShape.back() == 1 &&
         maxShape.drop_back() == shape.drop_back();
}

bool BlockGraphPlan::isTransposedRhs(Value rhs) const {
  auto transpose = rhs.getDefiningOp<tb::TransposeOp>();
  if (!transpose || inlined.contains(transpose) ||
      !swapsLastTwoDims(transpose.getPermutation()))
    return false;
  // Every reader a tensor-core matmul taking it as its right operand, and
  // the source stored in the operand's type (not an f32 sum) with whole
  // 16-byte runs of k.
  Value source = transpose.getOperand();
  auto it = layouts.find(source);
  if (it == layouts.end() || !it->second.hasContiguousRuns(8) ||
      it->second.elementType != layouts.lookup(rhs).elementType)
    return false;
  return llvm::all_of(transpose->getUses(), [&](OpOperand &use) {
    auto user = dyn_cast<tb::MatmulOp>(use.getOwner());
    return user && use.getOperandNumber() == 1 &&
           canUseTensorCores(layouts.lookup(user.getLhs()),
                             layouts.lookup(user.getRhs()));
  });
}

bool BlockGraphPlan::isMatmulView(Value operand) const {
  Operation *def = operand.getDefiningOp();
  if (!def || inlined.contains(def) || !keepsTileLayout(def))
    return false;
  // Every reader a tensor-core matmul, and the source stored in the
  // operand's type (not an f32 sum).
  auto it = layouts.find(def->getOperand(0));
  if (it == layouts.end() ||
      it->second.elementType != layouts.lookup(operand).elementType)
    return false;
  return llvm::all_of(def->getUsers(), [&](Operation *user) {
    auto matmul = dyn_cast<tb::MatmulOp>(user);
    return matmul && canUseTensorCores(layouts.lookup(matmul.getLhs()),
                                       layouts.lookup(matmul.getRhs()));
  });
}

Value BlockGraphPlan::getStoredOperand(Value operand) const {
  Operation *def = operand.getDefiningOp();
  return def && (transposedRhs.contains(def) || matmulViews.contains(def))
             ? def->getOperand(0)
             : operand;
}

void BlockGraphPlan::decideMatmuls() {
  if (!options.tensorCores)
    return;
  llvm::DenseSet<Operation *> postLoop(postLoopOps.begin(),
                                       postLoopOps.end());
  for (Operation *op : llvm::concat<Operation *const>(loopOps, postLoopOps)) {
    auto matmul = dyn_cast<tb::MatmulOp>(op);
    if (!matmul || !canUseTensorCores(layouts[matmul.getLhs()],
                                      layouts[matmul.getRhs()]))
      continue;
    bool transposed = isTransposedRhs(matmul.getRhs());
    bool warpgroup =
        options.wgmma &&
        canUseWgmma(layouts[matmul.getLhs()], layouts[matmul.getRhs()],
                    transposed, graph.getThreads());
    mmaMatmuls.emplace(op, MmaMatmul(layouts[matmul.getLhs()],
                                     layouts[matmul.getRhs()], transposed,
                                     warpgroup));
    if (transposed) {
      // Read in place: no transposed tile, the matmul reads the source.
      Operation *transpose = matmul.getRhs().getDefiningOp();
      inlined.insert(transpose);
      transposedRhs.insert(transpose);
    }
    for (Value operand : matmul.getOperands()) {
      if (!isMatmulView(operand))
        continue;
      // Read in place too, as a tile of the operand's shape.
      inlined.insert(operand.getDefiningOp());
      matmulViews.insert(operand.getDefiningOp());
    }
    for (Value operand : matmul.getOperands()) {
      Value stored = getStoredOperand(operand);
      if (warpgroup) {
        layouts[stored] = getWgmmaLayout(layouts[stored]);
        wgmmaOperands.insert(stored);
      } else if (!wgmmaOperands.contains(stored)) {
        layouts[stored].swizzled = layouts[stored].canSwizzle();
      }
    }

    Value result = matmul.getResult();
    Operation *user = getOnlyUser(result);
    if (!user)
      continue;
    if (!postLoop.contains(op) &&
        (isa<tb::AccumSumOp>(user) || isRowRescaledSum(user, result))) {
      registerSums.push_back({op, user});
      continue;
    }
    // An epilogue: the elementwise op at the end of the single-use chain
    // from the result, when that chain has no other input.
    // (An elementwise op inlined into a concat read in place ends no
    // epilogue: the walk stops at the concat.)
    Operation *root = user;
    while (isElementwise(root) && inlined.contains(root))
      root = getOnlyUser(root->getResult(0));
    if (!root || !isElementwise(root) || inlined.contains(root) ||
        postLoop.contains(root) != postLoop.contains(op) ||
        getShape(root->getResult(0)) != getShape(result))
      continue;
    SmallVector<Value> leaves;
    for (Value operand : root->getOperands())
      collectLeaves(operand, leaves);
    if (leaves.size() == 1 && leaves.front() == result) {
      epilogues[op] = root;
      absorbedBy[root] = op;
    }
  }
}

std::optional<RegisterChain>
BlockGraphPlan::findRegisterChain(Operation *matmul) {
  const MmaMatmul *scores = getMma(matmul);
  if (!scores || !scores->isWarpgroup() || getRegisterSum(matmul) ||
      !llvm::is_contained(loopOps, matmul))
    return std::nullopt;
  RegisterChain chain{matmul, epilogues.lookup(matmul), nullptr, {}};
  Value value = chain.getValue();
  Type type = cast<tb::TileType>(value.getType()).getElementType();
  if (!type.isF16() && !type.isBF16())
    return std::nullopt;
  int64_t rank = getShape(value).size();
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (auto consumer = dyn_cast<tb::MatmulOp>(user)) {
      const RegisterSum *sum = getRegisterSum(consumer);
      if (chain.consumer || use.getOperandNumber() != 0 ||
          consumer.getRhs() == value || !sum || sum->isRescaled())
        return std::nullopt;
      chain.consumer = consumer;
      continue;
    }
    // A reduction along the rows, summed across the loop by its only user.
    std::optional<OpKind> kind = getKind(user);
    if (kind != OpKind::ReduceSum && kind != OpKind::ReduceMax)
      return std::nullopt;
    OpParams params = cast<SemanticsOpInterface>(user).getOpParams();
    Operation *accumulator = getOnlyUser(user->getResult(0));
    if (params.dim != rank - 1 || !params.keepDim || !accumulator ||
        !accumulator->hasTrait<mirage::OpTrait::IsAccumulator>() ||
        !llvm::is_contained(loopOps, accumulator))
      return std::nullopt;
    Accumulation accumulation = getOpInfo(*getKind(accumulator)).accumulation;
    if (accumulation != Accumulation::Sum && accumulation != Accumulation::Max)
      return std::nullopt;
    chain.rowSums.push_back({user, accumulator});
  }
  // The step runs the consumer where the scores' matmul stands: its right
  // operand must be an input tile, ready before the loop body's first level.
  if (!chain.consumer ||
      !isa_and_nonnull<tb::InputIteratorOp>(
          getStoredOperand(chain.consumer->getOperand(1)).getDefiningOp()) ||
      !scores->feedsInRegisters(*getMma(chain.consumer),
                                (graph.getThreads() + 31) / 32))
    return std::nullopt;
  return chain;
}

void BlockGraphPlan::decideRegisterChains() {
  for (Operation *op : loopOps) {
    std::optional<RegisterChain> chain = findRegisterChain(op);
    if (!chain)
      continue;
    chained.insert(chain->consumer);
    for (auto [reduction, accumulator] : chain->rowSums) {
      chained.insert(reduction);
      chained.insert(accumulator);
    }
    registerChains.push_back(std::move(*chain));
  }
}

SmallVector<Value> BlockGraphPlan::getReads(const Step &step) const {
  SmallVector<Value> reads;
  // Through the chains computed inside the step.
  for (Value operand : step.op->getOperands())
    if (isa<tb::TileType>(operand.getType()))
      collectLeaves(operand, reads);
  // A rescaled register sum also reads the per-row maxima.
  if (const RegisterSum *sum = getRegisterSum(step.op))
    if (sum->isRescaled())
      reads.push_back(sum->accumulator->getOperand(1));
  // A register chain's step also runs its consumer, which reads its right
  // operand's tile.
  if (const RegisterChain *chain = getRegisterChain(step.op))
    collectLeaves(chain->consumer->getOperand(1), reads);
  return reads;
}

SmallVector<Value> BlockGraphPlan::getWrites(const Step &step) const {
  Operation *producer = step.epilogue ? step.epilogue : step.op;
  if (isRegisterMatmul(step.op) || getRegisterChain(step.op))
    return {};
  SmallVector<Value> writes;
  for (Value result : producer->getResults())
    if (isa<tb::TileType>(result.getType()))
      writes.push_back(result);
  return writes;
}

ArrayRef<tb::OutputSaverOp>
BlockGraphPlan::getSaversStoredBy(Operation *producer) const {
  auto it = storedBy.find(producer);
  if (it == storedBy.end())
    return {};
  return it->second;
}

void BlockGraphPlan::decideProducerStores() {
  llvm::DenseSet<Operation *> postLoop(postLoopOps.begin(), postLoopOps.end());
  for (Operation *op : postLoopOps) {
    auto saver = dyn_cast<tb::OutputSaverOp>(op);
    Operation *producer = saver ? saver.getInput().getDefiningOp() : nullptr;
    // Inlined producers are computed inside the saver; epilogue roots are
    // stored by their matmul.
    if (!producer || inlined.contains(producer) || absorbedBy.count(producer) ||
        !(isElementwise(producer) || isa<tb::RmsNormOp>(producer)) ||
        (iterations != 1 && !postLoop.contains(producer)))
      continue;
    storedBy[producer].push_back(saver);
    storedSavers.insert(saver);
  }
  for (auto &[producer, savers] : storedBy)
    if (llvm::all_of(producer->getResult(0).getUsers(), [&](Operation *user) {
          return storedSavers.contains(user);
        }))
      storedOnly.insert(producer);
}

void BlockGraphPlan::schedule() {
  auto buildLevels = [&](ArrayRef<Operation *> ops, int64_t base,
                         SmallVector<SmallVector<Step>> &levels) {
    // The level at which each value of this phase is ready; values from
    // before the phase (iterators, accumulated sums) are ready at 0.
    llvm::DenseMap<Value, int64_t> ready;
    for (Operation *op : ops) {
      bool registerSum = op->hasTrait<mirage::OpTrait::IsAccumulator>() &&
                         isSummedInRegisters(op);
      // A saver whose result is not yielded writes nothing.
      bool deadSaver =
          isa<tb::OutputSaverOp>(op) && op->getResult(0).use_empty();
      if (isa<tb::InputIteratorOp>(op) || inlined.contains(op) ||
          absorbedBy.count(op) || registerSum || deadSaver ||
          storedSavers.contains(op) || chained.contains(op))
        continue;
      Step step{op, epilogues.lookup(op)};
      int64_t level = 1;
      for (Value read : getReads(step))
        level = std::max(level, ready.lookup(read) + 1);
      step.level = level;
      for (Value write : getWrites(step)) {
        ready[write] = level;
        written[write] = base + level;
      }
      for (Value read : getReads(step))
        lastRead[read] = std::max(lastRead.lookup(read), base + level);
      if (static_cast<int64_t>(levels.size()) < level)
        levels.resize(level);
      levels[level - 1].push_back(step);
    }
  };
  buildLevels(loopOps, 0, loopLevels);
  loopEnd = loopLevels.size() + 1;
  buildLevels(postLoopOps, loopEnd, postLoopLevels);
}

/// Whether a step reads its operands only through elementwise
/// expressions evaluated at each thread's elements (evaluateAt), which can
/// read a leaf from global memory as well as from a tile.
static bool readsThroughExpressions(const Step &step) {
  Operation *op = step.op;
  return (isElementwise(op) && !step.epilogue) ||
         isa<tb::ReduceSumOp, tb::ReduceMaxOp, tb::OutputSaverOp>(op);
}

void BlockGraphPlan::decideGlobalReads() {
  // With a loop, invariant tiles are read in every iteration: keep them.
  if (iterations != 1)
    return;
  const SmallVector<Step> *first = !loopLevels.empty() ? &loopLevels.front()
                                   : !postLoopLevels.empty()
                                       ? &postLoopLevels.front()
                                       : nullptr;
  llvm::DenseSet<Value> firstLevelReads, laterReads;
  for (const auto *phase : {&loopLevels, &postLoopLevels})
    for (const SmallVector<Step> &level : *phase)
      for (const Step &step : level)
        for (Value read : getReads(step))
          (&level == first && readsThroughExpressions(step) ? firstLevelReads
                                                            : laterReads)
              .insert(read);
  for (tb::InputIteratorOp iterator : invariant) {
    Value tile = iterator.getResult();
    if (firstLevelReads.contains(tile) && !laterReads.contains(tile) &&
        !getConcat(iterator))
      readFromGlobal.insert(iterator);
  }
}

LogicalResult BlockGraphPlan::planSharedMemory() {
  int64_t limit = getSharedMemoryLimit();
  // Synchronous loads gain nothing from more than one stage.
  int64_t wanted = options.pipelineStages;
  if (pipelined.empty() || !options.asyncCopy) {
    wanted = 1;
  } else if (wanted == 0) {
    int64_t stageBytes = 0;
    for (tb::InputIteratorOp iterator : pipelined)
      stageBytes += getStageStride(iterator.getResult());
    int64_t resident =
        options.residentBlocks
            ? options.residentBlocks
            : std::clamp<int64_t>(
                  llvm::divideCeil(getNumElements(graph.getGrid()), kNumSMs), 1,
                  kMaxResidentBlocks);
    wanted = std::clamp<int64_t>(
        llvm::divideCeil(kAutoPipelineBytes, resident * stageBytes), 2,
        kMaxPipelineStages);
    // A wgmma main loop keeps a group in flight from 3 stages on; with 4
    // its copies run 2 ahead too (prefill_linear's plans on an H200: 4
    // stages 5 to 16% faster than 2 where they fit).
    if (isWgmmaMainLoop())
      wanted = std::max(wanted, kWgmmaMainLoopStages);
  }
  stages = std::max<int64_t>(1, std::min<int64_t>(wanted, iterations));
  // Reductions split over warps where their scratch fits too; all warps
  // fold each result themselves where it does not.
  auto place = [&](bool withScratch) {
    intervals.clear();
    slots.clear();
    runningMaxSlots.clear();
    scratchSlots.clear();
    auto addSlot = [&](int64_t start, int64_t end, int64_t bytes,
                       int64_t alignment = 0) {
      intervals.push_back({start, end, bytes, /*offset=*/-1, alignment});
      return intervals.size() - 1;
    };
    for (Value value : tileValues) {
      Operation *def = value.getDefiningOp();
      // Register chains hold their value and row reductions in registers.
      bool chainedValue =
          (chained.contains(def) &&
           !def->hasTrait<mirage::OpTrait::IsAccumulator>()) ||
          llvm::any_of(registerChains, [&](const RegisterChain &chain) {
            return chain.getValue() == value;
          });
      if (inlined.contains(def) || isRegisterMatmul(def) ||
          epilogues.count(def) || readFromGlobal.contains(def) ||
          storedOnly.contains(def) || chainedValue)
        continue;
      int64_t bytes = getLayout(value).getBytes(), alignment = 0;
      int64_t start = written.lookup(value);
      int64_t end = std::max(start, lastRead.lookup(value));
      if (auto iterator = dyn_cast<tb::InputIteratorOp>(def)) {
        // Loaded before the loop body; kept for the whole loop.
        start = 0;
        end = std::max(end, loopEnd);
        if (isPipelined(iterator))
          bytes = getStageStride(value) * stages;
        if (isPipelined(iterator) && usesTma())
          alignment = kTmaTileAlignment;
      } else if (def->hasTrait<mirage::OpTrait::IsAccumulator>()) {
        // Live through the loop, or written after it from registers.
        bool inRegisters = isSummedInRegisters(def);
        start = inRegisters ? loopEnd : 0;
        end = std::max(end, loopEnd);
        if (isa<tb::AccumRescaledSumOp>(def) && !inRegisters)
          runningMaxSlots[def] = addSlot(
              0, loopEnd, getNumElements(getShape(def->getOperand(1))) * 4);
      }
      if (wgmmaOperands.contains(value))
        alignment = kTmaTileAlignment;
      slots[value] = addSlot(start, end, bytes, alignment);
    }
    // Written and read within the step's own level.
    int64_t warps = (graph.getThreads() + 31) / 32;
    for (ArrayRef<Step> level :
         llvm::concat<const SmallVector<Step>>(loopLevels, postLoopLevels))
      for (const Step &step : level)
        if (int64_t bytes = getScratchBytes(step.op, warps);
            bytes && withScratch) {
          int64_t at = written.lookup(step.op->getResult(0));
          scratchSlots[step.op] = addSlot(at, at, bytes);
        }
    sharedBytes = codegen::planSharedMemory(intervals, kTileAlignment);
    return sharedBytes <= limit;
  };
  // One stage (load, wait, compute) still runs where two do not fit.
  for (;; --stages) {
    if (place(/*withScratch=*/true) || place(/*withScratch=*/false))
      return success();
    if (stages <= 1)
      return failure();
  }
}

/// The f32 registers per thread the plan's tensor-core accumulators take at
/// once: every sum kept in registers across the loop, plus one job's
/// fragments of the largest product stored as it is computed.
static int64_t getAccumulatorRegisters(const BlockGraphPlan &plan) {
  tb::GraphOp graph = plan.getGraph();
  int64_t warps = (static_cast<int64_t>(graph.getThreads()) + 31) / 32;
  int64_t sums = 0, largest = 0;
  for (Operation &op : graph.getBodyBlock()) {
    const MmaMatmul *mma = plan.getMma(&op);
    if (!mma)
      continue;
    if (const RegisterSum *sum = plan.getRegisterSum(&op))
      sums += mma->getAccumulatorRegisters(warps, sum->isRescaled(),
                                           /*allJobs=*/true);
    else if (const RegisterChain *chain = plan.getRegisterChain(&op)) {
      // The scores, their f16 pairs (wgmma's A) and two per job per row sum.
      int64_t scores =
          mma->getAccumulatorRegisters(warps, false, /*allJobs=*/true);
      int64_t jobs = scores / (4 * mma->getTilesPerJob());
      sums += scores + scores / 2 + 2 * jobs * chain->rowSums.size();
    } else
      largest = std::max(largest, mma->getAccumulatorRegisters(
                                      warps, false, /*allJobs=*/false));
  }
  return sums + largest;
}

/// The plans of `graph` with mma.sync and with wgmma (whose operand tiles
/// sit on 1024-byte offsets and whose jobs are wider), whatever the graph's
/// target: the lowering's `chip` option, not the target, picks wgmma, and a
/// graph must lower either way. Stops at the first plan that fails; with
/// `quiet`, without reporting why.
static SmallVector<std::unique_ptr<BlockGraphPlan>>
planEachMma(tb::GraphOp graph, Options options, bool quiet) {
  SmallVector<std::unique_ptr<BlockGraphPlan>> plans;
  for (bool wgmma : {false, true}) {
    options.wgmma = wgmma;
    plans.push_back(std::make_unique<BlockGraphPlan>(graph, options));
    if (failed(plans.back()->build(/*report=*/!quiet)))
      break;
  }
  return plans;
}

std::optional<tb::BlockGraphMemory>
mirage::planBlockGraphMemory(tb::GraphOp graph, int64_t chipSharedMemory,
                             int64_t residentBlocks) {
  Options options;
  options.chipSharedMemory = chipSharedMemory;
  options.residentBlocks = residentBlocks;
  tb::BlockGraphMemory memory;
  memory.planned = true;
  for (const std::unique_ptr<BlockGraphPlan> &plan :
       planEachMma(graph, options, /*quiet=*/true)) {
    if (!plan->isBuilt() && !plan->isOutOfSharedMemory())
      return std::nullopt;
    if (plan->getSharedMemoryBytes() >= memory.sharedBytes) {
      memory.sharedBytes = plan->getSharedMemoryBytes();
      memory.stages = plan->getStages();
      memory.largest.clear();
      for (Operation *op : plan->getLargestBuffers(3))
        memory.largest.push_back(op);
    }
    if (plan->isBuilt())
      memory.accumulatorRegisters =
          std::max(memory.accumulatorRegisters, getAccumulatorRegisters(*plan));
  }
  return memory;
}

FailureOr<int64_t> mirage::planBlockGraphSharedMemory(tb::GraphOp graph,
                                                      int64_t chipSharedMemory,
                                                      bool requirePipeline,
                                                      int64_t residentBlocks) {
  Options options;
  options.chipSharedMemory = chipSharedMemory;
  options.residentBlocks = residentBlocks;
  int64_t bytes = 0;
  for (const std::unique_ptr<BlockGraphPlan> &plan :
       planEachMma(graph, options, /*quiet=*/false)) {
    if (!plan->isBuilt())
      return failure();
    if (requirePipeline && !plan->getPipelined().empty() &&
        plan->getStages() < 2)
      return graph.emitOpError()
             << "has loop tiles that fit in shared memory only once: nothing "
                "would load while the block computes";
    bytes = std::max(bytes, plan->getSharedMemoryBytes());
  }
  return bytes;
}

int64_t codegen::getResidentBlocksPerSM(int64_t blocks, int64_t threads,
                                        int64_t sharedBytes) {
  constexpr int64_t kMinRegistersPerThread = 64;
  // A grid of one wave needs one block per SM; a larger one hides latency
  // with as many as fit (gqa_bs1's 512-block kernel at 4 per SM took 101
  // registers and ran 19% slower with programmatic dependent launch than
  // with the 64 ptxas chose for 7).
  int64_t wanted = blocks <= kNumSMs ? 1 : kMaxResidentBlocks;
  int64_t bySharedMemory =
      DeviceModel().smemPerSM / (sharedBytes + kReservedSharedMemoryPerBlock);
  int64_t byRegisters = kRegistersPerSM / (threads * kMinRegistersPerThread);
  return std::max<int64_t>(1, std::min({wanted, bySharedMemory, byRegisters}));
}

int64_t codegen::getConsumerRegisters(int64_t blockThreads,
                                      int64_t residentBlocks) {
  constexpr int64_t kMaxRegisters = 248;
  auto floor8 = [](int64_t registers) { return registers / 8 * 8; };
  int64_t cap = std::min(
      kMaxRegisters, floor8(kRegistersPerSM / (blockThreads * residentBlocks)));
  int64_t consumers = blockThreads - kProducerThreads;
  return std::min(
      kMaxRegisters,
      floor8((blockThreads * cap - kProducerThreads * kProducerRegisters) /
             consumers));
}

int64_t mirage::getBlockGraphLoadsInFlight(tb::GraphOp graph,
                                           int64_t chipSharedMemory) {
  Options options;
  options.chipSharedMemory = chipSharedMemory;
  BlockGraphPlan plan(graph, options);
  if (failed(plan.build(/*report=*/false)))
    return 0;
  auto bytesOf = [&](ArrayRef<tb::InputIteratorOp> iterators) {
    int64_t bytes = 0;
    for (tb::InputIteratorOp iterator : iterators)
      bytes += plan.getLayout(iterator.getResult()).getBytes();
    return bytes;
  };
  if (plan.getPipelined().empty())
    return bytesOf(plan.getInvariant());
  return std::max<int64_t>(plan.getStages() - 1, 1) *
         bytesOf(plan.getPipelined());
}

int64_t mirage::getBlockGraphAccumulatorRegisters(tb::GraphOp graph) {
  std::optional<tb::BlockGraphMemory> memory = planBlockGraphMemory(graph);
  return memory ? memory->accumulatorRegisters : 0;
}

namespace {
/// The lowering's plan as the tb dialect's account of a graph's memory.
struct LoweringMemoryPlanner : public tb::MemoryPlannerInterface {
  using MemoryPlannerInterface::MemoryPlannerInterface;
  std::optional<tb::BlockGraphMemory> plan(tb::GraphOp graph) const override {
    return planBlockGraphMemory(graph);
  }
};
} // namespace

void mirage::registerBlockGraphMemoryPlanner(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *, tb::BlockDialect *dialect) {
    dialect->addInterfaces<LoweringMemoryPlanner>();
  });
}
