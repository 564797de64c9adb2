//===- Prefetch.cpp - What a task's block reads of its read-only inputs ---===//
//
// Part of the Mirage MLIR project. See MegaKernel.h.
//
//===----------------------------------------------------------------------===//

#include "mirage/Conversion/MegaKernel.h"

#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/Semantics/Evaluation.h"
#include "mirage/Semantics/OpSemantics.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::megakernel;

std::optional<std::string> megakernel::checkPrefetchOptions(StringRef where,
                                                            int64_t bytes,
                                                            unsigned ahead) {
  if (bytes < 0 || bytes > kMaxPrefetchBytes)
    return (where + ": prefetch-bytes is " + llvm::Twine(bytes) +
            "; expected 0 to " + llvm::Twine(kMaxPrefetchBytes))
        .str();
  if (ahead > kMaxPrefetchAhead)
    return (where + ": prefetch-ahead is " + llvm::Twine(ahead) +
            "; expected 0 to " + llvm::Twine(kMaxPrefetchAhead))
        .str();
  return std::nullopt;
}

int64_t PrefetchRegion::getRunStart(ArrayRef<int64_t> block,
                                    int64_t run) const {
  int64_t start = baseBytes;
  for (auto [coordinate, bytes] : llvm::zip_equal(block, bytesPerBlock))
    start += coordinate * bytes;
  for (size_t d = runCounts.size(); d-- > 0;) {
    start += (run % runCounts[d]) * runStrides[d];
    run /= runCounts[d];
  }
  return start;
}

std::optional<PrefetchRegion> megakernel::getPrefetchRegion(tb::GraphOp graph,
                                                            unsigned argument,
                                                            int64_t maxBytes) {
  for (auto iterator : graph.getBodyBlock().getOps<tb::InputIteratorOp>()) {
    auto input = dyn_cast<BlockArgument>(iterator.getInput());
    if (!input || input.getArgNumber() != argument)
      continue;
    auto type = cast<ShapedType>(input.getType());
    ArrayRef<int64_t> shape = type.getShape();
    TilingParams tiling =
        cast<SemanticsOpInterface>(*iterator).getOpParams().tiling;
    // The region: one tile, the whole loop long.
    Shape sizes(cast<ShapedType>(iterator.getResult().getType()).getShape());
    if (tiling.loopMap != kReplica)
      sizes[tiling.loopMap] *= tiling.forloopRange;
    size_t rank = shape.size();
    SmallVector<int64_t> strides(rank, type.getElementTypeBitWidth() / 8);
    for (size_t d = rank - 1; d-- > 0;)
      strides[d] = strides[d + 1] * shape[d + 1];
    auto toBytes = [&](ArrayRef<int64_t> offsets) {
      int64_t bytes = 0;
      for (auto [offset, stride] : llvm::zip_equal(offsets, strides))
        bytes += offset * stride;
      return bytes;
    };

    // Tile offsets are linear in the block's coordinates.
    PrefetchRegion region;
    SmallVector<int64_t> block(tiling.grid.size(), 0);
    region.baseBytes = toBytes(getInputTileOffsets(tiling, block, 0, shape));
    for (size_t g = 0; g < block.size(); ++g) {
      block[g] = 1;
      region.bytesPerBlock.push_back(
          toBytes(getInputTileOffsets(tiling, block, 0, shape)) -
          region.baseBytes);
      block[g] = 0;
    }

    // A run spans the innermost dim the region cuts and every dim after it
    // (which it covers whole).
    size_t runDim = 0;
    for (size_t d = rank; d-- > 0;)
      if (sizes[d] != shape[d]) {
        runDim = d;
        break;
      }
    int64_t runBytes = sizes[runDim] * strides[runDim], allRuns = 1;
    for (size_t d = 0; d < runDim; ++d) {
      region.runCounts.push_back(sizes[d]);
      region.runStrides.push_back(strides[d]);
      allRuns *= sizes[d];
    }
    region.runBytes = std::min(runBytes, maxBytes);
    region.runs = std::min(allRuns, std::max<int64_t>(1, maxBytes / runBytes));
    return region;
  }
  return std::nullopt;
}
