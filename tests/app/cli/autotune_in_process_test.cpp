// kiln-cli autotune --in-process with kernels that misbehave (issue 16.13): a kernel that hangs is
// stopped by the result timeout's watchdog, a kernel that ends the process (exit, _exit) does not
// look like success; both exit 1 and keep the results measured before them (timing cache and
// session log).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace fs = std::filesystem;
using kiln::test::read_file;
using kiln::test::run_command;

namespace {

// The reference (BAD=0) copies; the other choice (BAD=1) runs `bad`.
std::string spec_text(const std::string& bad) {
    nlohmann::json j = nlohmann::json::parse(R"({"op": "kiln_bad_cpu", "kernel_name": "k", "extra_args": [64],
      "inputs": [{"dtype": "float32", "sizes": [64]}], "output": {"dtype": "float32", "sizes": [64]},
      "params": {"BAD": [0, 1]}, "reference": {"BAD": 0}, "timing": {"warmup_ms": 1, "rep_ms": 2}})");
    j["template"] =
        "#include <cstdint>\n#include <cstdlib>\n#include <unistd.h>\nextern \"C\" void k(const float* x, "
        "float* y, std::int64_t n) { if (BAD) { " +
        bad + " } for (std::int64_t i = 0; i < n; ++i) y[i] = x[i]; }\n";
    return j.dump();
}

struct Outcome {
    kiln::test::CommandResult run;
    std::string cache;  // the timing cache file's text ("" if none)
    std::string log;    // the session log's text
};

Outcome tune_in_process(const fs::path& dir, const std::string& bad) {
    fs::path spec = dir / "bad.json", root = dir / "root", log = dir / "session.jsonl";
    std::ofstream(spec) << spec_text(bad);
    Outcome o;
    o.run = run_command({"timeout", "-s", "KILL", "120", kiln::test::cli_path(), "autotune", spec.string(),
                         "--in-process", "--devices", "cpu", "--cache-dir", root.string(), "--session-log",
                         log.string(), "--result-timeout", "3", "--quiet"});
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root / "cache", ec)) o.cache = read_file(e.path());
    o.log = read_file(log);
    return o;
}

void expect_reference_kept(const Outcome& o) {
    EXPECT_NE(o.cache.find("kiln_bad_cpu"), std::string::npos) << "no timing saved:\n" << o.cache;
    EXPECT_NE(o.log.find("\"event\":\"session_aborted\""), std::string::npos) << o.log;
    EXPECT_NE(o.log.find("\"measured\":1"), std::string::npos) << o.log;
}

}  // namespace

TEST(CliAutotuneInProcess, AHangingKernelIsStoppedByTheResultTimeout) {
    kiln::test::ScratchDir dir("cli-inproc-hang");
    auto o = tune_in_process(dir.path(), "for (;;) pause();");
    EXPECT_EQ(o.run.exit_code, 1) << o.run.err;  // 137: the watchdog never fired
    EXPECT_NE(o.run.err.find("gave no result within 3"), std::string::npos) << o.run.err;
    expect_reference_kept(o);
}

TEST(CliAutotuneInProcess, AKernelThatEndsTheProcessIsNoSuccess) {
    for (const char* end : {"_exit(0);", "std::exit(0);", "std::_Exit(0);"}) {
        kiln::test::ScratchDir dir("cli-inproc-exit");
        auto o = tune_in_process(dir.path(), end);
        EXPECT_EQ(o.run.exit_code, 1) << end << "\n" << o.run.err;
        EXPECT_NE(o.run.err.find("ended the process during its benchmark"), std::string::npos) << end << o.run.err;
        expect_reference_kept(o);
    }
}
