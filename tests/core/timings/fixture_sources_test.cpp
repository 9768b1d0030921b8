// The fixture's timing sources, read on their own: counts, devices and joined parameters
// checked against the files as Inductor wrote them (see shared/fixtures/README.md).
#include <gtest/gtest.h>

#include <filesystem>

#include "opened_dir.hpp"
#include "test_support.hpp"
#include "timings/kernel_files.hpp"
#include "timings/mm_log.hpp"
#include "timings/stderr_autotune.hpp"
#include "timings/timing_cache_source.hpp"

namespace fs = std::filesystem;
using namespace kiln::timings;

namespace {
fs::path timing_cache_file() {
    for (const auto& e : fs::directory_iterator(kiln::test::h100_root() / "cache")) return e.path();
    return {};
}
}  // namespace

TEST(TimingCache, ReadsBothMmShapesWithDeviceAndParams) {
    auto f = read_timing_cache(timing_cache_file(), kiln::test::h100_root());
    ASSERT_TRUE(f.ok()) << f.error().str();
    EXPECT_EQ(f->device, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(f->system_hash, timing_cache_file().filename().string());
    ASSERT_EQ(f->ops.size(), 2u);
    const Op& small = f->ops[0];
    EXPECT_EQ(small.op, "mm");
    EXPECT_EQ(small.precision, "highest");
    EXPECT_EQ(small.inputs, "512x512 float16, 512x512 float16");
    EXPECT_EQ(small.choices.size(), 20u);
    EXPECT_EQ(small.best, "triton_mm-cy2dwohf74knmswzb73qaw4qclaosh4ozzvjns4nzoxgvhzcdqgh");
    const Choice* best = find_choice(small, small.best);
    ASSERT_NE(best, nullptr);
    EXPECT_DOUBLE_EQ(*best->ms, 0.005791999865323305);
    // Joined from y2/cy2dwohf....py: config_args and the decorator's launch parameters.
    EXPECT_EQ(best->params["BLOCK_M"], 64);
    EXPECT_EQ(best->params["BLOCK_N"], 32);
    EXPECT_EQ(best->params["BLOCK_K"], 128);
    EXPECT_EQ(best->params["num_stages"], 5);
    EXPECT_EQ(best->params["num_warps"], 4);
    EXPECT_NE(best->module_path->find("y2/cy2dwohf"), std::string::npos);
    // The extern mm choice has no module in the cache.
    const Choice* extern_mm = find_choice(small, "mm-cqrjyn5jqdhj5q3lohxxeq3fxnpvy6qsigzdm2ykqas7fpkl7zrz");
    ASSERT_NE(extern_mm, nullptr);
    EXPECT_TRUE(extern_mm->module_path->empty());
    EXPECT_EQ(f->ops[1].inputs, "1024x2048 float16, 2048x256 float16");
    EXPECT_EQ(f->ops[1].choices.size(), 21u);
    EXPECT_EQ(f->ops[1].best, "mm-cqrjyn5jqdhj5q3lohxxeq3fxnpvy6qsigzdm2ykqas7fpkl7zrz");
}

TEST(MmLog, ReadsRecordsAndInvokes) {
    auto log = read_mm_log(kiln::test::fixture_dir() / "h100" / "mm_log.json");
    ASSERT_TRUE(log.ok()) << log.error().str();
    EXPECT_EQ(log->invokes.size(), 8u);
    ASSERT_EQ(log->ops.size(), 2u);
    // The record names no op, only torch's (M, K, N): join_sources finds the op it describes.
    EXPECT_EQ(log->ops[0].op, "mm_family");
    EXPECT_EQ(log->ops[0].inputs, "(512, 512, 512)");
    EXPECT_EQ(log->ops[0].mm_log_key, (std::vector<std::string>{"512", "512", "512"}));
    EXPECT_EQ(log->ops[0].choices.size(), 20u);
    EXPECT_EQ(log->ops[0].choices[0].name, "cublas");
    EXPECT_EQ(log->ops[0].choices[1].name, "triton#0");
    EXPECT_EQ(log->ops[1].mm_log_key, (std::vector<std::string>{"s97", "s52", "s20"}));
    EXPECT_EQ(log->ops[1].choices.size(), 21u);
}

TEST(StderrAutotune, ReadsTablesStatsAndFailedChoice) {
    auto ops = read_stderr_autotune(kiln::test::fixture_dir() / "h100" / "stderr_cold.log");
    ASSERT_TRUE(ops.ok()) << ops.error().str();
    ASSERT_EQ(ops->size(), 2u);
    const Op& a = (*ops)[0];
    EXPECT_EQ(a.op, "mm");
    EXPECT_EQ(a.inputs, "512x512 float16, 512x512 float16");
    EXPECT_EQ(a.best, "triton_mm_4");
    // The table says 0.0058; the stats line before it holds the unrounded time.
    EXPECT_DOUBLE_EQ(*find_choice(a, "triton_mm_4")->ms, 0.005791999865323305);
    EXPECT_DOUBLE_EQ(*find_choice(a, "mm")->ms, 0.0061);
    EXPECT_EQ(find_choice(a, "triton_mm_4")->params["BLOCK_M"], 64);
    // 10 printed choices plus the one that failed to compile (out of shared memory).
    ASSERT_EQ(a.choices.size(), 11u);
    const Choice& failed = a.choices.back();
    EXPECT_FALSE(failed.ms.has_value());
    EXPECT_NE(failed.error.find("out of resource"), std::string::npos) << failed.error;
    EXPECT_EQ(failed.params["BLOCK_M"], 128);
    EXPECT_EQ((*ops)[1].best, "mm");
    EXPECT_DOUBLE_EQ(*find_choice((*ops)[1], "mm")->ms, 0.009151999838650227);
}

TEST(KernelFiles, BestConfigAndKernelPerf) {
    auto root = kiln::test::h100_root();
    auto bc =
        read_best_config(root / "5h" / "89a2eead7dc00d69bd612748182bd49af0a41c9d614be031f6080f3e87a788ab.best_config");
    ASSERT_TRUE(bc.ok()) << bc.error().str();
    EXPECT_EQ(bc->inputs, "triton_red_fused__softmax_mul_sub_sum_1");
    EXPECT_EQ(bc->choices[0].params["R0_BLOCK"], 4);
    EXPECT_EQ(bc->choices[0].params["found_by_coordesc"], false);
    EXPECT_FALSE(bc->choices[0].ms.has_value());

    auto kp = read_kernel_perf(root / "tv" / "ctvutvc7u56qwzlil6z22qlzgmpg6lffeiw557aoz6vi4q2q26jd.kernel_perf");
    ASSERT_TRUE(kp.ok()) << kp.error().str();
    EXPECT_DOUBLE_EQ(*kp->choices[0].ms, 0.05625599855557084);
    EXPECT_EQ(kp->best, "ctvutvc7u56qwzlil6z22qlzgmpg6lffeiw557aoz6vi4q2q26jd");
    EXPECT_NE(kp->choices[0].module_path->find("ctvutvc7u56"), std::string::npos);
}

TEST(KernelFiles, ModuleInfoOfTemplate) {
    auto info = read_kernel_module_info(kiln::test::h100_root() / "zo" /
                                        "czotzywsqlxea3dhs3qhrphv2dh7sgk5citgjx7hidvdiweg7xqz.py");
    ASSERT_TRUE(info.ok()) << info.error().str();
    EXPECT_EQ(info->heuristic, "template");
    EXPECT_EQ(info->kernel_name, "triton_mm");
    EXPECT_TRUE(info->params.contains("GROUP_M"));
    EXPECT_TRUE(info->params.contains("num_warps"));
}

// One read of a root's timing caches looks each kernel module up once (KernelModuleMemo), however many
// files name it: every file joins what it joins when read alone.
TEST(TimingCache, FilesReadWithOneMemoJoinAsEachAlone) {
    kiln::test::ScratchDir dir("timing-cache-memo");
    const fs::path root = dir.path() / "cache-root";
    fs::copy(kiln::test::h100_root(), root, fs::copy_options::recursive);
    const std::string name = timing_cache_file().filename().string();
    const std::string twin(64, 'a');
    fs::copy_file(root / "cache" / name, root / "cache" / twin);
    const auto opened = kiln::test::open_dir(root);
    KernelModuleMemo memo;
    std::size_t choices = 0;
    for (const std::string& rel : {"cache/" + name, "cache/" + twin}) {
        SCOPED_TRACE(rel);
        auto shared = read_timing_cache(opened, rel, &memo);
        auto alone = read_timing_cache(opened, rel);
        ASSERT_TRUE(shared.ok() && alone.ok());
        ASSERT_EQ(shared->ops.size(), alone->ops.size());
        for (std::size_t i = 0; i < alone->ops.size(); ++i) {
            ASSERT_EQ(shared->ops[i].choices.size(), alone->ops[i].choices.size());
            for (std::size_t k = 0; k < alone->ops[i].choices.size(); ++k) {
                EXPECT_EQ(shared->ops[i].choices[k].module_path, alone->ops[i].choices[k].module_path);
                EXPECT_EQ(shared->ops[i].choices[k].params, alone->ops[i].choices[k].params);
            }
            choices += alone->ops[i].choices.size();
        }
    }
    EXPECT_GT(choices, 40u);
    EXPECT_FALSE(memo.by_key.empty());
    EXPECT_LE(memo.by_key.size(), choices / 2);  // the twin found every module in the memo
    std::size_t joined = 0;
    for (const auto& [key, m] : memo.by_key) joined += !m.path->empty();
    EXPECT_GT(joined, 0u);
}
