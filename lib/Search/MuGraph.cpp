//===- MuGraph.cpp - Printing and JSON of µGraphs -------------------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage/Search/MuGraph.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mirage;
using namespace mirage::search;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

bool BlockSkeleton::isLooped() const {
  return llvm::any_of(nodes,
                      [](const BlockNode &n) { return n.phase == Phase::Accum; });
}

unsigned BlockSkeleton::getNumOps() const { return nodes.size() - numInputs; }

unsigned BlockSkeleton::getNumComputeOps() const {
  return llvm::count_if(nodes, [](const BlockNode &n) {
    return n.phase == Phase::Body || n.phase == Phase::Post;
  });
}

int64_t Schedule::getNumBlocks() const {
  int64_t blocks = 1;
  for (int64_t g : grid)
    blocks *= g;
  return blocks;
}

unsigned MuGraph::getNumCustomOps() const {
  return llvm::count_if(ops, [](const KernelOp &op) { return op.isCustom(); });
}

std::optional<OpKind> search::lookupOpKind(llvm::StringRef name) {
  for (unsigned k = 0; k <= static_cast<unsigned>(OpKind::AccumRescaledSum);
       ++k) {
    auto kind = static_cast<OpKind>(k);
    if (getOpInfo(kind).name == name)
      return kind;
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Text
//===----------------------------------------------------------------------===//

namespace {

void printParams(llvm::raw_ostream &os, OpKind kind, const OpParams &params) {
  switch (getOpInfo(kind).params) {
  case ParamForm::ReduceDim:
    os << "[dim " << params.dim << (params.keepDim ? "" : " drop") << "]";
    break;
  case ParamForm::Dim:
    os << "[dim " << params.dim << "]";
    break;
  case ParamForm::Scalar:
  case ParamForm::Epsilon:
    os << "[" << llvm::format("%.17g", params.scalar) << "]";
    break;
  case ParamForm::DimSizes:
    os << "[dim " << params.dim << " " << formatShape(params.ints) << "]";
    break;
  case ParamForm::ResultShape:
  case ParamForm::Permutation:
    os << "[" << formatShape(params.ints) << "]";
    break;
  // A block graph's tiling is printed with its schedule.
  case ParamForm::Tiling:
  case ParamForm::None:
    break;
  }
}

void printList(llvm::raw_ostream &os, llvm::StringRef prefix,
               llvm::ArrayRef<unsigned> ids) {
  for (auto [index, id] : llvm::enumerate(ids))
    os << (index ? "," : "") << prefix << id;
}

std::string formatMap(llvm::ArrayRef<int64_t> dims) {
  std::string text;
  for (auto [index, dim] : llvm::enumerate(dims))
    text += (index ? "," : "") +
            (dim == kReplica ? std::string("r") : std::to_string(dim));
  return text;
}

const char *getPhaseName(Phase phase) {
  switch (phase) {
  case Phase::Input:
    return "in";
  case Phase::Body:
    return "body";
  case Phase::Accum:
    return "accum";
  case Phase::Post:
    return "post";
  }
  return "";
}

void printSkeletonTo(llvm::raw_ostream &os, const BlockSkeleton &skeleton) {
  for (auto [index, node] : llvm::enumerate(skeleton.nodes)) {
    if (node.phase == Phase::Input)
      continue;
    os << " n" << index << "=" << getOpInfo(node.kind).name;
    printParams(os, node.kind, node.params);
    os << "(";
    printList(os, "n", node.operands);
    os << ")";
    if (node.phase == Phase::Post)
      os << "'";
  }
  os << " ->";
  for (unsigned output : skeleton.outputs)
    os << " n" << output;
}

} // namespace

std::string search::printSkeleton(const BlockSkeleton &skeleton) {
  std::string text;
  llvm::raw_string_ostream os(text);
  printSkeletonTo(os, skeleton);
  return text;
}

std::string search::summarizeMuGraph(const MuGraph &graph) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(
      graph.ops, os,
      [&](const KernelOp &op) {
        if (!op.isCustom()) {
          os << getOpInfo(op.kind).name;
          return;
        }
        os << "kernel[grid " << formatShape(op.schedule.grid) << ", loop "
           << op.schedule.forloopRange << "](";
        bool first = true;
        for (const BlockNode &node : op.skeleton->nodes) {
          if (node.kind == OpKind::InputIterator)
            continue;
          os << (first ? "" : ", ") << getOpInfo(node.kind).name;
          first = false;
        }
        os << ")";
      },
      "; ");
  return text;
}

/// Whether some node of the skeleton (an iterator included) reaches none of
/// its outputs.
static bool hasDeadNodes(const BlockSkeleton &skeleton) {
  llvm::SmallVector<bool> live(skeleton.nodes.size(), false);
  for (unsigned output : skeleton.outputs)
    live[output] = true;
  for (size_t i = skeleton.nodes.size(); i-- > 0;) {
    if (!live[i])
      return true;
    for (unsigned operand : skeleton.nodes[i].operands)
      live[operand] = true;
  }
  return false;
}

bool search::hasDeadOps(const MuGraph &graph) {
  llvm::SmallVector<bool> live(graph.tensors.size(), false);
  for (unsigned output : graph.outputs)
    live[output] = true;
  for (const KernelOp &op : llvm::reverse(graph.ops)) {
    if (llvm::none_of(op.results, [&](unsigned t) { return live[t]; }))
      return true;
    // A graph-defined kernel saves only what is read: one with an unread
    // output (or a node that reaches no output) is the smaller kernel plus
    // dead work.
    if (op.isCustom() &&
        (hasDeadNodes(*op.skeleton) ||
         llvm::any_of(op.results, [&](unsigned t) { return !live[t]; })))
      return true;
    for (unsigned operand : op.operands)
      live[operand] = true;
  }
  return false;
}

std::string search::printMuGraph(const MuGraph &graph) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (const KernelOp &op : graph.ops) {
    printList(os, "t", op.results);
    os << " = ";
    if (op.isCustom()) {
      const Schedule &s = op.schedule;
      os << "kernel(";
      printList(os, "t", op.operands);
      os << ") grid " << formatShape(s.grid) << " loop " << s.forloopRange
         << " threads " << s.threads << " {";
      for (unsigned i = 0; i < op.skeleton->numInputs; ++i)
        os << " n" << i << " imap " << formatMap(s.imaps[i]) << " fmap "
           << formatMap(s.fmaps[i]) << ";";
      printSkeletonTo(os, *op.skeleton);
      for (const auto &omap : s.omaps)
        os << " omap " << formatMap(omap);
      os << " }";
    } else {
      os << getOpInfo(op.kind).name;
      printParams(os, op.kind, op.params);
      os << "(";
      printList(os, "t", op.operands);
      os << ")";
    }
    os << "; ";
  }
  os << "return ";
  printList(os, "t", graph.outputs);
  return text;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

namespace {

Array toArray(llvm::ArrayRef<int64_t> values) {
  Array array;
  for (int64_t v : values)
    array.push_back(v);
  return array;
}

Array toArray(llvm::ArrayRef<unsigned> values) {
  Array array;
  for (unsigned v : values)
    array.push_back(static_cast<int64_t>(v));
  return array;
}

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

template <typename T>
llvm::Error readInts(const Object &object, llvm::StringRef key,
                     llvm::SmallVectorImpl<T> &out) {
  const Array *array = object.getArray(key);
  if (!array)
    return makeError("missing array '" + key + "'");
  for (const Value &v : *array) {
    std::optional<int64_t> i = v.getAsInteger();
    if (!i)
      return makeError("'" + key + "' holds a non-integer");
    out.push_back(static_cast<T>(*i));
  }
  return llvm::Error::success();
}

Value scheduleToJSON(const Schedule &s) {
  Array imaps, omaps, tiles;
  for (const auto &imap : s.imaps)
    imaps.push_back(toArray(imap));
  for (const auto &omap : s.omaps)
    omaps.push_back(toArray(omap));
  for (const Shape &tile : s.tiles)
    tiles.push_back(toArray(tile));
  return Object{{"grid", toArray(s.grid)},
                {"forloop", s.forloopRange},
                {"threads", s.threads},
                {"imaps", std::move(imaps)},
                {"fmaps", toArray(s.fmaps)},
                {"omaps", std::move(omaps)},
                {"tiles", std::move(tiles)}};
}

llvm::Expected<Schedule> scheduleFromJSON(const Value &value) {
  const Object *object = value.getAsObject();
  if (!object)
    return makeError("a schedule is not an object");
  Schedule s;
  if (llvm::Error error = readInts(*object, "grid", s.grid))
    return std::move(error);
  if (llvm::Error error = readInts(*object, "fmaps", s.fmaps))
    return std::move(error);
  std::optional<int64_t> forloop = object->getInteger("forloop");
  std::optional<int64_t> threads = object->getInteger("threads");
  if (!forloop || !threads)
    return makeError("a schedule lacks 'forloop' or 'threads'");
  s.forloopRange = *forloop;
  s.threads = *threads;
  auto readNested = [&](llvm::StringRef key, auto &out) -> llvm::Error {
    const Array *array = object->getArray(key);
    if (!array)
      return makeError("missing array '" + key + "'");
    for (const Value &entry : *array) {
      const Array *inner = entry.getAsArray();
      if (!inner)
        return makeError("'" + key + "' holds a non-array");
      out.emplace_back();
      for (const Value &v : *inner) {
        std::optional<int64_t> i = v.getAsInteger();
        if (!i)
          return makeError("'" + key + "' holds a non-integer");
        out.back().push_back(*i);
      }
    }
    return llvm::Error::success();
  };
  if (llvm::Error error = readNested("imaps", s.imaps))
    return std::move(error);
  if (llvm::Error error = readNested("omaps", s.omaps))
    return std::move(error);
  if (llvm::Error error = readNested("tiles", s.tiles))
    return std::move(error);
  return s;
}

/// Applies operator `kind` to operands, giving the result's shape and
/// expression, or why the operator does not apply.
llvm::Expected<KernelTensor> apply(OpKind kind, const OpParams &params,
                                   llvm::ArrayRef<const KernelTensor *> in,
                                   ExprContext &context) {
  llvm::SmallVector<llvm::ArrayRef<int64_t>, 3> shapes;
  llvm::SmallVector<ExprId, 3> exprs;
  for (const KernelTensor *t : in) {
    shapes.push_back(t->shape);
    exprs.push_back(t->expr);
  }
  auto inferred = inferShapes(kind, shapes, params);
  if (!inferred)
    return inferred.takeError();
  if (inferred->size() != 1)
    return makeError("operator '" + getOpInfo(kind).name +
                     "' has more than one result");
  return KernelTensor{inferred->front(),
                      getAbstractExpr(kind, exprs, shapes, params, context)};
}

} // namespace

Value search::toJSON(const OpParams &params) {
  return Object{{"dim", params.dim},
                {"keepdim", params.keepDim},
                {"scalar", params.scalar},
                {"ints", toArray(params.ints)}};
}

llvm::Expected<OpParams> search::paramsFromJSON(const Value &value) {
  const Object *object = value.getAsObject();
  if (!object)
    return makeError("operator parameters are not an object");
  OpParams params;
  std::optional<int64_t> dim = object->getInteger("dim");
  std::optional<bool> keepDim = object->getBoolean("keepdim");
  std::optional<double> scalar = object->getNumber("scalar");
  if (!dim || !keepDim || !scalar)
    return makeError("operator parameters lack 'dim', 'keepdim' or 'scalar'");
  params.dim = *dim;
  params.keepDim = *keepDim;
  params.scalar = *scalar;
  if (llvm::Error error = readInts(*object, "ints", params.ints))
    return std::move(error);
  return params;
}

Value search::toJSON(const BlockSkeleton &skeleton) {
  Array nodes;
  for (const BlockNode &node : skeleton.nodes) {
    if (node.phase == Phase::Input)
      continue;
    nodes.push_back(Object{{"op", getOpInfo(node.kind).name},
                           {"phase", getPhaseName(node.phase)},
                           {"params", toJSON(node.params)},
                           {"operands", toArray(node.operands)}});
  }
  return Object{{"inputs", static_cast<int64_t>(skeleton.numInputs)},
                {"nodes", std::move(nodes)},
                {"outputs", toArray(skeleton.outputs)}};
}

llvm::Expected<std::shared_ptr<const BlockSkeleton>>
search::skeletonFromJSON(const Value &value,
                         llvm::ArrayRef<KernelTensor> operands,
                         ExprContext &context) {
  const Object *object = value.getAsObject();
  if (!object)
    return makeError("a block graph is not an object");
  auto skeleton = std::make_shared<BlockSkeleton>();
  std::optional<int64_t> inputs = object->getInteger("inputs");
  if (!inputs || *inputs != static_cast<int64_t>(operands.size()))
    return makeError("a block graph's input count does not match its operands");
  skeleton->numInputs = operands.size();
  for (const KernelTensor &operand : operands)
    skeleton->nodes.push_back(BlockNode{Phase::Input, OpKind::InputIterator,
                                        OpParams(), {}, operand.shape,
                                        operand.expr});
  const Array *nodes = object->getArray("nodes");
  if (!nodes)
    return makeError("a block graph lacks 'nodes'");
  for (const Value &entry : *nodes) {
    const Object *node = entry.getAsObject();
    if (!node)
      return makeError("a block-graph node is not an object");
    std::optional<llvm::StringRef> name = node->getString("op");
    std::optional<llvm::StringRef> phaseName = node->getString("phase");
    std::optional<OpKind> kind = name ? lookupOpKind(*name) : std::nullopt;
    if (!kind || !phaseName)
      return makeError("a block-graph node lacks a known 'op' or a 'phase'");
    BlockNode result;
    result.kind = *kind;
    if (*phaseName == "body")
      result.phase = Phase::Body;
    else if (*phaseName == "accum")
      result.phase = Phase::Accum;
    else if (*phaseName == "post")
      result.phase = Phase::Post;
    else
      return makeError("unknown block-graph phase '" + *phaseName + "'");
    const Value *params = node->get("params");
    if (!params)
      return makeError("a block-graph node lacks 'params'");
    auto parsed = paramsFromJSON(*params);
    if (!parsed)
      return parsed.takeError();
    result.params = std::move(*parsed);
    if (llvm::Error error = readInts(*node, "operands", result.operands))
      return std::move(error);
    llvm::SmallVector<const KernelTensor *, 3> in;
    llvm::SmallVector<KernelTensor, 3> storage;
    storage.reserve(result.operands.size());
    for (unsigned operand : result.operands) {
      if (operand >= skeleton->nodes.size())
        return makeError("a block-graph node uses a later node");
      const BlockNode &def = skeleton->nodes[operand];
      storage.push_back(KernelTensor{def.shape, def.expr});
      in.push_back(&storage.back());
    }
    if (result.phase == Phase::Accum) {
      if (in.size() != 1)
        return makeError("an accumulator takes one operand");
      result.shape = in[0]->shape;
      result.expr = in[0]->expr;
    } else {
      auto applied = apply(result.kind, result.params, in, context);
      if (!applied)
        return applied.takeError();
      result.shape = applied->shape;
      result.expr = applied->expr;
    }
    skeleton->nodes.push_back(std::move(result));
  }
  if (llvm::Error error = readInts(*object, "outputs", skeleton->outputs))
    return std::move(error);
  for (unsigned output : skeleton->outputs)
    if (output >= skeleton->nodes.size())
      return makeError("a block-graph output is not a node");
  return std::shared_ptr<const BlockSkeleton>(std::move(skeleton));
}

Value search::toJSON(const MuGraph &graph) {
  Array ops;
  for (const KernelOp &op : graph.ops) {
    Object entry{{"operands", toArray(op.operands)}};
    if (op.isCustom()) {
      entry["kernel"] = toJSON(*op.skeleton);
      entry["schedule"] = scheduleToJSON(op.schedule);
    } else {
      entry["op"] = getOpInfo(op.kind).name;
      entry["params"] = toJSON(op.params);
    }
    ops.push_back(std::move(entry));
  }
  return Object{{"inputs", static_cast<int64_t>(graph.numInputs)},
                {"ops", std::move(ops)},
                {"outputs", toArray(graph.outputs)}};
}

llvm::Expected<MuGraph> search::muGraphFromJSON(
    const Value &value, llvm::ArrayRef<KernelTensor> inputs,
    ExprContext &context) {
  const Object *object = value.getAsObject();
  if (!object)
    return makeError("a µGraph is not an object");
  MuGraph graph;
  graph.numInputs = inputs.size();
  graph.tensors.assign(inputs.begin(), inputs.end());
  std::optional<int64_t> numInputs = object->getInteger("inputs");
  if (!numInputs || *numInputs != static_cast<int64_t>(inputs.size()))
    return makeError("a µGraph's input count does not match the program");
  const Array *ops = object->getArray("ops");
  if (!ops)
    return makeError("a µGraph lacks 'ops'");
  for (const Value &entry : *ops) {
    const Object *opObject = entry.getAsObject();
    if (!opObject)
      return makeError("a kernel op is not an object");
    KernelOp op;
    if (llvm::Error error = readInts(*opObject, "operands", op.operands))
      return std::move(error);
    llvm::SmallVector<KernelTensor, 4> operands;
    for (unsigned operand : op.operands) {
      if (operand >= graph.tensors.size())
        return makeError("a kernel op uses a later tensor");
      operands.push_back(graph.tensors[operand]);
    }
    llvm::SmallVector<KernelTensor, 2> results;
    if (const Value *kernel = opObject->get("kernel")) {
      auto skeleton = skeletonFromJSON(*kernel, operands, context);
      if (!skeleton)
        return skeleton.takeError();
      op.skeleton = *skeleton;
      const Value *schedule = opObject->get("schedule");
      if (!schedule)
        return makeError("a graph-defined kernel lacks its 'schedule'");
      auto parsed = scheduleFromJSON(*schedule);
      if (!parsed)
        return parsed.takeError();
      op.schedule = std::move(*parsed);
      if (op.schedule.tiles.size() != op.skeleton->nodes.size() ||
          op.schedule.imaps.size() != op.skeleton->numInputs ||
          op.schedule.fmaps.size() != op.skeleton->numInputs ||
          op.schedule.omaps.size() != op.skeleton->outputs.size())
        return makeError("a schedule does not match its block graph");
      for (unsigned output : op.skeleton->outputs) {
        const BlockNode &node = op.skeleton->nodes[output];
        results.push_back(KernelTensor{node.shape, node.expr});
      }
    } else {
      std::optional<llvm::StringRef> name = opObject->getString("op");
      std::optional<OpKind> kind = name ? lookupOpKind(*name) : std::nullopt;
      const Value *params = opObject->get("params");
      if (!kind || !params)
        return makeError("a kernel op lacks a known 'op' or its 'params'");
      op.kind = *kind;
      auto parsed = paramsFromJSON(*params);
      if (!parsed)
        return parsed.takeError();
      op.params = std::move(*parsed);
      llvm::SmallVector<const KernelTensor *, 3> in;
      for (const KernelTensor &t : operands)
        in.push_back(&t);
      auto applied = apply(op.kind, op.params, in, context);
      if (!applied)
        return applied.takeError();
      results.push_back(std::move(*applied));
    }
    for (KernelTensor &result : results) {
      op.results.push_back(graph.tensors.size());
      graph.tensors.push_back(std::move(result));
    }
    graph.ops.push_back(std::move(op));
  }
  if (llvm::Error error = readInts(*object, "outputs", graph.outputs))
    return std::move(error);
  for (unsigned output : graph.outputs)
    if (output >= graph.tensors.size())
      return makeError("a µGraph output is not a tensor");
  return graph;
}
