// kiln-cli rebench: runs an Inductor output-code module with a Python that has torch. On machines
// without torch (CI) the message must say what is missing; with torch and GPUs the GPU job runs it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace fs = std::filesystem;
using kiln::test::run_command;

namespace {

bool python_has_torch() { return run_command({"python3", "-c", "import torch"}).exit_code == 0; }

fs::path some_output_code_module() {
    for (const auto& e : fs::recursive_directory_iterator(kiln::test::h100_root())) {
        if (e.path().extension() != ".py") continue;
        if (kiln::test::read_file(e.path()).find("def benchmark_compiled_module") != std::string::npos) return e.path();
    }
    return {};
}

}  // namespace

TEST(CliRebench, WithoutTorchTheMessageSaysWhatIsMissing) {
    if (python_has_torch()) GTEST_SKIP() << "python3 has torch here; the GPU job covers the real run";
    fs::path module = some_output_code_module();
    ASSERT_FALSE(module.empty());
    auto r = run_command({kiln::test::cli_path(), "rebench", module.string(), "--devices", "0"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("torch is not importable by python3"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("No module named 'torch'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--python"), std::string::npos) << r.err;
}

TEST(CliRebench, AMissingPythonIsNamed) {
    fs::path module = some_output_code_module();
    ASSERT_FALSE(module.empty());
    auto r = run_command({kiln::test::cli_path(), "rebench", module.string(), "--python", "/nonexistent/python3"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("no Python interpreter '/nonexistent/python3'"), std::string::npos) << r.err;
}

TEST(CliRebench, HelpWarnsThatTheModuleRuns) {
    auto r = run_command({kiln::test::cli_path(), "rebench", "--help"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("runs the module's Python code"), std::string::npos) << r.out;
}

TEST(CliRebench, WithTorchEachDeviceReportsAGraphTime) {
    if (!python_has_torch() || !fs::exists("/dev/nvidiactl"))
        GTEST_SKIP() << "needs python3 with torch and an NVIDIA GPU";
    // The module may write into its cache root: run it on a copy, never on the fixture.
    kiln::test::ScratchDir dir("cli-rebench");
    fs::copy(kiln::test::h100_root(), dir.path() / "inductor", fs::copy_options::recursive);
    fs::path module = dir.path() / "inductor" / fs::relative(some_output_code_module(), kiln::test::h100_root());
    auto r = run_command({kiln::test::cli_path(), "rebench", module.string(), "--devices", "0", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["devices"].size(), 1u);
    EXPECT_EQ(j["devices"][0]["status"], "ok") << j.dump();
    EXPECT_GT(j["devices"][0]["ms"].get<double>(), 0);
}

TEST(CliRebench, WithTorchPerKernelTimesNameEachKernel) {
    if (!python_has_torch() || !fs::exists("/dev/nvidiactl"))
        GTEST_SKIP() << "needs python3 with torch and an NVIDIA GPU";
    // A module compiled with benchmark_kernel on (the fixture's were not), in a fresh cache.
    kiln::test::ScratchDir dir("cli-rebench-k");
    auto made = run_command({"python3", (kiln::test::source_dir() / "tests/app/cli/make_kernel_module.py").string(),
                             (dir.path() / "cache").string()});
    ASSERT_EQ(made.exit_code, 0) << made.err;
    std::string module = made.out.substr(0, made.out.find_last_not_of("\n") + 1);
    module = module.substr(module.find_last_of('\n') + 1);
    auto r = run_command({kiln::test::cli_path(), "rebench", module, "--devices", "0", "--kernels", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["devices"].size(), 1u);
    const auto& d = j["devices"][0];
    ASSERT_EQ(d["status"], "ok") << j.dump();
    ASSERT_GE(d["timings"]["kernels"].size(), 2u) << j.dump();
    for (const auto& k : d["timings"]["kernels"]) {
        EXPECT_GT(k["ms"].get<double>(), 0) << k.dump();
        EXPECT_EQ(k["name"].get<std::string>().rfind("triton_", 0), 0u) << "named from the cache: " << k.dump();
    }
}

// A graph entry (a pickle) given to rebench is refused before anything runs: no Python is started
// (the --python given does not exist, and the error is not about it).
TEST(CliRebench, APickleEntryIsRefusedBeforeAnythingRuns) {
    const auto entry = kiln::test::two_entries_root() /
                       "fxgraph/sb/fsbnatbp6m2keoozno6te7auv6dbw22iozfrx4joxfgl6rn734eh/"
                       "deg4ivyb4kcgy5eslbjybulmyzbjan4oasgg56equm4f3dzcmga";
    auto r = run_command({kiln::test::cli_path(), "rebench", entry.string(), "--python", "/nonexistent/python3"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("not an output-code module"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("/nonexistent/python3"), std::string::npos) << r.err;
}
