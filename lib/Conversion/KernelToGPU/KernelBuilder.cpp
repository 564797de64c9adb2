//===- KernelBuilder.cpp - Index arithmetic and tile access ---------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "Codegen.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/TypeUtilities.h"

#include <limits>

using namespace mlir;
using namespace mirage;
using namespace mirage::codegen;

//===----------------------------------------------------------------------===//
// TileLayout
//===----------------------------------------------------------------------===//

int64_t TileLayout::getElementBytes() const {
  return elementType.getIntOrFloatBitWidth() / 8;
}

bool TileLayout::canSwizzle() const {
  int64_t rowBytes = shape.back() * getElementBytes();
  int64_t chunks = rowBytes / 16;
  return rowBytes % 16 == 0 && chunks % 2 == 0 && chunks >= 2;
}

int64_t mirage::codegen::getSwizzlePeriod(int64_t chunks) {
  return std::min<int64_t>(chunks & -chunks, 8);
}

bool TileLayout::hasContiguousRuns(int64_t width) const {
  if (shape.back() % width != 0 || (width * getElementBytes()) % 16 != 0)
    return false;
  // Swizzling permutes whole chunks: a run must fit in one.
  return !swizzled || width <= getChunkElements();
}

//===----------------------------------------------------------------------===//
// KernelBuilder
//===----------------------------------------------------------------------===//

KernelBuilder::KernelBuilder(OpBuilder &builder, Location loc,
                             int64_t numThreads, Value givenThreadId)
    : b(builder), loc(loc), numThreads(numThreads) {
  threadId = givenThreadId ? givenThreadId
                           : gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  warpId = div(threadId, 32);
  laneId = rem(threadId, 32);
}

Value KernelBuilder::index(int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value KernelBuilder::f32(double value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

Value KernelBuilder::add(Value lhs, Value rhs) {
  return b.createOrFold<arith::AddIOp>(loc, lhs, rhs);
}

Value KernelBuilder::mul(Value lhs, int64_t rhs) {
  if (rhs == 1)
    return lhs;
  return b.createOrFold<arith::MulIOp>(loc, lhs, index(rhs));
}

Value KernelBuilder::div(Value lhs, int64_t rhs) {
  if (rhs == 1)
    return lhs;
  return b.createOrFold<arith::DivUIOp>(loc, lhs, index(rhs));
}

Value KernelBuilder::rem(Value lhs, int64_t rhs) {
  if (rhs == 1)
    return index(0);
  return b.createOrFold<arith::RemUIOp>(loc, lhs, index(rhs));
}

Value KernelBuilder::min(Value lhs, int64_t rhs) {
  return b.createOrFold<arith::MinUIOp>(loc, lhs, index(rhs));
}

Value KernelBuilder::lessThan(Value lhs, int64_t rhs) {
  return b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, lhs,
                                       index(rhs));
}

SmallVector<Value> KernelBuilder::delinearize(Value linear,
                                              ArrayRef<int64_t> shape) {
  SmallVector<Value> indices(shape.size());
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    Value scaled = div(linear, stride);
    // The leading dim needs no remainder: linear is in range.
    indices[d] = d == 0 ? scaled : rem(scaled, shape[d]);
    stride *= shape[d];
  }
  return indices;
}

SmallVector<Value>
KernelBuilder::broadcastIndices(ValueRange resultIndices,
                                ArrayRef<int64_t> operandShape,
                                ArrayRef<int64_t> resultShape) {
  SmallVector<Value> indices;
  size_t skip = resultShape.size() - operandShape.size();
  for (auto [d, size] : llvm::enumerate(operandShape))
    indices.push_back(size == 1 && resultShape[d + skip] != 1
                          ? index(0)
                          : resultIndices[d + skip]);
  return indices;
}

Value KernelBuilder::linearize(ValueRange indices, ArrayRef<int64_t> shape) {
  Value linear = index(0);
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    linear = add(linear, mul(indices[d], stride));
    stride *= shape[d];
  }
  return linear;
}

Value KernelBuilder::getElementOffset(const TileLayout &layout,
                                      ValueRange indices) {
  if (!layout.swizzled)
    return linearize(indices, layout.shape);
  ArrayRef<int64_t> shape = layout.shape;
  int64_t rowLength = layout.getStoredRowLength();
  Value row = linearize(indices.drop_back(), shape.drop_back());
  Value column = indices.back();
  if (layout.blockColumns) {
    // Column blocks are stacked as more rows: the swizzle follows the
    // stored row, as the copy engine's follows the address.
    int64_t rows = layout.getNumElements() / shape.back();
    row = add(mul(div(column, rowLength), rows), row);
    column = rem(column, rowLength);
  }
  int64_t chunkElements = layout.getChunkElements();
  int64_t chunks = rowLength / chunkElements;
  int64_t period = getSwizzlePeriod(chunks);
  Value chunk = div(column, chunkElements);
  Value pattern = rem(div(row, 8 / period), period);
  Value swizzled = b.createOrFold<arith::XOrIOp>(loc, chunk, pattern);
  return add(add(mul(row, rowLength), mul(swizzled, chunkElements)),
             rem(column, chunkElements));
}

Value KernelBuilder::convert(Value value, Type to) {
  Type from = getElementTypeOrSelf(value.getType());
  if (from == to)
    return value;
  Type target = to;
  if (auto vector = dyn_cast<VectorType>(value.getType()))
    target = vector.clone(to);
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(b, loc, target, value);
  if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
    return arith::TruncFOp::create(b, loc, target, value);
  // f16 <-> bf16: through f32.
  return convert(convert(value, b.getF32Type()), to);
}

Value KernelBuilder::loadF32(const SmemTile &tile, ValueRange indices) {
  Value offset = getElementOffset(tile.layout, indices);
  Value value = memref::LoadOp::create(b, loc, tile.buffer, offset);
  return convert(value, b.getF32Type());
}

void KernelBuilder::storeF32(const SmemTile &tile, ValueRange indices,
                             Value value) {
  Value offset = getElementOffset(tile.layout, indices);
  memref::StoreOp::create(b, loc, convert(value, tile.layout.elementType),
                          tile.buffer, offset);
}

Value KernelBuilder::loadVectorF32(const SmemTile &tile, ValueRange indices,
                                   int64_t width) {
  auto type = VectorType::get({width}, tile.layout.elementType);
  Value data = vector::LoadOp::create(
      b, loc, type, tile.buffer, getElementOffset(tile.layout, indices),
      /*nontemporal=*/false, llvm::Align(16));
  return convert(data, b.getF32Type());
}

void KernelBuilder::storeVectorF32(const SmemTile &tile, ValueRange indices,
                                   Value value) {
  vector::StoreOp::create(b, loc, convert(value, tile.layout.elementType),
                          tile.buffer, getElementOffset(tile.layout, indices),
                          /*nontemporal=*/false, llvm::Align(16));
}

void KernelBuilder::forEachStrided(int64_t count,
                                   function_ref<void(Value)> body) {
  if (count <= 0)
    return;
  auto loop = scf::ForOp::create(b, loc, threadId, index(count),
                                 index(numThreads));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  body(loop.getInductionVar());
}

void KernelBuilder::forEachWarpStrided(int64_t count,
                                       function_ref<void(Value)> body) {
  if (count <= 0)
    return;
  auto loop = scf::ForOp::create(b, loc, warpId, index(count),
                                 index(getNumWarps()));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  body(loop.getInductionVar());
}

Value KernelBuilder::warpReduce(Value value, OpKind combine, int64_t lanes) {
  // Full-warp shuffles: xor partners within a group stay in the group.
  for (int32_t offset = lanes / 2; offset >= 1; offset /= 2) {
    Value other = gpu::ShuffleOp::create(b, loc, value, offset, 32,
                                         gpu::ShuffleMode::XOR)
                      .getShuffleResult();
    value = emitCombine(b, loc, combine, value, other);
  }
  return value;
}

void KernelBuilder::barrier() {
  if (asyncProxyReadsShared)
    NVVM::FenceProxyOp::create(
        b, loc,
        NVVM::ProxyKindAttr::get(b.getContext(), NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
  if (!barrierThreads) {
    gpu::BarrierOp::create(b, loc);
    return;
  }
  auto i32 = [&](int64_t value) {
    return arith::ConstantIntOp::create(b, loc, value, 32).getResult();
  };
  NVVM::BarrierOp::create(b, loc, TypeRange(), i32(1), i32(barrierThreads),
                          NVVM::BarrierReductionAttr(), Value());
}

//===----------------------------------------------------------------------===//
// Shared-memory planning
//===----------------------------------------------------------------------===//

int64_t codegen::planSharedMemory(MutableArrayRef<LiveInterval> intervals,
                                  int64_t alignment) {
  // Place the largest buffers first, each at the lowest aligned offset that
  // overlaps no buffer already placed whose lifetime meets its own.
  SmallVector<LiveInterval *> order;
  for (LiveInterval &interval : intervals)
    order.push_back(&interval);
  // Ties keep program order, so the plan is deterministic.
  llvm::sort(order, [](const LiveInterval *a, const LiveInterval *b) {
    return a->bytes != b->bytes ? a->bytes > b->bytes : a < b;
  });
  int64_t total = 0;
  SmallVector<LiveInterval *> placed;
  for (LiveInterval *interval : order) {
    SmallVector<std::pair<int64_t, int64_t>> busy;
    for (LiveInterval *other : placed)
      if (other->start <= interval->end && interval->start <= other->end)
        busy.push_back({other->offset, other->offset + other->bytes});
    llvm::sort(busy);
    int64_t offset = 0;
    for (auto [begin, end] : busy) {
      if (offset + interval->bytes <= begin)
        break;
      offset = std::max<int64_t>(
          offset, llvm::alignTo(end, std::max(alignment, interval->alignment)));
    }
    interval->offset = offset;
    total = std::max(total, offset + interval->bytes);
    placed.push_back(interval);
  }
  return static_cast<int64_t>(llvm::alignTo(total, alignment));
}
