// The typed views over real entries (kernels bundled, counters, strides, AOT forward keys, JSON)
// and over entries from a torch that adds fields.
#include <gtest/gtest.h>

#include <filesystem>

#include "inductor/graph_entry.hpp"
#include "test_support.hpp"

namespace {

using namespace kiln;
namespace fs = std::filesystem;

inductor::GraphEntry load(const fs::path& rel) {
    auto e = inductor::load_graph_entry(test::h100_root() / rel);
    EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().str());
    return e.ok() ? *e : inductor::GraphEntry{};
}

// The max-autotune mm graph: 8.6 MB, with Triton kernels bundled.
const fs::path kMmEntry =
    "fxgraph/yg/fygldk366xeatlz7nfvy2zsl3k55ym5kcn2c366ejalbhhojodnz/"
    "xqe7kzjyrq37sxmogzsv67fvhni3elqmbax3poy54hxvh7comxf";
const fs::path kCpuEntry =
    "fxgraph/66/f66k7epmuctxr3eyqmzoosgqq2rjq5u7vgveraa57cif5fewzb6f/"
    "nuklp4k2pyj5dhncnrujp5wy2tfdin4d7d4ebn6s3iyvydgcjan";
const fs::path kAotEntry =
    "aotautograd/aojam2cfkjwlqcxcqpd3plr2uvmfbweeyzfiywbwqsv44vqf3wlt/"
    "ib73e6kof7smfcq2zqw7utr6l6lwo22af7pzwvbznklwgo4zmsn";

TEST(GraphEntryViews, TritonBundleListsKernelsAndTheirBinaries) {
    auto e = load(kMmEntry);
    ASSERT_TRUE(e.is_fx_graph());
    auto kernels = e.triton_bundle();
    ASSERT_FALSE(kernels.empty());
    const auto& k = kernels.front();
    EXPECT_EQ(k.kernel_hash, "YPA2MSPKEP7D37FTWRUZFHKFF5XLTNRBSDA55TGGBRCWLVJBVVZA");
    EXPECT_EQ(k.name, "triton_mm");
    EXPECT_EQ(k.device, 0);
    bool has_cubin = false;
    for (const auto& f : k.files) has_cubin |= f.filename == "triton_mm.cubin" && f.size == 32480;
    EXPECT_TRUE(has_cubin);
    EXPECT_GT(k.total_bytes(), 32480u);
    EXPECT_TRUE(load(kCpuEntry).triton_bundle().empty());
}

TEST(GraphEntryViews, CountersStridesAndConstants) {
    auto e = load(kMmEntry);
    auto counters = e.counter_deltas();
    bool found = false;
    for (const auto& [name, n] : counters) found |= name == "select_algorithm_num_precompiles" && n == 20;
    EXPECT_TRUE(found);
    auto strides = e.output_strides();
    ASSERT_EQ(strides.size(), 1u);
    ASSERT_TRUE(strides[0].has_value());
    EXPECT_EQ(*strides[0], (std::vector<std::string>{"s20", "1"}));
    EXPECT_TRUE(e.constant_names().empty());
}

TEST(GraphEntryViews, AotAutogradPointsAtItsForwardGraph) {
    auto e = load(kAotEntry);
    EXPECT_TRUE(e.is_aot_autograd());
    auto fw = e.forward_fx_key();
    ASSERT_TRUE(fw.has_value());
    EXPECT_EQ(fw->front(), 'f');
    EXPECT_EQ(fw->size(), 52u);
    // The forward graph it names is an entry of the same cache.
    EXPECT_TRUE(fs::is_directory(test::h100_root() / "fxgraph" / fw->substr(1, 2) / *fw));
}

// The split components are each key line's, once per entry, shared by copies: FX its own lines, AOT
// its forward graph's.
TEST(GraphEntryViews, KeyComponentsAreEachLineSplitOnce) {
    for (const auto& [rel, forward] : {std::pair{kMmEntry, false}, std::pair{kAotEntry, true}}) {
        SCOPED_TRACE(rel.string());
        const auto e = load(rel);
        const auto lines = forward ? e.forward_debug_line_views() : e.debug_line_views();
        ASSERT_GT(lines.size(), 100u);
        const inductor::KeyComponents& c = e.key_components(forward);
        EXPECT_TRUE(c.has_lines);
        EXPECT_TRUE(c.all_split);
        ASSERT_EQ(c.components.size(), lines.size());
        for (std::size_t i = 0; i < lines.size(); ++i) {
            const auto v = inductor::split_component_view(lines[i]);
            ASSERT_TRUE(v.has_value());
            EXPECT_EQ(c.components[i].name, v->name);
            EXPECT_EQ(c.components[i].value.data(), v->value.data());  // a view, not a copy
        }
        const inductor::GraphEntry copy = e;
        EXPECT_EQ(&copy.key_components(forward), &c);
    }
    EXPECT_FALSE(inductor::GraphEntry{}.key_components().has_lines);
}

TEST(GraphEntryViews, JsonHasTypeAndEveryField) {
    auto e = load(kCpuEntry);
    auto j = e.to_json();
    EXPECT_EQ(j.at("type"), "torch._inductor.output_code.CompiledFxGraph");
    EXPECT_EQ(j.at("fields").size(), e.field_names().size());
    EXPECT_EQ(j.at("fields").at("device_types"), nlohmann::ordered_json::parse(R"(["cpu"])"));
    EXPECT_TRUE(j.at("fields").at("_time_taken_ns").is_number_integer());
    EXPECT_EQ(j.at("fields").at("counter_deltas").at("$type"), "collections.Counter");
    EXPECT_EQ(j.at("fields").at("source_code"), std::string(*e.source_code()));
}

TEST(GraphEntryViews, FieldsOfANewerTorchAreListedGenerically) {
    // CompiledFxGraph.__new__ + BUILD {"cache_key": "c1", "brand_new_field": [1, 2**70]}
    std::string p = std::string(
                        "\x80\x04\x8c\x1btorch._inductor.output_code\x8c\x0f"
                        "CompiledFxGraph\x93)\x81}(") +
                    "\x8c\x09"
                    "cache_key\x8c\x02"
                    "c1\x8c\x0f"
                    "brand_new_field]" +
                    std::string("(K\x01\x8a\x09", 5) + std::string("\x00\x00\x00\x00\x00\x00\x00\x00\x40", 9) + "eub.";
    auto e = inductor::decode_graph_entry(p, "redis:pt2:fx-graph-v1::fabc:c1");
    ASSERT_TRUE(e.ok()) << e.error().str();
    EXPECT_EQ(e->field_names(), (std::vector<std::string>{"cache_key", "brand_new_field"}));
    EXPECT_EQ(e->cache_key(), "c1");
    EXPECT_FALSE(e->guards_expr().has_value());
    EXPECT_EQ(
        e->to_json().dump(),
        R"({"type":"torch._inductor.output_code.CompiledFxGraph","fields":{"cache_key":"c1","brand_new_field":[1,"1180591620717411303424"]}})");
}

TEST(GraphEntryViews, ErrorsNameTheOrigin) {
    auto bad = inductor::decode_graph_entry(std::string_view("\x80\x04K", 3), "redis:key");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().context, "redis:key: byte 2, opcode BININT1");
    auto not_object = inductor::decode_graph_entry("N.", "x");
    ASSERT_FALSE(not_object.ok());
    EXPECT_EQ(not_object.error().message, "the pickle holds a none, not an object");
    auto missing = inductor::load_graph_entry(test::h100_root() / "no-such-entry");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, Errc::not_found);
}

TEST(GraphEntryViews, EntryKeepsItsBytesAliveAfterCopies) {
    inductor::GraphEntry kept;
    std::string expected;
    {
        auto e = load(kCpuEntry);
        ASSERT_TRUE(e.source_code().has_value());
        expected = std::string(*e.source_code());
        kept = e;  // the original dies at the end of the scope
    }
    auto src = kept.source_code();
    ASSERT_TRUE(src.has_value());
    EXPECT_EQ(std::string(*src), expected);
    // Zero-copy: the source is a view into the file's bytes, not a copy.
    std::string_view all = kept.document().bytes();
    EXPECT_GE(src->data(), all.data());
    EXPECT_LE(src->data() + src->size(), all.data() + all.size());
}

}  // namespace
