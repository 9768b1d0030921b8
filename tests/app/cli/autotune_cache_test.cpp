// kiln-cli autotune against a timing cache file that other writers left malformed (issue 16.5, 16.6):
// their data keeps its bytes, Kiln's measurements are saved somewhere named, and a hostile file is
// a clear error naming it, never a crash.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace fs = std::filesystem;
using kiln::test::read_file;
using kiln::test::run_command;

namespace {

// Two choices of a copy kernel: compiles and benchmarks in well under a second.
constexpr const char* kSpec = R"({"op": "kiln_copy_cpu", "kernel_name": "k", "extra_args": [64],
  "inputs": [{"dtype": "float32", "sizes": [64]}], "output": {"dtype": "float32", "sizes": [64]},
  "params": {"UNROLL": [1, 2]}, "reference": {"UNROLL": 1}, "timing": {"warmup_ms": 1, "rep_ms": 2},
  "template": "#include <cstdint>\nextern \"C\" void k(const float* x, float* y, std::int64_t n) { for (std::int64_t i = 0; i < n; i += UNROLL) for (int u = 0; u < UNROLL; ++u) y[i + u] = x[i + u]; }\n"})";

class CliAutotuneCache : public ::testing::Test {
protected:
    kiln::test::ScratchDir dir{"cli-autotune-cache"};
    fs::path spec = dir.path() / "copy.json";
    fs::path root = dir.path() / "root";

    void SetUp() override { std::ofstream(spec) << kSpec; }
    kiln::test::CommandResult tune() {
        return run_command({kiln::test::cli_path(), "autotune", spec.string(), "--devices", "cpu", "--cache-dir",
                            root.string(), "--json", "--quiet"});
    }
    // The cache file of this system: a first run writes it.
    fs::path cache_file() {
        auto r = tune();
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return nlohmann::json::parse(r.out)["cache_file"].get<std::string>();
    }
};

}  // namespace

// {"cache": {"kiln_copy_cpu": 7}}: the op's node is no object, so the timings cannot go into the file
// without replacing someone's data. The file keeps every byte, the timings land in the unsaved file,
// and the error names both (it used to be a type_error with nothing saved and no file named).
TEST_F(CliAutotuneCache, MalformedNodeOnThePathIsKeptAndTheTimingsAreSavedElsewhere) {
    fs::path file = cache_file();
    const std::string sys = nlohmann::json::parse(read_file(file))["system"].dump();
    const std::string bad = "{\"system\": " + sys + ", \"cache\": {\"kiln_copy_cpu\": 7, \"other\": NaN}}";
    std::ofstream(file, std::ios::trunc) << bad;
    auto r = tune();
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(read_file(file), bad);
    EXPECT_NE(r.err.find(file.string()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("cache.kiln_copy_cpu is number, not an object"), std::string::npos) << r.err;
    fs::path unsaved = root / "kiln" / "autotune" / ("unsaved-" + file.filename().string() + ".json");
    EXPECT_NE(r.err.find(unsaved.string()), std::string::npos) << r.err;
    ASSERT_TRUE(fs::exists(unsaved));
    auto saved = nlohmann::json::parse(read_file(unsaved));
    EXPECT_EQ(saved["cache"]["kiln_copy_cpu"].begin()->begin()->size(), 2u) << saved.dump();
    // The report still comes out, with the error in it.
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["timings"].size(), 2u);
    EXPECT_NE(j["cache_error"].get<std::string>().find(unsaved.string()), std::string::npos);
}

// Python's json writes NaN (and Infinity) for another op's timings; a merge writes them back as such,
// not as null (Inductor's min() breaks on None).
TEST_F(CliAutotuneCache, OtherOpsNaNAndInfinityStayAsPythonWroteThem) {
    fs::path file = cache_file();
    auto j = nlohmann::json::parse(read_file(file));
    const std::string sys = j["system"].dump();
    std::ofstream(file, std::ios::trunc)
        << "{\"system\": " << sys
        << ", \"cache\": {\"mm\": {\"k\": {\"highest\": {\"a\": NaN, \"b\": Infinity, \"c\": 0.5}}}}}";
    auto r = tune();
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string after = read_file(file);
    EXPECT_NE(after.find("\"a\": NaN,\n                    \"b\": Infinity,\n                    \"c\": 0.5"),
              std::string::npos)
        << after;
    EXPECT_NE(after.find("kiln_copy_cpu"), std::string::npos) << after;
    // Python reads the file back with the NaN.
    auto py = run_command({"python3", "-c",
                           "import json,math,sys; d=json.load(open(sys.argv[1])); "
                           "print(math.isnan(d['cache']['mm']['k']['highest']['a']))",
                           file.string()});
    EXPECT_EQ(py.out, "True\n") << py.err;
}

// `[` x 100000 in cache/<hash> (issue 16.6): autotune and timings name the file and exit 1, before
// any benchmark runs (nothing is measured to be lost); nothing recurses 100000 deep.
TEST_F(CliAutotuneCache, DeeplyNestedCacheFileIsAClearErrorNamingIt) {
    fs::path file = cache_file();
    std::ofstream(file, std::ios::trunc) << std::string(100000, '[');
    auto r = tune();
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find(file.string()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("nested deeper than"), std::string::npos) << r.err;
    // timings of the root: the file is a warning naming it, the rest is read; of the file alone: exit 1.
    auto t = run_command({kiln::test::cli_path(), "timings", root.string(), "--json"});
    EXPECT_EQ(t.exit_code, 0) << t.err;
    EXPECT_NE(t.err.find("nested deeper than"), std::string::npos) << t.err;
    EXPECT_NE(t.err.find(file.string()), std::string::npos) << t.err;
    auto one = run_command({kiln::test::cli_path(), "timings", file.string(), "--json"});
    EXPECT_EQ(one.exit_code, 1) << one.err;
    EXPECT_NE(one.err.find("nested deeper than"), std::string::npos) << one.err;
}
