// Every graph entry of both shared fixtures decodes, and what the views read equals what
// Python's own unpickler read (golden.json beside each fixture).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <set>

#include "hash/sha256.hpp"
#include "inductor/graph_entry.hpp"
#include "pickle/disassemble.hpp"
#include "test_support.hpp"

namespace {

using namespace kiln;
using nlohmann::json;

template <class T>
json opt(const std::optional<T>& v) {
    return v ? json(*v) : json(nullptr);
}

void check_fixture(const std::filesystem::path& fixture) {
    json golden = json::parse(test::read_file(fixture / "golden.json"));
    const auto& entries = golden.at("entries");
    ASSERT_GT(entries.size(), 0u);
    for (const auto& g : entries) {
        std::string rel = g.at("path");
        SCOPED_TRACE(rel);
        auto entry = inductor::load_graph_entry(fixture / "inductor" / rel);
        ASSERT_TRUE(entry.ok()) << entry.error().str();
        const auto& e = *entry;
        EXPECT_EQ(e.type(), g.at("type").get<std::string>());
        EXPECT_EQ(e.document().protocol(), g.at("pickle_protocol"));

        auto names = e.field_names();
        std::sort(names.begin(), names.end());
        EXPECT_EQ(json(names), g.at("fields"));

        EXPECT_EQ(opt(e.cache_key()), g.value("cache_key", json(nullptr)));
        EXPECT_EQ(opt(e.guards_expr()), g.at("guards_expr"));
        EXPECT_EQ(opt(e.fx_graph_cache_key()), g.value("_fx_graph_cache_key", json(nullptr)));
        EXPECT_EQ(opt(e.time_taken_ns()), g.value("_time_taken_ns", json(nullptr)));
        for (const char* set_field : {"device_types", "device_idxs", "mutated_inputs", "mutated_input_idxs"}) {
            json want = g.value(set_field, json(nullptr));
            json got = e.field(set_field) ? json() : json(nullptr);
            if (e.field(set_field)) {
                std::string f = set_field;
                if (f == "device_types") got = e.device_types();
                else if (f == "device_idxs") got = e.device_idxs();
                else if (f == "mutated_inputs") got = e.mutated_inputs();
                else got = e.mutated_input_idxs();
            }
            EXPECT_EQ(got, want) << set_field;
        }
        if (g.contains("source_code_sha256") && !g.at("source_code_sha256").is_null()) {
            auto src = e.source_code();
            ASSERT_TRUE(src.has_value());
            EXPECT_EQ(hash::sha256_hex(*src), g.at("source_code_sha256").get<std::string>());
            // Python's len(str) counts code points, not UTF-8 bytes.
            std::size_t code_points = 0;
            for (unsigned char c : *src) code_points += (c & 0xC0) != 0x80;
            EXPECT_EQ(code_points, g.at("source_code_len").get<std::size_t>());
        } else {
            EXPECT_FALSE(e.source_code().has_value());
        }
        json want_lines = g.value("debug_lines", json(nullptr));
        if (want_lines.is_null()) EXPECT_TRUE(e.debug_lines().empty());
        else EXPECT_EQ(json(e.debug_lines()), want_lines);
        // The views without copies hold the same lines (an AOT entry's forward ones too).
        const auto views = e.debug_line_views();
        EXPECT_EQ(std::vector<std::string>(views.begin(), views.end()), e.debug_lines());
        const auto fw_views = e.forward_debug_line_views();
        EXPECT_EQ(std::vector<std::string>(fw_views.begin(), fw_views.end()), e.forward_debug_lines());

        // The opcode listing covers the same opcodes Python's pickletools saw.
        auto ops = pickle::disassemble(e.document().bytes());
        ASSERT_TRUE(ops.ok()) << ops.error().str();
        EXPECT_EQ(ops->size(), g.at("n_ops").get<std::size_t>());
        std::set<std::string> seen;
        for (const auto& op : *ops) seen.insert(op.name);
        EXPECT_EQ(json(seen), g.at("pickle_opcodes"));
    }
}

TEST(GraphEntryGolden, H100FixtureMatchesPython) { check_fixture(test::fixture_dir() / "h100"); }
TEST(GraphEntryGolden, TwoEntriesFixtureMatchesPython) { check_fixture(test::fixture_dir() / "two"); }

}  // namespace
