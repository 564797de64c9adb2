//===- Schedule.cpp - Grids, loops and tiling maps from dimension classes -===//
//
// A block-graph skeleton says which operators run; a schedule says how the
// work is split. Instead of drawing grids and maps from fixed lists, the
// schedules are derived from the skeleton's dimension classes: operators tie
// dims together as their dimension maps say (getDimMap: an elementwise op's
// operand and result dims, a matmul's m, n and contracted k), and a
// union-find over all (node, dim) pairs groups them. Then
//
//  - a grid dim may partition a class that no operator reduces and that
//    every output has (each block writes its own part of every output);
//  - the for-loop may partition classes that the loop body reduces and no
//    accumulated value keeps (the accumulators sum the partial results);
//  - imap, fmap and omap are forced: each tensor's dim in the chosen class,
//    or `replica` when it has none.
//
// Tile sizes come from the class sizes. The per-tile abstract expressions
// are computed again with the real tile sizes and the loop's sums, and a
// schedule is kept only if each output is A_eq-equivalent to the skeleton's.
//
//===----------------------------------------------------------------------===//

#include "mirage/Search/Search.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

using namespace mirage;
using namespace mirage::search;
using llvm::ArrayRef;
using llvm::SmallVector;

namespace {

/// Union-find over the (node, dim) slots of a skeleton.
class DimClasses {
public:
  explicit DimClasses(const BlockSkeleton &skeleton) : skeleton(skeleton) {
    for (const BlockNode &node : skeleton.nodes) {
      base.push_back(parent.size());
      for (size_t d = 0; d < node.shape.size(); ++d) {
        parent.push_back(parent.size());
        reduced.push_back(false);
        blocked.push_back(false);
      }
    }
    for (auto [index, node] : llvm::enumerate(skeleton.nodes))
      tie(index, node);
  }

  unsigned slot(unsigned node, size_t dim) const { return base[node] + dim; }
  unsigned find(unsigned s) const {
    while (parent[s] != s)
      s = parent[s];
    return s;
  }
  unsigned classOf(unsigned node, size_t dim) const {
    return find(slot(node, dim));
  }
  int64_t size(unsigned node, size_t dim) const {
    return skeleton.nodes[node].shape[dim];
  }

  /// Per class (by root slot): reduced somewhere, impossible to partition.
  llvm::DenseMap<unsigned, bool> getFlags(const std::vector<bool> &flags) const {
    llvm::DenseMap<unsigned, bool> result;
    for (unsigned s = 0; s < parent.size(); ++s)
      result[find(s)] |= flags[s];
    return result;
  }

  std::vector<bool> reduced, blocked;

private:
  void unite(unsigned a, unsigned b) {
    a = find(a);
    b = find(b);
    if (a != b)
      parent[std::max(a, b)] = std::min(a, b);
  }

  /// Ties the result dims of an op to the operand dims that align with them
  /// (right-aligned, equal sizes above 1: broadcast dims stay apart).
  void tieAligned(unsigned node, unsigned operand, size_t count) {
    const Shape &out = skeleton.nodes[node].shape;
    const Shape &in = skeleton.nodes[operand].shape;
    for (size_t i = 0; i < count && i < out.size() && i < in.size(); ++i) {
      size_t od = out.size() - 1 - i, id = in.size() - 1 - i;
      if (out[od] == in[id] && out[od] > 1)
        unite(slot(node, od), slot(operand, id));
    }
  }

  void blockAll(unsigned node) {
    for (size_t d = 0; d < skeleton.nodes[node].shape.size(); ++d)
      blocked[slot(node, d)] = true;
  }

  /// Ties the slots an operator's dimension map puts on one space dim
  /// (sizes above 1; broadcast dims index none) and flags those on a dim it
  /// reduces or normalizes (a loop may split them, the abstract expressions
  /// decide whether the result stays equivalent) or needs whole.
  void tie(unsigned index, const BlockNode &node) {
    if (node.phase == Phase::Input)
      return;
    if (node.phase == Phase::Accum) {
      tieAligned(index, node.operands[0], node.shape.size());
      return;
    }
    SmallVector<ArrayRef<int64_t>, 3> shapes;
    for (unsigned operand : node.operands)
      shapes.push_back(skeleton.nodes[operand].shape);
    std::optional<DimMap> map =
        getDimMap(node.kind, shapes, node.shape, node.params);
    // Operators that regroup dims (reshape) or are not computed tile by
    // tile: no partition crosses them.
    if (!map || !map->tiled || map->regroups || map->results.empty()) {
      blockAll(index);
      for (unsigned operand : node.operands)
        blockAll(operand);
      return;
    }
    SmallVector<std::optional<unsigned>, 4> tied(map->space.size());
    auto visit = [&](unsigned tensor, ArrayRef<int64_t> dims) {
      for (auto [d, s] : llvm::enumerate(dims)) {
        if (s < 0)
          continue;
        unsigned at = slot(tensor, d);
        switch (map->kinds[s]) {
        case SpaceDimKind::Whole:
          blocked[at] = true;
          continue;
        case SpaceDimKind::Reduced:
        case SpaceDimKind::Normalized:
          reduced[at] = true;
          break;
        case SpaceDimKind::Parallel:
          break;
        }
        if (map->space[s] <= 1)
          continue;
        if (tied[s])
          unite(*tied[s], at);
        else
          tied[s] = at;
      }
    };
    for (auto [operand, dims] : llvm::zip(node.operands, map->operands))
      visit(operand, dims);
    visit(index, map->results.front());
  }

  const BlockSkeleton &skeleton;
  SmallVector<unsigned, 32> base;
  SmallVector<unsigned, 64> parent;
};

/// A class the schedule may partition, in order of first appearance.
struct ClassChoice {
  unsigned root;
  int64_t size;
};

/// The dim of `node` in class `root`, or kReplica.
int64_t findDim(const DimClasses &classes, const BlockSkeleton &skeleton,
                unsigned node, unsigned root) {
  for (size_t d = 0; d < skeleton.nodes[node].shape.size(); ++d)
    if (classes.classOf(node, d) == root)
      return d;
  return kReplica;
}

/// Per-tile expressions of the skeleton's nodes for one loop split (grids
/// never split a reduced dim, so they do not change expressions).
SmallVector<ExprId> getTileExprs(const BlockSkeleton &skeleton,
                                 ArrayRef<Shape> tiles, int64_t forloop,
                                 ExprContext &context) {
  SmallVector<ExprId> exprs;
  for (auto [index, node] : llvm::enumerate(skeleton.nodes)) {
    switch (node.phase) {
    case Phase::Input:
      exprs.push_back(node.expr);
      break;
    case Phase::Accum:
      exprs.push_back(context.sum(forloop, exprs[node.operands[0]]));
      break;
    case Phase::Body:
    case Phase::Post: {
      SmallVector<ExprId, 3> in;
      SmallVector<ArrayRef<int64_t>, 3> shapes;
      for (unsigned operand : node.operands) {
        in.push_back(exprs[operand]);
        shapes.push_back(tiles[operand]);
      }
      exprs.push_back(
          getAbstractExpr(node.kind, in, shapes, node.params, context));
      break;
    }
    }
  }
  return exprs;
}

/// Whether every compute node's shape rule gives its tile from its
/// operands' tiles.
bool tilesAreConsistent(const BlockSkeleton &skeleton, ArrayRef<Shape> tiles) {
  for (auto [index, node] : llvm::enumerate(skeleton.nodes)) {
    if (node.phase != Phase::Body && node.phase != Phase::Post)
      continue;
    SmallVector<ArrayRef<int64_t>, 3> shapes;
    for (unsigned operand : node.operands)
      shapes.push_back(tiles[operand]);
    auto inferred = inferShapes(node.kind, shapes, node.params);
    if (!inferred) {
      llvm::consumeError(inferred.takeError());
      return false;
    }
    if (inferred->front() != tiles[index])
      return false;
  }
  return true;
}

/// Tile sizes a grid may give a class of `size`: powers of two below it.
SmallVector<int64_t> getGridTiles(int64_t size) {
  SmallVector<int64_t> tiles;
  for (int64_t t = 1; t <= 256 && t < size; t *= 2)
    if (size % t == 0)
      tiles.push_back(t);
  return tiles;
}

/// Loop ranges for the classes `loop`: the largest class gets a tile of 16
/// to 512 elements, and the range divides every class.
SmallVector<int64_t> getLoopRanges(ArrayRef<ClassChoice> loop) {
  int64_t largest = 0;
  for (const ClassChoice &c : loop)
    largest = std::max(largest, c.size);
  SmallVector<int64_t> ranges;
  for (int64_t t = 512; t >= 16; t /= 2) {
    if (t >= largest || largest % t != 0)
      continue;
    int64_t range = largest / t;
    if (llvm::all_of(loop, [&](const ClassChoice &c) {
          return c.size % range == 0;
        }))
      ranges.push_back(range);
  }
  return ranges;
}

} // namespace

std::vector<Schedule> search::enumerateSchedules(
    const BlockSkeleton &skeleton, unsigned elementBytes,
    const SearchOptions &options, ExprContext &context,
    SubexprChecker *checker) {
  DimClasses classes(skeleton);
  llvm::DenseMap<unsigned, bool> reduced = classes.getFlags(classes.reduced);
  llvm::DenseMap<unsigned, bool> blocked = classes.getFlags(classes.blocked);

  // Classes in order of first appearance, with where they occur.
  SmallVector<ClassChoice> all;
  llvm::DenseMap<unsigned, bool> afterLoop;
  for (auto [index, node] : llvm::enumerate(skeleton.nodes)) {
    llvm::SmallDenseSet<unsigned, 4> seen;
    for (size_t d = 0; d < node.shape.size(); ++d) {
      unsigned root = classes.classOf(index, d);
      // A node with two dims in one class cannot be partitioned along it.
      if (!seen.insert(root).second)
        blocked[root] = true;
      if (node.phase == Phase::Accum || node.phase == Phase::Post)
        afterLoop[root] = true;
      if (llvm::none_of(all, [&](const ClassChoice &c) { return c.root == root; }))
        all.push_back({root, node.shape[d]});
    }
  }

  SmallVector<ClassChoice> gridClasses, loopClasses;
  for (const ClassChoice &c : all) {
    if (c.size <= 1 || blocked.lookup(c.root))
      continue;
    bool inEveryOutput = llvm::all_of(skeleton.outputs, [&](unsigned output) {
      return findDim(classes, skeleton, output, c.root) != kReplica;
    });
    if (!reduced.lookup(c.root) && inEveryOutput)
      gridClasses.push_back(c);
    if (reduced.lookup(c.root) && !afterLoop.lookup(c.root))
      loopClasses.push_back(c);
  }

  // Loop choices: no loop, or one or two reduced classes with each range.
  struct LoopChoice {
    SmallVector<ClassChoice, 2> classes;
    int64_t range = 1;
  };
  SmallVector<LoopChoice> loops;
  if (!skeleton.isLooped()) {
    loops.push_back({});
  } else {
    SmallVector<SmallVector<ClassChoice, 2>> sets;
    for (size_t a = 0; a < loopClasses.size(); ++a) {
      sets.push_back({loopClasses[a]});
      for (size_t b = a + 1; b < loopClasses.size(); ++b)
        sets.push_back({loopClasses[a], loopClasses[b]});
    }
    for (const auto &set : sets)
      for (int64_t range : getLoopRanges(set))
        loops.push_back({set, range});
  }

  // Grid choices: up to three classes (x, y, z in class order), each split
  // into tiles of a power-of-two size.
  struct GridChoice {
    SmallVector<ClassChoice, 3> classes;
    SmallVector<int64_t, 3> factors;
  };
  SmallVector<GridChoice> grids;
  std::function<void(size_t, GridChoice &)> chooseGrid = [&](size_t next,
                                                             GridChoice &g) {
    grids.push_back(g);
    if (g.classes.size() == 3)
      return;
    int64_t blocks = 1;
    for (int64_t f : g.factors)
      blocks *= f;
    for (size_t c = next; c < gridClasses.size(); ++c) {
      for (int64_t tile : getGridTiles(gridClasses[c].size)) {
        int64_t factor = gridClasses[c].size / tile;
        if (blocks * factor > options.maxBlocks)
          continue;
        g.classes.push_back(gridClasses[c]);
        g.factors.push_back(factor);
        chooseGrid(c + 1, g);
        g.classes.pop_back();
        g.factors.pop_back();
      }
    }
  };
  GridChoice empty;
  chooseGrid(0, empty);

  std::vector<Schedule> schedules;
  for (const LoopChoice &loop : loops) {
    auto tileOf = [&](unsigned node, size_t d, const GridChoice *grid) {
      unsigned root = classes.classOf(node, d);
      int64_t size = skeleton.nodes[node].shape[d];
      for (const ClassChoice &c : loop.classes)
        if (c.root == root)
          size /= loop.range;
      if (grid)
        for (auto [c, factor] : llvm::zip(grid->classes, grid->factors))
          if (c.root == root)
            size /= factor;
      return size;
    };
    auto makeTiles = [&](const GridChoice *grid) {
      SmallVector<Shape, 12> tiles;
      for (auto [index, node] : llvm::enumerate(skeleton.nodes)) {
        Shape tile;
        for (size_t d = 0; d < node.shape.size(); ++d)
          tile.push_back(tileOf(index, d, grid));
        tiles.push_back(std::move(tile));
      }
      return tiles;
    };

    // Each iterator reads at most one dim per loop iteration.
    SmallVector<int64_t, 4> fmaps;
    bool valid = true;
    for (unsigned i = 0; i < skeleton.numInputs && valid; ++i) {
      int64_t fmap = kReplica;
      for (const ClassChoice &c : loop.classes) {
        int64_t dim = findDim(classes, skeleton, i, c.root);
        if (dim == kReplica)
          continue;
        valid = fmap == kReplica;
        fmap = dim;
      }
      fmaps.push_back(fmap);
    }
    if (!valid)
      continue;

    // The loop split must leave every output's expression intact.
    SmallVector<Shape, 12> loopTiles = makeTiles(nullptr);
    if (!tilesAreConsistent(skeleton, loopTiles))
      continue;
    if (skeleton.isLooped() && checker) {
      SmallVector<ExprId> exprs =
          getTileExprs(skeleton, loopTiles, loop.range, context);
      if (!llvm::all_of(skeleton.outputs, [&](unsigned output) {
            return checker->isEquivalent(exprs[output],
                                         skeleton.nodes[output].expr);
          }))
        continue;
    }

    for (const GridChoice &grid : grids) {
      Schedule s;
      s.forloopRange = loop.range;
      s.threads = options.threadsPerBlock;
      s.fmaps = fmaps;
      s.grid.assign(grid.factors.begin(), grid.factors.end());
      if (s.grid.empty())
        s.grid.push_back(1);
      for (unsigned i = 0; i < skeleton.numInputs; ++i) {
        s.imaps.emplace_back();
        for (const ClassChoice &c : grid.classes)
          s.imaps.back().push_back(findDim(classes, skeleton, i, c.root));
        if (grid.classes.empty())
          s.imaps.back().push_back(kReplica);
      }
      for (unsigned output : skeleton.outputs) {
        s.omaps.emplace_back();
        for (const ClassChoice &c : grid.classes)
          s.omaps.back().push_back(findDim(classes, skeleton, output, c.root));
      }
      // A one-block grid saves whole outputs: any dim of size 1 will not
      // do, so give the omap the first dim (the grid of 1 splits nothing).
      if (grid.classes.empty())
        for (auto &omap : s.omaps)
          omap.push_back(0);
      s.tiles = makeTiles(&grid);
      if (!grid.classes.empty() && !tilesAreConsistent(skeleton, s.tiles))
        continue;
      if (getSharedMemoryBytes(skeleton, s, elementBytes) >
          options.device.smemPerBlock)
        continue;
      schedules.push_back(std::move(s));
    }
  }
  return schedules;
}

int64_t search::getSharedMemoryBytes(const BlockSkeleton &skeleton,
                                     const Schedule &schedule,
                                     unsigned elementBytes) {
  int64_t bytes = 0;
  for (auto [index, node] : llvm::enumerate(skeleton.nodes)) {
    int64_t elements = getNumElements(schedule.tiles[index]);
    if (node.phase == Phase::Accum)
      bytes += elements * std::max(4u, elementBytes);
    else if (node.phase == Phase::Input && schedule.forloopRange > 1 &&
             schedule.fmaps[index] != kReplica)
      bytes += 2 * elements * elementBytes;
    else
      bytes += elements * elementBytes;
  }
  return bytes;
}
