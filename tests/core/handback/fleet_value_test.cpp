// A fleet value (handback/fleet_value.hpp) written and read back without Redis; every field of what
// comes back is checked (issue 42 #7, #8).
#include "handback/fleet_value.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "retune_run_fixture.hpp"
#include "test_support.hpp"

using namespace kiln::handback;

namespace {

const std::string kFleetH100 = "NVIDIA H100 80GB HBM3";

MeasuredOp first_op() {
    auto file = kiln::test::cache_file_for(kiln::test::h100_root(), kFleetH100);
    auto run = run_from_json(kiln::test::run_json_from_cache_file(file, kFleetH100), "t").value();
    return complete_ops(run, std::nullopt).ops.front();
}

// The op's value with the first choice's `field` set to JSON text (Python's NaN and Infinity too).
std::string with_choice_field(const MeasuredOp& op, const std::string& field, const std::string& json_text) {
    auto j = fleet_value(op, "node-a", 1700000000);
    j["choices"][op.choices.front().name][field] = 424242.5;
    std::string text = kiln::py_dumps(j);
    text.replace(text.find("424242.5"), 8, json_text);
    return text;
}

}  // namespace

TEST(FleetValue, RoundTrips) {
    const MeasuredOp op = first_op();
    auto back = decode_fleet_value(retuned_key(op), kiln::py_dumps(fleet_value(op, "node-a", 1)), "srv");
    ASSERT_TRUE(back) << back.error().str();
    EXPECT_EQ(back->host, "node-a");
    EXPECT_EQ(back->system_hash(), op.system_hash());
    ASSERT_EQ(back->choices.size(), op.choices.size());
    for (std::size_t i = 0; i < op.choices.size(); ++i) {
        EXPECT_EQ(back->choices[i].name, op.choices[i].name);
        EXPECT_EQ(back->choices[i].ms, op.choices[i].ms);
        EXPECT_EQ(back->choices[i].kind, op.choices[i].kind);
    }
}

// A wrong type or a time that is negative, NaN or Infinity is this key's error naming the field;
// nothing of it could reach a timing cache. Before, `kind: 7` threw out of the whole fetch and -1000
// or NaN were handed on as times.
TEST(FleetValue, DecodingChecksEveryFieldAndTime) {
    const MeasuredOp op = first_op();
    const std::string key = retuned_key(op);
    const std::string first = "choices[\"" + op.choices.front().name.substr(0, 40) + "...\"]";
    struct Case {
        std::string field, value, message;
    };
    for (const Case& c :
         std::vector<Case>{{"kind", "7", first + ".kind is 7, not a string"},
                           {"ms", "-1000", first + ".ms is -1000 ms: a time is never negative"},
                           {"ms", "NaN", first + ".ms is NaN, not a time"},
                           {"ms", "Infinity", first + ".ms is Infinity, not a measured time"},
                           {"ms", "\"0.5\"", first + ".ms is \"0.5\" (a string), not a time in ms"},
                           {"spread_ms", "-1", first + ".spread_ms is -1 ms: a time is never negative"}}) {
        auto bad = decode_fleet_value(key, with_choice_field(op, c.field, c.value), "srv");
        ASSERT_FALSE(bad) << c.field << " " << c.value;
        EXPECT_EQ(bad.error().code, kiln::Errc::parse);
        EXPECT_EQ(bad.error().context, key);
        EXPECT_EQ(bad.error().message, "re-tuned op: " + c.message) << c.field << " " << c.value;
    }
    auto j = fleet_value(op, "node-a", 1);
    j["host"] = 5;
    auto host = decode_fleet_value(key, kiln::py_dumps(j), "srv");
    ASSERT_FALSE(host);
    EXPECT_EQ(host.error().message, "re-tuned op: host is 5, not a string");
    j = fleet_value(op, "node-a", 1);
    j["system"]["version"]["cuda"] = 13.0;
    auto cuda = decode_fleet_value(key, kiln::py_dumps(j), "srv");
    ASSERT_FALSE(cuda);
    EXPECT_EQ(cuda.error().message, "re-tuned op: system.version.cuda is 13.0, not a string");
    j = fleet_value(op, "node-a", 1);
    j["system"] = "x";
    EXPECT_FALSE(decode_fleet_value(key, kiln::py_dumps(j), "srv"));
    EXPECT_FALSE(decode_fleet_value(key, "[1]", "srv"));
    EXPECT_FALSE(decode_fleet_value(key, "{\"op\": \"mm\"}", "srv"));
    EXPECT_FALSE(decode_fleet_value(key, "{\"op\": ", "srv"));
}

// Issue 40: a choice that fails as torch fails it travels through the fleet as Infinity with its
// reason, and comes back as such; Infinity without a reason is still refused.
TEST(FleetValue, AChoiceThatFailsAsTorchFailsItRoundTripsWithItsReason) {
    MeasuredOp op = first_op();
    op.choices[1].ms = std::numeric_limits<double>::infinity();
    op.choices[1].infinite_why = "the kernel needs 262144 bytes of shared memory; this GPU allows 232448";
    const std::string text = kiln::py_dumps(fleet_value(op, "node-a", 1));
    auto back = decode_fleet_value(retuned_key(op), text, "srv");
    ASSERT_TRUE(back) << back.error().str();
    EXPECT_TRUE(std::isinf(back->choices[1].ms));
    EXPECT_EQ(back->choices[1].infinite_why, op.choices[1].infinite_why);
    EXPECT_EQ(back->infinite_choices(), 1);
    std::string no_reason = text;
    no_reason.replace(no_reason.find("\"failed\""), 8, "\"noted\"");
    auto refused = decode_fleet_value(retuned_key(op), no_reason, "srv");
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("Infinity"), std::string::npos) << refused.error().str();
}
