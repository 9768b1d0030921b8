// The one checked accessor for typed JSON from an input (issue 42 #7, #8): every wrong type, every
// number that does not fit and every time that is not finite or is negative is an error naming where
// it is, never nlohmann's type_error.
#include "util/json_get.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "util/python_json.hpp"

using namespace kiln;
using namespace kiln::json_get;
using nlohmann::ordered_json;

namespace {

ordered_json loads(const std::string& text) { return py_loads(text, "t").value(); }

const JsonAt kAt{"run.json", ""};

}  // namespace

TEST(JsonGet, PathsNameKeysAndIndexes) {
    JsonAt at = kAt.key("ops").key("mm").key("choices").index(3).key("num_warps");
    EXPECT_EQ(at.path, "ops.mm.choices[3].num_warps");
    EXPECT_EQ(kAt.key("cache").key("[('cuda', 'torch.float16', 512, 512, 512, 1, 0)]").path,
              R"(cache["[('cuda', 'torch.float16', 512, 512, 512..."])");
    EXPECT_EQ(kAt.key("triton mm").key("2x").path, R"(["triton mm"]["2x"])");
    EXPECT_EQ(kAt.where(), "the top level");
    EXPECT_EQ(kAt.key("\xc3\xa9").path, R"(["\u00e9"])");
}

// The wrong types of issue 42 #7: `num_warps: "8"`, `name: 123`, a 23-digit number, `runnable: "yes"`,
// `kind: 7`. Each is an Errc::parse error naming the field, with the input as context.
TEST(JsonGet, WrongTypesAreErrorsNamingTheField) {
    auto j = loads(R"({"num_warps": "8", "name": 123, "shared": 12345678901234567890123, "runnable": "yes",
                       "kind": 7, "big": 18446744073709551615, "neg": -3, "ok": 8, "null": null})");
    auto warps = integer_field(j, "num_warps", kAt.key("choices").index(3), 0, 1024);
    ASSERT_FALSE(warps.ok());
    EXPECT_EQ(warps.error().code, Errc::parse);
    EXPECT_EQ(warps.error().context, "run.json");
    EXPECT_EQ(warps.error().message, R"(choices[3].num_warps is "8" (a string), not an integer)");

    auto name = string_field(j, "name", kAt);
    ASSERT_FALSE(name.ok());
    EXPECT_EQ(name.error().message, "name is 123, not a string");

    auto shared = integer_field(j, "shared", kAt, 0);
    ASSERT_FALSE(shared.ok());
    EXPECT_EQ(shared.error().message, "shared is 1.2345678901234568e+22, not an integer");

    auto runnable = boolean_field_or(j, "runnable", kAt, false);
    ASSERT_FALSE(runnable.ok());
    EXPECT_EQ(runnable.error().message, R"(runnable is "yes" (a string), not true or false)");

    auto kind = string_field_or(j, "kind", kAt, "");
    ASSERT_FALSE(kind.ok());
    EXPECT_EQ(kind.error().message, "kind is 7, not a string");

    auto big = integer_field(j, "big", kAt);
    ASSERT_FALSE(big.ok());
    EXPECT_NE(big.error().message.find("18446744073709551615, out of range"), std::string::npos);
    EXPECT_EQ(unsigned_field_or(j, "big", kAt, 0).value(), std::numeric_limits<std::uint64_t>::max());
    EXPECT_FALSE(unsigned_field_or(j, "neg", kAt, 0).ok());
    EXPECT_FALSE(unsigned_field_or(j, "big", kAt, 0, 100).ok());

    auto neg = integer_field(j, "neg", kAt, 0, 1024);
    ASSERT_FALSE(neg.ok());
    EXPECT_EQ(neg.error().message, "neg is -3, out of range [0, 1024]");
    EXPECT_EQ(integer_field(j, "ok", kAt, 0, 1024).value(), 8);
    EXPECT_EQ(integer_field_or(j, "absent", kAt, 4).value(), 4);
    EXPECT_EQ(integer_field_or(j, "null", kAt, 4).value(), 4);

    auto missing = string_field(j, "absent", kAt.key("devices").index(0));
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().message, R"(devices[0] has no "absent")");
    EXPECT_FALSE(string_field(j, "null", kAt).ok());

    auto not_object = string_field(ordered_json::array(), "name", kAt.key("ops").index(2));
    ASSERT_FALSE(not_object.ok());
    EXPECT_EQ(not_object.error().message, "ops[2] is a list, not an object");

    // Works on nlohmann::json too (Triton's metadata is read so).
    auto plain = nlohmann::json::parse(R"({"num_warps": "8"})");
    EXPECT_FALSE(integer_field(plain, "num_warps", kAt).ok());
    EXPECT_EQ(integer_field_or(plain, "num_ctas", kAt, 1).value(), 1);
}

// Issue 42 #8: -1000 and NaN are no times; Infinity is one only where it means a failed choice.
TEST(JsonGet, TimesAreFiniteAndNotNegative) {
    auto j = loads(R"({"neg": -1000, "nan": NaN, "inf": Infinity, "minf": -Infinity, "ok": 0.25, "zero": 0,
                       "s": "0.5"})");
    auto neg = time_field(j, "neg", kAt.key("choices").key("mm"));
    ASSERT_FALSE(neg.ok());
    EXPECT_EQ(neg.error().message, "choices.mm.neg is -1000 ms: a time is never negative");
    auto nan = time_field(j, "nan", kAt);
    ASSERT_FALSE(nan.ok());
    EXPECT_EQ(nan.error().message, "nan is NaN, not a time");
    EXPECT_FALSE(time_field(j, "nan", kAt, Time::infinity_failed).ok());
    EXPECT_FALSE(time_field(j, "inf", kAt).ok());
    EXPECT_TRUE(std::isinf(time_field(j, "inf", kAt, Time::infinity_failed).value()));
    EXPECT_FALSE(time_field(j, "minf", kAt, Time::infinity_failed).ok());
    EXPECT_EQ(time_field(j, "ok", kAt).value(), 0.25);
    EXPECT_EQ(time_field(j, "zero", kAt).value(), 0.0);
    EXPECT_FALSE(time_field(j, "s", kAt).ok());
    EXPECT_FALSE(optional_time_field(j, "neg", kAt).ok());
    EXPECT_FALSE(optional_time_field(j, "absent", kAt).value().has_value());
    EXPECT_EQ(*optional_time_field(j, "ok", kAt).value(), 0.25);
    EXPECT_FALSE(optional_number_field(j, "nan", kAt).ok());
    EXPECT_EQ(*optional_number_field(j, "neg", kAt).value(), -1000.0);
    EXPECT_FALSE(number(j["inf"], kAt).ok());
}

TEST(JsonGet, DescribeShowsValuesShortly) {
    EXPECT_EQ(describe(ordered_json(nullptr)), "null");
    EXPECT_EQ(describe(ordered_json(true)), "true");
    EXPECT_EQ(describe(ordered_json(2.5)), "2.5");
    EXPECT_EQ(describe(ordered_json::object()), "an object");
    EXPECT_EQ(describe(ordered_json(std::string(100, 'x'))), "\"" + std::string(40, 'x') + "...\" (a string)");
}
