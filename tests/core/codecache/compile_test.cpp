// Compiling through the cache: hits never run the compiler, failures carry the compiler's text,
// build records describe each artifact, forced rebuilds keep history, corrupt libraries rebuild.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>

#include "codecache/build_record.hpp"
#include "codecache/code_cache.hpp"
#include "counting_compiler.hpp"

namespace kiln::codecache {
namespace {

struct CompileFixture : ::testing::Test {
    test::ScratchDir dir{"codecache_compile"};
    test::CountingCompiler cxx{dir.path() / "bin"};
    CodeCache cache{CodeCacheOptions{.root = dir.path() / "cache", .cxx = cxx.path().string(), .opt_level = "-O1"}};
    CompileRequest add_one{.source = test::kAddOneSource};
};

TEST_F(CompileFixture, MissCompilesHitNeverRunsTheCompiler) {
    auto first = cache.compile(add_one);
    ASSERT_TRUE(first.ok()) << first.error().str();
    EXPECT_FALSE(first->hit);
    EXPECT_EQ(cxx.calls(), 1);
    EXPECT_EQ(first->output_path, first->source_path.parent_path() / (first->key + ".so"));
    for (int i = 0; i < 3; ++i) {
        auto again = cache.compile(add_one);
        ASSERT_TRUE(again.ok());
        EXPECT_TRUE(again->hit);
        EXPECT_EQ(again->output_path, first->output_path);
    }
    CodeCache other_process_view{cache.options()};
    EXPECT_TRUE(other_process_view.compile(add_one)->hit);
    EXPECT_EQ(cxx.calls(), 1);

    auto lib = cache.load(first->output_path);
    ASSERT_TRUE(lib.ok()) << lib.error().str();
    auto fn = (*lib)->symbol<int(int)>("add_one");
    ASSERT_TRUE(fn.ok()) << fn.error().str();
    EXPECT_EQ(fn.value()(41), 42);
}

TEST_F(CompileFixture, CxxEnvironmentVariableChoosesTheCompiler) {
    ::setenv("CXX", cxx.path().c_str(), 1);
    CodeCache from_env{CodeCacheOptions{.root = dir.path() / "cache2", .opt_level = "-O1"}};
    auto out = from_env.compile(add_one);
    ::unsetenv("CXX");
    ASSERT_TRUE(out.ok()) << out.error().str();
    EXPECT_EQ(cxx.calls(), 1);
    EXPECT_EQ(out->command.rfind(cxx.path().string(), 0), 0u) << out->command;
}

TEST_F(CompileFixture, CompileErrorIsAValueWithCommandStatusAndCompilerText) {
    CompileRequest bad{.source = "extern \"C\" int broken( { return undeclared_thing; }"};
    auto out = cache.compile(bad);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.error().code, Errc::external);
    EXPECT_NE(out.error().message.find("exit status 1"), std::string::npos) << out.error().message;
    EXPECT_NE(out.error().message.find("undeclared_thing"), std::string::npos) << out.error().message;
    EXPECT_NE(out.error().context.find(cxx.path().string()), std::string::npos);
    auto key = cache.key_for(bad).value();
    auto shard = dir.path() / "cache" / key.substr(1, 2);
    for (auto& e : std::filesystem::directory_iterator(shard))
        EXPECT_EQ(e.path().extension(), ".cpp") << "a failed build left " << e.path();
}

TEST_F(CompileFixture, BuildRecordDescribesTheArtifact) {
    auto out = cache.compile(add_one);
    ASSERT_TRUE(out.ok());
    auto j = nlohmann::json::parse(test::read_file(sidecar_path(out->output_path)));
    EXPECT_EQ(j["key"], out->key);
    EXPECT_EQ(j["source"], out->source_path.string());
    EXPECT_EQ(j["command_template"], out->command);
    EXPECT_NE(j["command"].get<std::string>().find(out->output_path.string()), std::string::npos);
    EXPECT_EQ(j["compiler"], cxx.path().string());
    EXPECT_FALSE(j["compiler_version"].get<std::string>().empty());
    EXPECT_EQ(j["exit_code"], 0);
    EXPECT_EQ(j["size"], std::filesystem::file_size(out->output_path));
    EXPECT_GT(j["duration_s"].get<double>(), 0.0);
    EXPECT_EQ(j["time"].get<std::string>().size(), 20u);
    EXPECT_TRUE(j["history"].empty());
}

TEST_F(CompileFixture, ForceRebuildsAndKeepsThePreviousRecordAsHistory) {
    auto first = cache.compile(add_one);
    ASSERT_TRUE(first.ok());
    auto forced = add_one;
    forced.force = true;
    for (int i = 0; i < 2; ++i) {
        auto out = cache.compile(forced);
        ASSERT_TRUE(out.ok()) << out.error().str();
        EXPECT_FALSE(out->hit);
    }
    EXPECT_EQ(cxx.calls(), 3);
    auto j = nlohmann::json::parse(test::read_file(sidecar_path(first->output_path)));
    ASSERT_EQ(j["history"].size(), 2u);
    EXPECT_EQ(j["history"][0]["key"], first->key);
    EXPECT_FALSE(j["history"][0].contains("history"));
}

TEST_F(CompileFixture, TruncatedLibraryIsDetectedAndRebuilt) {
    auto first = cache.compile(add_one);
    ASSERT_TRUE(first.ok());
    auto size = std::filesystem::file_size(first->output_path);
    std::filesystem::resize_file(first->output_path, size / 2);
    // Library::open names the library when the file is corrupt.
    auto direct = Library::open(first->output_path);
    ASSERT_FALSE(direct.ok());
    EXPECT_EQ(direct.error().context, first->output_path.string());

    CompileOutcome outcome;
    auto lib = cache.compile_and_load(add_one, &outcome);
    ASSERT_TRUE(lib.ok()) << lib.error().str();
    EXPECT_FALSE(outcome.hit);
    EXPECT_EQ(cxx.calls(), 2);
    EXPECT_EQ(std::filesystem::file_size(first->output_path), size);
    EXPECT_EQ((*lib)->symbol<int(int)>("add_one").value()(1), 2);
}

TEST_F(CompileFixture, MissingSymbolErrorNamesSymbolAndLibrary) {
    auto lib = cache.compile_and_load(add_one);
    ASSERT_TRUE(lib.ok());
    auto sym = (*lib)->symbol<int(int)>("no_such_kernel");
    ASSERT_FALSE(sym.ok());
    EXPECT_NE(sym.error().message.find("no_such_kernel"), std::string::npos);
    EXPECT_EQ(sym.error().context, (*lib)->path().string());
}

TEST_F(CompileFixture, ObjectAndExecutableOutputs) {
    auto obj = add_one;
    obj.out_ext = "o";
    auto o = cache.compile(obj);
    ASSERT_TRUE(o.ok()) << o.error().str();
    EXPECT_EQ(o->output_path.extension(), ".o");
    EXPECT_NE(o->command.find(" -c"), std::string::npos);
    CompileRequest exe{.source = "int main() { return 7; }", .out_ext = "exe"};
    auto e = cache.compile(exe);
    ASSERT_TRUE(e.ok()) << e.error().str();
    EXPECT_EQ(std::system(e->output_path.c_str()) >> 8, 7);
    auto bad = add_one;
    bad.out_ext = "cubin";
    EXPECT_EQ(cache.compile(bad).error().code, Errc::invalid_argument);
}

}  // namespace
}  // namespace kiln::codecache
