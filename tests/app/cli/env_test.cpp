// kiln-cli env on this machine (no GPU, python3 without torch) and --from.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "test_support.hpp"

namespace {

using kiln::test::run_command;
using nlohmann::json;
namespace fs = std::filesystem;

fs::path h100h200_dir() { return kiln::test::fixture_dir() / "h100h200"; }

const json* named(const json& list, const std::string& name) {
    for (const auto& c : list)
        if (c["name"] == name) return &c;
    return nullptr;
}

TEST(CliEnv, ThisMachineSaysWhatItCannotKnow) {
    // python3 without torch, whatever this machine has installed; the device depends on the host.
    kiln::test::ScratchDir dir("cli-env-no-torch");
    const std::string path = "PATH=" + kiln::test::path_without_torch(dir.path());
    auto r = run_command({"env", path, kiln::test::cli_path(), "env", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json j = json::parse(r.out);
    EXPECT_EQ(j["kiln_fingerprint"], 1);
    EXPECT_TRUE(j["hash"].is_null());
    const json* dev = named(j["unknown"], "system_info[device]");
    if (kiln::test::has_cuda_device()) {
        EXPECT_EQ(dev, nullptr) << r.out;  // the driver names the GPU
        ASSERT_NE(named(j["components"], "system_info[device]"), nullptr) << r.out;
    } else {
        ASSERT_NE(dev, nullptr) << r.out;
        if (!kiln::test::cuda_driver_loads()) {
            EXPECT_NE((*dev)["why"].get<std::string>().find("no CUDA driver"), std::string::npos);
        }
    }
    ASSERT_NE(named(j["unknown"], "torch_version"), nullptr);
    const json* cxx = named(j["components"], "inductor_config[cpp.cxx]");
    ASSERT_NE(cxx, nullptr);
    EXPECT_EQ((*cxx)["scope"], "environment");
    bool says_why = false;
    for (const auto& note : j["notes"])
        says_why = says_why || note.get<std::string>().find("cannot import torch") != std::string::npos;
    EXPECT_TRUE(says_why) << r.out;

    auto text = run_command({"env", path, kiln::test::cli_path(), "env"});
    EXPECT_EQ(text.exit_code, 0);
    EXPECT_NE(text.out.find("system hash   unknown"), std::string::npos) << text.out;
    if (!kiln::test::cuda_driver_loads()) {
        EXPECT_NE(text.out.find("  system_info[device]                no CUDA driver"), std::string::npos) << text.out;
    }
}

TEST(CliEnv, PythonWithoutTorchIsAUsageError) {
    kiln::test::ScratchDir dir("cli-env-python");
    fs::path py = dir.path() / "python-no-site";  // a real interpreter that cannot see site-packages
    std::ofstream(py) << "#!/bin/sh\nexec python3 -S \"$@\"\n";
    fs::permissions(py, fs::perms::owner_all);
    auto r = run_command({kiln::test::cli_path(), "env", "--python", py.string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("cannot import torch: ModuleNotFoundError"), std::string::npos) << r.err;
    r = run_command({kiln::test::cli_path(), "env", "--python", (dir.path() / "missing").string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("cannot run"), std::string::npos) << r.err;
    r = run_command({kiln::test::cli_path(), "env", "--python", "python3", "--from",
                     (h100h200_dir() / "h200/trace/warm").string()});
    EXPECT_EQ(r.exit_code, 2);
}

TEST(CliEnv, FromATraceACacheAndAnEntry) {
    auto r =
        run_command({kiln::test::cli_path(), "env", "--from", (h100h200_dir() / "h200/trace/warm").string(), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json j = json::parse(r.out);
    std::string hash = j["hash"];
    EXPECT_TRUE(fs::exists(h100h200_dir() / "inductor/cache" / hash));  // the H200's own timing cache is named by it
    EXPECT_EQ((*named(j["components"], "system_info[device]"))["value"], "{'name': 'NVIDIA H200'}");
    EXPECT_EQ((*named(j["facts"], "compute_capability"))["value"], "90");

    r = run_command({kiln::test::cli_path(), "env", "--from", (h100h200_dir() / "inductor").string(), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    j = json::parse(r.out);
    EXPECT_EQ(j["hash"], hash);  // the newest entries are the H200's
    EXPECT_NE(j["notes"].dump().find("another environment (NVIDIA H100 80GB HBM3"), std::string::npos) << j["notes"];

    // A Mega-Cache blob reads like the cache load_cache_artifacts would write from it: the H200's.
    r = run_command(
        {kiln::test::cli_path(), "env", "--from", (h100h200_dir() / "h200/megacache.bin").string(), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    j = json::parse(r.out);
    EXPECT_EQ(j["hash"], hash);
    EXPECT_EQ((*named(j["components"], "system_info[device]"))["value"], "{'name': 'NVIDIA H200'}");
    r = run_command({kiln::test::cli_path(), "env", "--from", (h100h200_dir() / "h200/megacache.bin").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("Mega-Cache blob"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("(binary digest"), std::string::npos) << r.out;  // torch_version is a digest
}

TEST(CliEnv, PrintsTheProbeScript) {
    auto r = run_command({kiln::test::cli_path(), "env", "--print-probe"});
    ASSERT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("FxGraphCachePickler"), std::string::npos);
    auto py = run_command({"python3", "-S", "-c", r.out});  // runs; without torch it says so, as JSON, exit 3
    EXPECT_EQ(py.exit_code, 3);
    json j = json::parse(py.out);
    EXPECT_EQ(j["kiln_probe"], 1);
    EXPECT_NE(j["error"].get<std::string>().find("cannot import torch"), std::string::npos);
}

// The format version is compared as the number it is: 4294967297 was read as 1 (an int cut to 32 bits).
TEST(CliEnv, OutOfRangeFingerprintVersionIsRefused) {
    kiln::test::ScratchDir dir("cli-env-version");
    for (const std::string v : {"4294967297", "18446744073709551617", "-4294967295", "2", "1.0"}) {
        const fs::path file = dir.path() / "fp.json";
        std::ofstream(file) << R"({"kiln_fingerprint": )" << v << R"(, "components": []})";
        auto r = run_command({kiln::test::cli_path(), "env", "--from", file.string()});
        EXPECT_EQ(r.exit_code, 2) << v << ": " << r.out;
        EXPECT_NE(r.err.find("fingerprint format version"), std::string::npos) << v << ": " << r.err;
        EXPECT_NE(r.err.find("this Kiln reads 1"), std::string::npos) << v << ": " << r.err;
    }
}

}  // namespace
