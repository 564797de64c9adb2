//===- Analysis.cpp - What the guards of the tile rules read --------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/TileEqsat/Analysis.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace mirage;
using namespace mirage::tile;
using namespace mirage::egraph;
using llvm::ArrayRef;
using llvm::Expected;
using llvm::SmallVector;
using llvm::StringRef;
using llvm::Twine;
using Sort = TileData::Sort;

//===----------------------------------------------------------------------===//
// Sets
//===----------------------------------------------------------------------===//

namespace {
template <typename T>
void insertSorted(std::vector<T> &set, T value) {
  auto it = std::lower_bound(set.begin(), set.end(), value);
  if (it == set.end() || !(*it == value))
    set.insert(it, std::move(value));
}

template <typename Vec>
Vec unionOf(const Vec &a, const Vec &b) {
  Vec out;
  out.reserve(a.size() + b.size());
  std::set_union(a.begin(), a.end(), b.begin(), b.end(),
                 std::back_inserter(out));
  return out;
}

template <typename Vec>
Vec intersectionOf(const Vec &a, const Vec &b) {
  Vec out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(),
                        std::back_inserter(out));
  return out;
}

VarSet without(const VarSet &set, SymbolId var) {
  VarSet out;
  for (SymbolId v : set)
    if (v != var)
      out.push_back(v);
  return out;
}

void sortUnique(AccessSet &set) {
  llvm::sort(set);
  set.erase(std::unique(set.begin(), set.end()), set.end());
}

void sortUnique(VarSet &set) {
  llvm::sort(set);
  set.erase(std::unique(set.begin(), set.end()), set.end());
}

/// `into` joined with `from`; true if `into` changed.
template <typename Vec>
bool joinUnion(Vec &into, const Vec &from, bool &fromChanged) {
  Vec joined = unionOf(into, from);
  bool changed = joined.size() != into.size();
  fromChanged |= joined.size() != from.size();
  into = std::move(joined);
  return changed;
}
} // namespace

bool TileData::dependsOn(SymbolId var) const {
  return llvm::is_contained(tileVars, var) || llvm::is_contained(elemVars, var);
}

VarSet TileData::getVars() const { return unionOf(tileVars, elemVars); }

//===----------------------------------------------------------------------===//
// Regions
//===----------------------------------------------------------------------===//

namespace {
/// A range that covers the whole dim becomes Full.
RegionDim normalize(RegionDim dim, int64_t size) {
  if (dim.kind == RegionDim::Kind::Range && dim.lo <= 0 && dim.hi >= size)
    return RegionDim::full();
  return dim;
}

Access makeAccess(const TileContext &context, SymbolId tensor,
                  ArrayRef<RegionDim> index) {
  Access access;
  access.tensor = tensor;
  const TensorInfo *info = context.getTensor(tensor);
  for (auto [d, dim] : llvm::enumerate(index))
    access.dims.push_back(info && d < info->shape.size()
                              ? normalize(dim, info->shape[d])
                              : dim);
  return access;
}

struct LoopBounds {
  std::optional<int64_t> start, end, step;
};

/// The access as the whole loop over `var` makes it. `must`: a must-write,
/// dropped (nullopt) where the covered region is not known.
std::optional<Access> widen(const TileContext &context, const Access &access,
                            SymbolId var, const LoopBounds &bounds,
                            bool must) {
  Access out = access;
  const TensorInfo *info = context.getTensor(access.tensor);
  for (auto [d, dim] : llvm::enumerate(out.dims)) {
    if (dim.kind != RegionDim::Kind::Tile && dim.kind != RegionDim::Kind::Elem)
      continue;
    if (dim.var != var)
      continue;
    int64_t size = info && d < info->shape.size() ? info->shape[d] : 0;
    if (!bounds.start || !bounds.end) {
      if (must)
        return std::nullopt;
      dim = RegionDim::full();
      continue;
    }
    if (dim.kind == RegionDim::Kind::Tile) {
      dim = normalize(RegionDim::range(*bounds.start, *bounds.end), size);
      continue;
    }
    if (!bounds.step || *bounds.step <= 0) {
      if (must)
        return std::nullopt;
      dim = RegionDim::full();
      continue;
    }
    int64_t step = *bounds.step;
    dim = normalize(RegionDim::range(*bounds.start / step,
                                     (*bounds.end + step - 1) / step),
                    size);
  }
  return out;
}

AccessSet widenSet(const TileContext &context, const AccessSet &set,
                   SymbolId var, const LoopBounds &bounds, bool must) {
  AccessSet out;
  for (const Access &access : set)
    if (std::optional<Access> w = widen(context, access, var, bounds, must))
      out.push_back(std::move(*w));
  sortUnique(out);
  return out;
}

bool dimsDisjoint(const RegionDim &a, const RegionDim &b) {
  return a.kind == RegionDim::Kind::Range && b.kind == RegionDim::Kind::Range &&
         (a.hi <= b.lo || b.hi <= a.lo);
}
} // namespace

bool mirage::tile::mayOverlap(const Access &a, const Access &b) {
  if (a.tensor != b.tensor)
    return false;
  if (a.dims.size() != b.dims.size())
    return true;
  for (auto [x, y] : llvm::zip(a.dims, b.dims))
    if (dimsDisjoint(x, y))
      return false;
  return true;
}

bool mirage::tile::covers(const Access &written, const Access &read) {
  if (written.tensor != read.tensor || written.dims.size() != read.dims.size())
    return false;
  for (auto [w, r] : llvm::zip(written.dims, read.dims)) {
    switch (w.kind) {
    case RegionDim::Kind::Full:
      continue;
    case RegionDim::Kind::Range:
      if (r.kind == RegionDim::Kind::Range && w.lo <= r.lo && r.hi <= w.hi)
        continue;
      return false;
    case RegionDim::Kind::Tile:
    case RegionDim::Kind::Elem:
      if (w == r)
        continue;
      return false;
    }
  }
  return true;
}

namespace {
template <typename Pred>
bool anyPair(const AccessSet &xs, const AccessSet &ys, Pred pred) {
  // Both sets are sorted by tensor first: walk the equal-tensor blocks.
  size_t i = 0, j = 0;
  while (i < xs.size() && j < ys.size()) {
    if (xs[i].tensor < ys[j].tensor) {
      ++i;
      continue;
    }
    if (ys[j].tensor < xs[i].tensor) {
      ++j;
      continue;
    }
    SymbolId tensor = xs[i].tensor;
    size_t iEnd = i, jEnd = j;
    while (iEnd < xs.size() && xs[iEnd].tensor == tensor)
      ++iEnd;
    while (jEnd < ys.size() && ys[jEnd].tensor == tensor)
      ++jEnd;
    for (size_t a = i; a < iEnd; ++a)
      for (size_t b = j; b < jEnd; ++b)
        if (pred(xs[a], ys[b]))
          return true;
    i = iEnd;
    j = jEnd;
  }
  return false;
}
} // namespace

bool mirage::tile::conflicts(const TileData &a, const TileData &b) {
  auto overlap = [](const Access &x, const Access &y) {
    return mayOverlap(x, y);
  };
  return anyPair(a.writes, b.reads, overlap) ||
         anyPair(a.writes, b.writes, overlap) ||
         anyPair(a.reads, b.writes, overlap);
}

bool mirage::tile::conflictsAcrossIterations(const TileData &first,
                                             const TileData &second,
                                             SymbolId var) {
  auto conflict = [var](const Access &x, const Access &y) {
    if (!mayOverlap(x, y))
      return false;
    for (auto [a, b] : llvm::zip(x.dims, y.dims))
      if (a == b &&
          (a.kind == RegionDim::Kind::Tile || a.kind == RegionDim::Kind::Elem) &&
          a.var == var)
        return false;
    return true;
  };
  return anyPair(first.writes, second.reads, conflict) ||
         anyPair(first.writes, second.writes, conflict) ||
         anyPair(first.reads, second.writes, conflict);
}

bool mirage::tile::isParallelLoop(const TileContext &context,
                                  const TileData &body, SymbolId var) {
  // Variables the body writes and reads only after writing them in the same
  // iteration are private to it.
  std::set<SymbolId> exposed, priv;
  for (const Access &a : body.exposedReads)
    exposed.insert(a.tensor);
  for (const Access &w : body.writes) {
    const TensorInfo *info = context.getTensor(w.tensor);
    if (info && info->kind == TensorKind::Variable && !exposed.count(w.tensor))
      priv.insert(w.tensor);
  }
  if (priv.empty())
    return !conflictsAcrossIterations(body, body, var);
  TileData shared;
  for (const Access &a : body.reads)
    if (!priv.count(a.tensor))
      shared.reads.push_back(a);
  for (const Access &a : body.writes)
    if (!priv.count(a.tensor))
      shared.writes.push_back(a);
  return !conflictsAcrossIterations(shared, shared, var);
}

bool mirage::tile::isIdempotent(const TileData &s) {
  return !anyPair(s.exposedReads, s.writes, [](const Access &x,
                                               const Access &y) {
    return mayOverlap(x, y);
  });
}

TileData mirage::tile::sequenceData(const TileData &a, const TileData &b) {
  TileData d;
  d.sort = Sort::Stmt;
  d.reads = unionOf(a.reads, b.reads);
  d.writes = unionOf(a.writes, b.writes);
  d.mustWrites = unionOf(a.mustWrites, b.mustWrites);
  d.exposedReads = a.exposedReads;
  for (const Access &read : b.exposedReads)
    if (!llvm::any_of(a.mustWrites,
                      [&](const Access &w) { return covers(w, read); }))
      insertSorted(d.exposedReads, read);
  d.tileVars = unionOf(a.tileVars, b.tileVars);
  d.elemVars = unionOf(a.elemVars, b.elemVars);
  d.boundVars = unionOf(a.boundVars, b.boundVars);
  return d;
}

TileData mirage::tile::renameVar(const TileData &data, SymbolId from,
                                 SymbolId to) {
  TileData out = data;
  auto renameSet = [&](AccessSet &set) {
    for (Access &access : set)
      for (RegionDim &dim : access.dims)
        if ((dim.kind == RegionDim::Kind::Tile ||
             dim.kind == RegionDim::Kind::Elem) &&
            dim.var == from)
          dim.var = to;
    sortUnique(set);
  };
  renameSet(out.reads);
  renameSet(out.writes);
  renameSet(out.mustWrites);
  renameSet(out.exposedReads);
  for (VarSet *vars : {&out.tileVars, &out.elemVars}) {
    for (SymbolId &v : *vars)
      if (v == from)
        v = to;
    sortUnique(*vars);
  }
  for (RegionDim &dim : out.index)
    if ((dim.kind == RegionDim::Kind::Tile ||
         dim.kind == RegionDim::Kind::Elem) &&
        dim.var == from)
      dim.var = to;
  return out;
}

//===----------------------------------------------------------------------===//
// make
//===----------------------------------------------------------------------===//

namespace {
/// make() over any source of children's data (an e-graph or a term).
template <typename ChildData>
TileData makeData(const TileContext &context, const ENode &node,
                  ChildData child,
                  const std::set<SymbolId> *propagated = nullptr) {
  const TileOps &ops = context.getOps();
  TileData d;
  OpId op = node.op;
  if (op == Language::numOp) {
    d.sort = Sort::Num;
    d.constant = double(node.payload.getInt());
    return d;
  }
  if (op == ops.fconst) {
    d.sort = Sort::Value;
    d.constant = getConstant(context, node);
    return d;
  }
  if (context.getTensorKind(op)) {
    d.sort = Sort::Tensor;
    d.symbol = node.payload.getSymbol();
    return d;
  }
  if (op == ops.tsize) {
    d.sort = Sort::TileSize;
    d.symbol = node.payload.getSymbol();
    return d;
  }
  if (op == ops.fulltile) {
    d.sort = Sort::IndexElem;
    d.index.push_back(RegionDim::full());
    return d;
  }
  if (op == ops.tile || op == ops.elem) {
    d.sort = Sort::IndexElem;
    SymbolId var = node.payload.getSymbol();
    d.index.push_back(op == ops.tile ? RegionDim::tile(var)
                                     : RegionDim::elem(var));
    (op == ops.tile ? d.tileVars : d.elemVars).push_back(var);
    return d;
  }
  if (op == ops.constTile) {
    d.sort = Sort::IndexElem;
    if (node.children.size() == 2 && child(0).constant && child(1).constant) {
      int64_t base = int64_t(*child(0).constant);
      int64_t length = int64_t(*child(1).constant);
      d.index.push_back(RegionDim::range(base, base + length));
    } else {
      d.index.push_back(RegionDim::full());
    }
    return d;
  }
  if (op == ops.index) {
    d.sort = Sort::Index;
    for (unsigned i = 0; i < node.children.size(); ++i) {
      const TileData &c = child(i);
      if (c.index.size() != 1)
        d.shapeError = true;
      d.index.append(c.index.begin(), c.index.end());
      d.tileVars = unionOf(d.tileVars, c.tileVars);
      d.elemVars = unionOf(d.elemVars, c.elemVars);
    }
    return d;
  }
  if (op == ops.dummy) {
    d.sort = Sort::Stmt;
    return d;
  }
  if (op == ops.load || op == ops.store) {
    bool isStore = op == ops.store;
    const TileData &tensor = child(0);
    const TileData &index = child(isStore ? 2 : 1);
    Access access = makeAccess(context, tensor.symbol, index.index);
    d.tileVars = index.tileVars;
    d.elemVars = index.elemVars;
    if (isStore) {
      const TileData &value = child(1);
      d.sort = Sort::Stmt;
      d.reads = value.reads;
      // A propagated tensor's load in the stored value is never extracted
      // for this store: it does not read the tensor.
      if (propagated && propagated->count(tensor.symbol))
        llvm::erase_if(d.reads, [&](const Access &a) {
          return a.tensor == tensor.symbol;
        });
      d.exposedReads = d.reads;
      d.writes = {access};
      d.mustWrites = {access};
      d.tileVars = unionOf(d.tileVars, value.tileVars);
      d.elemVars = unionOf(d.elemVars, value.elemVars);
      return d;
    }
    d.sort = Sort::Value;
    d.reads = {access};
    const TensorInfo *info = context.getTensor(tensor.symbol);
    if (!info || info->shape.size() != index.index.size() || index.shapeError) {
      d.shapeError = true;
      return d;
    }
    for (auto [size, dim] : llvm::zip(info->shape, index.index)) {
      switch (dim.kind) {
      case RegionDim::Kind::Full:
        d.shape.push_back(size);
        break;
      case RegionDim::Kind::Tile:
        d.shape.push_back(symbolicDim(dim.var));
        break;
      case RegionDim::Kind::Elem:
        d.shape.push_back(1);
        break;
      case RegionDim::Kind::Range:
        d.shape.push_back(dim.hi - dim.lo);
        break;
      }
    }
    return d;
  }
  if (op == ops.seq && node.children.size() == 2)
    return sequenceData(child(0), child(1));
  if (op == ops.loop && node.children.size() == 4) {
    const TileData &body = child(3);
    SymbolId var = node.payload.getSymbol();
    LoopBounds bounds;
    if (child(0).constant)
      bounds.start = int64_t(*child(0).constant);
    if (child(1).constant)
      bounds.end = int64_t(*child(1).constant);
    if (child(2).constant)
      bounds.step = int64_t(*child(2).constant);
    d.sort = Sort::Stmt;
    d.reads = widenSet(context, body.reads, var, bounds, false);
    d.writes = widenSet(context, body.writes, var, bounds, false);
    d.exposedReads = widenSet(context, body.exposedReads, var, bounds, false);
    d.mustWrites = widenSet(context, body.mustWrites, var, bounds, true);
    d.tileVars = without(body.tileVars, var);
    d.elemVars = without(body.elemVars, var);
    d.boundVars = body.boundVars;
    if (!llvm::is_contained(d.boundVars, var)) {
      d.boundVars.push_back(var);
      llvm::sort(d.boundVars);
    }
    return d;
  }
  if (context.isValueOp(op)) {
    d.sort = Sort::Value;
    SmallVector<ArrayRef<int64_t>> shapes;
    SmallVector<int64_t> permutation;
    bool error = false;
    for (unsigned i = 0; i < node.children.size(); ++i) {
      const TileData &c = child(i);
      d.reads = unionOf(d.reads, c.reads);
      d.tileVars = unionOf(d.tileVars, c.tileVars);
      d.elemVars = unionOf(d.elemVars, c.elemVars);
      if (op == ops.permute && i > 0) {
        if (!c.constant)
          error = true;
        else
          permutation.push_back(int64_t(*c.constant));
        continue;
      }
      if (!c.isValue() || c.shapeError)
        error = true;
      shapes.push_back(c.shape);
    }
    if (error) {
      d.shapeError = true;
      return d;
    }
    auto record = getValueOpRecord(context, node, shapes, permutation);
    if (!record) {
      llvm::consumeError(record.takeError());
      d.shapeError = true;
      return d;
    }
    auto results = inferShapes(record->first, shapes, record->second);
    if (!results) {
      llvm::consumeError(results.takeError());
      d.shapeError = true;
      return d;
    }
    d.shape = (*results)[0];
    return d;
  }
  return d;
}
} // namespace

TileData TileAnalysis::make(const EGraph &graph, const ENode &node) const {
  return makeData(
      context, node,
      [&](unsigned i) -> const TileData & { return get(node.children[i]); },
      &propagated);
}

MergeResult TileAnalysis::merge(TileData &into, TileData from) const {
  MergeResult result;
  if (into.sort == Sort::Other && from.sort != Sort::Other) {
    into = std::move(from);
    return {true, false};
  }
  if (from.sort == Sort::Other)
    return {false, into.sort != Sort::Other};
  if (into.sort != from.sort) {
    // A value and a number (exp 0 = 1): the number's data.
    if (from.sort == Sort::Num && into.sort == Sort::Value) {
      into.sort = Sort::Num;
      result.intoChanged = true;
    } else if (into.sort == Sort::Num && from.sort == Sort::Value) {
      result.fromChanged = true;
    }
  }
  if (!into.constant && from.constant) {
    into.constant = from.constant;
    result.intoChanged = true;
  } else if (into.constant && !from.constant) {
    result.fromChanged = true;
  }
  if (into.isValue() && from.isValue()) {
    if (into.shapeError && !from.shapeError) {
      into.shape = from.shape;
      into.shapeError = false;
      result.intoChanged = true;
    } else if (!into.shapeError && from.shapeError) {
      result.fromChanged = true;
    } else if (!into.shapeError && into.shape != from.shape) {
      ++shapeConflicts;
    }
  }
  result.intoChanged |= joinUnion(into.reads, from.reads, result.fromChanged);
  result.intoChanged |= joinUnion(into.writes, from.writes, result.fromChanged);
  result.intoChanged |=
      joinUnion(into.exposedReads, from.exposedReads, result.fromChanged);
  result.intoChanged |=
      joinUnion(into.tileVars, from.tileVars, result.fromChanged);
  result.intoChanged |=
      joinUnion(into.elemVars, from.elemVars, result.fromChanged);
  result.intoChanged |=
      joinUnion(into.boundVars, from.boundVars, result.fromChanged);
  AccessSet must = intersectionOf(into.mustWrites, from.mustWrites);
  result.intoChanged |= must.size() != into.mustWrites.size();
  result.fromChanged |= must.size() != from.mustWrites.size();
  into.mustWrites = std::move(must);
  return result;
}

void TileAnalysis::print(llvm::raw_ostream &os, const TileData &data) const {
  const Language &language = context.getLanguage();
  auto printAccesses = [&](StringRef label, const AccessSet &set) {
    if (set.empty())
      return;
    os << " " << label << "{";
    llvm::interleaveComma(set, os, [&](const Access &access) {
      os << language.getSymbolName(access.tensor) << "[";
      llvm::interleaveComma(access.dims, os, [&](const RegionDim &dim) {
        switch (dim.kind) {
        case RegionDim::Kind::Full:
          os << ":";
          break;
        case RegionDim::Kind::Tile:
          os << "tile " << language.getSymbolName(dim.var);
          break;
        case RegionDim::Kind::Elem:
          os << "elem " << language.getSymbolName(dim.var);
          break;
        case RegionDim::Kind::Range:
          os << dim.lo << ":" << dim.hi;
          break;
        }
      });
      os << "]";
    });
    os << "}";
  };
  if (data.sort == Sort::Value || data.sort == Sort::Num) {
    if (data.shapeError)
      os << " shape?";
    else
      os << " shape " << formatShape(data.shape);
  }
  printAccesses("R", data.reads);
  printAccesses("W", data.writes);
  printAccesses("MW", data.mustWrites);
  printAccesses("E", data.exposedReads);
  VarSet vars = data.getVars();
  if (!vars.empty()) {
    os << " vars{";
    llvm::interleaveComma(vars, os, [&](SymbolId v) {
      os << language.getSymbolName(v);
    });
    os << "}";
  }
}

TileData mirage::tile::analyzeTerm(const TileContext &context, const Term &term,
                                   std::optional<unsigned> root) {
  std::vector<TileData> data(term.size());
  unsigned last = root.value_or(term.getRoot());
  for (unsigned i = 0; i <= last; ++i) {
    const ENode &node = term[i];
    data[i] = makeData(context, node, [&](unsigned c) -> const TileData & {
      return data[node.children[c]];
    });
  }
  return data[last];
}

std::vector<TileData> mirage::tile::analyzeTermNodes(const TileContext &context,
                                                     const Term &term) {
  std::vector<TileData> data(term.size());
  for (unsigned i = 0; i < term.size(); ++i) {
    const ENode &node = term[i];
    data[i] = makeData(context, node, [&](unsigned c) -> const TileData & {
      return data[node.children[c]];
    });
  }
  return data;
}
