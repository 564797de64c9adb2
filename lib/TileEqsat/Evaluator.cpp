//===- Evaluator.cpp - Reference semantics of tile programs ---------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/TileEqsat/Evaluator.h"

#include "mirage/Semantics/Evaluation.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mirage;
using namespace mirage::tile;
using namespace mirage::egraph;
using llvm::ArrayRef;
using llvm::Expected;
using llvm::SmallVector;
using llvm::StringRef;
using llvm::Twine;

namespace {

llvm::Error fail(const Twine &message) {
  return llvm::createStringError(message.str());
}

struct LoopState {
  int64_t value = 0;
  int64_t step = 1;
};

class Runner {
public:
  Runner(const TileContext &context, const Term &term, TensorStore &tensors,
         const TileSizes &sizes)
      : context(context), ops(context.getOps()), term(term), tensors(tensors),
        sizes(sizes) {}

  llvm::Error runStatement(unsigned index);

private:
  llvm::Expected<F64Tensor> value(unsigned index);
  llvm::Expected<F64Tensor *> tensorOf(unsigned index);
  /// Offsets and box of an index node applied to a tensor of `shape`.
  llvm::Error region(unsigned index, ArrayRef<int64_t> shape, Shape &offsets,
                     Shape &box);
  llvm::Expected<int64_t> stepOf(unsigned index, int64_t extent);
  std::string name(unsigned index) const {
    return context.getLanguage().getOpName(term[index].op).str();
  }

  const TileContext &context;
  const TileOps &ops;
  const Term &term;
  TensorStore &tensors;
  const TileSizes &sizes;
  llvm::DenseMap<SymbolId, LoopState> loops;
  /// Values of the statement being run (cleared per store).
  llvm::DenseMap<unsigned, F64Tensor> cache;
};

llvm::Expected<F64Tensor *> Runner::tensorOf(unsigned index) {
  const ENode &node = term[index];
  if (!context.getTensorKind(node.op) || !node.payload.isSymbol())
    return fail("expected a tensor, got " + name(index));
  const TensorInfo *info = context.getTensor(node.payload.getSymbol());
  if (!info)
    return fail("unknown tensor " +
                context.getLanguage().getSymbolName(node.payload.getSymbol()));
  auto it = tensors.find(info->name);
  if (it == tensors.end()) {
    if (info->kind == TensorKind::Input)
      return fail("input " + info->name + " has no value");
    it = tensors.emplace(info->name, F64Tensor(info->shape, 0.0)).first;
  }
  return &it->second;
}

llvm::Expected<int64_t> Runner::stepOf(unsigned index, int64_t extent) {
  const ENode &node = term[index];
  if (std::optional<double> c = getConstant(context, node))
    return int64_t(*c);
  if (node.op != ops.tsize)
    return fail("a loop step must be a number or a tsize, got " + name(index));
  StringRef symbol = context.getLanguage().getSymbolName(node.payload.getSymbol());
  return chooseTileSize(sizes, symbol, extent);
}

llvm::Error Runner::region(unsigned index, ArrayRef<int64_t> shape,
                           Shape &offsets, Shape &box) {
  const ENode &node = term[index];
  if (node.op != ops.index)
    return fail("expected an index, got " + name(index));
  if (node.children.size() != shape.size())
    return fail(llvm::formatv("an index of rank {0} for a tensor of shape {1}",
                              node.children.size(), formatShape(shape)));
  for (auto [d, child] : llvm::enumerate(node.children)) {
    const ENode &e = term[child];
    int64_t offset = 0, size = shape[d];
    if (e.op == ops.fulltile) {
    } else if (e.op == ops.tile || e.op == ops.elem) {
      auto it = loops.find(e.payload.getSymbol());
      if (it == loops.end())
        return fail("loop variable " +
                    context.getLanguage().getSymbolName(e.payload.getSymbol()) +
                    " is not bound");
      if (e.op == ops.tile) {
        offset = it->second.value;
        size = it->second.step;
      } else {
        offset = it->second.value / it->second.step;
        size = 1;
      }
    } else if (e.op == ops.constTile) {
      auto base = getConstant(context, term[e.children[0]]);
      auto length = getConstant(context, term[e.children[1]]);
      if (!base || !length)
        return fail("const_tile needs two numbers");
      offset = int64_t(*base);
      size = int64_t(*length);
    } else {
      return fail("unknown index element " + name(child));
    }
    if (offset < 0 || size <= 0 || offset + size > shape[d])
      return fail(llvm::formatv("index dim {0} selects [{1}, {2}) of a dim of "
                                "size {3}",
                                d, offset, offset + size, shape[d]));
    offsets.push_back(offset);
    box.push_back(size);
  }
  return llvm::Error::success();
}

llvm::Expected<F64Tensor> Runner::value(unsigned index) {
  auto cached = cache.find(index);
  if (cached != cache.end())
    return cached->second;
  const ENode &node = term[index];
  F64Tensor result;
  if (std::optional<double> c = getConstant(context, node)) {
    result = F64Tensor({}, *c);
  } else if (node.op == ops.load) {
    auto tensor = tensorOf(node.children[0]);
    if (!tensor)
      return tensor.takeError();
    Shape offsets, box;
    if (llvm::Error e = region(node.children[1], (*tensor)->shape, offsets, box))
      return std::move(e);
    result = extractTile(**tensor, offsets, box);
  } else if (context.isValueOp(node.op)) {
    SmallVector<F64Tensor, 2> operands;
    SmallVector<int64_t> permutation;
    for (auto [i, child] : llvm::enumerate(node.children)) {
      if (node.op == ops.permute && i > 0) {
        std::optional<double> p = getConstant(context, term[child]);
        if (!p)
          return fail("permute needs numbers");
        permutation.push_back(int64_t(*p));
        continue;
      }
      auto v = value(child);
      if (!v)
        return v.takeError();
      operands.push_back(std::move(*v));
    }
    SmallVector<ArrayRef<int64_t>> shapes;
    SmallVector<const F64Tensor *> pointers;
    for (const F64Tensor &t : operands) {
      shapes.push_back(t.shape);
      pointers.push_back(&t);
    }
    auto record = getValueOpRecord(context, node, shapes, permutation);
    if (!record)
      return record.takeError();
    auto results = mirage::evaluate(record->first, pointers, record->second);
    if (!results)
      return results.takeError();
    result = std::move((*results)[0]);
  } else {
    return fail("expected a value, got " + name(index));
  }
  cache[index] = result;
  return result;
}

llvm::Error Runner::runStatement(unsigned index) {
  const ENode &node = term[index];
  if (node.op == ops.dummy)
    return llvm::Error::success();
  if (node.op == ops.seq) {
    for (unsigned child : node.children)
      if (llvm::Error e = runStatement(child))
        return e;
    return llvm::Error::success();
  }
  if (node.op == ops.loop) {
    auto start = getConstant(context, term[node.children[0]]);
    auto end = getConstant(context, term[node.children[1]]);
    if (!start || !end)
      return fail("loop bounds must be numbers");
    auto step = stepOf(node.children[2], int64_t(*end - *start));
    if (!step)
      return step.takeError();
    if (*step <= 0)
      return fail("loop step must be positive");
    SymbolId var = node.payload.getSymbol();
    std::optional<LoopState> outer;
    if (auto it = loops.find(var); it != loops.end())
      outer = it->second;
    for (int64_t v = int64_t(*start); v < int64_t(*end); v += *step) {
      loops[var] = {v, *step};
      if (llvm::Error e = runStatement(node.children[3]))
        return e;
    }
    if (outer)
      loops[var] = *outer;
    else
      loops.erase(var);
    return llvm::Error::success();
  }
  if (node.op == ops.store) {
    cache.clear();
    auto tensor = tensorOf(node.children[0]);
    if (!tensor)
      return tensor.takeError();
    auto v = value(node.children[1]);
    cache.clear();
    if (!v)
      return v.takeError();
    Shape offsets, box;
    if (llvm::Error e = region(node.children[2], (*tensor)->shape, offsets, box))
      return e;
    F64Tensor tile;
    if (ArrayRef<int64_t>(v->shape) == ArrayRef<int64_t>(box)) {
      tile = std::move(*v);
    } else {
      // A scalar (or a broadcastable value) fills the region.
      auto shape = broadcastShapes(v->shape, box);
      if (!shape || ArrayRef<int64_t>(*shape) != ArrayRef<int64_t>(box)) {
        if (!shape)
          llvm::consumeError(shape.takeError());
        return fail(llvm::formatv("stores a value of shape {0} into a region "
                                  "of shape {1}",
                                  formatShape(v->shape), formatShape(box)));
      }
      tile = gatherTensor(*v, broadcastGather(v->shape, box), box);
    }
    scatterTile(**tensor, offsets, tile);
    return llvm::Error::success();
  }
  return fail("expected a statement, got " + name(index));
}

} // namespace

int64_t mirage::tile::chooseTileSize(const TileSizes &sizes, StringRef symbol,
                                     int64_t extent) {
  auto it = sizes.sizes.find(symbol);
  int64_t wanted = it != sizes.sizes.end() ? it->second : sizes.defaultSize;
  int64_t size = std::max<int64_t>(1, std::min(wanted, extent));
  while (size > 1 && extent % size != 0)
    --size;
  return size;
}

llvm::Error mirage::tile::evaluateProgram(const TileContext &context,
                                          const Term &term,
                                          TensorStore &tensors,
                                          const TileSizes &sizes) {
  if (term.empty())
    return fail("empty program");
  for (const TensorInfo &info : context.getTensors()) {
    auto it = tensors.find(info.name);
    if (it == tensors.end()) {
      if (info.kind == TensorKind::Input)
        return fail("input " + info.name + " has no value");
      continue;
    }
    if (ArrayRef<int64_t>(it->second.shape) != ArrayRef<int64_t>(info.shape))
      return fail(llvm::formatv("tensor {0} has shape {1}, declared {2}",
                                info.name, formatShape(it->second.shape),
                                formatShape(info.shape)));
  }
  Runner runner(context, term, tensors, sizes);
  return runner.runStatement(term.getRoot());
}

TensorStore mirage::tile::randomInputs(const TileContext &context,
                                       uint64_t seed) {
  SmallVector<Shape> shapes;
  SmallVector<const TensorInfo *> inputs;
  for (const TensorInfo &info : context.getTensors())
    if (info.kind == TensorKind::Input) {
      shapes.push_back(info.shape);
      inputs.push_back(&info);
    }
  std::vector<F64Tensor> values = drawReals(shapes, seed);
  TensorStore store;
  for (auto [info, value] : llvm::zip(inputs, values))
    store[info->name] = std::move(value);
  return store;
}

double mirage::tile::compareOutputs(const TileContext &context,
                                    const TensorStore &a, const TensorStore &b,
                                    bool variables) {
  double worst = 0;
  for (const TensorInfo &info : context.getTensors()) {
    if (info.kind == TensorKind::Input ||
        (info.kind == TensorKind::Variable && !variables))
      continue;
    auto x = a.find(info.name), y = b.find(info.name);
    if (x == a.end() && y == b.end())
      continue;
    if (x == a.end() || y == b.end() || x->second.shape != y->second.shape)
      return INFINITY;
    for (auto [u, v] : llvm::zip(x->second.data, y->second.data)) {
      double diff = std::fabs(u - v) / std::max(1.0, std::fabs(v));
      if (!(diff <= worst))
        worst = std::isnan(diff) ? INFINITY : diff;
    }
  }
  return worst;
}
