//===- Cost.cpp - What a tile program costs on a GPU ----------------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/TileEqsat/Cost.h"

#include "mirage/TileEqsat/Analysis.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <map>
#include <set>

using namespace mirage;
using namespace mirage::tile;
using namespace mirage::egraph;
using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::StringRef;

namespace {

using Path = SmallVector<unsigned, 4>;

bool isPrefix(ArrayRef<unsigned> a, ArrayRef<unsigned> b) {
  return a.size() <= b.size() && a == b.take_front(a.size());
}
/// Two places of one kernel are nested (one's loops enclose the other's).
bool nested(ArrayRef<unsigned> a, ArrayRef<unsigned> b) {
  return isPrefix(a, b) || isPrefix(b, a);
}

class Estimator {
public:
  Estimator(const TileContext &context, const Term &term,
            const CostOptions &options)
      : context(context), ops(context.getOps()), term(term), options(options),
        data(analyzeTermNodes(context, term)) {}

  ProgramEstimate run();

private:
  struct Places {
    std::map<SymbolId, std::vector<Path>> stores, loads;
  };
  int64_t stepOf(unsigned loop);
  int64_t tripsOf(unsigned loop);
  void collect(unsigned node, Path &path, Places &places, bool inValue);
  std::optional<Shape> shapeOf(unsigned node,
                               llvm::DenseMap<unsigned, Shape> &shapes);
  void visit(unsigned node, double multiplicity, Path &path,
             KernelEstimate &kernel, unsigned kernelIndex);
  bool onChipLoad(unsigned kernel, SymbolId tensor, ArrayRef<unsigned> path);
  bool deviceStore(unsigned kernel, SymbolId tensor, ArrayRef<unsigned> path,
                   bool &spill);
  bool zeroOnly(unsigned node);

  const TileContext &context;
  const TileOps &ops;
  const Term &term;
  const CostOptions &options;
  std::vector<TileData> data;
  std::vector<Places> places;
  /// Kernels that load each tensor.
  std::map<SymbolId, std::set<unsigned>> loadKernels;
  llvm::DenseMap<SymbolId, int64_t> steps;
};

int64_t Estimator::stepOf(unsigned loop) {
  const ENode &node = term[loop];
  std::optional<double> start = getConstant(context, term[node.children[0]]);
  std::optional<double> end = getConstant(context, term[node.children[1]]);
  int64_t extent = start && end ? int64_t(*end - *start) : 1;
  const ENode &step = term[node.children[2]];
  if (std::optional<double> c = getConstant(context, step))
    return std::max<int64_t>(1, int64_t(*c));
  if (step.op == ops.tsize)
    return chooseTileSize(options.sizes,
                          context.getLanguage().getSymbolName(
                              step.payload.getSymbol()),
                          std::max<int64_t>(1, extent));
  return 1;
}

int64_t Estimator::tripsOf(unsigned loop) {
  const ENode &node = term[loop];
  std::optional<double> start = getConstant(context, term[node.children[0]]);
  std::optional<double> end = getConstant(context, term[node.children[1]]);
  if (!start || !end)
    return 1;
  int64_t step = stepOf(loop);
  return std::max<int64_t>(1, (int64_t(*end - *start) + step - 1) / step);
}

void Estimator::collect(unsigned node, Path &path, Places &places,
                        bool inValue) {
  const ENode &n = term[node];
  if (n.op == ops.seq) {
    for (unsigned child : n.children)
      collect(child, path, places, false);
    return;
  }
  if (n.op == ops.loop) {
    path.push_back(node);
    collect(n.children[3], path, places, false);
    path.pop_back();
    return;
  }
  if (n.op == ops.store) {
    places.stores[term[n.children[0]].payload.getSymbol()].push_back(path);
    collect(n.children[1], path, places, true);
    return;
  }
  if (n.op == ops.load) {
    places.loads[term[n.children[0]].payload.getSymbol()].push_back(path);
    return;
  }
  if (inValue)
    for (unsigned child : n.children)
      collect(child, path, places, true);
}

bool Estimator::onChipLoad(unsigned kernel, SymbolId tensor,
                           ArrayRef<unsigned> path) {
  const TensorInfo *info = context.getTensor(tensor);
  if (!info || info->kind != TensorKind::Variable)
    return false;
  auto it = places[kernel].stores.find(tensor);
  if (it == places[kernel].stores.end())
    return false;
  return llvm::any_of(it->second,
                      [&](const Path &store) { return nested(store, path); });
}

bool Estimator::deviceStore(unsigned kernel, SymbolId tensor,
                            ArrayRef<unsigned> path, bool &spill) {
  spill = false;
  const TensorInfo *info = context.getTensor(tensor);
  if (!info || info->kind != TensorKind::Variable)
    return true;
  for (unsigned other : loadKernels[tensor])
    if (other != kernel)
      return true;
  auto it = places[kernel].loads.find(tensor);
  if (it != places[kernel].loads.end())
    for (const Path &load : it->second)
      if (!nested(load, path)) {
        spill = true;
        return true;
      }
  return false;
}

std::optional<Shape>
Estimator::shapeOf(unsigned node, llvm::DenseMap<unsigned, Shape> &shapes) {
  if (auto it = shapes.find(node); it != shapes.end())
    return it->second;
  const ENode &n = term[node];
  Shape shape;
  if (getConstant(context, n)) {
  } else if (n.op == ops.load) {
    const TensorInfo *info =
        context.getTensor(term[n.children[0]].payload.getSymbol());
    const ENode &index = term[n.children[1]];
    if (!info || index.children.size() != info->shape.size())
      return std::nullopt;
    for (auto [size, e] : llvm::zip(info->shape, index.children)) {
      const ENode &element = term[e];
      if (element.op == ops.fulltile)
        shape.push_back(size);
      else if (element.op == ops.elem)
        shape.push_back(1);
      else if (element.op == ops.tile)
        shape.push_back(steps.lookup(element.payload.getSymbol()));
      else if (element.op == ops.constTile)
        shape.push_back(
            int64_t(getConstant(context, term[element.children[1]])
                        .value_or(1)));
      else
        return std::nullopt;
    }
  } else if (context.isValueOp(n.op)) {
    SmallVector<Shape, 2> operands;
    SmallVector<int64_t> permutation;
    for (auto [i, child] : llvm::enumerate(n.children)) {
      if (n.op == ops.permute && i > 0) {
        permutation.push_back(
            int64_t(getConstant(context, term[child]).value_or(0)));
        continue;
      }
      std::optional<Shape> s = shapeOf(child, shapes);
      if (!s)
        return std::nullopt;
      operands.push_back(*s);
    }
    SmallVector<ArrayRef<int64_t>> refs(operands.begin(), operands.end());
    auto record = getValueOpRecord(context, n, refs, permutation);
    if (!record) {
      llvm::consumeError(record.takeError());
      return std::nullopt;
    }
    auto results = inferShapes(record->first, refs, record->second);
    if (!results) {
      llvm::consumeError(results.takeError());
      return std::nullopt;
    }
    shape = (*results)[0];
  } else {
    return std::nullopt;
  }
  shapes[node] = shape;
  return shape;
}

void Estimator::visit(unsigned node, double multiplicity, Path &path,
                      KernelEstimate &kernel, unsigned kernelIndex) {
  const ENode &n = term[node];
  if (n.op == ops.seq) {
    for (unsigned child : n.children)
      visit(child, multiplicity, path, kernel, kernelIndex);
    return;
  }
  if (n.op == ops.loop) {
    int64_t trips = tripsOf(node);
    SymbolId var = n.payload.getSymbol();
    steps[var] = stepOf(node);
    kernel.loops.push_back(
        {context.getLanguage().getSymbolName(var).str(), trips});
    kernel.iterations += int64_t(multiplicity) * trips;
    path.push_back(node);
    visit(n.children[3], multiplicity * trips, path, kernel, kernelIndex);
    path.pop_back();
    return;
  }
  if (n.op != ops.store)
    return;
  ++kernel.statements;
  double bytes = options.elementBytes;
  llvm::DenseMap<unsigned, Shape> shapes;
  std::set<unsigned> seen;
  std::vector<unsigned> work{n.children[1]};
  while (!work.empty()) {
    unsigned v = work.back();
    work.pop_back();
    if (!seen.insert(v).second)
      continue;
    const ENode &value = term[v];
    if (value.op == ops.load) {
      SymbolId tensor = term[value.children[0]].payload.getSymbol();
      if (!onChipLoad(kernelIndex, tensor, path))
        if (std::optional<Shape> s = shapeOf(v, shapes))
          kernel.deviceBytes +=
              multiplicity * bytes * double(getNumElements(*s));
      continue;
    }
    if (!context.isValueOp(value.op))
      continue;
    std::optional<Shape> out = shapeOf(v, shapes);
    SmallVector<Shape, 2> in;
    SmallVector<int64_t> permutation;
    bool ok = bool(out);
    for (auto [i, child] : llvm::enumerate(value.children)) {
      if (value.op == ops.permute && i > 0) {
        permutation.push_back(
            int64_t(getConstant(context, term[child]).value_or(0)));
        continue;
      }
      work.push_back(child);
      std::optional<Shape> s = shapeOf(child, shapes);
      ok &= bool(s);
      if (s)
        in.push_back(*s);
    }
    if (!ok)
      continue;
    SmallVector<ArrayRef<int64_t>> refs(in.begin(), in.end());
    auto record = getValueOpRecord(context, value, refs, permutation);
    if (!record) {
      llvm::consumeError(record.takeError());
      continue;
    }
    Flops f = getFlops(record->first, record->second, refs, *out,
                       options.elementBytes);
    kernel.flops.tensor += multiplicity * f.tensor;
    kernel.flops.simt += multiplicity * f.simt;
  }
  SymbolId tensor = term[n.children[0]].payload.getSymbol();
  bool spill = false;
  if (deviceStore(kernelIndex, tensor, path, spill)) {
    // The region stored.
    const TensorInfo *info = context.getTensor(tensor);
    const ENode &index = term[n.children[2]];
    double elements = 1;
    if (info)
      for (auto [size, e] : llvm::zip(info->shape, index.children)) {
        const ENode &element = term[e];
        if (element.op == ops.fulltile)
          elements *= size;
        else if (element.op == ops.tile)
          elements *= steps.lookup(element.payload.getSymbol());
        else if (element.op == ops.constTile)
          elements *= getConstant(context, term[element.children[1]])
                          .value_or(1);
      }
    kernel.deviceBytes += multiplicity * bytes * elements;
    if (spill) {
      std::string name = context.getLanguage().getSymbolName(tensor).str();
      if (!llvm::is_contained(kernel.spills, name))
        kernel.spills.push_back(name);
    }
  }
}

/// A statement that only zeroes accumulators: part of the kernel that sums
/// into them, no kernel of its own.
bool Estimator::zeroOnly(unsigned node) {
  const ENode &n = term[node];
  if (n.op == ops.seq)
    return zeroOnly(n.children[0]) && zeroOnly(n.children[1]);
  if (n.op == ops.loop)
    return zeroOnly(n.children[3]);
  if (n.op == ops.store) {
    std::optional<double> c = getConstant(context, term[n.children[1]]);
    return c && *c == 0;
  }
  return n.op == ops.dummy;
}

ProgramEstimate Estimator::run() {
  ProgramEstimate estimate;
  if (term.empty())
    return estimate;
  SmallVector<unsigned> kernels = getSequence(context, term, term.getRoot());
  places.resize(kernels.size());
  for (auto [k, root] : llvm::enumerate(kernels)) {
    Path path;
    collect(root, path, places[k], false);
    for (auto &[tensor, paths] : places[k].loads)
      loadKernels[tensor].insert(k);
  }
  const DeviceModel &device = options.device;
  for (auto [k, root] : llvm::enumerate(kernels)) {
    if (term[root].op == ops.dummy || zeroOnly(root))
      continue;
    KernelEstimate kernel;
    kernel.root = root;
    unsigned current = root;
    Path path;
    while (kernel.grid.size() < 3 && term[current].op == ops.loop) {
      const ENode &loop = term[current];
      unsigned body = loop.children[3];
      SymbolId var = loop.payload.getSymbol();
      if (!isParallelLoop(context, data[body], var))
        break;
      int64_t trips = tripsOf(current);
      steps[var] = stepOf(current);
      kernel.grid.push_back(
          {context.getLanguage().getSymbolName(var).str(), trips});
      kernel.blocks *= trips;
      path.push_back(current);
      current = body;
    }
    visit(current, 1.0, path, kernel, k);
    double sms = double(device.sms);
    double active = std::min<double>(double(kernel.blocks), sms);
    double perBlockBandwidth =
        std::min(device.dramBytesPerUs / active, device.l2BytesPerUs / sms);
    double blockUs = kernel.flops.tensor / (device.tensorFlopsPerUs / sms) +
                     kernel.flops.simt / (device.simtFlopsPerUs / sms) +
                     kernel.deviceBytes / perBlockBandwidth +
                     double(kernel.iterations) * device.iterationUs +
                     device.postLoopUs;
    double waves = std::ceil(double(kernel.blocks) / sms);
    double memory =
        double(kernel.blocks) * kernel.deviceBytes / device.dramBytesPerUs;
    Flops total{kernel.flops.tensor * double(kernel.blocks),
                kernel.flops.simt * double(kernel.blocks)};
    kernel.us = device.launchUs +
                std::max({memory, total.time(device), waves * blockUs});
    estimate.us += kernel.us;
    estimate.kernels.push_back(std::move(kernel));
  }
  return estimate;
}

} // namespace

std::string ProgramEstimate::describe() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << kernels.size() << (kernels.size() == 1 ? " kernel" : " kernels");
  for (const KernelEstimate &k : kernels) {
    os << " [grid";
    if (k.grid.empty())
      os << " 1";
    for (auto &[var, trips] : k.grid)
      os << " " << var << "=" << trips;
    if (!k.loops.empty()) {
      os << "; loops";
      for (auto &[var, trips] : k.loops)
        os << " " << var << "x" << trips;
    }
    os << "; " << k.statements << " stores";
    if (!k.spills.empty())
      os << "; spills " << llvm::join(k.spills, ", ");
    os << llvm::formatv("; {0:f1} us]", k.us);
  }
  return text;
}

ProgramEstimate mirage::tile::estimateProgram(const TileContext &context,
                                              const Term &term,
                                              const CostOptions &options) {
  return Estimator(context, term, options).run();
}
