//===- Json.h - A small strict JSON reader and writer -----------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// Enough JSON for manifests and result files: RFC 8259 without extensions
// (no comments, trailing commas, NaN or duplicate keys), errors with their
// line and column, numbers as double plus the exact int64 when integral.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_RUNTIME_JSON_H
#define MIRAGE_RUNTIME_JSON_H

#include "mirage_runtime/Status.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mirage::runtime {

class JsonValue {
public:
  enum class Kind { Null, Bool, Number, String, Array, Object };
  using Array = std::vector<JsonValue>;
  using Object = std::vector<std::pair<std::string, JsonValue>>;

  JsonValue() = default;
  JsonValue(std::nullptr_t) {}
  JsonValue(bool value) : valueKind(Kind::Bool), boolValue(value) {}
  JsonValue(double value) : valueKind(Kind::Number), numberValue(value) {}
  JsonValue(int64_t value)
      : valueKind(Kind::Number), numberValue(double(value)),
        integerValue(value) {}
  JsonValue(int value) : JsonValue(int64_t(value)) {}
  JsonValue(unsigned value) : JsonValue(int64_t(value)) {}
  JsonValue(uint64_t value) : JsonValue(int64_t(value)) {}
  JsonValue(std::string value)
      : valueKind(Kind::String), stringValue(std::move(value)) {}
  JsonValue(const char *value) : JsonValue(std::string(value)) {}
  JsonValue(Array value)
      : valueKind(Kind::Array), arrayValue(std::move(value)) {}
  JsonValue(Object value)
      : valueKind(Kind::Object), objectValue(std::move(value)) {}

  /// A number read from JSON text: `exact` is its int64 value when it has
  /// one.
  static JsonValue parsedNumber(double value, std::optional<int64_t> exact);

  Kind kind() const { return valueKind; }
  bool isNull() const { return valueKind == Kind::Null; }
  bool isBool() const { return valueKind == Kind::Bool; }
  bool isNumber() const { return valueKind == Kind::Number; }
  bool isString() const { return valueKind == Kind::String; }
  bool isArray() const { return valueKind == Kind::Array; }
  bool isObject() const { return valueKind == Kind::Object; }

  bool getBool() const { return boolValue; }
  double getNumber() const { return numberValue; }
  /// The exact integer value of an integral number within int64.
  std::optional<int64_t> getInteger() const { return integerValue; }
  const std::string &getString() const { return stringValue; }
  const Array &getArray() const { return arrayValue; }
  const Object &getObject() const { return objectValue; }

  /// The member `key` of an object, or null when absent.
  const JsonValue *get(std::string_view key) const;
  /// Adds or replaces the member `key` of an object, keeping the order.
  void set(std::string key, JsonValue value);

private:
  Kind valueKind = Kind::Null;
  bool boolValue = false;
  double numberValue = 0;
  std::optional<int64_t> integerValue;
  std::string stringValue;
  Array arrayValue;
  Object objectValue;
};

/// Parses one JSON document; errors read "line L, column C: ...".
Expected<JsonValue> parseJson(std::string_view text);

/// `value` as JSON text, indented by `indent` spaces per level (0: one line).
/// Non-finite numbers, which JSON cannot represent, are written as null.
std::string writeJson(const JsonValue &value, unsigned indent = 2);

/// The name of a kind for messages ("an object", "a number", ...).
const char *describeKind(JsonValue::Kind kind);

} // namespace mirage::runtime

#endif // MIRAGE_RUNTIME_JSON_H
