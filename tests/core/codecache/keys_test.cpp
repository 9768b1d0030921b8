// Keys must be exactly Inductor's: checked against Python's hashlib/base64 (code_hash in codecache.py).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "codecache/code_cache.hpp"
#include "test_support.hpp"

namespace kiln::codecache {
namespace {

// Python's own answer: "c" + base32(sha256(code.strip() + "||" + extra)).lower()[:51].
constexpr const char* kPythonCodeHash = R"(
import base64, hashlib, json, sys
for content, extra in json.load(sys.stdin):
    data = content.strip().encode("utf-8")
    if extra != "":
        data += b"||" + extra.encode("utf-8")
    print("c" + base64.b32encode(hashlib.sha256(data).digest())[:51].decode("utf-8").lower())
)";

std::vector<std::string> python_keys(const nlohmann::json& pairs) {
    auto r = test::run_command({"python3", "-c", kPythonCodeHash}, pairs.dump());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> keys;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) keys.push_back(line);
    return keys;
}

TEST(CodeCacheKeys, WriteMatchesPythonCodeHash) {
    test::ScratchDir dir("codecache_keys");
    CodeCache cache(dir.path());
    nlohmann::json pairs = nlohmann::json::array({
        {"int x;", ""},
        {"\n\n  extern \"C\" int f() { return 1; }\n\t \n", "g++ dummy_input -O3 -o dummy_output"},
        {"// caf\u00e9 \u00fc\u00df\nint y;", "nvcc -arch=sm_90a -cubin -o dummy_output dummy_input"},
        {"\x1c\x1fint z;\v\f", "x"},
    });
    auto expected = python_keys(pairs);
    ASSERT_EQ(expected.size(), pairs.size());
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        std::string content = pairs[i][0], extra = pairs[i][1];
        auto w = cache.write(content, "cpp", extra);
        ASSERT_TRUE(w.ok()) << w.error().str();
        EXPECT_EQ(w->key, expected[i]) << "pair " << i;
        EXPECT_EQ(w->key.size(), 52u);
        // Inductor's layout: <root>/<key[1:3]>/<key>.<ext>; the file holds the unstripped content.
        EXPECT_EQ(w->path, dir.path() / w->key.substr(1, 2) / (w->key + ".cpp"));
        EXPECT_EQ(test::read_file(w->path), content);
    }
}

TEST(CodeCacheKeys, RequestKeyIsCodeHashOfSourceAndReportedCommand) {
    test::ScratchDir dir("codecache_keys_req");
    CodeCache cache(CodeCacheOptions{.root = dir.path(), .cxx = "g++"});
    CompileRequest req{.source = "\nextern \"C\" int g() { return 2; }\n", .flags = {"-DX=1", "-g"}};
    auto command = cache.command_for(req);
    ASSERT_TRUE(command.ok()) << command.error().str();
    auto expected = python_keys(nlohmann::json::array({{req.source, command.value()}}));
    ASSERT_EQ(expected.size(), 1u);
    auto key = cache.key_for(req);
    ASSERT_TRUE(key.ok());
    EXPECT_EQ(key.value(), expected[0]);
    // Different flags, different entry (the command is part of the key, as in Inductor).
    auto other = req;
    other.flags = {"-DX=2"};
    EXPECT_NE(cache.key_for(other).value(), key.value());
    EXPECT_NE(command->find("dummy_input"), std::string::npos);
    EXPECT_NE(command->find("-DX=1"), std::string::npos);
}

TEST(CodeCacheKeys, WriteIsAtomicAndLeavesNoTemporaries) {
    test::ScratchDir dir("codecache_atomic");
    CodeCache cache(dir.path());
    auto w = cache.write("int a;", "cpp");
    ASSERT_TRUE(w.ok());
    auto again = cache.write("  int a;  \n", "cpp");  // same key, file kept as first written
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->key, w->key);
    EXPECT_EQ(test::read_file(w->path), "int a;");
    for (auto& e : std::filesystem::directory_iterator(w->path.parent_path()))
        EXPECT_EQ(e.path().extension(), ".cpp") << "left behind: " << e.path();
}

TEST(CodeCacheKeys, UnwritableRootIsAnErrorWithThePath) {
    CodeCache cache("/proc/kiln-no-such-dir");
    auto w = cache.write("int a;", "cpp");
    ASSERT_FALSE(w.ok());
    EXPECT_NE(w.error().context.find("/proc/kiln-no-such-dir"), std::string::npos) << w.error().str();
}

}  // namespace
}  // namespace kiln::codecache
