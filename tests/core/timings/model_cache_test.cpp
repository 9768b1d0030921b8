// Issue 41's wrong answers, on a real max-autotune cache Kiln never saw before (tests/data README,
// model-h100): which op a template kernel came from, and ops torch keys apart by layout alone. The
// expected answers come from the output code's own "Graph fragment" comments (template_ops.json),
// not from Kiln's reading of the modules.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "test_support.hpp"
#include "timings/collect.hpp"
#include "timings/graph_kernels.hpp"
#include "timings/join_sources.hpp"
#include "timings/kernel_files.hpp"
#include "timings/timing_cache_source.hpp"

namespace fs = std::filesystem;
using namespace kiln::timings;

namespace {

fs::path model_fixture_dir() { return kiln::test::fixture_dir() / "model"; }
fs::path model_fixture_root() { return model_fixture_dir() / "inductor"; }

fs::path model_timing_cache_file() {
    fs::path file;
    for (const auto& e : fs::directory_iterator(model_fixture_root() / "cache")) file = e.path();
    return file;
}

nlohmann::json model_golden() {
    return nlohmann::json::parse(kiln::test::read_file(model_fixture_dir() / "template_ops.json"));
}

std::vector<std::string> model_last_two(const std::vector<std::string>& v) {
    return v.size() < 2 ? v : std::vector<std::string>(v.end() - 2, v.end());
}

}  // namespace

TEST(ModelCache, EveryTemplateKernelIsTiedToTheOpItsModuleDescribes) {
    auto cache = read_timing_cache(model_timing_cache_file(), model_fixture_root());
    ASSERT_TRUE(cache.ok()) << cache.error().str();
    TimingSet set;
    set.ops = cache->ops;
    const auto g = model_golden();
    ASSERT_EQ(g.size(), 21u);
    int tied = 0;
    for (const auto& [rel, want] : g.items()) {
        SCOPED_TRACE(rel + " " + want["kernel"].get<std::string>());
        const fs::path module = model_fixture_root() / rel;
        auto info = read_kernel_module_info(module.string());
        ASSERT_TRUE(info.ok()) << info.error().str();
        std::string text = kiln::test::read_file(module);
        auto match = find_template_choice(set, want["op"], info->params, template_problem(text), cache->device);
        ASSERT_TRUE(match.has_value());
        const Op& op = set.ops[match->op_index];
        EXPECT_EQ(op.op, want["op"].get<std::string>());
        std::vector<std::string> sizes{want["A"]["sizes"], want["B"]["sizes"]};
        std::vector<std::string> strides{want["A"]["strides"], want["B"]["strides"]};
        EXPECT_EQ(model_last_two(op.sizes), sizes) << op.inputs;
        EXPECT_EQ(model_last_two(op.strides), strides) << op.inputs;
        EXPECT_NE(op.inputs.find(want["A"]["dtype"].get<std::string>()), std::string::npos) << op.inputs;
        ++tied;
    }
    EXPECT_EQ(tied, 21);
}

TEST(ModelCache, TemplateProblemReadsSizesStridesAndDtypesOfAModule) {
    const auto g = model_golden();
    const std::string rel = "3j/c3jc246e7gah7fqadu4yuy2ium7je6cwl55fdj7jix5lq467cp3c.py";
    ASSERT_TRUE(g.contains(rel));
    auto p = template_problem(kiln::test::read_file(model_fixture_root() / rel));
    EXPECT_EQ(p.a_size, "1024x384");
    EXPECT_EQ(p.b_size, "384x384");
    EXPECT_EQ(p.a_stride, "384x1");
    EXPECT_EQ(p.b_stride, "1x384");
    EXPECT_EQ(p.a_dtype, "bfloat16");
    EXPECT_EQ(p.b_dtype, "bfloat16");
}

// Two bmm autotunings of the same sizes (strides [16384,128,1] and [16384,1,128] for the second
// operand) and two mm of one shape in two layouts: four ops, as torch keys them, with every source.
TEST(ModelCache, OpsOfTheSameSizesAndOtherStridesStayApartAcrossSources) {
    auto set = collect_timings({model_fixture_root(), model_fixture_dir() / "cold" / "stderr.log",
                                model_fixture_dir() / "cold" / "mm_log.json"});
    ASSERT_TRUE(set.ok()) << set.error().str();
    std::map<std::string, int> per_op;
    int autotuned = 0;
    for (const auto& op : set->ops) {
        if (is_per_kernel_config(op) || op.op == "kernel_perf") continue;
        ++autotuned;
        ++per_op[op.op];
        SCOPED_TRACE(op.op + " " + op.inputs);
        // Every op is the timing cache's, joined with its stderr table and its mm log record: nothing
        // left over "on a device the file does not name", no op with two tables' choices.
        EXPECT_FALSE(op.device.empty());
        EXPECT_EQ(op.also_from.size(), 2u);
        EXPECT_LE(op.choices.size(), 22u);
        std::set<std::string> names;
        for (const auto& c : op.choices) EXPECT_TRUE(names.insert(c.name).second) << c.name;
    }
    EXPECT_EQ(autotuned, 22);  // the timing cache's 22 input keys
    EXPECT_EQ(per_op["mm"], 10);
    EXPECT_EQ(per_op["addmm"], 5);
    EXPECT_EQ(per_op["bmm"], 6);
    EXPECT_EQ(per_op["baddbmm"], 1);
    EXPECT_EQ(per_op.count("mm_family"), 0u);
}

TEST(ModelCache, EachStderrTableJoinsTheOpWhoseTimesItPrinted) {
    auto set = collect_timings({model_fixture_root(), model_fixture_dir() / "cold" / "stderr.log"});
    ASSERT_TRUE(set.ok()) << set.error().str();
    int checked = 0;
    for (const auto& op : set->ops) {
        if (op.op != "bmm" || op.sizes.empty() || op.sizes[0] != "32x128x128") continue;
        // The stderr times (4 decimals) agree with the timing cache's for every choice both have.
        for (const auto& c : op.choices) {
            const Sighting* cache = nullptr;
            const Sighting* table = nullptr;
            for (const auto& s : c.seen_in) {
                if (s.kind == SourceKind::timing_cache) cache = &s;
                if (s.kind == SourceKind::stderr_log) table = &s;
            }
            if (!cache || !table || !cache->ms || !table->ms) continue;
            EXPECT_NEAR(*cache->ms, *table->ms, 0.5e-4 + 1e-12) << c.name;
            ++checked;
        }
    }
    EXPECT_GE(checked, 20);
}

TEST(MmLogKey, IsTorchsMKNOfTheLastTwoInputs) {
    Op mm;
    mm.sizes = {"1024x384", "384x1536"};
    EXPECT_EQ(mm_log_key_of(mm), (std::vector<std::string>{"1024", "384", "1536"}));
    Op addmm;
    addmm.sizes = {"1024x1152", "1024x384", "384x1152"};
    EXPECT_EQ(mm_log_key_of(addmm), (std::vector<std::string>{"1024", "384", "1152"}));
    Op bmm;  // torch takes the batch and M of A: (B, M, N)
    bmm.sizes = {"24x256x64", "24x64x256"};
    EXPECT_EQ(mm_log_key_of(bmm), (std::vector<std::string>{"24", "256", "256"}));
}

TEST(ContiguousInputs, SaysWhetherStridesAreRowMajor) {
    Op op;
    op.sizes = {"32x128x128", "32x128x64"};
    op.strides = {"16384x128x1", "8192x64x1"};
    EXPECT_TRUE(contiguous_inputs(op));
    op.strides[1] = "8192x1x128";
    EXPECT_FALSE(contiguous_inputs(op));
    op.sizes = {"1024x384"};
    op.strides = {"0x1"};  // an expanded bias
    EXPECT_FALSE(contiguous_inputs(op));
}
