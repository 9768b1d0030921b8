// The acceptance check: the fixture's timing cache yields the same winners as the mm log
// JSON written by the same run, and as the stderr AUTOTUNE tables for the same shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "test_support.hpp"
#include "timings/mm_log.hpp"
#include "timings/stderr_autotune.hpp"
#include "timings/timing_cache_source.hpp"

namespace fs = std::filesystem;
using namespace kiln::timings;

namespace {

TimingCacheFile load_cache() {
    auto root = kiln::test::h100_root();
    fs::path file;
    for (const auto& e : fs::directory_iterator(root / "cache")) file = e.path();
    auto f = read_timing_cache(file, root);
    EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().str());
    return f.ok() ? std::move(f).value() : TimingCacheFile{};
}

// The launch parameters the mm log records for triton choices.
nlohmann::ordered_json mm_log_params(const nlohmann::ordered_json& p) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const char* k : {"BLOCK_M", "BLOCK_K", "BLOCK_N", "num_stages", "num_warps"})
        if (p.contains(k)) out[k] = p[k];
    return out;
}

}  // namespace

TEST(CrossSource, TimingCacheBestsMatchMmLog) {
    auto cache = load_cache();
    auto log = read_mm_log(kiln::test::fixture_dir() / "h100" / "mm_log.json");
    ASSERT_TRUE(log.ok()) << log.error().str();
    ASSERT_EQ(cache.ops.size(), log->ops.size());
    for (const Op& logged : log->ops) {
        // The mm log names shapes symbolically for dynamic graphs (s97, s52, s20); the same
        // autotuning is recognized by its choices: the same count and the same times.
        const Op* match = nullptr;
        for (const Op& op : cache.ops) {
            if (op.choices.size() != logged.choices.size()) continue;
            bool same = true;
            for (size_t i = 0; i < op.choices.size() && same; ++i) same = op.choices[i].ms == logged.choices[i].ms;
            if (same) match = &op;
        }
        ASSERT_NE(match, nullptr) << "no timing-cache op with the mm log's times for " << logged.inputs;
        ASSERT_EQ(logged.mm_log_key.size(), 3u) << logged.inputs;
        if (logged.mm_log_key[0].find('s') == std::string::npos) {
            EXPECT_EQ(mm_log_key_of(*match), logged.mm_log_key);  // torch's (M, K, N) of the op's inputs
        }
        const Choice* cache_best = find_choice(*match, match->best);
        const Choice* log_best = find_choice(logged, logged.best);
        ASSERT_TRUE(cache_best && log_best);
        EXPECT_EQ(cache_best->ms, log_best->ms) << logged.inputs;
        bool cache_extern = cache_best->module_path->empty();
        EXPECT_EQ(cache_extern, log_best->name == "cublas") << cache_best->name << " vs " << log_best->name;
        if (!cache_extern) {
            EXPECT_EQ(mm_log_params(cache_best->params), log_best->params) << logged.inputs;
        }
    }
}

TEST(CrossSource, TimingCacheBestsMatchStderrTables) {
    auto cache = load_cache();
    auto tables = read_stderr_autotune(kiln::test::fixture_dir() / "h100" / "stderr_cold.log");
    ASSERT_TRUE(tables.ok()) << tables.error().str();
    int matched = 0;
    for (const Op& table : *tables) {
        for (const Op& op : cache.ops) {
            if (!same_problem(op, table)) continue;
            ++matched;
            const Choice* a = find_choice(op, op.best);
            const Choice* b = find_choice(table, table.best);
            ASSERT_TRUE(a && b);
            EXPECT_EQ(a->ms, b->ms) << table.inputs;
            if (!a->params->empty()) {
                for (const auto& [k, v] : b->params->items())
                    EXPECT_EQ(a->params->contains(k) ? a->params->at(k) : nlohmann::ordered_json(), v)
                        << k << " for " << table.inputs;
            } else {
                EXPECT_EQ(a->name.substr(0, a->name.find('-')), b->name);  // extern: "mm-<hash>" vs "mm"
            }
            // Every time the table prints (rounded to 4 decimals) is a cache time of the same rank.
            for (const auto& c : table.choices) {
                if (!c.ms) continue;
                bool found = false;
                for (const auto& cc : op.choices)
                    found = found || (cc.ms && std::abs(*cc.ms - *c.ms) <= 0.00005 + 1e-12);
                EXPECT_TRUE(found) << c.name << " " << *c.ms;
            }
        }
    }
    EXPECT_EQ(matched, 2);
}
