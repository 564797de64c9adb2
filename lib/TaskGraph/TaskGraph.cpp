//===- TaskGraph.cpp - Regions, events, dependency analysis ---------------===//
//
// Part of the Mirage MLIR project. See TaskGraph.h.
//
//===----------------------------------------------------------------------===//

#include "mirage/TaskGraph/TaskGraph.h"

#include "mirage/Semantics/Tensor.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mirage;
using namespace mirage::taskgraph;
using llvm::ArrayRef;
using llvm::SmallVector;

namespace {
llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string formatIndex(ArrayRef<int64_t> index) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(index, os);
  os << ']';
  return text;
}
} // namespace

//===----------------------------------------------------------------------===//
// Boxes and buffers
//===----------------------------------------------------------------------===//

bool Box::overlaps(const Box &other) const {
  for (size_t d = 0; d < offsets.size(); ++d)
    if (offsets[d] >= other.offsets[d] + other.sizes[d] ||
        other.offsets[d] >= offsets[d] + sizes[d])
      return false;
  return true;
}

bool Box::contains(const Box &other) const {
  for (size_t d = 0; d < offsets.size(); ++d)
    if (other.offsets[d] < offsets[d] ||
        other.offsets[d] + other.sizes[d] > offsets[d] + sizes[d])
      return false;
  return true;
}

std::string Box::str() const {
  return formatIndex(offsets) + " sizes " + formatIndex(sizes);
}

uint32_t TaskGraph::getStorage(uint32_t buffer) const {
  while (buffers[buffer].base >= 0)
    buffer = static_cast<uint32_t>(buffers[buffer].base);
  return buffer;
}

namespace {
int64_t flattenIndex(ArrayRef<int64_t> index, ArrayRef<int64_t> shape) {
  int64_t offset = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    offset = offset * shape[d] + index[d];
  return offset;
}

/// The smallest box of `shape` holding the row-major offsets [first, last].
Box coveringBox(ArrayRef<int64_t> shape, int64_t first, int64_t last) {
  Shape low = unflattenIndex(first, shape);
  Shape high = unflattenIndex(last, shape);
  Box box;
  bool full = false;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (full) {
      box.offsets.push_back(0);
      box.sizes.push_back(shape[d]);
      continue;
    }
    box.offsets.push_back(low[d]);
    box.sizes.push_back(high[d] - low[d] + 1);
    full = low[d] != high[d];
  }
  return box;
}

/// Appends the boxes of `shape` that exactly hold the row-major offsets
/// [begin, end): at most two per dim.
void intervalBoxes(ArrayRef<int64_t> shape, int64_t begin, int64_t end,
                   SmallVector<Box, 2> &out) {
  size_t rank = shape.size();
  Shape strides(rank, 1);
  for (size_t d = rank - 1; d > 0; --d)
    strides[d - 1] = strides[d] * shape[d];
  while (begin < end) {
    // The outermost dim whose whole rows start here and fit.
    size_t d = rank - 1;
    for (size_t outer = 0; outer < rank; ++outer)
      if (begin % strides[outer] == 0 && begin + strides[outer] <= end) {
        d = outer;
        break;
      }
    Shape index = unflattenIndex(begin, shape);
    int64_t units = std::min(shape[d] - index[d], (end - begin) / strides[d]);
    Box box;
    for (size_t e = 0; e < rank; ++e) {
      box.offsets.push_back(e <= d ? index[e] : 0);
      box.sizes.push_back(e < d ? 1 : e == d ? units : shape[e]);
    }
    out.push_back(std::move(box));
    begin += units * strides[d];
  }
}

/// Views with more contiguous runs than this are mapped to the box
/// covering them (conservative for reads).
constexpr int64_t kMaxRuns = 1 << 16;

/// The boxes of the buffer `view` reinterprets that hold exactly the
/// elements of `box` of `view`.
void mapThroughView(ArrayRef<int64_t> viewShape, ArrayRef<int64_t> baseShape,
                    const Box &box, SmallVector<Box, 2> &out) {
  size_t rank = viewShape.size();
  // Dims after `inner` are whole: a run covers box.sizes[inner] of them.
  size_t inner = rank - 1;
  while (inner > 0 && box.offsets[inner] == 0 &&
         box.sizes[inner] == viewShape[inner])
    --inner;
  int64_t runLength = box.sizes[inner];
  for (size_t d = inner + 1; d < rank; ++d)
    runLength *= viewShape[d];
  int64_t runs = 1;
  for (size_t d = 0; d < inner; ++d)
    runs *= box.sizes[d];
  if (runs > kMaxRuns) {
    Shape last(box.offsets);
    for (size_t d = 0; d < rank; ++d)
      last[d] += box.sizes[d] - 1;
    out.push_back(coveringBox(baseShape, flattenIndex(box.offsets, viewShape),
                              flattenIndex(last, viewShape)));
    return;
  }
  Shape outer(box.sizes.begin(), box.sizes.begin() + inner);
  for (int64_t run = 0; run < runs; ++run) {
    Shape start(box.offsets);
    Shape position = unflattenIndex(run, outer);
    for (size_t d = 0; d < inner; ++d)
      start[d] += position[d];
    int64_t begin = flattenIndex(start, viewShape);
    intervalBoxes(baseShape, begin, begin + runLength, out);
  }
}
} // namespace

SmallVector<Access, 2> TaskGraph::getPartAccesses(const Access &access) const {
  SmallVector<Access, 2> accesses;
  const Buffer &concat = buffers[access.buffer];
  int64_t dim = concat.concatDim, start = 0;
  int64_t low = access.box.offsets[dim];
  int64_t high = low + access.box.sizes[dim];
  for (uint32_t part : concat.parts) {
    int64_t end = start + buffers[part].shape[dim];
    if (std::max(low, start) < std::min(high, end)) {
      Box box = access.box;
      box.offsets[dim] = std::max(low, start) - start;
      box.sizes[dim] = std::min(high, end) - std::max(low, start);
      accesses.push_back({part, std::move(box)});
    }
    start = end;
  }
  return accesses;
}

SmallVector<Access, 2>
TaskGraph::getStorageAccesses(const Access &access) const {
  SmallVector<Access, 2> accesses;
  if (!buffers[access.buffer].parts.empty()) {
    for (const Access &part : getPartAccesses(access))
      llvm::append_range(accesses, getStorageAccesses(part));
    return accesses;
  }
  SmallVector<Box, 2> boxes{access.box};
  uint32_t buffer = access.buffer;
  while (buffers[buffer].base >= 0) {
    const Shape &shape = buffers[buffer].shape;
    buffer = static_cast<uint32_t>(buffers[buffer].base);
    SmallVector<Box, 2> mapped;
    for (const Box &box : boxes)
      mapThroughView(shape, buffers[buffer].shape, box, mapped);
    boxes = std::move(mapped);
  }
  for (Box &box : boxes)
    accesses.push_back({buffer, std::move(box)});
  return accesses;
}

std::vector<uint32_t> TaskGraph::getTriggerCounts() const {
  std::vector<uint32_t> counts(numEvents, 0);
  for (const Task &task : tasks)
    for (uint32_t event : task.triggers)
      ++counts[event];
  return counts;
}

std::vector<SmallVector<uint32_t, 2>> TaskGraph::getTriggeringTasks() const {
  std::vector<SmallVector<uint32_t, 2>> result(numEvents);
  for (auto [index, task] : llvm::enumerate(tasks))
    for (uint32_t event : task.triggers)
      result[event].push_back(index);
  return result;
}

std::vector<SmallVector<uint32_t, 2>> TaskGraph::getWaitingTasks() const {
  std::vector<SmallVector<uint32_t, 2>> result(numEvents);
  for (auto [index, task] : llvm::enumerate(tasks))
    for (uint32_t event : task.waits)
      result[event].push_back(index);
  return result;
}

std::string TaskGraph::describeTask(uint32_t index) const {
  const Task &task = tasks[index];
  if (task.kind == TaskKind::Empty)
    return llvm::formatv("task {0} (empty)", index).str();
  return llvm::formatv("task {0} ({1}, block {2})", index,
                       kernels[task.kernel].name, formatIndex(task.block))
      .str();
}

double taskgraph::getTaskMicros(const TaskGraph &graph, uint32_t task,
                                double emptyMicros) {
  const Task &t = graph.tasks[task];
  return t.kind == TaskKind::Empty ? emptyMicros
                                   : graph.kernels[t.kernel].taskMicros;
}

//===----------------------------------------------------------------------===//
// Dependency analysis
//===----------------------------------------------------------------------===//

namespace {

/// The boxes tasks write in one storage buffer, sorted along the dim that
/// tells them apart best, for overlap queries in O(log n + candidates).
class WriteIndex {
public:
  struct Entry {
    Box box;
    uint32_t task;
  };

  void add(Box box, uint32_t task) {
    entries.push_back({std::move(box), task});
  }

  void build() {
    if (entries.empty())
      return;
    size_t rank = entries.front().box.offsets.size();
    size_t best = 0, bestDistinct = 0;
    for (size_t d = 0; d < rank; ++d) {
      std::vector<int64_t> starts;
      for (const Entry &entry : entries)
        starts.push_back(entry.box.offsets[d]);
      llvm::sort(starts);
      size_t distinct =
          std::unique(starts.begin(), starts.end()) - starts.begin();
      if (distinct > bestDistinct) {
        best = d;
        bestDistinct = distinct;
      }
    }
    dim = best;
    llvm::sort(entries, [&](const Entry &a, const Entry &b) {
      return std::make_pair(a.box.offsets[dim], a.task) <
             std::make_pair(b.box.offsets[dim], b.task);
    });
    for (const Entry &entry : entries)
      longest = std::max(longest, entry.box.sizes[dim]);
  }

  /// Calls `fn(entry)` for every box overlapping `query`.
  template <typename Fn>
  void forEachOverlap(const Box &query, Fn fn) const {
    if (entries.empty())
      return;
    int64_t from = query.offsets[dim] - longest + 1;
    int64_t to = query.offsets[dim] + query.sizes[dim];
    auto it = llvm::lower_bound(entries, from,
                                [&](const Entry &entry, int64_t value) {
                                  return entry.box.offsets[dim] < value;
                                });
    for (; it != entries.end() && it->box.offsets[dim] < to; ++it)
      if (it->box.overlaps(query))
        fn(*it);
  }

  const std::vector<Entry> &getEntries() const { return entries; }

private:
  std::vector<Entry> entries;
  size_t dim = 0;
  int64_t longest = 0;
};

/// The first element two boxes share.
Shape firstCommonElement(const Box &a, const Box &b) {
  Shape index;
  for (size_t d = 0; d < a.offsets.size(); ++d)
    index.push_back(std::max(a.offsets[d], b.offsets[d]));
  return index;
}

} // namespace

llvm::Error taskgraph::addDependencies(TaskGraph &graph, bool pairwise) {
  std::vector<WriteIndex> writers(graph.buffers.size());
  for (auto [index, task] : llvm::enumerate(graph.tasks)) {
    if (!task.waits.empty() || !task.triggers.empty())
      return makeError(graph.describeTask(index) +
                       " already has events; dependency analysis starts from "
                       "tasks without any");
    for (const Access &write : task.writes)
      for (Access &stored : graph.getStorageAccesses(write))
        writers[stored.buffer].add(std::move(stored.box), index);
  }
  for (WriteIndex &index : writers)
    index.build();

  // No element is written twice.
  for (size_t buffer = 0; buffer < writers.size(); ++buffer)
    for (const WriteIndex::Entry &entry : writers[buffer].getEntries()) {
      const WriteIndex &index = writers[buffer];
      std::optional<std::string> clash;
      index.forEachOverlap(entry.box, [&](const WriteIndex::Entry &other) {
        if (other.task <= entry.task || clash)
          return;
        clash =
            llvm::formatv("{0} and {1} both write element {2} of buffer "
                          "'{3}'",
                          graph.describeTask(entry.task),
                          graph.describeTask(other.task),
                          formatIndex(firstCommonElement(entry.box, other.box)),
                          graph.buffers[buffer].name)
                .str();
      });
      if (clash)
        return makeError(*clash);
    }

  for (uint32_t consumer = 0; consumer < graph.tasks.size(); ++consumer) {
    SmallVector<uint32_t, 8> producers;
    for (const Access &read : graph.tasks[consumer].reads)
      for (const Access &stored : graph.getStorageAccesses(read))
        writers[stored.buffer].forEachOverlap(
            stored.box, [&](const WriteIndex::Entry &entry) {
              if (entry.task != consumer)
                producers.push_back(entry.task);
            });
    llvm::sort(producers);
    producers.erase(std::unique(producers.begin(), producers.end()),
                    producers.end());
    if (producers.empty())
      continue;
    if (pairwise) {
      for (uint32_t producer : producers) {
        uint32_t event = graph.addEvent();
        graph.tasks[producer].triggers.push_back(event);
        graph.tasks[consumer].waits.push_back(event);
      }
      continue;
    }
    uint32_t event = graph.addEvent();
    for (uint32_t producer : producers)
      graph.tasks[producer].triggers.push_back(event);
    graph.tasks[consumer].waits.push_back(event);
  }
  return llvm::Error::success();
}

llvm::Error taskgraph::verifyLinearized(const TaskGraph &graph) {
  std::vector<std::optional<std::pair<uint32_t, uint32_t>>> ranges(
      graph.numEvents);
  for (auto [index, task] : llvm::enumerate(graph.tasks)) {
    if (task.waits.size() != 1)
      return makeError(llvm::formatv("{0} waits on {1} events; every task of "
                                     "a linearized graph waits on one",
                                     graph.describeTask(index),
                                     task.waits.size()));
    if (task.triggers.size() > 1)
      return makeError(llvm::formatv("{0} triggers {1} events; a task of a "
                                     "linearized graph triggers at most one",
                                     graph.describeTask(index),
                                     task.triggers.size()));
    auto &range = ranges[task.waits[0]];
    if (!range) {
      range = {static_cast<uint32_t>(index), static_cast<uint32_t>(index)};
    } else if (range->second + 1 != index) {
      return makeError(graph.describeTask(index) +
                       " is not contiguous with the other tasks waiting on "
                       "its event");
    } else {
      range->second = index;
    }
  }
  if (graph.eventTasks != ranges)
    return makeError("the events' task ranges do not match the tasks");
  return llvm::Error::success();
}
