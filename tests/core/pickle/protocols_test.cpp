// Every protocol 0-5 as Python writes it: the pickle of the same builtin values must decode to
// the JSON Python's own values map to (tests/core/pickle/python_vectors.inc, made by pickle.dumps).
#include <gtest/gtest.h>

#include "pickle/decoder.hpp"
#include "pickle/json.hpp"
#include "test_bytes.hpp"

namespace {

using namespace kiln;

struct Vector {
    int protocol;
    const char* hex;
    const char* json;
};
const Vector kVectors[] = {
#include "python_vectors.inc"
};

TEST(PickleProtocols, EveryProtocolDecodesToPythonsValues) {
    ASSERT_EQ(std::size(kVectors), 6u);
    for (const auto& v : kVectors) {
        SCOPED_TRACE("protocol " + std::to_string(v.protocol));
        auto doc = pickle::decode_bytes(test::from_hex(v.hex), "vector");
        ASSERT_TRUE(doc.ok()) << doc.error().str();
        EXPECT_EQ((*doc)->protocol(), v.protocol >= 2 ? v.protocol : 0);  // PROTO exists since protocol 2
        auto got = pickle::to_json((*doc)->root());
        auto want = nlohmann::ordered_json::parse(v.json);
        EXPECT_EQ(got, want) << "got:  " << got.dump().substr(0, 2000) << "\nwant: " << want.dump().substr(0, 2000);
    }
}

TEST(PickleProtocols, BigIntegersAreExact) {
    auto doc = pickle::decode_bytes(test::from_hex(kVectors[4].hex), "vector");
    ASSERT_TRUE(doc.ok());
    const auto& items = (*doc)->root()->items();
    auto find = [&](const std::string& dec) {
        for (auto r : items)
            if (r->is(pickle::Kind::integer) && r->as_int().to_decimal() == dec) return r->as_int();
        ADD_FAILURE() << "no integer " << dec;
        return pickle::Int{};
    };
    EXPECT_TRUE(find("9223372036854775807").fits_int64());
    EXPECT_TRUE(find("-9223372036854775808").fits_int64());
    EXPECT_FALSE(find("9223372036854775808").fits_int64());
    EXPECT_FALSE(find("-9223372036854775809").fits_int64());
    EXPECT_FALSE(find("1267650600228229401496703205376").fits_int64());  // 2**100
    EXPECT_TRUE(find("-1267650600228229401496703205376").negative());
    EXPECT_TRUE(find("9007199254740991").fits_53_bits());
    EXPECT_FALSE(find("9007199254740992").fits_53_bits());
}

TEST(PickleProtocols, LargeStringsAndBytesAreViewsIntoTheInput) {
    auto doc = pickle::decode_bytes(test::from_hex(kVectors[4].hex), "vector");
    ASSERT_TRUE(doc.ok());
    std::string_view all = (*doc)->bytes();
    int views = 0;
    for (auto r : (*doc)->root()->items()) {
        if ((r->is(pickle::Kind::string) || r->is(pickle::Kind::bytes)) && r->text().size() == 300) {
            EXPECT_GE(r->text().data(), all.data());
            EXPECT_LE(r->text().data() + r->text().size(), all.data() + all.size());
            ++views;
        }
    }
    EXPECT_EQ(views, 2);
}

TEST(PickleProtocols, MemoReferencesShareOneNode) {
    // x = [1]; pickle.dumps([x, x], protocol=2)
    auto doc = pickle::decode_bytes(test::from_hex("80025d7100285d71014b01616801652e"), "shared");
    ASSERT_TRUE(doc.ok()) << doc.error().str();
    const auto& items = (*doc)->root()->items();
    ASSERT_EQ(items.size(), 2u);
    EXPECT_EQ(items[0], items[1]);
    EXPECT_EQ(pickle::to_json((*doc)->root()).dump(), "[[1],[1]]");
}

TEST(PickleProtocols, CyclesDecodeAndPrintWithoutHanging) {
    // l = []; l.append(l); pickle.dumps(l, protocol=2)
    auto doc = pickle::decode_bytes(test::from_hex("80025d71006800612e"), "cycle");
    ASSERT_TRUE(doc.ok()) << doc.error().str();
    pickle::Ref root = (*doc)->root();
    ASSERT_EQ(root->items().size(), 1u);
    EXPECT_EQ(root->items()[0], root);
    EXPECT_EQ(pickle::to_json(root).dump(), R"([{"$ref":"cycle"}])");
    EXPECT_LT(pickle::short_repr(root, 40).size(), 60u);
    EXPECT_EQ(pickle::children(root).size(), 1u);
}

TEST(PickleProtocols, ProtocolZeroBooleansAndEscapes) {
    // INT 01/00 are booleans; STRING uses repr escapes; UNICODE raw-unicode-escape.
    std::string p = "(I01\nI00\nS'a\\n\\x41\\'b'\nVcaf\\u00e9 \\U0001f600\nL12345678901234567890123L\nl.";
    auto doc = pickle::decode_bytes(p, "p0");
    ASSERT_TRUE(doc.ok()) << doc.error().str();
    EXPECT_EQ(pickle::to_json((*doc)->root()),
              nlohmann::ordered_json::parse(R"([true, false, "a\nA'b", "café 😀", "12345678901234567890123"])"));
}

}  // namespace
