//===- BlockGraph.cpp - A block graph as the body of a gpu.func -----------===//
//
// The body of one kernel, in the order the block graph defines:
//
//   prologue   accumulators initialized; loop-invariant input tiles and the
//              first (stages - 1) iterations' tiles requested by cp.async
//   loop       for it in [0, forloop): request iteration it + stages - 1,
//              wait for iteration it's tiles, run the loop-body ops (a
//              barrier after each), fold the accumulators
//   epilogue   register accumulators stored; post-loop ops; output savers
//              write their tiles to global memory
//
// Every tile lives in one dynamic shared-memory buffer at an offset planned
// here from the tiles' lifetimes (pipelined input tiles take one slot per
// stage). A tile matmul whose result only feeds an accum_sum accumulates in
// registers across iterations instead of going through shared memory.
//
//===----------------------------------------------------------------------===//

#include "Codegen.h"

#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/Dialect/Thread/IR/Thread.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>
#include <map>

using namespace mlir;
using namespace mirage;
using namespace mirage::codegen;

namespace {

/// Tiles and auxiliary buffers are placed at multiples of 128 bytes, so a
/// swizzled tile's rows start on the 128-byte bank period.
constexpr int64_t kTileAlignment = 128;

class BlockGraphLowering {
public:
  BlockGraphLowering(tb::GraphOp graph, const Options &options)
      : graph(graph), options(options),
        iterations(static_cast<int64_t>(graph.getForloopRange())) {}

  FailureOr<int64_t> lower(gpu::GPUFuncOp func);

private:
  LogicalResult analyze();
  LogicalResult planSharedMemory();
  LogicalResult emit(gpu::GPUFuncOp func);

  // Analysis helpers.
  bool isRegisterAccumulated(Operation *op) const {
    return registerMatmuls.count(op) != 0;
  }
  int64_t getPosition(Operation *op) const { return positions.lookup(op); }
  int64_t getLastUse(Value value) const;

  // Emission helpers.
  SmemTile getTile(Value value) const { return tiles.lookup(value); }
  SmemTile createView(Value bufferStart, const TileLayout &layout);
  SmemTile getStageTile(tb::InputIteratorOp iterator, Value iteration);
  SmallVector<Value> getInputOffsets(tb::InputIteratorOp iterator,
                                     Value iteration);
  void emitTileLoad(Value global, ValueRange offsets, const SmemTile &tile,
                    bool async);
  void emitTileStore(const SmemTile &tile, Value global, ValueRange offsets);
  void emitPipelinedLoads(Value iteration);
  void emitAccumulatorInit(Operation *op);
  void emitAccumulate(Operation *op, Value iteration);
  LogicalResult emitComputeOp(Operation *op,
                              SmallVectorImpl<Value> &registerAcc);

  tb::GraphOp graph;
  Options options;
  int64_t iterations;
  int64_t stages = 1;

  /// Execution order: loop-body ops (iterators, compute, accumulators), then
  /// post-loop ops (compute, thread graphs, savers).
  SmallVector<Operation *> loopOps, postLoopOps;
  llvm::DenseMap<Operation *, int64_t> positions;
  int64_t loopEnd = 0;
  SmallVector<tb::InputIteratorOp> pipelined, invariant;

  /// Shared-memory values in program order, their layouts and slots (an
  /// index into `intervals`).
  SmallVector<Value> tileValues;
  llvm::DenseMap<Value, TileLayout> layouts;
  llvm::DenseMap<Value, size_t> slots;
  /// The running maximum each accum_rescaled_sum keeps.
  llvm::DenseMap<Operation *, size_t> runningMaxSlots;
  SmallVector<LiveInterval> intervals;
  int64_t sharedBytes = 0;

  /// Matmuls on tensor cores; the ones in `registerMatmuls` accumulate in
  /// registers for the accum_sum they feed.
  std::map<Operation *, MmaMatmul> mmaMatmuls;
  llvm::DenseMap<Operation *, size_t> registerMatmuls;
  SmallVector<Operation *> registerMatmulOrder;

  // Emission state.
  std::optional<KernelBuilder> kb;
  Value sharedMemory;
  SmallVector<Value> blockIds;
  llvm::DenseMap<Value, Value> globals;
  llvm::DenseMap<Value, SmemTile> tiles;
};

} // namespace

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

static Type getStorageType(Operation *def, Type declared) {
  // Sums over the loop are kept in f32 whatever type the tile declares.
  if (def && def->hasTrait<mirage::OpTrait::IsAccumulator>())
    return Float32Type::get(declared.getContext());
  return declared;
}

int64_t BlockGraphLowering::getLastUse(Value value) const {
  int64_t last = value.getDefiningOp() ? getPosition(value.getDefiningOp()) : 0;
  for (Operation *user : value.getUsers())
    if (positions.count(user))
      last = std::max(last, getPosition(user));
  return last;
}

LogicalResult BlockGraphLowering::analyze() {
  Block &body = graph.getBodyBlock();
  if (graph.getThreads() % 32 != 0)
    return graph.emitOpError()
           << "has " << graph.getThreads()
           << " threads per block; code generation needs a multiple of 32 "
              "(whole warps)";
  llvm::DenseSet<Operation *> postLoop = getPostLoopOps(body);
  for (Operation &op : body.without_terminator())
    (postLoop.contains(&op) ? postLoopOps : loopOps).push_back(&op);
  for (auto [index, op] : llvm::enumerate(loopOps))
    positions[op] = 1 + index;
  loopEnd = 1 + loopOps.size();
  for (auto [index, op] : llvm::enumerate(postLoopOps))
    positions[op] = loopEnd + 1 + index;

  for (Operation *op : loopOps)
    if (auto iterator = dyn_cast<tb::InputIteratorOp>(op)) {
      bool varies = iterations > 1 &&
                    iterator.getFmap().getDim() != kReplica;
      (varies ? pipelined : invariant).push_back(iterator);
    }

  // Layouts in declared (accumulators: f32) element types.
  for (Operation &op : body.without_terminator())
    for (Value result : op.getResults())
      if (auto tile = dyn_cast<tb::TileType>(result.getType())) {
        tileValues.push_back(result);
        layouts[result] = TileLayout{Shape(tile.getShape()),
                                     getStorageType(&op, tile.getElementType())};
      }

  // Tensor-core matmuls, and the ones that accumulate in registers.
  if (options.tensorCores) {
    for (Operation &op : body.without_terminator()) {
      auto matmul = dyn_cast<tb::MatmulOp>(op);
      if (!matmul || !canUseTensorCores(layouts[matmul.getLhs()],
                                        layouts[matmul.getRhs()]))
        continue;
      mmaMatmuls.emplace(matmul, MmaMatmul(layouts[matmul.getLhs()],
                                           layouts[matmul.getRhs()]));
      for (Value operand : matmul.getOperands())
        layouts[operand].swizzled = layouts[operand].canSwizzle();
      Value result = matmul.getResult();
      if (!postLoop.contains(matmul) && result.hasOneUse() &&
          isa<tb::AccumSumOp>(*result.getUsers().begin())) {
        registerMatmuls[matmul] = registerMatmulOrder.size();
        registerMatmulOrder.push_back(matmul);
      }
    }
  }
  return success();
}

LogicalResult BlockGraphLowering::planSharedMemory() {
  int64_t limit = tb::TargetAttr::lookup(graph).getSmemPerBlock();
  // Synchronous loads gain nothing from more than one stage.
  int64_t wanted =
      pipelined.empty() || !options.asyncCopy ? 1 : options.pipelineStages;
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
      const TileLayout &layout = layouts[value];
      if (isRegisterAccumulated(def))
        continue;
      int64_t bytes = layout.getBytes();
      int64_t start = getPosition(def), end = getLastUse(value);
      if (auto iterator = dyn_cast<tb::InputIteratorOp>(def)) {
        start = 0;
        if (llvm::is_contained(pipelined, iterator)) {
          bytes = llvm::alignTo(bytes, kTileAlignment) * stages;
          end = loopEnd;
        } else if (llvm::any_of(value.getUsers(), [&](Operation *user) {
                     return getPosition(user) < loopEnd;
                   })) {
          end = std::max(end, loopEnd);
        }
      } else if (def->hasTrait<mirage::OpTrait::IsAccumulator>()) {
        Operation *producer = def->getOperand(0).getDefiningOp();
        start = isRegisterAccumulated(producer) ? loopEnd : 0;
        end = std::max(end, loopEnd);
        if (isa<tb::AccumRescaledSumOp>(def)) {
          auto maxType = cast<tb::TileType>(def->getOperand(1).getType());
          runningMaxSlots[def] = addSlot(
              0, loopEnd, getNumElements(maxType.getShape()) * 4);
        }
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

//===----------------------------------------------------------------------===//
// Emission helpers
//===----------------------------------------------------------------------===//

SmemTile BlockGraphLowering::createView(Value byteOffset,
                                        const TileLayout &layout) {
  OpBuilder &b = kb->b;
  auto type = MemRefType::get(
      {layout.getNumElements()}, layout.elementType, MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(b.getContext(),
                                 gpu::GPUDialect::getWorkgroupAddressSpace()));
  Value view = memref::ViewOp::create(b, kb->loc, type, sharedMemory,
                                      byteOffset, ValueRange());
  return SmemTile{view, layout};
}

SmemTile BlockGraphLowering::getStageTile(tb::InputIteratorOp iterator,
                                          Value iteration) {
  const TileLayout &layout = layouts.lookup(iterator.getResult());
  const LiveInterval &slot = intervals[slots.lookup(iterator.getResult())];
  int64_t stride = llvm::alignTo(layout.getBytes(), kTileAlignment);
  Value stage = kb->rem(iteration, stages);
  return createView(kb->add(kb->mul(stage, stride), slot.offset), layout);
}

SmallVector<Value> BlockGraphLowering::getInputOffsets(
    tb::InputIteratorOp iterator, Value iteration) {
  ArrayRef<int64_t> shape = iterator.getInput().getType().getShape();
  ArrayRef<int64_t> tile = iterator.getType().getShape();
  ArrayRef<int64_t> grid = graph.getGrid();
  SmallVector<Value> offsets(shape.size(), kb->index(0));
  for (auto [g, dim] : llvm::enumerate(iterator.getImap().getDims()))
    if (dim != kReplica)
      offsets[dim] = kb->mul(blockIds[g], shape[dim] / grid[g]);
  int64_t loopDim = iterator.getFmap().getDim();
  if (loopDim != kReplica && iteration)
    offsets[loopDim] = kb->add(offsets[loopDim],
                               kb->mul(iteration, tile[loopDim]));
  return offsets;
}

void BlockGraphLowering::emitTileLoad(Value global, ValueRange offsets,
                                      const SmemTile &tile, bool async) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  const TileLayout &layout = tile.layout;
  ArrayRef<int64_t> shape = layout.shape;
  auto globalShape = cast<MemRefType>(global.getType()).getShape();
  int64_t vector = layout.getChunkElements();
  auto at = [&](ValueRange indices) {
    SmallVector<Value> result;
    for (auto [offset, index] : llvm::zip(offsets, indices))
      result.push_back(kb->add(offset, index));
    return result;
  };
  if (shape.back() % vector == 0 && globalShape.back() % vector == 0) {
    // 16-byte chunks: whole chunks stay whole in a swizzled layout.
    Shape chunkShape(shape);
    chunkShape.back() /= vector;
    kb->forEachStrided(getNumElements(chunkShape), [&](Value chunk) {
      SmallVector<Value> indices = kb->delinearize(chunk, chunkShape);
      indices.back() = kb->mul(indices.back(), vector);
      Value offset = kb->getElementOffset(layout, indices);
      if (async) {
        nvgpu::DeviceAsyncCopyOp::create(
            b, loc, tile.buffer, offset, global, at(indices),
            b.getIndexAttr(vector), Value(), b.getUnitAttr());
        return;
      }
      auto type = VectorType::get({vector}, layout.elementType);
      Value data = vector::LoadOp::create(b, loc, type, global, at(indices),
                                          false, llvm::Align(16));
      vector::StoreOp::create(b, loc, data, tile.buffer, offset, false,
                              llvm::Align(16));
    });
    return;
  }
  kb->forEachStrided(layout.getNumElements(), [&](Value linear) {
    SmallVector<Value> indices = kb->delinearize(linear, shape);
    Value data = memref::LoadOp::create(b, loc, global, at(indices));
    memref::StoreOp::create(b, loc, data, tile.buffer,
                            kb->getElementOffset(layout, indices));
  });
}

void BlockGraphLowering::emitTileStore(const SmemTile &tile, Value global,
                                       ValueRange offsets) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  const TileLayout &layout = tile.layout;
  ArrayRef<int64_t> shape = layout.shape;
  auto globalType = cast<MemRefType>(global.getType());
  Type globalElement = globalType.getElementType();
  int64_t vector = 16 / (globalElement.getIntOrFloatBitWidth() / 8);
  auto at = [&](ValueRange indices) {
    SmallVector<Value> result;
    for (auto [offset, index] : llvm::zip(offsets, indices))
      result.push_back(kb->add(offset, index));
    return result;
  };
  // Chunks of the tile are contiguous unless swizzling split them finer.
  bool contiguous = !layout.swizzled || layout.getChunkElements() == vector;
  if (contiguous && shape.back() % vector == 0 &&
      globalType.getShape().back() % vector == 0) {
    Shape chunkShape(shape);
    chunkShape.back() /= vector;
    kb->forEachStrided(getNumElements(chunkShape), [&](Value chunk) {
      SmallVector<Value> indices = kb->delinearize(chunk, chunkShape);
      indices.back() = kb->mul(indices.back(), vector);
      auto type = VectorType::get({vector}, layout.elementType);
      Value data = vector::LoadOp::create(
          b, loc, type, tile.buffer, kb->getElementOffset(layout, indices),
          false, llvm::Align(std::min<int64_t>(16, vector * layout.getElementBytes())));
      vector::StoreOp::create(b, loc, kb->convert(data, globalElement), global,
                              at(indices), false, llvm::Align(16));
    });
    return;
  }
  kb->forEachStrided(layout.getNumElements(), [&](Value linear) {
    SmallVector<Value> indices = kb->delinearize(linear, shape);
    Value data = kb->convert(kb->loadF32(tile, indices), globalElement);
    memref::StoreOp::create(b, loc, data, global, at(indices));
  });
}

void BlockGraphLowering::emitPipelinedLoads(Value iteration) {
  for (tb::InputIteratorOp iterator : pipelined)
    emitTileLoad(globals.lookup(iterator.getInput()),
                 getInputOffsets(iterator, iteration),
                 getStageTile(iterator, iteration), options.asyncCopy);
}

void BlockGraphLowering::emitAccumulatorInit(Operation *op) {
  if (isa<tb::AccumConcatOp>(op) ||
      isRegisterAccumulated(op->getOperand(0).getDefiningOp()))
    return;
  OpKind kind = cast<SemanticsOpInterface>(op).getOpKind();
  SmemTile acc = getTile(op->getResult(0));
  double identity = kind == OpKind::AccumMax
                        ? -std::numeric_limits<double>::infinity()
                        : 0.0;
  kb->forEachStrided(acc.layout.getNumElements(), [&](Value linear) {
    kb->storeF32(acc, kb->delinearize(linear, acc.layout.shape),
                 kb->f32(identity));
  });
  if (auto it = runningMaxSlots.find(op); it != runningMaxSlots.end()) {
    auto maxType = cast<tb::TileType>(op->getOperand(1).getType());
    TileLayout layout{Shape(maxType.getShape()), kb->b.getF32Type()};
    SmemTile runningMax =
        createView(kb->index(intervals[it->second].offset), layout);
    kb->forEachStrided(layout.getNumElements(), [&](Value linear) {
      kb->storeF32(runningMax, kb->delinearize(linear, layout.shape),
                   kb->f32(-std::numeric_limits<double>::infinity()));
    });
  }
}

void BlockGraphLowering::emitAccumulate(Operation *op, Value iteration) {
  OpBuilder &b = kb->b;
  Location loc = kb->loc;
  OpKind kind = cast<SemanticsOpInterface>(op).getOpKind();
  SmemTile acc = getTile(op->getResult(0));
  SmemTile input = getTile(op->getOperand(0));
  ArrayRef<int64_t> shape = input.layout.shape;
  switch (kind) {
  case OpKind::AccumSum:
  case OpKind::AccumMax:
    if (acc.layout.hasContiguousRuns(kVectorWidth) &&
        input.layout.hasContiguousRuns(kVectorWidth)) {
      Shape runs(shape);
      runs.back() /= kVectorWidth;
      kb->forEachStrided(getNumElements(runs), [&](Value run) {
        SmallVector<Value> indices = kb->delinearize(run, runs);
        indices.back() = kb->mul(indices.back(), kVectorWidth);
        kb->storeVectorF32(
            acc, indices,
            emitCombine(b, loc, kind,
                        kb->loadVectorF32(acc, indices, kVectorWidth),
                        kb->loadVectorF32(input, indices, kVectorWidth)));
      });
      return;
    }
    kb->forEachStrided(input.layout.getNumElements(), [&](Value linear) {
      SmallVector<Value> indices = kb->delinearize(linear, shape);
      kb->storeF32(acc, indices,
                   emitCombine(b, loc, kind, kb->loadF32(acc, indices),
                               kb->loadF32(input, indices)));
    });
    return;
  case OpKind::AccumConcat: {
    int64_t dim = cast<tb::AccumConcatOp>(op).getDim();
    kb->forEachStrided(input.layout.getNumElements(), [&](Value linear) {
      SmallVector<Value> indices = kb->delinearize(linear, shape);
      SmallVector<Value> target(indices);
      target[dim] = kb->add(target[dim], kb->mul(iteration, shape[dim]));
      kb->storeF32(acc, target, kb->loadF32(input, indices));
    });
    return;
  }
  case OpKind::AccumRescaledSum: {
    // acc = acc * e^(M - M') + x * e^(m - M') with M' = max(M, m), then
    // M = M'. The running maximum M changes only after every element used it.
    SmemTile localMax = getTile(op->getOperand(1));
    auto maxType = cast<tb::TileType>(op->getOperand(1).getType());
    SmemTile runningMax =
        createView(kb->index(intervals[runningMaxSlots.lookup(op)].offset),
                   TileLayout{Shape(maxType.getShape()), b.getF32Type()});
    ArrayRef<int64_t> maxShape = maxType.getShape();
    // With the maximum constant along the last dim, a run of elements shares
    // its two scale factors.
    int64_t width = maxShape.back() == 1 &&
                            acc.layout.hasContiguousRuns(kVectorWidth) &&
                            input.layout.hasContiguousRuns(kVectorWidth)
                        ? kVectorWidth
                        : 1;
    Shape runs(shape);
    runs.back() /= width;
    kb->forEachStrided(getNumElements(runs), [&](Value run) {
      SmallVector<Value> indices = kb->delinearize(run, runs);
      indices.back() = kb->mul(indices.back(), width);
      SmallVector<Value> maxIndices;
      size_t skip = shape.size() - maxShape.size();
      for (auto [d, size] : llvm::enumerate(maxShape))
        maxIndices.push_back(size == 1 ? kb->index(0) : indices[d + skip]);
      Value m = kb->loadF32(localMax, maxIndices);
      Value running = kb->loadF32(runningMax, maxIndices);
      Value next = arith::MaximumFOp::create(b, loc, running, m);
      auto scale = [&](Value from) -> Value {
        Value factor = math::ExpOp::create(
            b, loc, arith::SubFOp::create(b, loc, from, next));
        if (width == 1)
          return factor;
        return vector::BroadcastOp::create(
            b, loc, VectorType::get({width}, b.getF32Type()), factor);
      };
      auto load = [&](const SmemTile &tile) {
        return width > 1 ? kb->loadVectorF32(tile, indices, width)
                         : kb->loadF32(tile, indices);
      };
      Value kept = arith::MulFOp::create(b, loc, load(acc), scale(running));
      Value added = arith::MulFOp::create(b, loc, load(input), scale(m));
      Value sum = arith::AddFOp::create(b, loc, kept, added);
      if (width > 1)
        kb->storeVectorF32(acc, indices, sum);
      else
        kb->storeF32(acc, indices, sum);
    });
    kb->barrier();
    kb->forEachStrided(getNumElements(maxShape), [&](Value linear) {
      SmallVector<Value> indices = kb->delinearize(linear, maxShape);
      kb->storeF32(runningMax, indices,
                   arith::MaximumFOp::create(b, loc,
                                             kb->loadF32(runningMax, indices),
                                             kb->loadF32(localMax, indices)));
    });
    return;
  }
  default:
    llvm_unreachable("not an accumulator");
  }
}

LogicalResult
BlockGraphLowering::emitComputeOp(Operation *op,
                                  SmallVectorImpl<Value> &registerAcc) {
  SmallVector<SmemTile> operands, results;
  for (Value operand : op->getOperands())
    operands.push_back(getTile(operand));
  if (auto it = registerMatmuls.find(op); it != registerMatmuls.end()) {
    const MmaMatmul &mma = mmaMatmuls.at(op);
    int64_t count = mma.getNumAccumulators(*kb);
    auto first = registerAcc.begin() + it->second * count;
    SmallVector<Value> updated = mma.accumulate(
        *kb, operands[0], operands[1], ValueRange(ArrayRef<Value>(&*first, count)));
    llvm::copy(updated, first);
    return success();
  }
  for (Value result : op->getResults())
    results.push_back(getTile(result));
  if (auto it = mmaMatmuls.find(op); it != mmaMatmuls.end()) {
    const MmaMatmul &mma = it->second;
    mma.store(*kb,
              mma.accumulate(*kb, operands[0], operands[1],
                             mma.createZeroAccumulators(*kb)),
              results[0]);
    return success();
  }
  if (isa<th::GraphOp>(op))
    return emitThreadGraph(*kb, op, operands, results);
  auto semantics = dyn_cast<SemanticsOpInterface>(op);
  if (!semantics)
    return op->emitOpError() << "has no code generation";
  return emitTileOp(*kb, op, semantics.getOpKind(), semantics.getOpParams(),
                    operands, results);
}

//===----------------------------------------------------------------------===//
// The kernel body
//===----------------------------------------------------------------------===//

LogicalResult BlockGraphLowering::emit(gpu::GPUFuncOp func) {
  Block &entry = func.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Location loc = graph.getLoc();
  kb.emplace(b, loc, static_cast<int64_t>(graph.getThreads()));
  auto workgroup = gpu::AddressSpaceAttr::get(
      b.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
  sharedMemory = gpu::DynamicSharedMemoryOp::create(
      b, loc, MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                              MemRefLayoutAttrInterface(), workgroup));
  static constexpr gpu::Dimension dims[] = {
      gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z};
  for (size_t g = 0; g < graph.getGrid().size(); ++g)
    blockIds.push_back(gpu::BlockIdOp::create(b, loc, dims[g]));

  Block &body = graph.getBodyBlock();
  for (auto [arg, global] :
       llvm::zip(body.getArguments(), entry.getArguments()))
    globals[arg] = global;
  auto yield = cast<tb::YieldOp>(body.getTerminator());
  for (auto [value, global] : llvm::zip(
           yield.getOperands(),
           entry.getArguments().drop_front(body.getNumArguments())))
    globals[value] = global;

  // Views of every tile at a fixed offset; pipelined ones get per-stage
  // views in the loop.
  for (Value value : tileValues)
    if (auto slot = slots.find(value);
        slot != slots.end() &&
        !llvm::is_contained(pipelined, value.getDefiningOp()))
      tiles[value] = createView(kb->index(intervals[slot->second].offset),
                                layouts[value]);

  // Prologue.
  for (Operation *op : loopOps)
    if (op->hasTrait<mirage::OpTrait::IsAccumulator>())
      emitAccumulatorInit(op);
  for (tb::InputIteratorOp iterator : invariant)
    emitTileLoad(globals.lookup(iterator.getInput()),
                 getInputOffsets(iterator, Value()),
                 getTile(iterator.getResult()), options.asyncCopy);
  bool asyncPipeline = options.asyncCopy && !pipelined.empty();
  if (asyncPipeline) {
    for (int64_t s = 0; s + 1 < stages; ++s) {
      emitPipelinedLoads(kb->index(s));
      nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, ValueRange());
    }
  } else if (options.asyncCopy && !invariant.empty()) {
    Value group = nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, ValueRange());
    nvgpu::DeviceAsyncWaitOp::create(b, loc, group, b.getI32IntegerAttr(0));
  }
  kb->barrier();

  SmallVector<Value> registerAcc;
  for (Operation *matmul : registerMatmulOrder)
    llvm::append_range(registerAcc,
                       mmaMatmuls.at(matmul).createZeroAccumulators(*kb));

  // The loop.
  auto loop = scf::ForOp::create(b, loc, kb->index(0), kb->index(iterations),
                                 kb->index(1), registerAcc);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value iteration = loop.getInductionVar();
    registerAcc.assign(loop.getRegionIterArgs().begin(),
                       loop.getRegionIterArgs().end());
    if (asyncPipeline) {
      // Request the tiles of iteration + stages - 1, then wait until at most
      // stages - 1 groups are pending: this iteration's group is complete.
      Value ahead = kb->add(iteration, stages - 1);
      auto ifOp = scf::IfOp::create(b, loc, kb->lessThan(ahead, iterations));
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        emitPipelinedLoads(ahead);
      }
      Value group = nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, ValueRange());
      nvgpu::DeviceAsyncWaitOp::create(b, loc, group,
                                       b.getI32IntegerAttr(stages - 1));
      kb->barrier();
    } else if (!pipelined.empty()) {
      emitPipelinedLoads(iteration);
      kb->barrier();
    }
    for (tb::InputIteratorOp iterator : pipelined)
      tiles[iterator.getResult()] = getStageTile(iterator, iteration);
    for (Operation *op : loopOps) {
      if (isa<tb::InputIteratorOp>(op))
        continue;
      if (op->hasTrait<mirage::OpTrait::IsAccumulator>()) {
        if (isRegisterAccumulated(op->getOperand(0).getDefiningOp()))
          continue;
        emitAccumulate(op, iteration);
      } else if (failed(emitComputeOp(op, registerAcc))) {
        return failure();
      }
      // Also after matmuls into registers: a later op may reuse the shared
      // memory of their operands.
      kb->barrier();
    }
    // The next iteration overwrites this iteration's stage and tiles.
    kb->barrier();
    // Without iteration arguments the builder added the terminator.
    if (!registerAcc.empty())
      scf::YieldOp::create(b, loc, registerAcc);
  }

  // Epilogue.
  for (auto [index, matmul] : llvm::enumerate(registerMatmulOrder)) {
    const MmaMatmul &mma = mmaMatmuls.at(matmul);
    int64_t count = mma.getNumAccumulators(*kb);
    Operation *accum = *matmul->getResult(0).getUsers().begin();
    mma.store(*kb, loop.getResults().slice(index * count, count),
              getTile(accum->getResult(0)));
  }
  if (!registerMatmulOrder.empty())
    kb->barrier();
  SmallVector<Value> noRegisters;
  for (Operation *op : postLoopOps) {
    if (auto saver = dyn_cast<tb::OutputSaverOp>(op)) {
      ArrayRef<int64_t> tile = saver.getInput().getType().getShape();
      SmallVector<Value> offsets(tile.size(), kb->index(0));
      for (auto [g, dim] : llvm::enumerate(saver.getOmap().getDims()))
        offsets[dim] = kb->mul(blockIds[g], tile[dim]);
      emitTileStore(getTile(saver.getInput()),
                    globals.lookup(saver.getResult()), offsets);
      // A later post-loop op may reuse the saved tile's shared memory.
      kb->barrier();
      continue;
    }
    if (failed(emitComputeOp(op, noRegisters)))
      return failure();
    kb->barrier();
  }
  return success();
}

FailureOr<int64_t> BlockGraphLowering::lower(gpu::GPUFuncOp func) {
  if (failed(analyze()) || failed(planSharedMemory()) || failed(emit(func)))
    return failure();
  return sharedBytes;
}

FailureOr<int64_t> codegen::lowerBlockGraph(tb::GraphOp graph,
                                            gpu::GPUFuncOp func,
                                            const Options &options) {
  return BlockGraphLowering(graph, options).lower(func);
}
