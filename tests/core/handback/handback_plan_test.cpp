// plan_handback: the one decision both front ends show (kiln-cli handback prints it, the GUI's
// Re-tune dialog shows it before a click): complete ops, their Infinity choices with why, and the
// ops left out with why.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "decoy_root.hpp"
#include "handback/handback_plan.hpp"
#include "retune_run_fixture.hpp"
#include "test_support.hpp"
#include "util/python_json.hpp"

namespace fs = std::filesystem;
using namespace kiln::handback;

namespace {
const std::string kPlanH100 = "NVIDIA H100 80GB HBM3";
}

// One choice that cannot launch (written as Infinity, its op handed back) and one that timed out
// (its op left to torch): the plan says both, with their reasons, and is complete_ops' own answer.
TEST(PlanHandback, InfinityChoicesAndOpsLeftOutWithWhy) {
    auto file = kiln::test::cache_file_for(kiln::test::h100_root(), kPlanH100);
    auto j = kiln::test::run_json_from_cache_file(file, kPlanH100);
    auto& m = j["ops"][0]["choices"][3]["measured"][0];
    m["status"] = "failed";
    m["ms"] = nullptr;
    m["why"] = "the kernel needs 262144 bytes of shared memory; this GPU allows 232448";
    m["torch_inf"] = true;
    auto& t = j["ops"][1]["choices"][2]["measured"][0];
    t["status"] = "timeout";
    t["ms"] = nullptr;
    t["why"] = "no result within 30 s; worker stopped";
    auto run = run_from_json(j, "test").value();
    auto plan = plan_handback(run, kiln::test::open_dir(kiln::test::h100_root()));
    ASSERT_EQ(plan.selection.ops.size(), 1u);
    ASSERT_EQ(plan.selection.skipped.size(), 1u);
    EXPECT_EQ(plan.decided(), 2u);
    EXPECT_NE(plan.selection.skipped[0].why.find("timeout: no result within 30 s"), std::string::npos)
        << plan.selection.skipped[0].why;
    EXPECT_EQ(plan.selection.skipped[0].label, run.ops[1].label());
    ASSERT_EQ(plan.infinite.size(), 1u);
    EXPECT_EQ(plan.infinite[0].op, run.ops[0].label());
    EXPECT_EQ(plan.infinite[0].device, kPlanH100);
    EXPECT_EQ(plan.infinite[0].choice, j["ops"][0]["choices"][3]["name"].get<std::string>());
    EXPECT_EQ(plan.infinite[0].why, "the kernel needs 262144 bytes of shared memory; this GPU allows 232448");
    // The same decision as complete_ops', and the same list infinite_choices makes of its ops.
    auto sel = complete_ops(run, std::nullopt);
    ASSERT_EQ(sel.ops.size(), 1u);
    EXPECT_EQ(sel.ops[0].label(), plan.selection.ops[0].label());
    EXPECT_EQ(infinite_choices(sel.ops).size(), 1u);
    EXPECT_EQ(infinite_choices(sel.ops)[0].why, plan.infinite[0].why);
}

// The root gives the recorded file's own Triton key where the run's is abbreviated, as
// `kiln-cli handback ROOT --from RUN` does; without a root those ops are left out, saying why.
TEST(PlanHandback, TheRootCompletesAnAbbreviatedRecordedKey) {
    auto file = kiln::test::cache_file_for(kiln::test::h100_root(), kPlanH100);
    auto j = kiln::test::run_json_from_cache_file(file, kPlanH100);
    for (auto& op : j["ops"]) op["recorded_for"]["triton"] = "3.6.00355c3e3452";
    auto run = run_from_json(j, "t").value();
    auto without = plan_handback(run, {});
    EXPECT_TRUE(without.selection.ops.empty());
    ASSERT_EQ(without.selection.skipped.size(), 2u);
    EXPECT_NE(without.selection.skipped[0].why.find("abbreviated"), std::string::npos);
    auto with = plan_handback(run, kiln::test::open_dir(kiln::test::h100_root()));
    ASSERT_EQ(with.selection.ops.size(), 2u);
    EXPECT_TRUE(with.selection.skipped.empty());
    EXPECT_TRUE(with.infinite.empty());
    EXPECT_EQ(with.selection.ops[0].system_hash(), file.filename().string());
}

// The recorded file's own key is read beneath the opened root (issue 44): the root renamed after the
// open and a decoy of that file (another Triton key) at its old path, the plan still takes the opened
// root's key; the file beneath it swapped for a symlink to the decoy is not followed.
TEST(PlanHandback, ReadsTheRecordedFileBeneathTheOpenedRootNotItsPath) {
    kiln::test::ScratchDir dir("hb-plan-decoy");
    const kiln::test::DecoyedRoot d = kiln::test::open_h100_root_then_decoy(dir);
    ASSERT_TRUE(d.opened.fd.valid());
    const auto file = kiln::test::cache_file_for(d.moved, kPlanH100);
    ASSERT_FALSE(file.empty());
    auto decoy = kiln::py_loads(kiln::test::read_file(file)).value();
    decoy["system"]["version"]["triton"] = "decoy-key";
    { std::ofstream(d.root / "cache" / file.filename()) << kiln::py_dumps(decoy); }
    auto j = kiln::test::run_json_from_cache_file(file, kPlanH100);
    for (auto& op : j["ops"]) op["recorded_for"]["triton"] = "3.6.00355c3e3452";
    auto run = run_from_json(j, "t").value();
    auto plan = plan_handback(run, d.opened);
    ASSERT_EQ(plan.selection.ops.size(), 2u);
    EXPECT_EQ(plan.selection.ops[0].system_hash(), file.filename().string());
    EXPECT_NE(plan.selection.ops[0].versions.triton, "decoy-key");
    fs::remove(file);
    fs::create_symlink(d.root / "cache" / file.filename(), file);
    auto linked = plan_handback(run, d.opened);
    EXPECT_TRUE(linked.selection.ops.empty());
    EXPECT_EQ(linked.selection.skipped.size(), 2u);
}
