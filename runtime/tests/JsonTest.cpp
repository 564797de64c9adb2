//===- JsonTest.cpp - The JSON reader and writer --------------------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage_runtime/Json.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace mirage::runtime;

namespace {

JsonValue parse(std::string_view text) {
  Expected<JsonValue> value = parseJson(text);
  EXPECT_TRUE(value.ok()) << value.message();
  return value ? *value : JsonValue();
}

std::string parseError(std::string_view text) {
  Expected<JsonValue> value = parseJson(text);
  EXPECT_FALSE(value.ok()) << "parsed: " << text;
  return value ? "" : value.message();
}

TEST(JsonTest, Values) {
  JsonValue value = parse(R"( {"a": [1, -2.5, true, false, null, "s"],
                               "b": {}, "c": []} )");
  ASSERT_TRUE(value.isObject());
  const JsonValue *a = value.get("a");
  ASSERT_TRUE(a && a->isArray());
  ASSERT_EQ(a->getArray().size(), 6u);
  EXPECT_EQ(a->getArray()[0].getInteger(), 1);
  EXPECT_EQ(a->getArray()[1].getNumber(), -2.5);
  EXPECT_EQ(a->getArray()[1].getInteger(), std::nullopt);
  EXPECT_TRUE(a->getArray()[2].getBool());
  EXPECT_FALSE(a->getArray()[3].getBool());
  EXPECT_TRUE(a->getArray()[4].isNull());
  EXPECT_EQ(a->getArray()[5].getString(), "s");
  EXPECT_TRUE(value.get("b")->isObject());
  EXPECT_TRUE(value.get("c")->getArray().empty());
  EXPECT_EQ(value.get("d"), nullptr);
  EXPECT_EQ(value.getObject()[1].first, "b"); // order kept
}

TEST(JsonTest, Numbers) {
  // Exact past 2^53, where the double is not.
  EXPECT_EQ(parse("9007199254740993").getInteger(), 9007199254740993);
  EXPECT_EQ(parse("-9223372036854775808").getInteger(),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(parse("1e3").getInteger(), 1000);
  EXPECT_EQ(parse("2.0").getInteger(), 2);
  EXPECT_EQ(parse("0.1").getNumber(), 0.1);
  EXPECT_EQ(parse("1E-2").getNumber(), 0.01);
  EXPECT_EQ(parse("-0").getNumber(), 0.0);
  EXPECT_EQ(parse("1e-400").getNumber(), 0.0); // underflow is fine
  // Past int64: a double only.
  JsonValue big = parse("18446744073709551616");
  EXPECT_EQ(big.getInteger(), std::nullopt);
  EXPECT_EQ(big.getNumber(), 18446744073709551616.0);
}

TEST(JsonTest, Strings) {
  JsonValue value =
      parse(R"("q\" b\\ s\/ \b\f\n\r\t \u00e9 \u20ac \ud83d\ude00")");
  EXPECT_EQ(value.getString(),
            "q\" b\\ s/ \b\f\n\r\t \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  EXPECT_EQ(parse("\"\xC3\xA9\"").getString(), "\xC3\xA9"); // raw UTF-8
}

TEST(JsonTest, ErrorPositions) {
  EXPECT_EQ(parseError(""), "line 1, column 1: expected a value, found end "
                            "of input");
  EXPECT_EQ(parseError("[1 2]"),
            "line 1, column 4: expected ',' or ']' in an array, found '2'");
  EXPECT_EQ(parseError("{\n  \"a\": 1,\n}"),
            "line 3, column 1: expected a string key, found '}'");
  EXPECT_EQ(parseError("{\"a\" 1}"),
            "line 1, column 6: expected ':' after a key, found '1'");
  EXPECT_EQ(parseError("{\"a\": 1 \"b\": 2}"),
            "line 1, column 9: expected ',' or '}' in an object, found '\"'");
  EXPECT_EQ(parseError("{\"a\": 1,\n \"a\": 2}"),
            "line 2, column 2: duplicate key \"a\"");
  EXPECT_EQ(parseError("[tru]"),
            "line 1, column 2: invalid literal (expected 'true')");
  EXPECT_EQ(parseError("[NaN]"),
            "line 1, column 2: expected a value, found 'N'");
  EXPECT_EQ(parseError("012"), "line 1, column 2: leading zeros are not "
                               "allowed");
  EXPECT_EQ(parseError("1."),
            "line 1, column 3: expected a digit after '.', found end of input");
  EXPECT_EQ(parseError("1e"), "line 1, column 3: expected a digit in the "
                              "exponent, found end of input");
  EXPECT_EQ(parseError("-"),
            "line 1, column 2: expected a digit, found end of input");
  EXPECT_EQ(parseError("[1e400]"), "line 1, column 2: number out of range");
  EXPECT_EQ(parseError("1 2"),
            "line 1, column 3: unexpected text after the JSON value");
  EXPECT_EQ(parseError("[1,]"),
            "line 1, column 4: expected a value, found ']'");
  EXPECT_EQ(parseError("\n\n  \"abc"), "line 3, column 3: unterminated string");
  EXPECT_EQ(parseError("\"a\tb\""),
            "line 1, column 3: control character in a string (escape it)");
  EXPECT_EQ(parseError(R"("\x")"),
            "line 1, column 2: invalid escape in a string");
  EXPECT_EQ(parseError(R"("\u12G4")"), "line 1, column 6: expected 4 hex "
                                       "digits in a \\u escape, found 'G'");
  EXPECT_EQ(parseError(R"("\ud83d")"),
            "line 1, column 2: unpaired high surrogate in a \\u escape");
  EXPECT_EQ(parseError(R"("\ude00")"),
            "line 1, column 2: unpaired low surrogate in a \\u escape");
  EXPECT_EQ(parseError("[\x01]"),
            "line 1, column 2: expected a value, found byte 0x01");
  EXPECT_EQ(parseError(std::string(300, '[') + std::string(300, ']')),
            "line 1, column 258: nesting deeper than 256");
}

TEST(JsonTest, Writer) {
  JsonValue object = JsonValue::Object();
  object.set("s", "a\"b\\c\n\x01");
  object.set("i", int64_t(-3));
  object.set("d", 0.1);
  object.set("nan", std::nan(""));
  object.set("inf", std::numeric_limits<double>::infinity());
  object.set("list", JsonValue::Array{JsonValue(true), JsonValue()});
  object.set("empty", JsonValue::Object());
  object.set("i", int64_t(4)); // replaces, keeping the place
  EXPECT_EQ(writeJson(object, 0),
            R"({"s":"a\"b\\c\n\u0001","i":4,"d":0.1,"nan":null,"inf":null,)"
            R"("list":[true,null],"empty":{}})");
  EXPECT_EQ(writeJson(parse(R"({"a": [1, {"b": 2.5}]})")),
            "{\n  \"a\": [\n    1,\n    {\n      \"b\": 2.5\n    }\n  ]\n}");
}

TEST(JsonTest, WriteThenReadIsIdentity) {
  const char *text = R"({"name":"k\u00e9","n":[0,-1,1e-07,123456789012345678,)"
                     R"(3.141592653589793],"nested":{"x":null}})";
  JsonValue first = parse(text);
  std::string written = writeJson(first, 0);
  EXPECT_EQ(writeJson(parse(written), 0), written);
  EXPECT_EQ(parse(written).get("n")->getArray()[3].getInteger(),
            123456789012345678);
  EXPECT_EQ(parse(written).get("n")->getArray()[4].getNumber(),
            3.141592653589793);
}

} // namespace
