// dump_json: the same text as nlohmann's dump() for valid input, and any bytes written without
// throwing (surrogateescape), so a cache with a non-UTF-8 file name still gets its JSON report.
#include "util/json_out.hpp"
#include "util/json_in.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace kiln {
namespace {

using oj = nlohmann::ordered_json;

TEST(JsonOut, SameTextAsNlohmannForValidInput) {
    oj j;
    j["removed"] = oj::array();
    j["removed"].push_back({{"path", "/tmp/a \"quoted\" \\ path\n\t\x01"}, {"bytes", 12345678901234ull}});
    j["empty_obj"] = oj::object();
    j["empty_arr"] = oj::array();
    j["float"] = 0.1;
    j["neg"] = -3;
    j["big"] = 18446744073709551615ull;
    j["nested"] = {{"a", {1, 2.5, nullptr, true, false}}, {"ü", "日本語 🎉"}};
    for (int indent : {-1, 0, 2, 4}) EXPECT_EQ(dump_json(j, indent), j.dump(indent)) << indent;
    nlohmann::json plain = {{"x", {1, 2}}, {"y", "z"}};
    EXPECT_EQ(dump_json(plain), plain.dump(2));
}

TEST(JsonOut, InvalidBytesBecomeSurrogateEscapes) {
    std::string name =
        "fxgraph/a\xff\xfe"
        "b\xc3(\xed\xa0\x80\xf4\x90\x80\x80";
    oj j = {{"path", name}};
    EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);  // what used to kill `evict --json`
    EXPECT_EQ(dump_json(j, -1),
              "{\"path\":\"fxgraph/a\\udcff\\udcfeb\\udcc3(\\udced\\udca0\\udc80\\udcf4\\udc90\\udc80\\udc80\"}");
    EXPECT_FALSE(is_valid_utf8(name));
    EXPECT_TRUE(is_valid_utf8("plain ü 🎉"));
}

// Python reads the text back to the original bytes (json.loads + os.fsencode).
TEST(JsonOut, PythonRecoversTheBytes) {
    std::string name = "dir/\x80\x81 ok \xe2\x82 \xf0\x9f\x8e\x89 end\xff";
    std::string text = dump_json(oj{{"path", name}}, 2);
    auto r = test::run_command(
        {"python3", "-c",
         "import json,os,sys; sys.stdout.buffer.write(os.fsencode(json.loads(sys.stdin.read())['path']))"},
        text);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, name);
}

// parse_json_bytes reads dump_json's text back byte for byte (Kiln's own manifests), where nlohmann's
// parse refuses the \udcXX escapes; real NULs, escaped backslashes and surrogate pairs stay what they were.
TEST(JsonOut, ParseJsonBytesGivesTheBytesBack) {
    std::string name = "locks/x\xfe.lock \x80\x81 \xf0\x9f\x8e\x89 \\udc80 text";
    name += std::string("\0nul\0\0", 6);
    std::string text = dump_json(oj{{"path", name}, {"list", {name, "plain"}}, {"n", 3}}, 2);
    EXPECT_TRUE(nlohmann::json::parse(text, nullptr, false).is_discarded());
    auto j = parse_json_bytes(text);
    ASSERT_FALSE(j.is_discarded()) << text;
    EXPECT_EQ(j["path"].get<std::string>(), name);
    EXPECT_EQ(j["list"][0].get<std::string>(), name);
    EXPECT_EQ(j["list"][1].get<std::string>(), "plain");
    EXPECT_EQ(j["n"].get<int>(), 3);
    EXPECT_EQ(parse_json_bytes("{\"a\": \"\\ud83c\\udf89\"}")["a"].get<std::string>(), "\xf0\x9f\x8e\x89");
    EXPECT_TRUE(parse_json_bytes("{\"a\": ").is_discarded());
}

}  // namespace
}  // namespace kiln
