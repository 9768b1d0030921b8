// Graph entries as the cache holds them (kiln-cli ls's rows before trace names: trace/graph_names).
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include "decoy_root.hpp"
#include "inductor/beneath_root.hpp"
#include "inductor/graph_entry.hpp"
#include "inductor/graph_list.hpp"
#include "inductor/scanner.hpp"
#include "opened_dir.hpp"
#include "test_support.hpp"

namespace {

using namespace kiln::inductor;

TEST(GraphList, TwoEntriesFromTheCache) {
    auto list = list_graphs(kiln::test::open_dir(kiln::test::two_entries_root()));
    ASSERT_TRUE(list.ok()) << list.error().str();
    EXPECT_FALSE(list->trace.has_value());  // this module reads no trace
    ASSERT_EQ(list->rows.size(), 4u);
    const GraphRow& fx = list->rows[0];
    EXPECT_EQ(fx.kind, "fxgraph");
    EXPECT_EQ(fx.key, "fsbnatbp6m2keoozno6te7auv6dbw22iozfrx4joxfgl6rn734eh");
    EXPECT_EQ(fx.guards, "2 <= L['t0'] and L['t0'] <= 2147483647");
    EXPECT_EQ(fx.compile_ns, 270978305);
    EXPECT_TRUE(fx.function.empty());
    ASSERT_EQ(fx.symbols.size(), 1u);
    EXPECT_EQ(fx.symbols[0].name, "t0");
    EXPECT_EQ(fx.symbols[0].symbol, "s77");
    EXPECT_EQ(fx.symbols[0].source, "");
    ASSERT_EQ(fx.inputs.size(), 3u);
    EXPECT_EQ(fx.inputs[0].text, "s77");
    EXPECT_EQ(fx.inputs[1].text, "float16[s77] cuda:0");
    EXPECT_EQ(fx.role, "forward");
    EXPECT_EQ(fx.used_by, std::vector<std::string>{"a4pxxvose2w4y3ecq3az3lst3awwzfpllzkollbqxqbiafz7ni2c"});
    const GraphRow& aot = list->rows[2];
    EXPECT_EQ(aot.kind, "aotautograd");
    EXPECT_EQ(aot.forward_key, fx.key);
    EXPECT_FALSE(aot.backward_key.has_value());
    EXPECT_TRUE(aot.compile_ns.has_value());
}

// The GUI's path: the rows of the browser's scan are the rows of the root, in the same order.
TEST(GraphList, FromAScanEqualsFromTheRoot) {
    for (const auto& root : {kiln::test::two_entries_root(), kiln::test::h100_root()}) {
        auto fromRoot = list_graphs(kiln::test::open_dir(root));
        ASSERT_TRUE(fromRoot.ok()) << fromRoot.error().str();
        auto scan = scan_cache(root);
        ASSERT_TRUE(scan.ok());
        auto fromScan = list_graphs(*scan);
        ASSERT_TRUE(fromScan.ok()) << fromScan.error().str();
        EXPECT_EQ(to_json(*fromRoot).dump(), to_json(*fromScan).dump()) << root;
        EXPECT_GT(fromScan->rows.size(), 3u);
    }
}

// The GUI's read: the rows a batch at a time are list_graphs(scan)'s rows (AOT links included), the
// aotautograd rows first, each kind in path order, no batch larger than asked.
TEST(GraphList, BatchesHoldTheRowsOfTheWholeList) {
    for (const auto& root : {kiln::test::two_entries_root(), kiln::test::h100_root()}) {
        auto scan = scan_cache(root);
        ASSERT_TRUE(scan.ok());
        auto whole = list_graphs(*scan);
        ASSERT_TRUE(whole.ok()) << whole.error().str();
        auto from_root = list_graphs(kiln::test::open_dir(root));  // the same rows without a scan
        ASSERT_TRUE(from_root.ok()) << from_root.error().str();
        EXPECT_EQ(to_json(*from_root).dump(), to_json(*whole).dump()) << root;
        for (std::size_t batch : {1u, 3u, 1000u})
            for (bool kept : {true, false}) {
                GraphList aot, fx;
                std::size_t batches = 0;
                const std::function<void(std::vector<GraphRow>&)> take = [&](std::vector<GraphRow>& rows) {
                    ++batches;
                    EXPECT_LE(rows.size(), batch);
                    EXPECT_FALSE(rows.empty());
                    for (auto& r : rows) {
                        if (r.kind == "fxgraph") fx.rows.push_back(std::move(r));
                        else {
                            EXPECT_TRUE(fx.rows.empty()) << "an AOT row after an FX row: " << r.path;
                            aot.rows.push_back(std::move(r));
                        }
                    }
                };
                auto s = kept ? for_each_graph_batch(*scan, batch, take)
                              : for_each_graph_batch(kiln::test::open_dir(root), batch, take);
                ASSERT_TRUE(s.ok()) << s.error().str();
                std::size_t fx_rows = 0;
                for (const auto& r : whole->rows) fx_rows += r.kind == "fxgraph";
                const std::size_t aot_rows = whole->rows.size() - fx_rows;
                EXPECT_EQ(batches, (fx_rows + batch - 1) / batch + (aot_rows + batch - 1) / batch) << batch;
                GraphList joined = std::move(fx);  // list_graphs' order: fxgraph rows, then aotautograd rows
                for (auto& r : aot.rows) joined.rows.push_back(std::move(r));
                EXPECT_EQ(to_json(joined).dump(), to_json(*whole).dump())
                    << root << ", batches of " << batch << (kept ? " from a scan" : " from the root");
            }
    }
}

TEST(GraphList, BatchesStopWhenCancelled) {
    auto scan = scan_cache(kiln::test::h100_root());
    ASSERT_TRUE(scan.ok());
    std::atomic<bool> cancel{false};
    std::size_t taken = 0;
    auto s = for_each_graph_batch(
        *scan, 2,
        [&](std::vector<GraphRow>& rows) {
            taken += rows.size();
            cancel = true;
        },
        &cancel);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().code, kiln::Errc::cancelled);
    EXPECT_EQ(taken, 2u);
}

// The rows still say what the graph takes; the MLP's forward and backward are linked to their AOT entry.
TEST(GraphList, H100Rows) {
    auto list = list_graphs(kiln::test::open_dir(kiln::test::h100_root()));
    ASSERT_TRUE(list.ok()) << list.error().str();
    EXPECT_EQ(list->rows.size(), 25u);  // 13 fxgraph + 12 aotautograd
    std::size_t backward = 0;
    for (const auto& r : list->rows) {
        EXPECT_TRUE(r.error.empty()) << r.path << ": " << r.error;
        EXPECT_TRUE(r.function.empty()) << r.path;
        backward += r.role == "backward";
        if (r.key == "fej3ypleo5ccxyjnzfv46rsawa3nerozpyvrcvtakojqw2j5kwww") {
            ASSERT_EQ(r.inputs.size(), 2u);
            EXPECT_EQ(r.inputs[0].text, "float16[512, 512] cuda:0");
        }
    }
    EXPECT_EQ(backward, 1u);
    EXPECT_EQ(describe_input("8"), "8");
}

// Issue 44: `guards KEY` without sizes lists the key dir beneath the root it was looked up in. The root
// renamed away after the open and a decoy at its path (the same key dir, holding one file that is no
// graph entry): the rows are the opened root's, read through its descriptor.
TEST(GraphList, AKeyDirIsListedBeneathTheOpenedRootNotItsPath) {
    namespace fs = std::filesystem;
    const std::string key_dir = "fxgraph/sb/fsbnatbp6m2keoozno6te7auv6dbw22iozfrx4joxfgl6rn734eh";
    kiln::test::ScratchDir dir("graph-list-decoy");
    const kiln::test::DecoyedRoot d = kiln::test::open_root_then_decoy(dir, kiln::test::two_entries_root());
    const fs::path &root = d.root, &moved = d.moved;
    const kiln::test::OpenedDir& opened = d.opened;
    ASSERT_TRUE(opened.fd.valid());
    fs::create_directories(root / key_dir);
    std::ofstream(root / key_dir / "decoy") << "not the cache that was opened";
    auto rows = list_key_dir(opened, key_dir);
    ASSERT_TRUE(rows.ok()) << rows.error().str();
    // The same rows as the key dir listed by its path in the root that was opened.
    auto by_path = list_key_dir(moved / key_dir);
    ASSERT_TRUE(by_path.ok()) << by_path.error().str();
    ASSERT_FALSE(rows->empty());
    ASSERT_EQ(rows->size(), by_path->size());
    for (std::size_t i = 0; i < rows->size(); ++i) {
        const GraphRow &r = (*rows)[i], &p = (*by_path)[i];
        EXPECT_NE(r.file, "decoy");
        EXPECT_EQ(r.file, p.file);
        EXPECT_EQ(r.path, path_beneath(opened, key_dir + "/" + r.file));
        EXPECT_EQ(r.kind, "fxgraph");
        EXPECT_EQ(r.key, "fsbnatbp6m2keoozno6te7auv6dbw22iozfrx4joxfgl6rn734eh");
        EXPECT_TRUE(r.error.empty()) << r.error;
        EXPECT_TRUE(r.guards.has_value()) << r.file;
        EXPECT_EQ(r.guards, p.guards);
        EXPECT_EQ(r.compile_ns, p.compile_ns);
    }
    // A key dir the opened root does not hold (only the decoy has it) is not found there.
    fs::create_directories(root / "fxgraph" / "zz" / "fzzdecoy");
    std::ofstream(root / "fxgraph" / "zz" / "fzzdecoy" / "entry") << "decoy";
    auto missing = list_key_dir(opened, "fxgraph/zz/fzzdecoy");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, kiln::Errc::not_found);
}

// A key line that continues the one before it (a log that split a value) joins it for the row's inputs;
// the entry's split components leave it out and say so (KeyComponents::all_split), so the row is read
// from the lines, as for an entry whose every line is a component.
TEST(GraphList, AContinuedKeyLineJoinsTheInputBeforeIt) {
    const std::string hash(51, 'a');
    auto pickled = [](const std::vector<std::string>& lines) {
        std::string p = std::string(
                            "\x80\x04\x8c\x1btorch._inductor.output_code\x8c\x0f"
                            "CompiledFxGraph\x93)\x81}(") +
                        "\x8c\x1b_fx_graph_cache_debug_lines](";
        for (const auto& l : lines) p += "\x8c" + std::string(1, static_cast<char>(l.size())) + l;
        return p + "eub.";
    };
    const std::string input0 = "[" + hash + "] example_inputs[0]: ('s0',)";
    const std::string head =
        "[" + hash + "] example_inputs[1]: TensorMetadata(dtype=torch.float32, shape=torch.Size([s0,";
    const std::string tail = " 8]), device=device(type='cuda', index=0))";
    kiln::test::ScratchDir dir("graph-list-continued");
    const auto key_dir = dir.path() / "fxgraph" / "ab" / ("fab" + std::string(49, 'c'));
    std::filesystem::create_directories(key_dir);
    std::ofstream(key_dir / "entry", std::ios::binary) << pickled({input0, head, tail});
    std::ofstream(key_dir / "whole", std::ios::binary) << pickled({input0, head + "\n" + tail});

    auto rows = list_key_dir(key_dir);
    ASSERT_TRUE(rows.ok()) << rows.error().str();
    ASSERT_EQ(rows->size(), 2u);
    for (const GraphRow& r : *rows) {
        SCOPED_TRACE(r.file);
        EXPECT_TRUE(r.error.empty()) << r.error;
        ASSERT_EQ(r.inputs.size(), 2u);
        EXPECT_EQ(r.inputs[0].text, "s0");
        EXPECT_EQ(r.inputs[1].text, "float32[s0,\n 8] cuda:0");
        ASSERT_EQ(r.symbols.size(), 1u);
        EXPECT_EQ(r.symbols[0].symbol, "s0");
    }
    auto split = decode_graph_entry(pickled({input0, head, tail}), "continued");
    ASSERT_TRUE(split.ok()) << split.error().str();
    const KeyComponents& c = split->key_components();
    EXPECT_TRUE(c.has_lines);
    EXPECT_FALSE(c.all_split);
    ASSERT_EQ(c.components.size(), 2u);
    EXPECT_EQ(c.components[1].name, "example_inputs[1]");
    EXPECT_EQ(&split->key_components(), &c);              // split once
    EXPECT_FALSE(split->key_components(true).has_lines);  // no forward graph: an FX entry
}

}  // namespace
