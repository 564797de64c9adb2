//===- Materialize.cpp - Tile programs as graph-defined kernels -----------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/TileEqsat/Materialize.h"

#include "mirage/Dialect/Block/IR/Block.h"
#include "mirage/Dialect/Kernel/IR/Kernel.h"
#include "mirage/IR/SemanticsOpInterface.h"
#include "mirage/TileEqsat/Analysis.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <array>
#include <map>
#include <set>

using namespace mlir;
using namespace mirage;
using namespace mirage::tile;
using egraph::ENode;

namespace {

llvm::Error fail(const Twine &message) {
  return llvm::createStringError(message.str());
}

enum class Phase { Body, Post };

/// A value of a block graph: a tile with its phase, or a scalar constant.
struct TileValue {
  Value value;
  Phase phase = Phase::Body;
  std::optional<double> scalar;
  /// A loop-body value that changes with the iteration (it depends on a tile
  /// the for-loop advances).
  bool varying = false;
};

struct LoopInfo {
  std::string var;
  int64_t start = 0, end = 0, step = 1, trips = 1;
};

/// One kernel of the program being built.
class KernelBuilder {
public:
  KernelBuilder(OpBuilder &builder, Location loc, const TileProgram &program,
                const Term &term, const std::vector<TileData> &data,
                const MaterializeOptions &options, unsigned root,
                llvm::StringMap<Value> &device,
                const std::set<std::string> &laterLoads,
                std::set<std::string> &zeroed)
      : builder(builder), loc(loc), context(*program.context),
        ops(context.getOps()), program(program), term(term), data(data),
        options(options), root(root), device(device), laterLoads(laterLoads),
        zeroed(zeroed) {}

  llvm::Error build();

private:
  llvm::Expected<LoopInfo> loopInfo(unsigned node);
  llvm::Error analyzeStructure();
  llvm::Error collectTensors(unsigned node, bool inValue);
  llvm::Expected<TileValue> value(unsigned node);
  llvm::Expected<Value> iterator(unsigned load);
  llvm::Error statement(unsigned node, bool inLoop);
  llvm::Expected<TileValue> op(unsigned node,
                               llvm::SmallVectorImpl<TileValue> &operands);
  /// A loop-body tile as a post-loop value.
  llvm::Expected<TileValue> carry(const TileValue &v);
  std::string regionKey(unsigned index) const;
  std::string tensorName(unsigned tensorNode) const {
    return context.getLanguage()
        .getSymbolName(term[tensorNode].payload.getSymbol())
        .str();
  }
  const TensorInfo &tensorInfo(unsigned tensorNode) const {
    return *context.getTensor(term[tensorNode].payload.getSymbol());
  }
  Type tileType(ArrayRef<int64_t> shape) {
    return tb::TileType::get(builder.getContext(), shape, program.elementType);
  }
  /// The tensors the kernel reads from device memory, in order of first
  /// read: loads of tensors that exist before the kernel and that it has not
  /// stored yet at that point (an accumulation's read of itself excluded).
  void collectInputs();
  /// Whether the tensor is read in this kernel (outside its own stores).
  bool readHere(const std::string &name) const {
    return loadedHere.count(name) != 0;
  }

  OpBuilder &builder;
  Location loc;
  const TileContext &context;
  const TileOps &ops;
  const TileProgram &program;
  const Term &term;
  /// analyzeTermNodes of the term, computed once for all its kernels.
  const std::vector<TileData> &data;
  const MaterializeOptions &options;
  unsigned root;
  llvm::StringMap<Value> &device;
  const std::set<std::string> &laterLoads;
  /// Tensors an earlier statement zeroed that nothing wrote since.
  std::set<std::string> &zeroed;

  // Structure.
  std::vector<LoopInfo> grid;
  std::optional<LoopInfo> forLoop;
  unsigned forLoopNode = 0;
  llvm::SmallVector<unsigned> before, inside, after;
  // Tensors.
  std::set<std::string> storedHere, loadedHere;
  /// Tensors this kernel only zeroes (and does not read) for a later kernel
  /// that sums into them (sequence commutation moves the zeroing of the next
  /// kernel's accumulator into this one, even into its loop, where zeroing
  /// every iteration is the same): left to that kernel, whose accumulator
  /// starts at zero.
  std::set<std::string> deferredZero;
  llvm::SmallVector<std::string> inputs, outputs;
  llvm::StringMap<unsigned> inputIndex;
  // Building.
  Block *body = nullptr;
  struct Stored {
    TileValue value;
    std::string region;
  };
  llvm::StringMap<Stored> state;
  /// Accumulators initialized to zero and awaiting their loop: region.
  llvm::StringMap<std::string> initialized;
  /// Per accumulator, the sum of its per-iteration contributions.
  llvm::StringMap<std::pair<TileValue, std::string>> contributions;
  /// Tiles stored in the loop at a dim its variable indexes: the dim.
  llvm::StringMap<std::pair<TileValue, std::pair<std::string, unsigned>>>
      sliced;
  std::map<std::pair<std::string, std::string>, Value> iterators;
  llvm::DenseMap<unsigned, TileValue> cache;
  llvm::DenseMap<Value, TileValue> carried;
  bool inLoopBody = false;
  int64_t forloop = 1;
};

llvm::Expected<LoopInfo> KernelBuilder::loopInfo(unsigned node) {
  const ENode &loop = term[node];
  LoopInfo info;
  info.var =
      context.getLanguage().getSymbolName(loop.payload.getSymbol()).str();
  auto start = getConstant(context, term[loop.children[0]]);
  auto end = getConstant(context, term[loop.children[1]]);
  if (!start || !end)
    return fail("a loop with bounds that are not numbers");
  info.start = int64_t(*start);
  info.end = int64_t(*end);
  const ENode &step = term[loop.children[2]];
  if (auto c = getConstant(context, step))
    info.step = int64_t(*c);
  else
    info.step = chooseTileSize(
        options.sizes,
        context.getLanguage().getSymbolName(step.payload.getSymbol()),
        info.end - info.start);
  if (info.step <= 0 || (info.end - info.start) % info.step != 0)
    return fail(llvm::formatv("the loop over {0} has step {1} that does not "
                              "divide its range [{2}, {3})",
                              info.var, info.step, info.start, info.end));
  info.trips = (info.end - info.start) / info.step;
  return info;
}

llvm::Error KernelBuilder::analyzeStructure() {
  unsigned current = root;
  while (grid.size() < 3 && term[current].op == ops.loop) {
    unsigned bodyNode = term[current].children[3];
    auto var = term[current].payload.getSymbol();
    if (!isParallelLoop(context, data[bodyNode], var))
      break;
    auto info = loopInfo(current);
    if (!info)
      return info.takeError();
    if (info->start != 0)
      return fail("a grid loop that does not start at 0");
    grid.push_back(*info);
    current = bodyNode;
  }
  SmallVector<unsigned> items = getSequence(context, term, current);
  for (unsigned item : items) {
    const ENode &node = term[item];
    if (node.op == ops.dummy)
      continue;
    if (node.op == ops.loop) {
      if (forLoop)
        return fail(llvm::formatv(
            "a kernel has two sequential loops (over {0} and {1}); a block "
            "graph has one for-loop",
            forLoop->var,
            context.getLanguage().getSymbolName(node.payload.getSymbol())));
      auto info = loopInfo(item);
      if (!info)
        return info.takeError();
      if (info->start != 0)
        return fail("a sequential loop that does not start at 0");
      forLoop = *info;
      forLoopNode = item;
      for (unsigned inner : getSequence(context, term, node.children[3])) {
        const ENode &s = term[inner];
        if (s.op == ops.loop)
          return fail(llvm::formatv(
              "the loop over {0} holds another loop; a block graph's "
              "for-loop body has none",
              forLoop->var));
        if (s.op == ops.store)
          inside.push_back(inner);
      }
      continue;
    }
    if (node.op != ops.store)
      return fail("a statement that is not a store or a loop");
    (forLoop ? after : before).push_back(item);
  }
  return llvm::Error::success();
}

llvm::Error KernelBuilder::collectTensors(unsigned node, bool inValue) {
  const ENode &n = term[node];
  if (n.op == ops.seq || n.op == ops.loop) {
    for (unsigned child : n.children)
      if (llvm::Error e = collectTensors(child, false))
        return e;
    return llvm::Error::success();
  }
  if (n.op == ops.store) {
    std::string name = tensorName(n.children[0]);
    storedHere.insert(name);
    return collectTensors(n.children[1], true);
  }
  if (n.op == ops.load) {
    std::string name = tensorName(n.children[0]);
    loadedHere.insert(name);
    return llvm::Error::success();
  }
  if (inValue)
    for (unsigned child : n.children)
      if (llvm::Error e = collectTensors(child, true))
        return e;
  return llvm::Error::success();
}

std::string KernelBuilder::regionKey(unsigned index) const {
  std::string key;
  for (unsigned child : term[index].children) {
    const ENode &e = term[child];
    if (!key.empty())
      key += ",";
    if (e.op == ops.fulltile)
      key += ":";
    else if (e.op == ops.tile || e.op == ops.elem)
      key += (e.op == ops.tile ? "tile " : "elem ") +
             context.getLanguage().getSymbolName(e.payload.getSymbol()).str();
    else if (e.op == ops.constTile)
      key += llvm::formatv(
          "{0}+{1}",
          int64_t(getConstant(context, term[e.children[0]]).value_or(0)),
          int64_t(getConstant(context, term[e.children[1]]).value_or(0)));
  }
  return key;
}

llvm::Expected<Value> KernelBuilder::iterator(unsigned loadNode) {
  const ENode &load = term[loadNode];
  std::string name = tensorName(load.children[0]);
  std::string key = regionKey(load.children[1]);
  if (auto it = iterators.find({name, key}); it != iterators.end())
    return it->second;
  const TensorInfo &info = tensorInfo(load.children[0]);
  const ENode &index = term[load.children[1]];
  // A kernel without grid loops has one block: a grid of one dim.
  SmallVector<int64_t> imap(std::max<size_t>(1, grid.size()), kReplica);
  int64_t fmap = kReplica;
  Shape tile;
  for (auto [d, child] : llvm::enumerate(index.children)) {
    const ENode &e = term[child];
    int64_t size = info.shape[d];
    if (e.op == ops.fulltile) {
      tile.push_back(size);
      continue;
    }
    if (e.op == ops.constTile) {
      auto base = getConstant(context, term[e.children[0]]);
      auto length = getConstant(context, term[e.children[1]]);
      if (base && length && *base == 0 && *length == size) {
        tile.push_back(size);
        continue;
      }
      return fail(llvm::formatv("a load of a constant slice of {0}; an input "
                                "iterator partitions dims evenly",
                                name));
    }
    std::string var =
        context.getLanguage().getSymbolName(e.payload.getSymbol()).str();
    bool element = e.op == ops.elem;
    size_t dim = d;
    auto check = [&](const LoopInfo &loop) -> llvm::Error {
      int64_t chunk = element ? 1 : loop.step;
      if (loop.trips * chunk != size)
        return fail(llvm::formatv(
            "{0} dim {1} (size {2}) is not split evenly by the loop over {3} "
            "({4} iterations of {5})",
            name, dim, size, var, loop.trips, chunk));
      if (element && loop.step != 1 && loop.end != loop.step * size)
        return fail("an element index of a loop with another range");
      tile.push_back(chunk);
      return llvm::Error::success();
    };
    bool found = false;
    for (auto [g, loop] : llvm::enumerate(grid)) {
      if (loop.var != var)
        continue;
      if (imap[g] != kReplica)
        return fail("a load that indexes two dims by one grid variable");
      imap[g] = d;
      if (llvm::Error err = check(loop))
        return std::move(err);
      found = true;
    }
    if (!found && forLoop && forLoop->var == var && inLoopBody) {
      if (fmap != kReplica)
        return fail("a load that indexes two dims by the loop variable");
      fmap = d;
      if (llvm::Error err = check(*forLoop))
        return std::move(err);
      found = true;
    }
    if (!found)
      return fail(llvm::formatv("a load of {0} indexed by {1}, which is "
                                "neither a grid nor the for-loop variable here",
                                name, var));
  }
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(body);
  Value arg = body->getArgument(inputIndex.lookup(name));
  Value result = tb::InputIteratorOp::create(
      builder, loc, tileType(tile), arg,
      tb::GridMapAttr::get(builder.getContext(), imap),
      tb::LoopMapAttr::get(builder.getContext(), fmap));
  iterators[{name, key}] = result;
  return result;
}

void KernelBuilder::collectInputs() {
  std::set<std::string> stored, seen;
  std::function<void(unsigned)> loads = [&](unsigned node) {
    const ENode &n = term[node];
    if (n.op == ops.load) {
      std::string name = tensorName(n.children[0]);
      if (!stored.count(name) && device.count(name) && seen.insert(name).second)
        inputs.push_back(name);
      return;
    }
    for (unsigned child : n.children)
      loads(child);
  };
  for (const auto *list : {&before, &inside, &after})
    for (unsigned s : *list) {
      const ENode &n = term[s];
      std::string name = tensorName(n.children[0]);
      const ENode &v = term[n.children[1]];
      bool accumulation = false;
      if (v.op == ops.add)
        for (unsigned side : {0u, 1u}) {
          const ENode &operand = term[v.children[side]];
          if (operand.op == ops.load &&
              tensorName(operand.children[0]) == name) {
            loads(v.children[1 - side]);
            accumulation = true;
            break;
          }
        }
      if (!accumulation)
        loads(n.children[1]);
      stored.insert(name);
    }
}

llvm::Expected<TileValue>
KernelBuilder::op(unsigned node, SmallVectorImpl<TileValue> &operands) {
  const ENode &n = term[node];
  // Scalars fold into the scalar ops; bcast is the broadcast the binary
  // operators already do.
  if (n.op == ops.bcast)
    return operands[0];
  bool binary =
      n.op == ops.add || n.op == ops.sub || n.op == ops.mul || n.op == ops.div;
  if (binary && (operands[0].scalar || operands[1].scalar)) {
    if (operands[0].scalar && operands[1].scalar) {
      double a = *operands[0].scalar, b = *operands[1].scalar;
      TileValue r;
      r.scalar = n.op == ops.add   ? a + b
                 : n.op == ops.sub ? a - b
                 : n.op == ops.mul ? a * b
                                   : a / b;
      return r;
    }
    bool left = bool(operands[0].scalar);
    TileValue tile = operands[left ? 1 : 0];
    double c = *operands[left ? 0 : 1].scalar;
    OpKind kind;
    double s;
    if (n.op == ops.add) {
      kind = OpKind::AddScalar;
      s = c;
    } else if (n.op == ops.mul) {
      kind = OpKind::MulScalar;
      s = c;
    } else if (n.op == ops.sub && !left) {
      kind = OpKind::AddScalar;
      s = -c;
    } else if (n.op == ops.div && !left) {
      kind = OpKind::MulScalar;
      s = 1.0 / c;
    } else if (n.op == ops.sub && c == 0) {
      kind = OpKind::MulScalar;
      s = -1;
    } else {
      return fail("a constant divided by a tile (no reciprocal op)");
    }
    if ((kind == OpKind::AddScalar && s == 0) ||
        (kind == OpKind::MulScalar && s == 1))
      return tile;
    OpParams params;
    params.scalar = s;
    auto op = createOperatorOp<tb::BlockDialect>(
        builder, loc, kind, tile.value, tile.value.getType(),
        getOpAttributes(kind, params, builder));
    if (failed(op))
      return fail("no block-level op for the scalar form");
    TileValue r;
    r.value = (*op)->getResult(0);
    r.phase = tile.phase;
    r.varying = tile.varying;
    return r;
  }
  // The operator record, on the operands' tile shapes. A loop-invariant
  // loop-body tile used with post-loop tiles is carried past the loop.
  bool post = llvm::any_of(operands, [](const TileValue &v) {
    return !v.scalar && v.phase == Phase::Post;
  });
  SmallVector<ArrayRef<int64_t>> shapes;
  SmallVector<Value> values;
  Phase phase = post ? Phase::Post : Phase::Body;
  bool varying = false;
  for (TileValue v : operands) {
    if (v.scalar)
      return fail("a scalar operand of an operator without a scalar form");
    if (post && v.phase == Phase::Body) {
      auto carried = carry(v);
      if (!carried)
        return carried.takeError();
      v = *carried;
    }
    shapes.push_back(cast<tb::TileType>(v.value.getType()).getShape());
    values.push_back(v.value);
    varying |= v.varying;
  }
  SmallVector<int64_t> permutation;
  if (n.op == ops.permute)
    for (unsigned child : llvm::drop_begin(n.children))
      permutation.push_back(
          int64_t(getConstant(context, term[child]).value_or(0)));
  auto record = getValueOpRecord(context, n, shapes, permutation);
  if (!record)
    return record.takeError();
  auto results = inferShapes(record->first, shapes, record->second);
  if (!results)
    return results.takeError();
  auto op = createOperatorOp<tb::BlockDialect>(
      builder, loc, record->first, values, tileType((*results)[0]),
      getOpAttributes(record->first, record->second, builder));
  if (failed(op))
    return fail("no block-level op for the operator");
  TileValue r;
  r.value = (*op)->getResult(0);
  r.phase = phase;
  r.varying = varying;
  return r;
}

llvm::Expected<TileValue> KernelBuilder::carry(const TileValue &v) {
  if (v.phase == Phase::Post || forloop <= 1)
    return v;
  if (v.varying)
    return fail("a tile that changes with the loop iteration is read after "
                "the loop without an accumulator");
  if (auto it = carried.find(v.value); it != carried.end())
    return it->second;
  // A block graph reads inputs only in the loop body and post-loop ops read
  // only accumulators: the loop-invariant tile x passes accum_sum(x / F),
  // exact for a loop range F that is a power of two.
  if (forloop & (forloop - 1))
    return fail(llvm::formatv(
        "a loop-invariant tile is read after a loop of {0} iterations (it "
        "passes an accumulator only when the range is a power of two)",
        forloop));
  Value scaled = tb::MulScalarOp::create(
      builder, loc, v.value, builder.getF64FloatAttr(1.0 / double(forloop)));
  TileValue r;
  r.value = tb::AccumSumOp::create(builder, loc, scaled);
  r.phase = Phase::Post;
  carried[v.value] = r;
  return r;
}

llvm::Expected<TileValue> KernelBuilder::value(unsigned node) {
  if (auto it = cache.find(node); it != cache.end())
    return it->second;
  const ENode &n = term[node];
  TileValue result;
  if (auto c = getConstant(context, n)) {
    result.scalar = *c;
  } else if (n.op == ops.load) {
    std::string name = tensorName(n.children[0]);
    std::string key = regionKey(n.children[1]);
    if (initialized.count(name) || contributions.count(name))
      return fail(llvm::formatv("{0} is read while it is being summed", name));
    auto stored = state.find(name);
    if (stored == state.end() && inputIndex.count(name)) {
      auto it = iterator(node);
      if (!it)
        return it.takeError();
      result.value = *it;
      result.phase = Phase::Body;
      auto iter = it->getDefiningOp<tb::InputIteratorOp>();
      result.varying =
          forloop > 1 && iter && iter.getFmap().getDim() != kReplica;
    } else {
      auto it = stored;
      if (it == state.end())
        return fail(llvm::formatv(
            "{0} is read in this kernel before it is written here; a block "
            "graph cannot read back what it writes to device memory",
            name));
      if (it->second.region != key) {
        // A tile sliced by the loop, read whole after it: accum_concat.
        return fail(llvm::formatv("{0} is read at [{1}] but written at [{2}] "
                                  "in this kernel",
                                  name, key, it->second.region));
      }
      result = it->second.value;
    }
  } else if (context.isValueOp(n.op)) {
    SmallVector<TileValue, 2> operands;
    for (auto [i, child] : llvm::enumerate(n.children)) {
      if (n.op == ops.permute && i > 0)
        continue;
      auto v = value(child);
      if (!v)
        return v.takeError();
      operands.push_back(*v);
    }
    auto r = op(node, operands);
    if (!r)
      return r.takeError();
    result = *r;
  } else {
    return fail("an operator the block graph cannot compute");
  }
  cache[node] = result;
  return result;
}

llvm::Error KernelBuilder::statement(unsigned node, bool inLoop) {
  const ENode &n = term[node];
  std::string name = tensorName(n.children[0]);
  std::string key = regionKey(n.children[2]);
  if (deferredZero.count(name))
    return llvm::Error::success();
  // Accumulator initialization.
  if (auto c = getConstant(context, term[n.children[1]]); c && *c == 0) {
    if (inLoop)
      return fail(llvm::formatv("{0} is zeroed inside the for-loop", name));
    initialized[name] = key;
    state.erase(name);
    return llvm::Error::success();
  }
  // An accumulation into an initialized tensor in the loop.
  const ENode &v = term[n.children[1]];
  if (inLoop && v.op == ops.add) {
    for (unsigned side : {0u, 1u}) {
      const ENode &operand = term[v.children[side]];
      if (operand.op != ops.load || tensorName(operand.children[0]) != name)
        continue;
      if (regionKey(operand.children[1]) != key)
        return fail(llvm::formatv("{0} accumulates into another region", name));
      auto init = initialized.find(name);
      auto existing = contributions.find(name);
      if (init == initialized.end() && existing == contributions.end() &&
          zeroed.count(name))
        init = initialized.insert({name, key}).first;
      if (init == initialized.end() && existing == contributions.end())
        return fail(llvm::formatv(
            "{0} is summed in the loop without being zeroed in this kernel",
            name));
      if (init != initialized.end() && init->second != key)
        return fail(llvm::formatv("{0} is zeroed at another region", name));
      auto contribution = value(v.children[1 - side]);
      if (!contribution)
        return contribution.takeError();
      if (contribution->scalar)
        return fail("a constant accumulation");
      if (existing != contributions.end()) {
        SmallVector<TileValue, 2> operands{existing->second.first,
                                           *contribution};
        auto sum = op(n.children[1], operands);
        if (!sum)
          return sum.takeError();
        existing->second.first = *sum;
      } else {
        contributions[name] = {*contribution, key};
        initialized.erase(name);
      }
      cache.clear();
      return llvm::Error::success();
    }
  }
  if (initialized.count(name))
    return fail(
        llvm::formatv("{0} is zeroed but not summed in the loop", name));
  auto result = value(n.children[1]);
  if (!result)
    return result.takeError();
  if (result->scalar)
    return fail(llvm::formatv("{0} is filled with a constant", name));
  state[name] = {*result, key};
  // A tile stored at a dim the loop variable indexes.
  if (inLoop) {
    const ENode &index = term[n.children[2]];
    for (auto [d, child] : llvm::enumerate(index.children)) {
      const ENode &e = term[child];
      if ((e.op == ops.tile || e.op == ops.elem) &&
          context.getLanguage().getSymbolName(e.payload.getSymbol()) ==
              forLoop->var)
        sliced[name] = {*result, {key, unsigned(d)}};
    }
  }
  cache.clear();
  return llvm::Error::success();
}

llvm::Error KernelBuilder::build() {
  if (llvm::Error e = analyzeStructure())
    return e;
  if (llvm::Error e = collectTensors(root, false))
    return e;
  // Inputs: what the kernel reads from device memory; outputs: what it
  // stores that the function returns or later kernels load.
  collectInputs();
  {
    std::set<std::string> zeroOnly, other;
    for (const auto *list : {&before, &inside, &after})
      for (unsigned s : *list) {
        const ENode &n = term[s];
        std::string name = tensorName(n.children[0]);
        std::optional<double> c = getConstant(context, term[n.children[1]]);
        if (c && *c == 0)
          zeroOnly.insert(name);
        else
          other.insert(name);
      }
    for (const std::string &name : zeroOnly)
      if (!other.count(name) && laterLoads.count(name) &&
          context.lookupTensor(name)->kind != TensorKind::Output &&
          !readHere(name))
        deferredZero.insert(name);
    for (const std::string &name : deferredZero)
      storedHere.erase(name);
  }
  for (const std::string &name : storedHere) {
    const TensorInfo *info = context.lookupTensor(name);
    if (info->kind == TensorKind::Output || laterLoads.count(name))
      outputs.push_back(name);
  }
  if (outputs.empty())
    return fail("a kernel whose results nothing reads");
  SmallVector<Value> operands;
  SmallVector<Type> resultTypes;
  for (auto [i, name] : llvm::enumerate(inputs)) {
    Value v = device.lookup(name);
    if (!v)
      return fail(
          llvm::formatv("{0} is read before any kernel writes it", name));
    operands.push_back(v);
    inputIndex[name] = i;
  }
  for (const std::string &name : outputs)
    resultTypes.push_back(RankedTensorType::get(
        context.lookupTensor(name)->shape, program.elementType));

  SmallVector<int64_t> gridSizes;
  for (const LoopInfo &loop : grid)
    gridSizes.push_back(loop.trips);
  if (gridSizes.empty())
    gridSizes.push_back(1);
  forloop = forLoop ? forLoop->trips : 1;

  auto kernel = kn::KernelOp::create(builder, loc, resultTypes, operands);
  OpBuilder::InsertionGuard guard(builder);
  builder.createBlock(&kernel.getBody());
  auto graph =
      tb::GraphOp::create(builder, loc, gridSizes, options.threads, forloop);
  SmallVector<Location> locs(operands.size(), loc);
  SmallVector<Type> argTypes;
  for (Value v : operands)
    argTypes.push_back(v.getType());
  body = builder.createBlock(&graph.getBody(), {}, argTypes, locs);
  builder.setInsertionPointToEnd(body);

  auto run = [&]() -> llvm::Error {
    for (unsigned s : before)
      if (llvm::Error e = statement(s, false))
        return e;
    inLoopBody = true;
    for (unsigned s : inside)
      if (llvm::Error e = statement(s, true))
        return e;
    inLoopBody = false;
    // After the loop: sums and slices become post-loop values.
    for (auto &entry : contributions) {
      // A loop of one iteration needs no accumulator.
      TileValue sum = entry.second.first;
      if (forloop > 1) {
        sum.value = tb::AccumSumOp::create(builder, loc, sum.value);
        sum.phase = Phase::Post;
        sum.varying = false;
      }
      state[entry.first()] = {sum, entry.second.second};
    }
    contributions.clear();
    if (!initialized.empty())
      return fail(llvm::formatv("{0} is zeroed but never summed",
                                initialized.begin()->first()));
    // Tensors read after the loop or saved.
    std::set<std::string> needed(outputs.begin(), outputs.end());
    std::function<void(unsigned)> reads = [&](unsigned node) {
      const ENode &n = term[node];
      if (n.op == ops.load)
        needed.insert(tensorName(n.children[0]));
      for (unsigned child : n.children)
        reads(child);
    };
    for (unsigned s : after)
      reads(term[s].children[1]);
    for (auto &entry : sliced) {
      if (!needed.count(entry.first().str()))
        continue;
      auto &[tile, where] = entry.second;
      auto &[key, dim] = where;
      auto type = cast<tb::TileType>(tile.value.getType());
      Shape shape(type.getShape());
      shape[dim] *= forLoop->trips;
      TileValue all = tile;
      if (forloop > 1) {
        all.value = tb::AccumConcatOp::create(builder, loc, tileType(shape),
                                              tile.value, dim);
        all.phase = Phase::Post;
        all.varying = false;
      }
      // The region with the loop's dim whole.
      SmallVector<StringRef> parts;
      StringRef(key).split(parts, ',');
      SmallVector<std::string> region(parts.begin(), parts.end());
      region[dim] = ":";
      state[entry.first()] = {all, llvm::join(region, ",")};
    }
    cache.clear();
    for (unsigned s : after)
      if (llvm::Error e = statement(s, false))
        return e;
    // Savers.
    SmallVector<Value> saved;
    for (auto [i, name] : llvm::enumerate(outputs)) {
      auto it = state.find(name);
      if (it == state.end())
        return fail(llvm::formatv("{0} has no value to save", name));
      auto carriedValue = carry(it->second.value);
      if (!carriedValue)
        return fail(llvm::formatv("{0} is saved from the loop body: {1}", name,
                                  llvm::toString(carriedValue.takeError())));
      const TileValue &v = *carriedValue;
      SmallVector<StringRef> parts;
      StringRef(it->second.region).split(parts, ',');
      SmallVector<int64_t> omap;
      for (const LoopInfo &loop : grid) {
        int64_t dim = kReplica;
        for (auto [d, part] : llvm::enumerate(parts))
          if (part == "tile " + loop.var || part == "elem " + loop.var)
            dim = d;
        if (dim == kReplica)
          return fail(llvm::formatv(
              "every block writes the same part of {0} (grid variable {1} "
              "does not index it)",
              name, loop.var));
        omap.push_back(dim);
      }
      if (grid.empty())
        omap.push_back(0);
      for (auto [d, part] : llvm::enumerate(parts))
        if (part != ":" && !llvm::is_contained(omap, int64_t(d)))
          return fail(llvm::formatv("{0} is written in part [{1}] per block",
                                    name, it->second.region));
      saved.push_back(tb::OutputSaverOp::create(
          builder, loc, resultTypes[i], v.value,
          tb::GridMapAttr::get(builder.getContext(), omap)));
    }
    tb::YieldOp::create(builder, loc, saved);
    return llvm::Error::success();
  };
  if (llvm::Error e = run()) {
    kernel.erase();
    return e;
  }
  for (auto [name, result] : llvm::zip(outputs, kernel.getResults()))
    device[name] = result;
  for (const std::string &name : storedHere)
    zeroed.erase(name);
  zeroed.insert(deferredZero.begin(), deferredZero.end());
  return llvm::Error::success();
}

/// The elements of the region `index` selects in `tensor` (one per element
/// index, the tensor's size where whole); std::nullopt when a dim is tiled
/// by a loop (its size is chosen when the kernel is built).
std::optional<int64_t> getFixedRegionElements(const TileContext &context,
                                              const Term &term,
                                              const TensorInfo &tensor,
                                              unsigned index) {
  const TileOps &ops = context.getOps();
  int64_t elements = 1;
  for (auto [d, child] : llvm::enumerate(term[index].children)) {
    const ENode &e = term[child];
    if (e.op == ops.fulltile)
      elements *= tensor.shape[d];
    else if (e.op != ops.elem)
      return std::nullopt;
  }
  return elements;
}

/// Whether statement `item` stores the concatenation of two loads into a
/// region of at least `minElements` elements per block: the KV-cache append
/// of an attention block (a head's whole cache and its new rows), which a
/// block graph would hold whole in shared memory (its concatenated dim is
/// never tiled), so it gets a kernel of its own (materializeProgram makes it
/// a kn.concat).
bool isLargeConcatCopy(const TileContext &context, const Term &term,
                       unsigned item, int64_t minElements) {
  const TileOps &ops = context.getOps();
  const ENode &store = term[item];
  if (store.op != ops.store)
    return false;
  const ENode &value = term[store.children[1]];
  if (value.op != ops.concat ||
      llvm::any_of(value.children,
                   [&](unsigned child) { return term[child].op != ops.load; }))
    return false;
  const TensorInfo *tensor =
      context.getTensor(term[store.children[0]].payload.getSymbol());
  std::optional<int64_t> elements =
      tensor ? getFixedRegionElements(context, term, *tensor, store.children[2])
             : std::nullopt;
  return elements && *elements >= minElements;
}

/// A kernel that only stores the concatenation of two tensors into a third.
struct ConcatCopy {
  std::string result;
  Shape resultShape;
  std::array<std::string, 2> parts;
  int64_t dim = 0;
};

/// The kernel `root` as a ConcatCopy, when its loops together cover the
/// result: each loop variable the copy uses indexes one dim, alike in the
/// result's region and both parts' (an element per iteration, or a tile of a
/// loop over the whole dim; a loop it does not use repeats the same copy),
/// the other dims are whole, and the parts are the result cut along the
/// concatenated dim; std::nullopt otherwise.
std::optional<ConcatCopy> matchConcatCopy(const TileContext &context,
                                          const Term &term, unsigned root) {
  const TileOps &ops = context.getOps();
  const Language &language = context.getLanguage();
  SmallVector<unsigned> loops;
  unsigned current = root;
  while (term[current].op == ops.loop) {
    loops.push_back(current);
    current = term[current].children[3];
  }
  SmallVector<unsigned> items;
  for (unsigned item : getSequence(context, term, current))
    if (term[item].op != ops.dummy)
      items.push_back(item);
  if (items.size() != 1 || term[items[0]].op != ops.store)
    return std::nullopt;
  const ENode &store = term[items[0]];
  const ENode &value = term[store.children[1]];
  if (value.op != ops.concat || value.children.size() != 2 ||
      !value.payload.isInt())
    return std::nullopt;
  ConcatCopy copy;
  copy.dim = value.payload.getInt();
  auto nameOf = [&](unsigned tensorNode) {
    return language.getSymbolName(term[tensorNode].payload.getSymbol()).str();
  };
  copy.result = nameOf(store.children[0]);
  const TensorInfo *result =
      context.getTensor(term[store.children[0]].payload.getSymbol());
  if (!result)
    return std::nullopt;
  const ENode &region = term[store.children[2]];
  // The parts' regions index their dims as the result's does.
  for (auto [i, child] : llvm::enumerate(value.children)) {
    const ENode &load = term[child];
    if (load.op != ops.load)
      return std::nullopt;
    copy.parts[i] = nameOf(load.children[0]);
    const ENode &partRegion = term[load.children[1]];
    if (partRegion.children.size() != region.children.size())
      return std::nullopt;
    for (auto [d, pair] :
         llvm::enumerate(llvm::zip(partRegion.children, region.children))) {
      const ENode &a = term[std::get<0>(pair)], &b = term[std::get<1>(pair)];
      if (a.op != b.op || a.payload != b.payload ||
          (int64_t(d) == copy.dim && a.op != ops.fulltile))
        return std::nullopt;
    }
  }
  // Every loop that indexes the copy indexes one dim and covers it; every
  // other dim is whole.
  SmallVector<bool> covered(region.children.size(), false);
  for (unsigned loopNode : loops) {
    const ENode &loop = term[loopNode];
    auto start = getConstant(context, term[loop.children[0]]);
    auto end = getConstant(context, term[loop.children[1]]);
    std::optional<double> step = getConstant(context, term[loop.children[2]]);
    if (!start || !end || *start != 0)
      return std::nullopt;
    int64_t indexed = -1;
    for (auto [d, child] : llvm::enumerate(region.children)) {
      const ENode &e = term[child];
      if ((e.op == ops.tile || e.op == ops.elem) && e.payload == loop.payload) {
        if (indexed >= 0)
          return std::nullopt;
        indexed = d;
      }
    }
    // A loop the copy does not index writes the same part every time.
    if (indexed < 0)
      continue;
    if (covered[indexed])
      return std::nullopt;
    int64_t size = result->shape[indexed];
    bool element = term[region.children[indexed]].op == ops.elem;
    bool whole =
        element ? step && *end == *step * double(size) : *end == double(size);
    if (!whole)
      return std::nullopt;
    covered[indexed] = true;
  }
  for (auto [d, child] : llvm::enumerate(region.children))
    if (!covered[d] && term[child].op != ops.fulltile)
      return std::nullopt;
  // The parts are the result, cut along the concatenated dim.
  int64_t along = 0;
  for (const std::string &part : copy.parts) {
    const TensorInfo *info = context.lookupTensor(part);
    if (!info || info->shape.size() != result->shape.size())
      return std::nullopt;
    for (auto [d, size] : llvm::enumerate(info->shape))
      if (int64_t(d) != copy.dim && size != result->shape[d])
        return std::nullopt;
    along += info->shape[copy.dim];
  }
  if (along != result->shape[copy.dim])
    return std::nullopt;
  copy.resultShape = result->shape;
  return copy;
}

} // namespace

Term mirage::tile::splitForBlockGraphs(const TileContext &context,
                                       const Term &term,
                                       int64_t concatCopyElements) {
  const TileOps &ops = context.getOps();
  std::vector<TileData> data = analyzeTermNodes(context, term);
  Term out = term;
  SmallVector<unsigned> kernels;
  for (unsigned root : getSequence(context, term, term.getRoot())) {
    // The grid loops.
    SmallVector<unsigned> grid;
    unsigned current = root;
    while (grid.size() < 3 && term[current].op == ops.loop) {
      unsigned body = term[current].children[3];
      if (!isParallelLoop(context, data[body],
                          term[current].payload.getSymbol()))
        break;
      grid.push_back(current);
      current = body;
    }
    if (grid.empty()) {
      kernels.push_back(root);
      continue;
    }
    // Parts of the block's chain.
    SmallVector<SmallVector<unsigned>> parts(1);
    TileData written;
    bool sequential = false, afterCopy = false;
    SmallVector<unsigned> items = getSequence(context, term, current);
    // What the chain does from each item on: a cut before item i is a loop
    // fission between the part and all of it.
    std::vector<TileData> suffix(items.size());
    for (size_t i = items.size(); i-- > 0;)
      suffix[i] = i + 1 == items.size()
                      ? data[items[i]]
                      : sequenceData(data[items[i]], suffix[i + 1]);
    for (auto [position, item] : llvm::enumerate(items)) {
      const TileData &d = data[item];
      bool loop = term[item].op == ops.loop;
      bool copy = isLargeConcatCopy(context, term, item, concatCopyElements);
      // A loop's accesses cover all its iterations; its body's are per
      // iteration (a tile of what an earlier statement stored whole).
      const TileData &perIteration = loop ? data[term[item].children[3]] : d;
      bool readBack = llvm::any_of(perIteration.reads, [&](const Access &read) {
        return llvm::any_of(
                   written.writes,
                   [&](const Access &w) { return w.tensor == read.tensor; }) &&
               !llvm::is_contained(written.writes, read);
      });
      if (!parts.back().empty() &&
          ((loop && sequential) || readBack || copy || afterCopy)) {
        // Fission of every grid loop between the part and the rest must be
        // valid.
        bool valid = llvm::all_of(grid, [&](unsigned g) {
          return !conflictsAcrossIterations(written, suffix[position],
                                            term[g].payload.getSymbol());
        });
        if (valid) {
          parts.emplace_back();
          written = TileData();
          sequential = false;
        }
      }
      parts.back().push_back(item);
      written = parts.back().size() == 1 ? d : sequenceData(written, d);
      sequential |= loop;
      afterCopy = copy;
    }
    if (parts.size() == 1) {
      kernels.push_back(root);
      continue;
    }
    for (const SmallVector<unsigned> &part : parts) {
      unsigned body = part.back();
      for (unsigned item : llvm::reverse(ArrayRef<unsigned>(part).drop_back()))
        body = out.add(ENode(ops.seq, {item, body}));
      for (unsigned g : llvm::reverse(grid)) {
        ENode loop = term[g];
        loop.children[3] = body;
        body = out.add(std::move(loop));
      }
      kernels.push_back(body);
    }
  }
  if (kernels.size() == getSequence(context, term, term.getRoot()).size())
    return term;
  unsigned chain = kernels.back();
  for (unsigned k : llvm::reverse(ArrayRef<unsigned>(kernels).drop_back()))
    chain = out.add(ENode(ops.seq, {k, chain}));
  return out;
}

llvm::Expected<func::FuncOp>
mirage::tile::materializeProgram(OpBuilder &builder, Location loc,
                                 StringRef name, FunctionType type,
                                 const TileProgram &program, const Term &term,
                                 const MaterializeOptions &options) {
  const TileContext &context = *program.context;
  const TileOps &ops = context.getOps();
  auto function = func::FuncOp::create(builder, loc, name, type);
  OpBuilder::InsertionGuard guard(builder);
  Block *entry = function.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  llvm::StringMap<Value> device;
  for (auto [input, arg] : llvm::zip(program.inputs, entry->getArguments()))
    device[input] = arg;
  SmallVector<unsigned> kernels = getSequence(context, term, term.getRoot());
  std::vector<TileData> data = analyzeTermNodes(context, term);
  // Per kernel, the tensors later kernels load.
  std::vector<std::set<std::string>> loads(kernels.size());
  for (auto [k, root] : llvm::enumerate(kernels)) {
    std::vector<unsigned> work{root};
    std::set<unsigned> visited;
    while (!work.empty()) {
      unsigned n = work.back();
      work.pop_back();
      if (!visited.insert(n).second)
        continue;
      const ENode &node = term[n];
      if (node.op == ops.load)
        loads[k].insert(
            context.getLanguage()
                .getSymbolName(term[node.children[0]].payload.getSymbol())
                .str());
      for (unsigned child : node.children)
        work.push_back(child);
    }
  }
  // Statements that only zero accumulators belong to the kernel that sums
  // into them (a block graph's accumulators start at zero).
  std::set<std::string> zeroed;
  // Kernels are numbered as the cost model's estimates count them (without
  // the statements that only zero accumulators).
  unsigned kernelNumber = 0;
  std::function<bool(unsigned, std::set<std::string> &)> zeroOnly =
      [&](unsigned n, std::set<std::string> &names) -> bool {
    const ENode &node = term[n];
    if (node.op == ops.seq)
      return zeroOnly(node.children[0], names) &&
             zeroOnly(node.children[1], names);
    if (node.op == ops.loop)
      return zeroOnly(node.children[3], names);
    if (node.op == ops.dummy)
      return true;
    if (node.op != ops.store)
      return false;
    std::optional<double> c = getConstant(context, term[node.children[1]]);
    if (!c || *c != 0)
      return false;
    names.insert(context.getLanguage()
                     .getSymbolName(term[node.children[0]].payload.getSymbol())
                     .str());
    return true;
  };
  for (auto [k, root] : llvm::enumerate(kernels)) {
    if (term[root].op == ops.dummy)
      continue;
    std::set<std::string> names;
    if (zeroOnly(root, names)) {
      zeroed.insert(names.begin(), names.end());
      continue;
    }
    ++kernelNumber;
    // A whole concatenation (the KV-cache append split off by
    // splitForBlockGraphs) is kn.concat, which the default block graphs tile
    // along any dim.
    if (auto copy = matchConcatCopy(context, term, root)) {
      Value first = device.lookup(copy->parts[0]);
      Value second = device.lookup(copy->parts[1]);
      if (first && second) {
        device[copy->result] = kn::ConcatOp::create(
            builder, loc,
            RankedTensorType::get(copy->resultShape, program.elementType),
            ValueRange{first, second}, copy->dim);
        zeroed.erase(copy->result);
        continue;
      }
    }
    std::set<std::string> later;
    for (size_t j = k + 1; j < kernels.size(); ++j)
      later.insert(loads[j].begin(), loads[j].end());
    KernelBuilder kernel(builder, loc, program, term, data, options, root,
                         device, later, zeroed);
    if (llvm::Error e = kernel.build()) {
      function.erase();
      return llvm::createStringError(llvm::formatv("kernel {0}: {1}",
                                                   kernelNumber,
                                                   llvm::toString(std::move(e)))
                                         .str());
    }
  }
  SmallVector<Value> results;
  for (const std::string &output : program.outputs) {
    Value v = device.lookup(output);
    if (!v) {
      function.erase();
      return llvm::createStringError("no kernel writes " + output);
    }
    results.push_back(v);
  }
  func::ReturnOp::create(builder, loc, results);
  return function;
}
