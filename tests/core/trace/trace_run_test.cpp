// TORCH_TRACE logs as compiles (trace_run): frames, create_symbol values, events tied by record order.
#include <gtest/gtest.h>

#include <set>

#include "inductor/graph_list.hpp"
#include "test_support.hpp"
#include "trace/trace_run.hpp"

namespace {

using namespace kiln::trace;

// The cold run calls torch._dynamo.reset() between scenarios: compile id 0/0 repeats, and each event
// still belongs to the compile of its own scenario (its function differs).
TEST(TraceRun, ColdRunCompilesByRecordOrder) {
    auto run = read_trace_run(kiln::test::fixture_dir() / "h100" / "trace" / "cold");
    ASSERT_TRUE(run.ok()) << run.error().str();
    std::set<std::string> functions;
    std::size_t fx = 0;
    for (const auto& e : run->events) {
        if (e.cache != "fx_graph") continue;
        ++fx;
        ASSERT_TRUE(e.compile.has_value()) << e.log << ":" << e.line;
        const TraceCompile& c = run->compiles[*e.compile];
        EXPECT_LT(c.line, e.line);
        // A module's compile starts in torch's `inner` wrapper: the user's frame is the caller.
        bool user = c.user_file.empty();
        EXPECT_EQ(user ? c.file : c.user_file, "/work/steering/tools/gen_inductor_cache.py");
        functions.insert(user ? c.function : c.user_function);
        if (!user) {
            EXPECT_EQ(c.user_function, "mlp_train");
            EXPECT_EQ(c.user_code, "loss = cm(x).square().mean()");
        }
    }
    EXPECT_EQ(fx, 12u);
    EXPECT_GE(functions.size(), 5u);
}

TEST(TraceRun, HugeRunSymbolValue) {
    auto run = read_trace_run(kiln::test::two_entries_root().parent_path() / "trace" / "huge");
    ASSERT_TRUE(run.ok()) << run.error().str();
    ASSERT_FALSE(run->compiles.empty());
    const TraceCompile& c = run->compiles.front();
    EXPECT_EQ(c.function, "pw");
    EXPECT_EQ(c.first_line, 67);
    EXPECT_EQ(c.pid, 1338);
    const TraceSymbol* s = c.find_symbol("s77");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->value, "2147483664");
    EXPECT_EQ(s->source, "L['x'].size()[0]");
    EXPECT_EQ(s->range, "[2, int_oo]");
    for (const auto& e : run->events) {
        if (e.cache == "fx_graph") {
            EXPECT_EQ(kiln::inductor::guard_symbols(e.components), std::vector<std::string>{"s77"});
        }
    }
    EXPECT_EQ(local_time_label("1126 01:28:00.047000"), "11-26 01:28:00.047");
}

}  // namespace
