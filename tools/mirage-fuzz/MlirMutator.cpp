//===- MlirMutator.cpp - Structured mutations of MLIR text ----------------===//

#include "MlirMutator.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

using namespace mirage::fuzz;
using llvm::StringRef;

namespace {
struct Span {
  size_t begin, end;
};

bool isWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

/// Digit runs that are numbers (a dim in `2x256xf16`, a grid or loop value,
/// an attribute value), not part of a name (`%arg0`, `@f1`, `^bb0`, `i32`).
std::vector<Span> findNumbers(StringRef text) {
  std::vector<Span> spans;
  for (size_t i = 0; i < text.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i])))
      continue;
    size_t end = i;
    while (end < text.size() &&
           std::isdigit(static_cast<unsigned char>(text[end])))
      ++end;
    char before = i ? text[i - 1] : ' ';
    bool inName = (isWordChar(before) && before != 'x') ||
                  StringRef("%@#^$").contains(before);
    if (!inName)
      spans.push_back({i, end});
    i = end;
  }
  return spans;
}

constexpr StringRef kTypes[] = {"f16", "f32", "f64", "bf16", "i1",
                                "i8",  "i16", "i32", "i64",  "index"};

/// Element types, also inside shapes (`2x256xf16`).
std::vector<Span> findTypes(StringRef text) {
  std::vector<Span> spans;
  for (StringRef type : kTypes) {
    for (size_t at = text.find(type); at != StringRef::npos;
         at = text.find(type, at + 1)) {
      char before = at ? text[at - 1] : ' ';
      size_t end = at + type.size();
      char after = end < text.size() ? text[end] : ' ';
      if ((!isWordChar(before) || before == 'x') && !isWordChar(after))
        spans.push_back({at, end});
    }
  }
  return spans;
}

/// Words such as `kn.matmul` that name a registered operation.
std::vector<Span> findOpNames(StringRef text, const llvm::StringSet<> &names) {
  std::vector<Span> spans;
  for (size_t i = 0; i < text.size(); ++i) {
    if (!std::isalpha(static_cast<unsigned char>(text[i])))
      continue;
    size_t end = i;
    while (end < text.size() && (isWordChar(text[end]) || text[end] == '.'))
      ++end;
    char before = i ? text[i - 1] : ' ';
    if (!StringRef("%@^#!").contains(before) &&
        names.contains(text.slice(i, end)))
      spans.push_back({i, end});
    i = end;
  }
  return spans;
}

/// SSA names (`%x`, `%0`), results' `#n` suffixes left out.
std::vector<Span> findValues(StringRef text) {
  std::vector<Span> spans;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%')
      continue;
    size_t end = i + 1;
    while (end < text.size() && isWordChar(text[end]))
      ++end;
    if (end > i + 1)
      spans.push_back({i, end});
    i = end - 1;
  }
  return spans;
}

std::vector<Span> findLines(StringRef text) {
  std::vector<Span> lines;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    end = end == StringRef::npos ? text.size() : end + 1;
    lines.push_back({begin, end});
    begin = end;
  }
  return lines;
}

/// Boundary values: sizes that divide badly, powers of two around the
/// limits of int32 and int64, zero and negatives.
std::string interestingNumber(StringRef old, std::mt19937 &random) {
  static constexpr int64_t kValues[] = {0,
                                        1,
                                        2,
                                        3,
                                        5,
                                        7,
                                        8,
                                        16,
                                        31,
                                        32,
                                        64,
                                        127,
                                        128,
                                        255,
                                        256,
                                        1000,
                                        1024,
                                        4096,
                                        65535,
                                        65536,
                                        1 << 20,
                                        2147483647,
                                        2147483648LL,
                                        4294967296LL,
                                        INT64_MAX};
  int64_t value = 0;
  bool parsed = !old.getAsInteger(10, value);
  switch (random() % 4) {
  case 0:
    if (parsed && value > 0 && value <= INT64_MAX / 2)
      return std::to_string(value * 2);
    [[fallthrough]];
  case 1:
    if (parsed && value > 0)
      return std::to_string(value - 1);
    [[fallthrough]];
  case 2:
    if (random() % 4 == 0)
      return "-" + std::to_string(kValues[random() % std::size(kValues)]);
    [[fallthrough]];
  default:
    return std::to_string(kValues[random() % std::size(kValues)]);
  }
}

template <typename T>
const T &pick(const std::vector<T> &items, std::mt19937 &random) {
  return items[random() % items.size()];
}
} // namespace

MlirMutator::MlirMutator(std::vector<std::string> opNames, bool keepSyntax)
    : opNames(std::move(opNames)), keepSyntax(keepSyntax) {
  for (const std::string &name : this->opNames)
    opNameSet.insert(name);
}

bool MlirMutator::mutateOnce(std::string &text, std::mt19937 &random) const {
  auto replace = [&](Span span, StringRef with) {
    text.replace(span.begin, span.end - span.begin, with.str());
    return true;
  };
  // Numbers, types and SSA uses keep the syntax; op names and lines not.
  static constexpr unsigned kTokenKinds[] = {0, 1, 2, 4};
  unsigned kind = keepSyntax ? kTokenKinds[random() % std::size(kTokenKinds)]
                             : random() % 8;
  switch (kind) {
  case 0:
  case 1: {
    std::vector<Span> numbers = findNumbers(text);
    if (numbers.empty())
      return false;
    Span span = pick(numbers, random);
    StringRef old = StringRef(text).slice(span.begin, span.end);
    return replace(span, interestingNumber(old, random));
  }
  case 2: {
    std::vector<Span> types = findTypes(text);
    if (types.empty())
      return false;
    return replace(pick(types, random), kTypes[random() % std::size(kTypes)]);
  }
  case 3: {
    std::vector<Span> ops = findOpNames(text, opNameSet);
    if (ops.empty() || opNames.empty())
      return false;
    Span span = pick(ops, random);
    // Mostly an operation of the same dialect, which keeps the syntax close.
    StringRef dialect =
        StringRef(text).slice(span.begin, span.end).split('.').first;
    std::vector<std::string> sameDialect;
    for (const std::string &name : opNames)
      if (StringRef(name).starts_with((dialect + ".").str()))
        sameDialect.push_back(name);
    const std::vector<std::string> &choices =
        sameDialect.empty() || random() % 4 == 0 ? opNames : sameDialect;
    return replace(span, pick(choices, random));
  }
  case 4: {
    std::vector<Span> values = findValues(text);
    if (values.size() < 2)
      return false;
    Span from = pick(values, random), to = pick(values, random);
    return replace(to, StringRef(text).slice(from.begin, from.end).str());
  }
  default: {
    std::vector<Span> lines = findLines(text);
    if (lines.size() < 2)
      return false;
    Span line = pick(lines, random);
    std::string copy = StringRef(text).slice(line.begin, line.end).str();
    switch (random() % 3) {
    case 0: // delete
      text.erase(line.begin, line.end - line.begin);
      return true;
    case 1: // duplicate
      text.insert(line.end, copy);
      return true;
    default: { // move
      text.erase(line.begin, line.end - line.begin);
      std::vector<Span> rest = findLines(text);
      size_t at = rest.empty() ? 0 : pick(rest, random).begin;
      text.insert(at, copy);
      return true;
    }
    }
  }
  }
}

std::string MlirMutator::mutate(StringRef text, unsigned seed) const {
  std::mt19937 random(seed);
  std::string result = text.str();
  unsigned count = 1 + random() % 3, done = 0;
  for (unsigned attempt = 0; attempt < 16 && done < count; ++attempt)
    done += mutateOnce(result, random);
  return result;
}

std::string MlirMutator::crossOver(StringRef text, StringRef other,
                                   unsigned seed) const {
  std::mt19937 random(seed);
  std::vector<Span> lines = findLines(other);
  if (keepSyntax || lines.empty())
    return text.str();
  size_t first = random() % lines.size();
  size_t last = std::min(lines.size() - 1, first + random() % 4);
  std::string piece = other.slice(lines[first].begin, lines[last].end).str();
  if (!piece.empty() && piece.back() != '\n')
    piece += '\n';
  std::vector<Span> target = findLines(text);
  size_t at = target.empty() ? 0 : target[random() % target.size()].begin;
  std::string result = text.str();
  result.insert(at, piece);
  return result;
}
