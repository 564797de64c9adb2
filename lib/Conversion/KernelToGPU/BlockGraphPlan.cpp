//===- BlockGraphPlan.cpp - Fusion, schedule and shared memory ------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "BlockGraphPlan.h"

#include "mirage/Conversion/KernelToGPU.h"
#include "mirage/Dialect/Thread/IR/Thread.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::codegen;

/// Tiles and auxiliary buffers are placed at multiples of 128 bytes, so a
/// swizzled tile's rows start on the 128-byte bank period.
static constexpr int64_t kTileAlignment = 128;

static bool isElementwise(Operation *op) {
  auto semantics = dyn_cast<SemanticsOpInterface>(op);
  return semantics && op->getNumResults() == 1 &&
         getOpInfo(semantics.getOpKind()).elementwise;
}

static ArrayRef<int64_t> getShape(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

static Operation *getOnlyUser(Value value) {
  return value.hasOneUse() ? *value.getUsers().begin() : nullptr;
}

BlockGraphPlan::BlockGraphPlan(tb::GraphOp graph, const Options &options)
    : graph(graph), options(options),
      iterations(static_cast<int64_t>(graph.getForloopRange())) {}

bool BlockGraphPlan::isPipelined(Operation *op) const {
  return llvm::is_contained(pipelined, op);
}

const RegisterSum *BlockGraphPlan::getRegisterSum(Operation *matmul) const {
  for (const RegisterSum &sum : registerSums)
    if (sum.matmul == matmul)
      return &sum;
  return nullptr;
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

int64_t BlockGraphPlan::getStageStride(Value value) const {
  return llvm::alignTo(getLayout(value).getBytes(), kTileAlignment);
}

int64_t BlockGraphPlan::getRunningMaxOffset(Operation *op) const {
  return intervals[runningMaxSlots.lookup(op)].offset;
}

//===----------------------------------------------------------------------===//
// Decisions
//===----------------------------------------------------------------------===//

LogicalResult BlockGraphPlan::build() {
  Block &body = graph.getBodyBlock();
  if (graph.getThreads() % 32 != 0)
    return graph.emitOpError()
           << "has " << graph.getThreads()
           << " threads per block; code generation needs a multiple of 32 "
              "(whole warps)";
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
  schedule();
  return planSharedMemory();
}

void BlockGraphPlan::decideFusion() {
  llvm::DenseSet<Operation *> postLoop(postLoopOps.begin(),
                                       postLoopOps.end());
  for (Operation *op : llvm::concat<Operation *const>(loopOps, postLoopOps)) {
    if (!isElementwise(op))
      continue;
    Operation *user = getOnlyUser(op->getResult(0));
    if (user && isElementwise(user) &&
        postLoop.contains(op) == postLoop.contains(user) &&
        getShape(op->getResult(0)) == getShape(user->getResult(0)))
      inlined.insert(op);
  }
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
    mmaMatmuls.emplace(op, MmaMatmul(layouts[matmul.getLhs()],
                                     layouts[matmul.getRhs()]));
    for (Value operand : matmul.getOperands())
      layouts[operand].swizzled = layouts[operand].canSwizzle();

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
    Operation *root = user;
    while (inlined.contains(root))
      root = getOnlyUser(root->getResult(0));
    if (!isElementwise(root) || inlined.contains(root) ||
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

SmallVector<Value> BlockGraphPlan::getReads(const Step &step) const {
  SmallVector<Value> reads;
  if (isElementwise(step.op) && !step.epilogue) {
    for (Value operand : step.op->getOperands())
      collectLeaves(operand, reads);
    return reads;
  }
  for (Value operand : step.op->getOperands())
    if (isa<tb::TileType>(operand.getType()))
      reads.push_back(operand);
  // A rescaled register sum also reads the per-row maxima.
  if (const RegisterSum *sum = getRegisterSum(step.op))
    if (sum->isRescaled())
      reads.push_back(sum->accumulator->getOperand(1));
  return reads;
}

SmallVector<Value> BlockGraphPlan::getWrites(const Step &step) const {
  Operation *producer = step.epilogue ? step.epilogue : step.op;
  if (isRegisterMatmul(step.op))
    return {};
  SmallVector<Value> writes;
  for (Value result : producer->getResults())
    if (isa<tb::TileType>(result.getType()))
      writes.push_back(result);
  return writes;
}

void BlockGraphPlan::schedule() {
  auto buildLevels = [&](ArrayRef<Operation *> ops, int64_t base,
                         SmallVector<SmallVector<Step>> &levels) {
    // The level at which each value of this phase is ready; values from
    // before the phase (iterators, accumulated sums) are ready at 0.
    llvm::DenseMap<Value, int64_t> ready;
    for (Operation *op : ops) {
      bool registerSum =
          op->hasTrait<mirage::OpTrait::IsAccumulator>() &&
          isRegisterMatmul(op->getOperand(0).getDefiningOp());
      // A saver whose result is not yielded writes nothing.
      bool deadSaver =
          isa<tb::OutputSaverOp>(op) && op->getResult(0).use_empty();
      if (isa<tb::InputIteratorOp>(op) || inlined.contains(op) ||
          absorbedBy.count(op) || registerSum || deadSaver)
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

LogicalResult BlockGraphPlan::planSharedMemory() {
  int64_t limit = tb::TargetAttr::lookup(graph).getSmemPerBlock();
  if (options.chipSharedMemory)
    limit = std::min(limit, options.chipSharedMemory);
  // Synchronous loads gain nothing from more than one stage.
  int64_t wanted = options.pipelineStages;
  if (pipelined.empty() || !options.asyncCopy) {
    wanted = 1;
  } else if (wanted == 0) {
    int64_t stageBytes = 0;
    for (tb::InputIteratorOp iterator : pipelined)
      stageBytes += getStageStride(iterator.getResult());
    int64_t resident = std::clamp<int64_t>(
        llvm::divideCeil(getNumElements(graph.getGrid()), kNumSMs), 1,
        kMaxResidentBlocks);
    wanted = std::clamp<int64_t>(
        llvm::divideCeil(kAutoPipelineBytes, resident * stageBytes), 2,
        kMaxPipelineStages);
  }
  stages = std::max<int64_t>(1, std::min<int64_t>(wanted, iterations));
  for (;; --stages) {
    intervals.clear();
    slots.clear();
    runningMaxSlots.clear();
    auto addSlot = [&](int64_t start, int64_t end, int64_t bytes) {
      intervals.push_back({start, end, bytes});
      return intervals.size() - 1;
    };
    for (Value value : tileValues) {
      Operation *def = value.getDefiningOp();
      if (inlined.contains(def) || isRegisterMatmul(def) ||
          epilogues.count(def))
        continue;
      int64_t bytes = getLayout(value).getBytes();
      int64_t start = written.lookup(value);
      int64_t end = std::max(start, lastRead.lookup(value));
      if (auto iterator = dyn_cast<tb::InputIteratorOp>(def)) {
        // Loaded before the loop body; kept for the whole loop.
        start = 0;
        end = std::max(end, loopEnd);
        if (isPipelined(iterator))
          bytes = getStageStride(value) * stages;
      } else if (def->hasTrait<mirage::OpTrait::IsAccumulator>()) {
        // Live through the loop, or written after it from registers.
        bool inRegisters =
            isRegisterMatmul(def->getOperand(0).getDefiningOp());
        start = inRegisters ? loopEnd : 0;
        end = std::max(end, loopEnd);
        if (isa<tb::AccumRescaledSumOp>(def) && !inRegisters)
          runningMaxSlots[def] = addSlot(
              0, loopEnd, getNumElements(getShape(def->getOperand(1))) * 4);
      }
      slots[value] = addSlot(start, end, bytes);
    }
    sharedBytes = codegen::planSharedMemory(intervals, kTileAlignment);
    if (sharedBytes <= limit)
      return success();
    if (stages <= 2)
      return graph.emitOpError()
             << "needs " << sharedBytes << " bytes of shared memory for its "
             << "tiles with " << stages << " pipeline stage(s), more than the "
             << limit << " bytes per block of the target";
  }
}

FailureOr<int64_t>
mirage::planBlockGraphSharedMemory(tb::GraphOp graph,
                                   int64_t chipSharedMemory) {
  Options options;
  options.chipSharedMemory = chipSharedMemory;
  BlockGraphPlan plan(graph, options);
  if (failed(plan.build()))
    return failure();
  return plan.getSharedMemoryBytes();
}

/// The f32 registers per thread a tensor-core product's accumulator
/// fragments take when `warps` warps share its jobs, as MmaMatmul cuts them
/// (Matmul.cpp): jobs of 16 rows by 16 columns (8 where n is not a multiple
/// of 16), a vector<2x2xf32> per 8 columns of a job, and two more registers
/// per job for a rescaled sum's running maxima. A sum kept across the loop
/// holds all of a warp's jobs at once; a product stored as it is computed
/// (multiplyAndStore) holds one job.
static int64_t getMmaRegisters(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                               int64_t warps, bool rescaled, bool allJobs) {
  int64_t m = lhs[lhs.size() - 2], n = rhs.back();
  int64_t batch = getNumElements(lhs.size() > 2 ? lhs.drop_back(2)
                                                : rhs.drop_back(2));
  int64_t tilesPerJob = n % 16 == 0 ? 2 : 1;
  int64_t jobs = batch * ((m + 15) / 16) * (n / (8 * tilesPerJob));
  int64_t held = allJobs ? (jobs + warps - 1) / warps : 1;
  return held * 4 * (tilesPerJob + (rescaled ? 2 : 0));
}

int64_t mirage::getBlockGraphAccumulatorRegisters(tb::GraphOp graph) {
  BlockGraphPlan plan(graph, Options());
  {
    ScopedDiagnosticHandler quiet(graph->getContext(),
                                  [](Diagnostic &) { return success(); });
    if (failed(plan.build()))
      return 0;
  }
  int64_t warps = (static_cast<int64_t>(graph.getThreads()) + 31) / 32;
  int64_t sums = 0, largest = 0;
  for (Operation &op : graph.getBodyBlock()) {
    auto matmul = dyn_cast<tb::MatmulOp>(op);
    if (!matmul || !plan.getMma(matmul))
      continue;
    ArrayRef<int64_t> lhs = matmul.getLhs().getType().getShape();
    ArrayRef<int64_t> rhs = matmul.getRhs().getType().getShape();
    if (const RegisterSum *sum = plan.getRegisterSum(matmul))
      sums += getMmaRegisters(lhs, rhs, warps, sum->isRescaled(),
                              /*allJobs=*/true);
    else
      largest = std::max(largest, getMmaRegisters(lhs, rhs, warps, false,
                                                  /*allJobs=*/false));
  }
  return sums + largest;
}
