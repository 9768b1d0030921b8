// Hostile and broken input: nothing runs, nothing crashes, every failure is a typed error that
// says where (byte offset, opcode) and why.
#include <gtest/gtest.h>

#include <filesystem>

#include "pickle/decoder.hpp"
#include "pickle/json.hpp"
#include "test_bytes.hpp"
#include "test_support.hpp"

namespace {

using namespace kiln;

Error decode_error(std::string_view bytes, const pickle::Limits& limits = {}) {
    auto doc = pickle::decode_bytes(bytes, "input", limits);
    if (doc.ok()) {
        ADD_FAILURE() << "decoded, expected an error";
        return {};
    }
    return doc.error();
}

// class Evil: __reduce__ = lambda self: (os.system, ('touch /tmp/kiln_pickle_pwned_marker',))
constexpr const char* kEvilProto0 =
    "63706f7369780a73797374656d0a70300a2856746f756368202f746d702f6b696c6e5f7069636b6c655f70776e65645f6d61726b65720a7031"
    "0a7470"
    "320a5270330a2e";
constexpr const char* kEvilProto4 =
    "8004953e000000000000008c05706f736978948c0673797374656d9493948c23746f756368202f746d702f6b696c6e5f7069636b6c655f7077"
    "6e65645f"
    "6d61726b657294859452942e";
constexpr const char* kMarker = "/tmp/kiln_pickle_pwned_marker";

TEST(PickleHostile, OsSystemPickleDecodesToInertNodes) {
    for (const char* hex : {kEvilProto0, kEvilProto4}) {
        std::filesystem::remove(kMarker);
        auto doc = pickle::decode_bytes(test::from_hex(hex), "evil");
        ASSERT_TRUE(doc.ok()) << doc.error().str();
        pickle::Ref root = (*doc)->root();
        ASSERT_TRUE(root->is(pickle::Kind::call));
        EXPECT_EQ(root->call_type(), "posix.system");
        ASSERT_EQ(root->args()->items().size(), 1u);
        EXPECT_EQ(root->args()->items()[0]->text(), "touch /tmp/kiln_pickle_pwned_marker");
        EXPECT_EQ(pickle::to_json(root).dump(),
                  R"({"$type":"posix.system","$args":["touch /tmp/kiln_pickle_pwned_marker"]})");
        EXPECT_FALSE(std::filesystem::exists(kMarker)) << "the pickle's command ran";
    }
}

TEST(PickleHostile, ErrorsSayWhereAndWhy) {
    // BINUNICODE declaring 4 GiB with 3 bytes left.
    Error e =
        decode_error(std::string("\x80\x04X\xff\xff\xff\xff"
                                 "abc.",
                                 11));
    EXPECT_EQ(e.code, Errc::parse);
    EXPECT_EQ(e.context, "input: byte 2, opcode BINUNICODE");
    EXPECT_NE(e.message.find("declared length exceeds the bytes left"), std::string::npos);
}

TEST(PickleHostile, OversizedDeclaredLengths) {
    for (std::string p : {std::string("\x80\x04\x8e\xff\xff\xff\xff\xff\xff\xff\x7f"
                                      "x.",
                                      13),                                                    // BINBYTES8
                          std::string("\x80\x05\x96\x00\x00\x00\x00\x01\x00\x00\x00.", 12),   // BYTEARRAY8
                          std::string("\x80\x04\x8d\x10\x00\x00\x00\x00\x00\x00\x00.", 12),   // BINUNICODE8
                          std::string("\x80\x04\x95\x00\x00\x00\x00\x00\x01\x00\x00N.", 13),  // FRAME
                          std::string("\x80\x02\x8b\xff\xff\xff\x7f.", 8),                    // LONG4
                          std::string("\x80\x02\x8b\xff\xff\xff\xff.", 8),                    // LONG4 negative
                          std::string("\x80\x02T\x05\x00\x00\x00"
                                      "ab.",
                                      10)}) {  // BINSTRING
        Error e = decode_error(p);
        EXPECT_EQ(e.code, Errc::parse) << e.str();
        EXPECT_NE(e.context.find("byte 2"), std::string::npos) << e.str();
    }
}

TEST(PickleHostile, OddSetitemsDanglingMemoAndMarkUnderflow) {
    EXPECT_NE(decode_error("\x80\x04}(K\x01u.").message.find("odd number of items for SETITEMS"), std::string::npos);
    EXPECT_NE(decode_error("(K\x01"
                           "d.")
                  .message.find("odd number of items for DICT"),
              std::string::npos);
    EXPECT_NE(decode_error("\x80\x04h\x05.").message.find("never stored"), std::string::npos);
    EXPECT_NE(decode_error(std::string("\x80\x04j\x00\x00\x01\x00.", 8)).message.find("never stored"),
              std::string::npos);
    EXPECT_EQ(decode_error("\x80\x04]K\x01"
                           "e.")
                  .context,
              "input: byte 5, opcode APPENDS");  // no MARK
    EXPECT_EQ(decode_error("K\x01t.").context, "input: byte 2, opcode TUPLE");
    EXPECT_EQ(decode_error("1.").context, "input: byte 0, opcode POP_MARK");
    // A MARK fences the stack: values below it cannot be consumed.
    EXPECT_EQ(decode_error("]K\x01(a.").context, "input: byte 4, opcode APPEND");
    EXPECT_EQ(decode_error("R.").context, "input: byte 0, opcode REDUCE");
    EXPECT_EQ(decode_error(".").context, "input: byte 0, opcode STOP");
}

TEST(PickleHostile, MalformedInput) {
    EXPECT_EQ(decode_error("").message, "the data ended before STOP");
    EXPECT_EQ(decode_error("\xff.").message, "not a pickle opcode");
    EXPECT_EQ(decode_error("\x80\x06N.").message, "unsupported pickle protocol (newer than 5)");
    EXPECT_EQ(decode_error("\x8c\x02\xff\xfe.").message, "invalid UTF-8 in a str");
    EXPECT_EQ(decode_error("K\x01K\x02\x93.").message, "STACK_GLOBAL requires str");
    EXPECT_EQ(decode_error("]N\x8c\x01x"
                           "b.")
                  .message,
              "BUILD on a value that is not an object");
    EXPECT_EQ(decode_error("Ixyz\n.").message, "invalid character in the integer text");
    EXPECT_EQ(decode_error("Fnotafloat\n.").message, "invalid FLOAT text");
    EXPECT_EQ(decode_error("S'unterminated\n.").message, "the STRING argument is not quoted");
    EXPECT_EQ(decode_error("Iabc").message, "no newline before the end of the data");
    EXPECT_EQ(decode_error(std::string("\x82\x00.", 3)).message, "EXT code must be positive");
}

TEST(PickleHostile, LimitsAreTypedLimitErrors) {
    pickle::Limits small;
    small.max_depth = 10;
    Error e = decode_error(std::string(11, '('), small);
    EXPECT_EQ(e.code, Errc::limit);
    EXPECT_EQ(e.context, "input: byte 10, opcode MARK");

    small = {};
    small.max_nodes = 5;
    e = decode_error("(NNNNNNNNl.", small);
    EXPECT_EQ(e.code, Errc::limit);
    EXPECT_EQ(e.message, "too many nodes");

    small = {};
    small.max_memo = 2;
    e = decode_error("N\x94N\x94N\x94.", small);
    EXPECT_EQ(e.code, Errc::limit);
    EXPECT_EQ(e.context, "input: byte 5, opcode MEMOIZE");

    // Memo indices far apart (LONG_BINPUT 0, 4096, 8192, ...) go to a sparse table: memory
    // stays proportional to the entries, not to the largest index.
    std::string spread = "N";
    for (std::uint32_t i = 0; i < 1000; ++i) {
        std::uint32_t idx = i * 4096;
        spread += 'r';
        spread.append(reinterpret_cast<const char*>(&idx), 4);  // little-endian host
    }
    auto doc = pickle::decode_bytes(spread + "j" + std::string("\x00\x10\x00\x00", 4) + ".", "spread");
    ASSERT_TRUE(doc.ok()) << doc.error().str();
    EXPECT_TRUE((*doc)->root()->is(pickle::Kind::none));

    small = {};
    small.max_stack = 3;
    EXPECT_EQ(decode_error("NNNN.", small).code, Errc::limit);

    // Python refuses integer text over 4300 digits; so does the decoder (no quadratic work).
    EXPECT_EQ(decode_error("I" + std::string(5000, '7') + "\n.").code, Errc::parse);
}

TEST(PickleHostile, SharedSubtreesCannotBlowUpJson) {
    // 64 levels of t = (t, t) through the memo: 2^64 paths, 64 nodes.
    std::string p = "\x80\x02N";
    for (int i = 0; i < 64; ++i) p += "\x94h" + std::string(1, static_cast<char>(i)) + "\x86";
    p += ".";
    auto doc = pickle::decode_bytes(p, "dag");
    ASSERT_TRUE(doc.ok()) << doc.error().str();
    EXPECT_LT((*doc)->node_count(), 70u);
    pickle::JsonOptions o;
    o.max_nodes = 10000;
    std::string s = pickle::to_json((*doc)->root(), o).dump();
    EXPECT_NE(s.find(R"("$truncated":"size")"), std::string::npos);
}

TEST(PickleHostile, LoneSurrogatesBecomeReplacementCharactersInJson) {
    auto doc = pickle::decode_bytes("Vx\\ud800y\n.", "surrogate");
    ASSERT_TRUE(doc.ok()) << doc.error().str();
    EXPECT_EQ(pickle::to_json((*doc)->root()).dump(), "\"x\xEF\xBF\xBDy\"");
}

// Truncating a real entry at every byte offset gives an error (never a crash or a value).
void truncate_everywhere(const std::filesystem::path& path) {
    std::string bytes = test::read_file(path);
    ASSERT_GT(bytes.size(), 1000u);
    ASSERT_TRUE(pickle::decode_bytes(bytes, "whole").ok());
    for (std::size_t n = 0; n < bytes.size(); ++n) {
        auto doc = pickle::decode_bytes(std::string_view(bytes).substr(0, n), "prefix");
        ASSERT_FALSE(doc.ok()) << "prefix of " << n << " bytes decoded";
        ASSERT_FALSE(doc.error().message.empty());
    }
}

TEST(PickleHostile, TruncationAtEveryOffsetOfTwoRealEntries) {
    // The two smallest entries of the H100 fixture: an AOTAutograd result and a CPU FX graph.
    truncate_everywhere(test::h100_root() /
                        "aotautograd/axw2gaunvw32c7amsywq7jwz4yv2fkapfwnhewvpydqkyr6d4yql/"
                        "hxoyjw2x3atxl3fmyaoe2cckvafgusdwnomb73acvw2nybfl2e2");
    truncate_everywhere(test::h100_root() /
                        "fxgraph/66/f66k7epmuctxr3eyqmzoosgqq2rjq5u7vgveraa57cif5fewzb6f/"
                        "nuklp4k2pyj5dhncnrujp5wy2tfdin4d7d4ebn6s3iyvydgcjan");
}

}  // namespace

namespace {

using namespace kiln;

// Fuzzer finding (fuzz/regressions/json-invalid-utf8-global-name): a GLOBAL line that is not
// UTF-8 reached the JSON writer, which threw. CPython rejects such a GLOBAL; so does the decoder.
TEST(PickleHostileText, NamesThatAreNotUtf8AreRejected) {
    EXPECT_EQ(decode_error("cmod\x94\nname\n.").message, "GLOBAL module or name is not UTF-8");
    EXPECT_EQ(decode_error("(imod\nna\xffme\n.").message, "INST module or name is not UTF-8");
    EXPECT_EQ(decode_error("Pid\xe9\n.").message, "PERSID id is not ASCII");
}

TEST(PickleHostileText, JsonAndReprsStayValidUtf8) {
    // STACK_GLOBAL from str values holding a lone surrogate, then an object of that class.
    std::string p = "\x80\x04\x8c\x04m\xed\xa0\x80\x8c\x01n\x93)\x81.";
    auto doc = pickle::decode_bytes(p, "surrogate-class");
    ASSERT_TRUE(doc.ok()) << doc.error().str();
    auto j = pickle::to_json((*doc)->root());
    EXPECT_NO_THROW((void)j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::strict));
    // Shortened reprs cut between characters, never inside one.
    std::string euro;
    for (int i = 0; i < 100; ++i) euro += "\xe2\x82\xac";
    std::string s = "\x80\x04X" + std::string("\x2c\x01\x00\x00", 4) + euro + ".";  // BINUNICODE, 300 bytes
    auto d2 = pickle::decode_bytes(s, "euros");
    ASSERT_TRUE(d2.ok()) << d2.error().str();
    for (std::size_t n : {10u, 11u, 12u, 13u, 40u}) {
        std::string r = pickle::short_repr((*d2)->root(), n);
        EXPECT_EQ(pickle::to_json((*d2)->root()).get<std::string>(), euro);
        nlohmann::ordered_json wrapped = r;
        EXPECT_NO_THROW((void)wrapped.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::strict)) << n;
    }
}

}  // namespace
