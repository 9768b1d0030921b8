// Issue 16.3: every --json output encodes any byte string. A cache copied under a directory whose
// name is not UTF-8 (\xff\xfe) reaches the JSON of each command through its paths; each command
// must print JSON that Python reads back (the bad bytes as \udcXX, os.fsencode gives them back),
// never die in the JSON writer ("invalid UTF-8 byte") after doing its work.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace fs = std::filesystem;
using kiln::test::run_command;

namespace {

const std::string kOdd = "odd\xff\xfe";  // not UTF-8
const std::string kEscaped = "odd\\udcff\\udcfe";
const std::string kColdKey = "fxgraph/mo/fmo2n45uv3b62qq26v3dxc7irosaefewdkqwv5x66fwyzrtffovi";
const std::string kChangedKey = "fxgraph/bt/fbthtgcfn6jl7ghas2zkbej2nhbianoo76mqbeuwqawaoxcxbhv5";

class CliJsonBytes : public ::testing::Test {
protected:
    kiln::test::ScratchDir dir{"cli-json-bytes"};
    fs::path odd = dir.path() / kOdd;
    fs::path root = odd / "inductor";

    void SetUp() override {
        fs::create_directories(odd);
        fs::copy(kiln::test::h100_root(), root, fs::copy_options::recursive);
        fs::copy(kiln::test::fixture_dir() / "h100/trace", odd / "trace", fs::copy_options::recursive);
    }

    // Runs kiln-cli ARGS; its stdout must be JSON Python reads, holding the odd name escaped.
    void expect_json_with_odd_bytes(const std::vector<std::string>& args, int max_exit = 0, bool names_paths = true) {
        std::vector<std::string> argv{kiln::test::cli_path()};
        argv.insert(argv.end(), args.begin(), args.end());
        auto r = run_command(argv);
        const std::string what = args[0];
        ASSERT_GE(r.exit_code, 0) << what;
        ASSERT_LE(r.exit_code, max_exit) << what << ": " << r.err;
        auto py = run_command({"python3", "-c", "import json,sys; json.loads(sys.stdin.buffer.read())"}, r.out);
        EXPECT_EQ(py.exit_code, 0) << what << ": not JSON: " << py.err;
        if (names_paths) {
            EXPECT_NE(r.out.find(kEscaped), std::string::npos) << what << ": " << r.out.substr(0, 2000);
        }
    }
};

}  // namespace

TEST_F(CliJsonBytes, EveryCommandWritesNonUtf8PathsAsSurrogateEscapes) {
    const std::string r = root.string();
    expect_json_with_odd_bytes({"stats", r, "--json"});
    expect_json_with_odd_bytes({"timings", r, "--json"});
    expect_json_with_odd_bytes({"diff", r + "/" + kColdKey, r + "/" + kChangedKey, "--json"}, 0, false);  // no paths
    expect_json_with_odd_bytes({"misses", (odd / "trace/changed").string(), "--root", r, "--json"});
    expect_json_with_odd_bytes({"env", "--from", r, "--json"});
    // 1: the verdict found problems (the copy's own target); the report is still JSON.
    expect_json_with_odd_bytes({"portable", r, "--target", r, "--json"}, 1);
    // guards names entries by file name: one with the odd bytes in a copied key dir.
    fs::path kd = dir.path() / "kd";
    fs::create_directories(kd);
    fs::copy_file(fs::directory_iterator(kiln::test::h100_root() / kColdKey)->path(), kd / kOdd);
    expect_json_with_odd_bytes({"guards", kd.string(), "--sizes", "8", "--json"});
}

// compile --json names the source, its output and the command: all under the odd directory.
TEST_F(CliJsonBytes, CompileReportsAnOddSourcePath) {
    fs::path src = odd / "add.cpp";
    std::ofstream(src) << "extern \"C\" int add(int a, int b) { return a + b; }\n";
    expect_json_with_odd_bytes({"compile", src.string(), "--cache-dir", (odd / "cc").string(), "--json"});
}

// autotune --json names the timing cache file and the session log: both under the odd directory.
TEST_F(CliJsonBytes, AutotuneReportsOddCachePaths) {
    fs::path spec = dir.path() / "copy.json";
    std::ofstream(spec) << R"({"op": "kiln_copy_cpu", "kernel_name": "k", "extra_args": [64],
      "inputs": [{"dtype": "float32", "sizes": [64]}], "output": {"dtype": "float32", "sizes": [64]},
      "params": {"U": [1, 2]}, "reference": {"U": 1}, "timing": {"warmup_ms": 1, "rep_ms": 2},
      "template": "#include <cstdint>\nextern \"C\" void k(const float* x, float* y, std::int64_t n) { for (std::int64_t i = 0; i < n; ++i) y[i] = x[i] * U / U; }\n"})";
    expect_json_with_odd_bytes(
        {"autotune", spec.string(), "--devices", "cpu", "--cache-dir", (odd / "tc").string(), "--json", "--quiet"});
}
