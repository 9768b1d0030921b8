// Key format, base64 and value wrapping: the bytes Inductor's RedisRemoteCache writes.
#include "remote/base64.hpp"
#include "remote/remote_key.hpp"
#include "remote/remote_value.hpp"
#include "util/python_json.hpp"

#include <gtest/gtest.h>

using namespace kiln::remote;

TEST(Base64, MatchesPython) {
    // base64.b64encode(b"") ... b64encode(b"foobar")
    const char* plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    const char* coded[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int i = 0; i < 7; ++i) {
        EXPECT_EQ(base64_encode(plain[i]), coded[i]);
        auto back = base64_decode(coded[i]);
        ASSERT_TRUE(back) << coded[i];
        EXPECT_EQ(*back, plain[i]);
    }
    std::string all;
    for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
    EXPECT_EQ(*base64_decode(base64_encode(all)), all);
}

TEST(Base64, RejectsCorruption) {
    for (const char* bad : {"Zg=", "Z===", "Zm9v!mFy", "Zg==Zg==", "Zm=v", "Zm9v\n"}) {
        auto r = base64_decode(bad);
        EXPECT_FALSE(r) << bad;
        if (!r) {
            EXPECT_EQ(r.error().code, kiln::Errc::parse);
        }
    }
}

TEST(Base64, LongInputsDecodeAndABadCharacterIsLocated) {
    std::string plain;
    for (int i = 0; i < 100003; ++i) plain += static_cast<char>((i * 131 + 7) & 0xff);
    std::string coded = base64_encode(plain);
    EXPECT_EQ(*base64_decode(coded), plain);
    for (size_t at : {size_t{0}, size_t{5}, size_t{13}, coded.size() / 2, coded.size() - 6}) {
        std::string bad = coded;
        bad[at] = '*';
        auto r = base64_decode(bad);
        ASSERT_FALSE(r) << at;
        EXPECT_NE(r.error().str().find("offset " + std::to_string(at)), std::string::npos) << r.error().str();
    }
}

TEST(RemoteKey, ParsesInductorKeys) {
    auto k = parse_remote_key("pt2:fx-graph-v1::fabcdef:c1");
    ASSERT_TRUE(k);
    EXPECT_EQ(k->cache_id, "fx-graph-v1");
    EXPECT_EQ(k->key, "fabcdef");
    EXPECT_EQ(k->version, 1);
    auto colons = parse_remote_key("pt2:autotune-best-config-v2::a:b:c::d:c12");
    ASSERT_TRUE(colons);
    EXPECT_EQ(colons->cache_id, "autotune-best-config-v2");
    EXPECT_EQ(colons->key, "a:b:c::d");
    EXPECT_EQ(colons->version, 12);
    for (const char* foreign : {"session:42", "pt2:nokey", "pt2:::k:c1", "pt2:id::k:cx", "pt2:id::k", "pt2:id::k:c"})
        EXPECT_FALSE(parse_remote_key(foreign)) << foreign;
    EXPECT_EQ(format_remote_key("fx-graph-v1", "fabc"), "pt2:fx-graph-v1::fabc:c1");
    EXPECT_EQ(value_kind_for("autograd-experimental"), RemoteValueKind::graph_pickle);
    EXPECT_EQ(value_kind_for("autotune-best-config-v2"), RemoteValueKind::json);
}

TEST(RemoteValue, GraphValueIsPythonsJsonDumps) {
    // json.dumps({"data": base64.b64encode(b"\x80\x04K\x01.").decode("ascii"), "time_taken_ms": 12})
    std::string pickle("\x80\x04K\x01.", 5);
    std::string v = encode_graph_value(pickle, 12);
    EXPECT_EQ(v, R"({"data": "gARLAS4=", "time_taken_ms": 12})");
    auto g = decode_graph_value(v);
    ASSERT_TRUE(g) << g.error().str();
    EXPECT_EQ(g->pickle, pickle);
    EXPECT_EQ(g->time_taken_ms, 12);
}

TEST(RemoteValue, LargeGraphValuesWithShortAndLongTails) {
    std::string pickle;
    for (int i = 0; i < 50000; ++i) pickle += static_cast<char>(i * 31 + 5);
    std::string v = encode_graph_value(pickle, 7);
    auto g = decode_graph_value(v);
    ASSERT_TRUE(g) << g.error().str();
    EXPECT_EQ(g->pickle, pickle);
    EXPECT_EQ(g->time_taken_ms, 7);
    // A newer torch may add fields after "data": a tail longer than the quick look-behind, with quotes.
    std::string tail = ", \"note\": \"" + std::string(400, 'q') + "\", \"time_taken_ms\": 9}";
    std::string longer = v.substr(0, v.size() - std::string(", \"time_taken_ms\": 7}").size()) + tail;
    auto h = decode_graph_value(longer);
    ASSERT_TRUE(h) << h.error().str();
    EXPECT_EQ(h->pickle, pickle);
    EXPECT_EQ(h->time_taken_ms, 9);
}

TEST(RemoteValue, GraphValueErrorsSayWhy) {
    auto not_json = decode_graph_value(std::string("\x80\x04K\x01.", 5));
    ASSERT_FALSE(not_json);
    EXPECT_EQ(not_json.error().code, kiln::Errc::parse);
    EXPECT_NE(not_json.error().message.find("not JSON"), std::string::npos);
    EXPECT_FALSE(not_json.error().hint.empty());
    auto no_data = decode_graph_value(R"({"time_taken_ms": 3})");
    ASSERT_FALSE(no_data);
    EXPECT_NE(no_data.error().message.find("'data'"), std::string::npos);
    auto bad_b64 = decode_graph_value(R"({"data": "gAR$AS4=", "time_taken_ms": 3})");
    ASSERT_FALSE(bad_b64);
    EXPECT_NE(bad_b64.error().str().find("base64"), std::string::npos);
    EXPECT_FALSE(decode_graph_value("[1, 2]"));
}

TEST(RemoteValue, PythonJsonDumps) {
    // Python keeps a dict's insertion order; so does the dump.
    auto j = nlohmann::ordered_json::parse(R"({"XBLOCK": 4, "num_warps": 8, "found_by_coordesc": true,
        "triton_cache_hash": null, "ms": 0.0123, "list": [1, 2.5, "x", 1.0], "name": "caf\u00e9 \ud83d\ude00\n"})");
    EXPECT_EQ(kiln::py_dumps(j),
              R"({"XBLOCK": 4, "num_warps": 8, "found_by_coordesc": true, "triton_cache_hash": null, "ms": 0.0123, )"
              R"("list": [1, 2.5, "x", 1.0], "name": "caf\u00e9 \ud83d\ude00\n"})");
    auto back = decode_json_value(kiln::py_dumps(j));
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, j);
}
