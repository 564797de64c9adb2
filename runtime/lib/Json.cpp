//===- Json.cpp - A small strict JSON reader and writer -------------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage_runtime/Json.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace mirage::runtime;

//===----------------------------------------------------------------------===//
// JsonValue
//===----------------------------------------------------------------------===//

JsonValue JsonValue::parsedNumber(double value, std::optional<int64_t> exact) {
  JsonValue result(value);
  result.integerValue = exact;
  return result;
}

const JsonValue *JsonValue::get(std::string_view key) const {
  for (const auto &[name, member] : objectValue)
    if (name == key)
      return &member;
  return nullptr;
}

void JsonValue::set(std::string key, JsonValue value) {
  for (auto &[name, member] : objectValue) {
    if (name == key) {
      member = std::move(value);
      return;
    }
  }
  objectValue.emplace_back(std::move(key), std::move(value));
}

const char *mirage::runtime::describeKind(JsonValue::Kind kind) {
  switch (kind) {
  case JsonValue::Kind::Null:
    return "null";
  case JsonValue::Kind::Bool:
    return "a boolean";
  case JsonValue::Kind::Number:
    return "a number";
  case JsonValue::Kind::String:
    return "a string";
  case JsonValue::Kind::Array:
    return "an array";
  case JsonValue::Kind::Object:
    return "an object";
  }
  return "?";
}

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

namespace {

class Parser {
public:
  explicit Parser(std::string_view text) : text(text) {}

  Expected<JsonValue> parseDocument() {
    skipWhitespace();
    Expected<JsonValue> value = parseValue(0);
    if (!value)
      return value;
    skipWhitespace();
    if (pos != text.size())
      return error("unexpected text after the JSON value");
    return value;
  }

private:
  // Deeper documents are rejected rather than risking the stack.
  static constexpr unsigned maxDepth = 256;

  Status error(const std::string &message) const {
    return errorAt(pos, message);
  }

  Status errorAt(size_t offset, const std::string &message) const {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < offset && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return Status::error("line " + std::to_string(line) + ", column " +
                         std::to_string(column) + ": " + message);
  }

  bool atEnd() const { return pos >= text.size(); }
  char peek() const { return atEnd() ? '\0' : text[pos]; }

  void skipWhitespace() {
    while (!atEnd() && (text[pos] == ' ' || text[pos] == '\t' ||
                        text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }

  std::string describeHere() const {
    if (atEnd())
      return "end of input";
    char c = text[pos];
    if (c >= 0x20 && c < 0x7f)
      return std::string("'") + c + "'";
    char buffer[16];
    std::snprintf(buffer, sizeof(buffer), "byte 0x%02x", unsigned(uint8_t(c)));
    return buffer;
  }

  Expected<JsonValue> parseValue(unsigned depth) {
    if (depth > maxDepth)
      return error("nesting deeper than " + std::to_string(maxDepth));
    switch (peek()) {
    case '{':
      return parseObject(depth);
    case '[':
      return parseArray(depth);
    case '"': {
      Expected<std::string> string = parseString();
      if (!string)
        return string.status();
      return JsonValue(std::move(*string));
    }
    case 't':
      return parseLiteral("true", JsonValue(true));
    case 'f':
      return parseLiteral("false", JsonValue(false));
    case 'n':
      return parseLiteral("null", JsonValue());
    default:
      if (peek() == '-' || (peek() >= '0' && peek() <= '9'))
        return parseNumber();
      return error("expected a value, found " + describeHere());
    }
  }

  Expected<JsonValue> parseLiteral(std::string_view word, JsonValue value) {
    if (text.substr(pos, word.size()) != word)
      return error("invalid literal (expected '" + std::string(word) + "')");
    pos += word.size();
    return value;
  }

  Expected<JsonValue> parseObject(unsigned depth) {
    ++pos; // '{'
    JsonValue::Object members;
    skipWhitespace();
    if (peek() == '}') {
      ++pos;
      return JsonValue(std::move(members));
    }
    while (true) {
      skipWhitespace();
      if (peek() != '"')
        return error("expected a string key, found " + describeHere());
      size_t keyPos = pos;
      Expected<std::string> key = parseString();
      if (!key)
        return key.status();
      for (const auto &member : members)
        if (member.first == *key)
          return errorAt(keyPos, "duplicate key \"" + *key + "\"");
      skipWhitespace();
      if (peek() != ':')
        return error("expected ':' after a key, found " + describeHere());
      ++pos;
      skipWhitespace();
      Expected<JsonValue> value = parseValue(depth + 1);
      if (!value)
        return value;
      members.emplace_back(std::move(*key), std::move(*value));
      skipWhitespace();
      if (peek() == ',') {
        ++pos;
        continue;
      }
      if (peek() == '}') {
        ++pos;
        return JsonValue(std::move(members));
      }
      return error("expected ',' or '}' in an object, found " + describeHere());
    }
  }

  Expected<JsonValue> parseArray(unsigned depth) {
    ++pos; // '['
    JsonValue::Array elements;
    skipWhitespace();
    if (peek() == ']') {
      ++pos;
      return JsonValue(std::move(elements));
    }
    while (true) {
      skipWhitespace();
      Expected<JsonValue> value = parseValue(depth + 1);
      if (!value)
        return value;
      elements.push_back(std::move(*value));
      skipWhitespace();
      if (peek() == ',') {
        ++pos;
        continue;
      }
      if (peek() == ']') {
        ++pos;
        return JsonValue(std::move(elements));
      }
      return error("expected ',' or ']' in an array, found " + describeHere());
    }
  }

  Expected<JsonValue> parseNumber() {
    size_t start = pos;
    bool integral = true;
    if (peek() == '-')
      ++pos;
    if (peek() == '0') {
      ++pos;
      if (peek() >= '0' && peek() <= '9')
        return error("leading zeros are not allowed");
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9')
        ++pos;
    } else {
      return error("expected a digit, found " + describeHere());
    }
    if (peek() == '.') {
      integral = false;
      ++pos;
      if (!(peek() >= '0' && peek() <= '9'))
        return error("expected a digit after '.', found " + describeHere());
      while (peek() >= '0' && peek() <= '9')
        ++pos;
    }
    if (peek() == 'e' || peek() == 'E') {
      integral = false;
      ++pos;
      if (peek() == '+' || peek() == '-')
        ++pos;
      if (!(peek() >= '0' && peek() <= '9'))
        return error("expected a digit in the exponent, found " +
                     describeHere());
      while (peek() >= '0' && peek() <= '9')
        ++pos;
    }
    const char *first = text.data() + start;
    const char *last = text.data() + pos;
    double value = 0;
    auto [end, ec] = std::from_chars(first, last, value);
    if (ec == std::errc::result_out_of_range) {
      // from_chars leaves `value` alone then; strtod tells overflow (an
      // error) from underflow (a tiny number, fine).
      value = std::strtod(std::string(first, last).c_str(), nullptr);
      if (!std::isfinite(value))
        return errorAt(start, "number out of range");
    } else if (ec != std::errc() || end != last) {
      return errorAt(start, "invalid number");
    }

    std::optional<int64_t> exact;
    int64_t asInteger = 0;
    if (integral) {
      // Exact even past 2^53, where the double is not.
      auto parsed = std::from_chars(first, last, asInteger);
      if (parsed.ec == std::errc() && parsed.ptr == last)
        exact = asInteger;
    } else if (std::trunc(value) == value && std::fabs(value) < 0x1p63) {
      exact = int64_t(value);
    }
    return JsonValue::parsedNumber(value, exact);
  }

  /// Appends code point `cp` to `out` as UTF-8.
  static void appendUtf8(uint32_t cp, std::string &out) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }

  /// Reads the 4 hex digits of a \u escape.
  Expected<uint32_t> parseHex4() {
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i, ++pos) {
      char c = peek();
      value <<= 4;
      if (c >= '0' && c <= '9')
        value |= uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f')
        value |= uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        value |= uint32_t(c - 'A' + 10);
      else
        return error("expected 4 hex digits in a \\u escape, found " +
                     describeHere());
    }
    return value;
  }

  Expected<std::string> parseString() {
    size_t start = pos;
    ++pos; // '"'
    std::string out;
    while (true) {
      if (atEnd())
        return errorAt(start, "unterminated string");
      char c = text[pos];
      if (c == '"') {
        ++pos;
        return out;
      }
      if (uint8_t(c) < 0x20)
        return error("control character in a string (escape it)");
      if (c != '\\') {
        out += c;
        ++pos;
        continue;
      }
      size_t escapePos = pos;
      ++pos;
      char escape = peek();
      ++pos;
      switch (escape) {
      case '"':
      case '\\':
      case '/':
        out += escape;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        Expected<uint32_t> unit = parseHex4();
        if (!unit)
          return unit.status();
        uint32_t cp = *unit;
        if (cp >= 0xDC00 && cp <= 0xDFFF)
          return errorAt(escapePos, "unpaired low surrogate in a \\u escape");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (text.substr(pos, 2) != "\\u")
            return errorAt(escapePos,
                           "unpaired high surrogate in a \\u escape");
          pos += 2;
          Expected<uint32_t> low = parseHex4();
          if (!low)
            return low.status();
          if (*low < 0xDC00 || *low > 0xDFFF)
            return errorAt(escapePos,
                           "unpaired high surrogate in a \\u escape");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (*low - 0xDC00);
        }
        appendUtf8(cp, out);
        break;
      }
      default:
        return errorAt(escapePos, "invalid escape in a string");
      }
    }
  }

  std::string_view text;
  size_t pos = 0;
};

} // namespace

Expected<JsonValue> mirage::runtime::parseJson(std::string_view text) {
  return Parser(text).parseDocument();
}

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

static void writeString(const std::string &value, std::string &out) {
  out += '"';
  for (char c : value) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (uint8_t(c) < 0x20) {
        char buffer[8];
        std::snprintf(buffer, sizeof(buffer), "\\u%04x", unsigned(c));
        out += buffer;
      } else {
        out += c;
      }
    }
  }
  out += '"';
}

static void writeNumber(const JsonValue &value, std::string &out) {
  if (std::optional<int64_t> integer = value.getInteger()) {
    out += std::to_string(*integer);
    return;
  }
  double number = value.getNumber();
  if (!std::isfinite(number)) {
    out += "null";
    return;
  }
  // The shortest text that reads back as the same double.
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), number);
  out.append(buffer, ec == std::errc() ? end : buffer);
}

static void writeValue(const JsonValue &value, unsigned indent, unsigned depth,
                       std::string &out) {
  auto newline = [&](unsigned level) {
    if (indent == 0)
      return;
    out += '\n';
    out.append(size_t(indent) * level, ' ');
  };
  switch (value.kind()) {
  case JsonValue::Kind::Null:
    out += "null";
    return;
  case JsonValue::Kind::Bool:
    out += value.getBool() ? "true" : "false";
    return;
  case JsonValue::Kind::Number:
    writeNumber(value, out);
    return;
  case JsonValue::Kind::String:
    writeString(value.getString(), out);
    return;
  case JsonValue::Kind::Array: {
    const JsonValue::Array &elements = value.getArray();
    if (elements.empty()) {
      out += "[]";
      return;
    }
    out += '[';
    for (size_t i = 0; i < elements.size(); ++i) {
      if (i)
        out += ',';
      newline(depth + 1);
      writeValue(elements[i], indent, depth + 1, out);
    }
    newline(depth);
    out += ']';
    return;
  }
  case JsonValue::Kind::Object: {
    const JsonValue::Object &members = value.getObject();
    if (members.empty()) {
      out += "{}";
      return;
    }
    out += '{';
    for (size_t i = 0; i < members.size(); ++i) {
      if (i)
        out += ',';
      newline(depth + 1);
      writeString(members[i].first, out);
      out += indent ? ": " : ":";
      writeValue(members[i].second, indent, depth + 1, out);
    }
    newline(depth);
    out += '}';
    return;
  }
  }
}

std::string mirage::runtime::writeJson(const JsonValue &value,
                                       unsigned indent) {
  std::string out;
  writeValue(value, indent, 0, out);
  return out;
}
