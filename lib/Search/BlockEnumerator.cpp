//===- BlockEnumerator.cpp - Block-graph skeletons in canonical order -----===//
//
// The block level of Algorithm 1 (GenerateNextBlockOperator), on whole
// tensors: loop-body operators over the iterators are added in increasing
// key order; the body may close when every iterator is read, either
//
//  - without a loop: the body's dangling values are the outputs; or
//  - with one: each dangling value gets an accumulator, after which
//    post-loop operators on accumulated values follow, and the graph closes
//    whenever its dangling values (accumulators and post-loop results) are
//    few enough to be its outputs.
//
// Each operator's expression passes the subexpression test before its
// branch is explored. A graph needs at least two compute operators: a
// single one is a predefined kernel operator.
//
//===----------------------------------------------------------------------===//

#include "SearchContext.h"

#include "llvm/Support/raw_ostream.h"

using namespace mirage;
using namespace mirage::search;
using namespace mirage::search::detail;
using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::SmallVectorImpl;

namespace {

/// Whether operators of `phase` may read `node`: loop-body operators read
/// iterators and body results, post-loop ones accumulators and post results.
bool isVisibleIn(const BlockNode &node, Phase phase) {
  if (phase == Phase::Body)
    return node.phase == Phase::Input || node.phase == Phase::Body;
  return node.phase == Phase::Accum || node.phase == Phase::Post;
}

struct BlockState {
  BlockSkeleton skeleton;
  SmallVector<unsigned, 16> uses;
  OpKey lastKey;
};

class BlockSearch {
public:
  BlockSearch(SearchContext &context, SkeletonEnumerator::List &out)
      : context(context), options(context.options), out(out) {}

  /// The operators that may follow in `phase`: `inherited`, the parent's
  /// choices after the one just taken (they stay valid, except one that
  /// recomputes the newest node), then those reading the newest node. With
  /// no inherited list, all of them.
  void getChoices(const BlockState &state, Phase phase,
                  std::optional<ArrayRef<OpChoice>> inherited,
                  SmallVectorImpl<OpChoice> &choices) {
    SmallVector<ValueRef, 16> values;
    for (auto [index, node] : llvm::enumerate(state.skeleton.nodes)) {
      if (isVisibleIn(node, phase))
        values.push_back({static_cast<unsigned>(index), &node.shape, node.expr});
    }
    std::optional<unsigned> newest;
    if (inherited) {
      const BlockNode &node = state.skeleton.nodes.back();
      newest = state.skeleton.nodes.size() - 1;
      for (const OpChoice &choice : *inherited)
        if (!options.abstractExprPruning || choice.result.expr != node.expr ||
            choice.result.shape != node.shape)
          choices.push_back(choice);
    }
    context.enumerateOps(values, context.blockVocabulary, state.lastKey,
                         choices, newest);
  }

  /// False when the dangling values (unread iterators, unused results) are
  /// too many for the operators left to bring down to the outputs: each
  /// operator reads at most two of them and adds one.
  bool canClose(const BlockState &state, Phase phase) const {
    const BlockSkeleton &skeleton = state.skeleton;
    unsigned dangling = 0;
    for (auto [index, node] : llvm::enumerate(skeleton.nodes))
      dangling += state.uses[index] == 0 && isVisibleIn(node, phase);
    unsigned left = options.maxBlockOps - skeleton.getNumOps();
    return dangling <= options.maxBlockOutputs + left;
  }

  void push(BlockState &state, const OpChoice &choice, Phase phase) {
    const OpTemplate &t = context.blockVocabulary[choice.templateIndex];
    BlockNode node;
    node.phase = phase;
    node.kind = t.kind;
    node.params = choice.params;
    node.operands.assign(choice.operands.begin(), choice.operands.end());
    node.shape = choice.result.shape;
    node.expr = choice.result.expr;
    for (unsigned operand : node.operands)
      ++state.uses[operand];
    state.skeleton.nodes.push_back(std::move(node));
    state.uses.push_back(0);
    state.lastKey = choice.key;
  }

  void pop(BlockState &state, const OpKey &previousKey) {
    for (unsigned operand : state.skeleton.nodes.back().operands)
      --state.uses[operand];
    state.skeleton.nodes.pop_back();
    state.uses.pop_back();
    state.lastKey = previousKey;
  }

  void body(BlockState &state, ArrayRef<OpChoice> inherited) {
    if (context.isStopped() || !canClose(state, Phase::Body))
      return;
    const BlockSkeleton &skeleton = state.skeleton;
    unsigned ops = skeleton.getNumOps();
    bool inputsRead = llvm::all_of(
        ArrayRef<unsigned>(state.uses).take_front(skeleton.numInputs),
        [](unsigned uses) { return uses > 0; });
    if (ops > 0 && inputsRead) {
      SmallVector<unsigned, 4> sinks;
      for (unsigned n = skeleton.numInputs; n < skeleton.nodes.size(); ++n)
        if (state.uses[n] == 0)
          sinks.push_back(n);
      if (sinks.size() <= options.maxBlockOutputs)
        emit(state, sinks);
      if (ops + sinks.size() <= options.maxBlockOps) {
        // Close the loop: accumulate every dangling value.
        for (unsigned sink : sinks) {
          BlockNode accum;
          accum.phase = Phase::Accum;
          accum.kind = OpKind::AccumSum;
          accum.operands.push_back(sink);
          accum.shape = skeleton.nodes[sink].shape;
          accum.expr = skeleton.nodes[sink].expr;
          ++state.uses[sink];
          state.skeleton.nodes.push_back(std::move(accum));
          state.uses.push_back(0);
        }
        post(state, std::nullopt);
        for (unsigned sink : sinks) {
          --state.uses[sink];
          state.skeleton.nodes.pop_back();
          state.uses.pop_back();
        }
      }
    }
    if (ops < options.maxBlockOps)
      extend(state, Phase::Body, inherited);
  }

  /// `inherited` as for getChoices: none right after the accumulators.
  void post(BlockState &state, std::optional<ArrayRef<OpChoice>> inherited) {
    if (context.isStopped() || !canClose(state, Phase::Post))
      return;
    const BlockSkeleton &skeleton = state.skeleton;
    SmallVector<unsigned, 4> sinks;
    for (auto [index, node] : llvm::enumerate(skeleton.nodes))
      if ((node.phase == Phase::Accum || node.phase == Phase::Post) &&
          state.uses[index] == 0)
        sinks.push_back(index);
    if (sinks.size() <= options.maxBlockOutputs)
      emit(state, sinks);
    if (skeleton.getNumOps() < options.maxBlockOps)
      extend(state, Phase::Post, inherited);
  }

private:
  /// Explores each operator that may follow in `phase`.
  void extend(BlockState &state, Phase phase,
              std::optional<ArrayRef<OpChoice>> inherited) {
    SmallVector<OpChoice, 32> choices;
    getChoices(state, phase, inherited, choices);
    OpKey previous = state.lastKey;
    for (auto [index, choice] : llvm::enumerate(choices)) {
      push(state, choice, phase);
      auto later = ArrayRef<OpChoice>(choices).drop_front(index + 1);
      if (phase == Phase::Body)
        body(state, later);
      else
        post(state, later);
      pop(state, previous);
    }
  }

  void emit(const BlockState &state, ArrayRef<unsigned> outputs) {
    if (state.skeleton.getNumComputeOps() < 2)
      return;
    auto skeleton = std::make_shared<BlockSkeleton>(state.skeleton);
    skeleton->outputs.assign(outputs.begin(), outputs.end());
    out.push_back(std::move(skeleton));
    ++context.blockGraphs;
  }

  SearchContext &context;
  const SearchOptions &options;
  SkeletonEnumerator::List &out;
};

} // namespace

std::string
SkeletonEnumerator::getKey(ArrayRef<KernelTensor> operands) const {
  std::string key;
  for (const KernelTensor &operand : operands)
    key += formatShape(operand.shape) + ":" +
           context.exprs.print(operand.expr) + ";";
  return key;
}

std::shared_ptr<const SkeletonEnumerator::List>
SkeletonEnumerator::enumerate(ArrayRef<KernelTensor> operands,
                              bool &complete) {
  BlockState root;
  root.skeleton.numInputs = operands.size();
  for (const KernelTensor &operand : operands) {
    root.skeleton.nodes.push_back(BlockNode{Phase::Input, OpKind::InputIterator,
                                            OpParams(), {}, operand.shape,
                                            operand.expr});
    root.uses.push_back(0);
  }

  // One index per first loop-body operator; the lists are joined in order.
  // Not a ThreadPoolTaskGroup: its wait() on a pool thread runs whatever
  // task is queued first, typically a generator branch, which may then wait
  // for a list that only this stack (or a thread waiting on it) can finish.
  SkeletonEnumerator::List scratch;
  SmallVector<OpChoice, 32> choices;
  BlockSearch(context, scratch)
      .getChoices(root, Phase::Body, std::nullopt, choices);
  std::vector<SkeletonEnumerator::List> lists(choices.size());
  workSharingFor(context.pool, choices.size(), [&](size_t index) {
    BlockState state = root;
    BlockSearch search(context, lists[index]);
    search.push(state, choices[index], Phase::Body);
    search.body(state, ArrayRef<OpChoice>(choices).drop_front(index + 1));
  });
  auto result = std::make_shared<SkeletonEnumerator::List>();
  for (auto &list : lists)
    result->insert(result->end(), list.begin(), list.end());
  complete = !context.isStopped();
  return result;
}

std::shared_ptr<const SkeletonEnumerator::List>
SkeletonEnumerator::get(ArrayRef<KernelTensor> operands) {
  std::string key = getKey(operands);
  std::promise<std::shared_ptr<const List>> promise;
  std::shared_future<std::shared_ptr<const List>> future;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = entries.find(key);
    if (it != entries.end()) {
      future = it->second.list;
    } else {
      auto saved = restored.find(key);
      std::shared_ptr<List> list;
      if (saved != restored.end()) {
        // From a checkpoint: rebuild each skeleton over these operands.
        list = std::make_shared<List>();
        if (const llvm::json::Array *array = saved->second.getAsArray()) {
          for (const llvm::json::Value &value : *array) {
            std::optional<llvm::StringRef> text = value.getAsString();
            auto parsed = llvm::json::parse(text.value_or(""));
            auto skeleton =
                parsed ? skeletonFromJSON(*parsed, operands, context.exprs)
                       : llvm::Expected<std::shared_ptr<const BlockSkeleton>>(
                             parsed.takeError());
            if (!skeleton) {
              llvm::consumeError(skeleton.takeError());
              list = nullptr;
              break;
            }
            list->push_back(std::move(*skeleton));
          }
        }
        restored.erase(saved);
      }
      if (list) {
        std::promise<std::shared_ptr<const List>> ready;
        ready.set_value(list);
        entries[key] = Entry{ready.get_future().share(), true};
        return list;
      }
      future = promise.get_future().share();
      entries[key] = Entry{future, false};
      // This thread computes the entry, below.
      future = {};
    }
  }
  if (future.valid())
    return future.get();
  bool complete = false;
  std::shared_ptr<const List> list = enumerate(operands, complete);
  promise.set_value(list);
  std::lock_guard<std::mutex> lock(mutex);
  entries[key].complete = complete;
  return list;
}

void SkeletonEnumerator::writeJSON(llvm::json::OStream &json) {
  std::lock_guard<std::mutex> lock(mutex);
  json.object([&] {
    for (auto &item : entries) {
      const auto &entry = item.second;
      if (!entry.complete)
        continue;
      json.attributeArray(item.first, [&] {
        for (const auto &skeleton : *entry.list.get()) {
          std::string text;
          llvm::raw_string_ostream os(text);
          os << search::toJSON(*skeleton);
          json.value(text);
        }
      });
    }
    // Entries restored but not asked for again stay in the checkpoint.
    for (auto &[key, value] : restored)
      json.attribute(key, value);
  });
}

void SkeletonEnumerator::restore(const llvm::json::Object &saved) {
  std::lock_guard<std::mutex> lock(mutex);
  for (const auto &[key, value] : saved)
    restored.emplace(key.str(), value);
}
