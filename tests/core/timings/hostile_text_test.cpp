// Issue 42 #1: a kernel module with 50 KB of spaces after `@triton.jit` and a saved stderr log with a
// 30 KB `AUTOTUNE mm(...)` line are read to the same result as their ordinary forms. std::regex
// recursed once per character there and overflowed the stack (SIGSEGV in `timings` and the GUI).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "test_support.hpp"
#include "timings/kernel_files.hpp"
#include "timings/stderr_autotune.hpp"

namespace fs = std::filesystem;
using namespace kiln::timings;

namespace {

const fs::path kTemplateModule = fs::path("zo") / "czotzywsqlxea3dhs3qhrphv2dh7sgk5citgjx7hidvdiweg7xqz.py";

void write_file(const fs::path& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
}

// `text` with `insert` placed right after the first `after`.
std::string inserted_after(std::string text, const std::string& after, const std::string& insert) {
    auto at = text.find(after);
    EXPECT_NE(at, std::string::npos) << after;
    if (at != std::string::npos) text.insert(at + after.size(), insert);
    return text;
}

}  // namespace

TEST(HostileKernelModule, FiftyKilobytesOfSpacesAfterTritonJit) {
    const fs::path original = kiln::test::h100_root() / kTemplateModule;
    kiln::test::ScratchDir dir("hostile_kernel_module");
    const fs::path hostile = dir.path() / original.filename();
    write_file(hostile, inserted_after(kiln::test::read_file(original), "@triton.jit", std::string(50 * 1024, ' ')));

    auto want = read_kernel_module_info(original);
    ASSERT_TRUE(want.ok()) << want.error().str();
    auto got = read_kernel_module_info(hostile);
    ASSERT_TRUE(got.ok()) << got.error().str();
    EXPECT_EQ(got->heuristic, "template");
    EXPECT_EQ(got->kernel_name, "triton_mm");
    EXPECT_EQ(got->params, want->params);
}

TEST(HostileStderrLog, ThirtyKilobyteAutotuneLine) {
    const fs::path original = kiln::test::fixture_dir() / "h100" / "stderr_cold.log";
    std::string sizes;
    while (sizes.size() < 30 * 1024) sizes += ", 8x8";
    kiln::test::ScratchDir dir("hostile_stderr_log");
    const fs::path hostile = dir.path() / "stderr_cold.log";
    write_file(hostile, inserted_after(kiln::test::read_file(original), "AUTOTUNE mm(512x512, 512x512", sizes));

    auto want = read_stderr_autotune(original);
    ASSERT_TRUE(want.ok()) << want.error().str();
    auto got = read_stderr_autotune(hostile);
    ASSERT_TRUE(got.ok()) << got.error().str();
    ASSERT_EQ(got->size(), want->size());
    const Op& op = got->front();
    EXPECT_EQ(op.op, "mm");
    EXPECT_EQ(op.sizes.size(), 2 + sizes.size() / 5);
    EXPECT_EQ(op.inputs.rfind("512x512 float16, 512x512 float16, 8x8, 8x8", 0), 0u) << op.inputs.substr(0, 80);
    ASSERT_EQ(op.choices.size(), want->front().choices.size());
    for (std::size_t i = 0; i < op.choices.size(); ++i) EXPECT_EQ(op.choices[i].name, want->front().choices[i].name);
    EXPECT_EQ(op.best, want->front().best);
    EXPECT_EQ((*got)[1].inputs, (*want)[1].inputs);
}

// The same for a failed choice's line: its reason and its parameters may be any length.
TEST(HostileStderrLog, ThirtyKilobyteExceptionLine) {
    const std::string params(30 * 1024, 'x');
    const std::string log = "E1126 01:15:21.440000 447 select_algorithm.py:3541] [0/0] Exception " + params +
                            " for benchmark choice TritonTemplateCaller(/tmp/a.py, BLOCK_K=128, num_warps=8, Z='" +
                            params + "')\nAUTOTUNE mm(512x512, 512x512)\n  mm 0.0100 ms 100.0% \n";
    auto ops = parse_stderr_autotune(log, "log");
    ASSERT_EQ(ops.size(), 1u);
    ASSERT_EQ(ops[0].choices.size(), 2u);
    EXPECT_EQ(ops[0].choices[0].name, "mm");
    EXPECT_EQ(ops[0].choices[1].name, "TritonTemplateCaller:a");
    EXPECT_EQ(ops[0].choices[1].error, params);
    EXPECT_EQ(ops[0].choices[1].params["num_warps"], 8);
}
