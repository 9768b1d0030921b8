// Compile times of the fixture's graphs against Python's own reading (golden.json).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "inductor/graph_list.hpp"
#include "inductor/scanner.hpp"

#include "test_support.hpp"
#include "timings/compile_times.hpp"

using namespace kiln::timings;

TEST(CompileTimes, MatchGoldenTimeTakenNs) {
    auto golden = nlohmann::json::parse(kiln::test::read_file(kiln::test::fixture_dir() / "h100" / "golden.json"));
    std::map<std::string, std::int64_t> expected;
    for (const auto& e : golden["entries"])
        if (e.contains("_time_taken_ns") && e["_time_taken_ns"].is_number())  // AOT entries have none
            expected[e["path"].get<std::string>()] = e["_time_taken_ns"].get<std::int64_t>();
    ASSERT_EQ(expected.size(), 13u);

    auto root = kiln::test::h100_root();
    auto ct = read_compile_times(root);
    ASSERT_TRUE(ct.ok()) << ct.error().str();
    EXPECT_TRUE(ct->errors.empty()) << ct->errors.front();
    ASSERT_EQ(ct->graphs.size(), expected.size());
    for (const auto& g : ct->graphs) {
        auto rel = std::filesystem::relative(g.path, root).generic_string();
        ASSERT_TRUE(expected.count(rel)) << rel;
        EXPECT_EQ(g.ns, expected[rel]) << rel;
    }
    std::map<std::string, std::uint64_t> files;
    for (const auto& c : ct->categories) files[c.category] = c.files;
    EXPECT_EQ(files["fxgraph"], 13u);  // shared/fixtures/README.md counts
    EXPECT_EQ(files["triton_compiled"], 905u);
    EXPECT_EQ(files["best_config"], 5u);
}

TEST(CompileTimes, LogHistogramCoversEveryGraph) {
    std::vector<GraphCompileTime> g{{"a", 2'000'000}, {"b", 250'000'000}, {"c", 47'000'000'000}, {"d", 260'000'000}};
    auto bins = log_histogram(g);
    int total = 0;
    for (const auto& b : bins) total += b.count;
    EXPECT_EQ(total, 4);
    EXPECT_LE(bins.front().lo_s, 0.002);
    EXPECT_GT(bins.back().hi_s, 47.0);
    for (size_t i = 1; i < bins.size(); ++i) EXPECT_DOUBLE_EQ(bins[i].lo_s, bins[i - 1].hi_s);
    EXPECT_TRUE(log_histogram({}).empty());
}

// The GUI reads the graph entries once (ls's rows, a batch at a time) for the browser's names, the
// Overview and the Compile times view: the times from those rows are compile_times_of's, decode errors
// and their order included.
TEST(CompileTimes, FromRowsEqualsTheirOwnRead) {
    kiln::test::ScratchDir dir("compile-times-rows");
    const std::filesystem::path root = dir.path() / "inductor";
    std::filesystem::copy(kiln::test::h100_root(), root, std::filesystem::copy_options::recursive);
    std::vector<std::filesystem::path> entries;  // two broken entries: errors come in scan order
    for (const auto& e : std::filesystem::recursive_directory_iterator(root / "fxgraph"))
        if (e.is_regular_file()) entries.push_back(e.path());
    ASSERT_GE(entries.size(), 3u);
    std::sort(entries.begin(), entries.end());
    for (const auto& e : {entries.front(), entries.back()})
        std::filesystem::resize_file(e, std::filesystem::file_size(e) / 2);
    auto scan = kiln::inductor::scan_cache(root);
    ASSERT_TRUE(scan.ok()) << scan.error().str();

    const CompileTimes own = compile_times_of(*scan);
    CompileTimesFromRows gathered;
    std::size_t rows = 0;
    auto read = kiln::inductor::for_each_graph_batch(*scan, 3, [&](std::vector<kiln::inductor::GraphRow>& batch) {
        for (const auto& r : batch) gathered.add(r), ++rows;
    });
    ASSERT_TRUE(read.ok()) << read.error().str();
    ASSERT_GE(rows, entries.size());
    const CompileTimes viaRows = gathered.finish(*scan);

    ASSERT_EQ(own.errors.size(), 2u);
    EXPECT_EQ(viaRows.errors, own.errors);
    ASSERT_EQ(viaRows.graphs.size(), own.graphs.size());
    EXPECT_EQ(own.graphs.size(), 11u);
    for (std::size_t i = 0; i < own.graphs.size(); ++i) {
        EXPECT_EQ(viaRows.graphs[i].path, own.graphs[i].path);
        EXPECT_EQ(viaRows.graphs[i].ns, own.graphs[i].ns);
    }
    ASSERT_EQ(viaRows.categories.size(), own.categories.size());
    for (std::size_t i = 0; i < own.categories.size(); ++i) {
        EXPECT_EQ(viaRows.categories[i].category, own.categories[i].category);
        EXPECT_EQ(viaRows.categories[i].files, own.categories[i].files);
        EXPECT_EQ(viaRows.categories[i].bytes, own.categories[i].bytes);
    }
    // finish hands over what it kept: a second finish has no times left.
    EXPECT_TRUE(gathered.finish(*scan).graphs.empty());
}
