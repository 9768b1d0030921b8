// The GUI's Overview judges each graph entry from its one read of the entries (SeenKeys, filled by
// for_each_graph_batch's EntryVisit): the summary equals the one that reads every entry itself, and
// an entry seen is not read again.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "inductor/graph_entry.hpp"
#include "inductor/graph_list.hpp"
#include "inductor/scanner.hpp"
#include "portability/portable.hpp"
#include "portability/seen_keys.hpp"
#include "portability/sources.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace kiln::portability {
namespace {

Fingerprint load(const fs::path& p) {
    auto fp = load_fingerprint(p);
    EXPECT_TRUE(fp.ok()) << fp.error().str();
    return fp.value_or({});
}

// What the window's `graphs` job does: one read of the entries, each decoded one handed over.
std::size_t read_entries(const inductor::ScanResult& scan, SeenKeys& keys) {
    std::size_t rows = 0;
    const Status read = inductor::for_each_graph_batch(
        scan, 5, [&](std::vector<inductor::GraphRow>& batch) { rows += batch.size(); }, nullptr,
        [&](std::size_t, const inductor::GraphRow& row, const inductor::GraphEntry& e) {
            keys.add(row.path, row.kind == "aotautograd", e);
        });
    EXPECT_TRUE(read.ok()) << read.error().str();
    return rows;
}

std::string summary_json(const PortableSummary& s) {
    PortableReport r;
    r.summary = s;
    return report_to_json(r)["summary"].dump();
}

TEST(SeenKeys, TheSummaryFromTheSharedReadEqualsItsOwn) {
    const std::vector<Fingerprint> targets = {
        load(test::source_dir() / "tests/data/probe-h100-from-trace.json"),  // hits everywhere
        load(test::fixture_dir() / "h100h200/h200/trace/warm"),              // misses
        local_fingerprint(),                                                 // unknowns
    };
    for (const fs::path& root :
         {test::h100_root(), test::pgo_root(), test::h100_h200_root(), test::two_entries_root()}) {
        auto scan = inductor::scan_cache(root);
        ASSERT_TRUE(scan.ok()) << scan.error().str();
        SeenKeys keys;
        const std::size_t rows = read_entries(*scan, keys);
        EXPECT_GT(keys.size(), 0u) << root;
        EXPECT_LE(keys.size(), rows) << root;
        EXPECT_LT(keys.distinct(), keys.size()) << root << ": entries share their environments";
        for (const Fingerprint& target : targets) {
            auto own = summarize_scan(*scan, target);
            PortableOptions o;
            o.seen = &keys;
            auto shared = summarize_scan(*scan, target, o);
            ASSERT_TRUE(own.ok()) << own.error().str();
            ASSERT_TRUE(shared.ok()) << shared.error().str();
            EXPECT_EQ(summary_json(*shared), summary_json(*own)) << root << " on " << target.label();
            // The GUI's two steps: the files before the read is in, the entries from it after.
            auto part = summarize_scan_files(*scan, target);
            ASSERT_TRUE(part.ok()) << part.error().str();
            auto stepped = summarize_scan_graphs(**part, *scan, o);
            ASSERT_TRUE(stepped.ok()) << stepped.error().str();
            EXPECT_EQ(summary_json(*stepped), summary_json(*own)) << root << " on " << target.label();
        }
    }
}

TEST(SeenKeys, AnEntrySeenIsNotReadAgain) {
    // Seen, then every entry file cut to 10 bytes: the summary from the seen keys is the intact one; a
    // read of its own finds the entries unreadable.
    test::ScratchDir dir("seen-keys");
    const fs::path root = dir.path() / "cache";
    fs::copy(test::h100_root(), root, fs::copy_options::recursive);
    auto scan = inductor::scan_cache(root);
    ASSERT_TRUE(scan.ok()) << scan.error().str();
    const Fingerprint target = load(test::fixture_dir() / "h100h200/h200/trace/warm");
    auto intact = summarize_scan(*scan, target);
    ASSERT_TRUE(intact.ok());
    SeenKeys keys;
    read_entries(*scan, keys);
    std::size_t cut = 0;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
        const std::string p = fs::relative(e.path(), root).generic_string();
        if (e.is_regular_file() && (p.starts_with("fxgraph/") || p.starts_with("aotautograd/"))) {
            fs::resize_file(e.path(), 10);
            ++cut;
        }
    }
    ASSERT_EQ(cut, 25u);
    PortableOptions o;
    o.seen = &keys;
    auto shared = summarize_scan(*scan, target, o);
    ASSERT_TRUE(shared.ok());
    EXPECT_EQ(summary_json(*shared), summary_json(*intact));
    auto own = summarize_scan(*scan, target);
    ASSERT_TRUE(own.ok());
    EXPECT_NE(summary_json(*own), summary_json(*intact));
    const auto& fx = own->counts[static_cast<std::size_t>(ItemKind::fx_graph)];
    EXPECT_EQ(fx.total, 0u);  // each unreadable: skipped
}

// Everything key_env makes of `lines`, as one comparable string.
std::string facts_text(const std::vector<std::string>& lines) {
    std::vector<std::string_view> views(lines.begin(), lines.end());
    const KeyFacts f = key_facts(views);
    std::string out = f.has_lines ? "L" : "-";
    out += to_json(f.env).dump();
    for (const auto& c : f.config) out += "|" + c.hash + c.name + "=" + c.value;
    for (const auto& h : f.hazards) out += "|" + h.component + "=" + h.value + ":" + h.why;
    for (const auto& n : f.newer) out += "|new " + n;
    return out;
}

std::string input_of(const std::vector<std::string>& lines) {
    std::vector<std::string_view> views(lines.begin(), lines.end());
    return key_env_input(component_views(views));
}

TEST(SeenKeys, EntriesShareAnEnvironmentOnlyWhenKeyEnvSeesTheSame) {
    // Deduplicated on key_env_input before key_env runs: entries apart only in their graph and input
    // shapes share one; a value key_env reads apart (config, system, a path, a device, a new component)
    // does not. Equal inputs must give equal facts.
    const std::string h = "[aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa] ";
    const std::string g = "[bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb] ";
    auto entry = [&](std::string gm, std::string input, std::string config, std::string extra) {
        std::vector<std::string> l = {g + "gm: " + gm, g + "example_inputs[0]: " + input,
                                      h + "inductor_config[max_autotune]: " + config,
                                      h + "system_info[device]: {'name': 'NVIDIA H100'}"};
        if (!extra.empty()) l.push_back(extra);
        return l;
    };
    const std::string cuda0 =
        "TensorMetadata(dtype=torch.float32, shape=torch.Size([8, 4]), device=device(type='cuda', "
        "index=0))";
    const std::string cuda0b =
        "TensorMetadata(dtype=torch.float32, shape=torch.Size([16, 4]), "
        "device=device(type='cuda', index=0))";
    const std::string cuda1 =
        "TensorMetadata(dtype=torch.float32, shape=torch.Size([8, 4]), device=device(type='cuda', "
        "index=1))";
    const auto base = entry("def forward(x): return x", cuda0, "True", "");
    auto kwargs = [&](std::string v) { return h + "fx_kwargs[static_input_idxs]: " + v; };
    const auto base_kw = entry("def forward(x): return x", cuda0, "True", kwargs("[0]"));
    const std::vector<std::vector<std::string>> same = {entry("def forward(y): return y * 2", cuda0b, "True", "")};
    // A graph's own component (not environment, no path in it) leaves no trace either.
    EXPECT_EQ(input_of(entry("def forward(y): return y", cuda0b, "True", kwargs("[0, 1]"))), input_of(base_kw));
    EXPECT_EQ(facts_text(entry("def forward(y): return y", cuda0b, "True", kwargs("[0, 1]"))), facts_text(base_kw));
    EXPECT_NE(input_of(entry("def forward(x): return x", cuda0, "True", kwargs("'/home/me/model.py'"))),
              input_of(base_kw));
    EXPECT_NE(facts_text(entry("def forward(x): return x", cuda0, "True", kwargs("'/home/me/model.py'"))),
              facts_text(base_kw));
    const std::vector<std::vector<std::string>> apart = {
        entry("def forward(x): return x", cuda0, "False", ""),
        entry("def forward(x): return x", cuda1, "True", ""),
        entry("def forward(x): return x", cuda0, "True", h + "inductor_config[cpp.cxx]: (None, '/opt/gcc/bin/g++')"),
        entry("def forward(x): return x", cuda0, "True", h + "some_future_component: 1"),
    };
    for (const auto& s : same) {
        EXPECT_EQ(input_of(s), input_of(base));
        EXPECT_EQ(facts_text(s), facts_text(base));
    }
    for (const auto& a : apart) {
        EXPECT_NE(input_of(a), input_of(base)) << a.back();
        EXPECT_NE(facts_text(a), facts_text(base)) << a.back();
    }
    EXPECT_FALSE(key_facts(std::vector<std::string_view>{}).has_lines);
    EXPECT_EQ(key_facts(std::vector<std::string_view>{h + "some_future_component: 1"}).newer,
              std::vector<std::string>{"some_future_component"});
}

}  // namespace
}  // namespace kiln::portability
