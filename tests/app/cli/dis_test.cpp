// `kiln-cli dis` end to end: the listing of a real entry and of a truncated one.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "test_support.hpp"

namespace kiln::test {
namespace {

const char* kEntry =
    "fxgraph/sb/fsbnatbp6m2keoozno6te7auv6dbw22iozfrx4joxfgl6rn734eh/"
    "deg4ivyb4kcgy5eslbjybulmyzbjan4oasgg56equm4f3dzcmga";

std::vector<std::string> lines_of(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

TEST(CliDis, ListsEveryOpcodeLikePickletools) {
    auto r = run_command({cli_path(), "dis", (two_entries_root() / kEntry).string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto lines = lines_of(r.out);
    auto golden = nlohmann::json::parse(read_file(fixture_dir() / "two" / "golden.json"));
    std::size_t n_ops = 0;
    for (auto& e : golden["entries"])
        if (e["path"] == kEntry) n_ops = e["n_ops"];
    EXPECT_EQ(lines.size(), n_ops);
    ASSERT_GE(lines.size(), 8u);
    // pickletools.dis prints these very lines for the entry's head.
    EXPECT_EQ(lines[0], "    0: \\x80 PROTO      4");
    EXPECT_EQ(lines[2], "   11: \\x8c SHORT_BINUNICODE 'torch._inductor.output_code'");
    EXPECT_EQ(lines[3], "   40: \\x94 MEMOIZE    (as 0)");
    EXPECT_EQ(lines[5], "   58: \\x94 MEMOIZE    (as 1)");
    EXPECT_EQ(lines[6], "   59: \\x93 STACK_GLOBAL");
    EXPECT_EQ(lines.back().substr(lines.back().find(':')), ": .    STOP");
}

TEST(CliDis, TruncatedFileListsThePrefixAndFails) {
    ScratchDir dir("dis");
    auto cut = dir.path() / "cut";
    std::ofstream(cut, std::ios::binary) << read_file(two_entries_root() / kEntry).substr(0, 45);
    auto r = run_command({cli_path(), "dis", cut.string()});
    EXPECT_EQ(r.exit_code, 1);
    auto lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 4u);  // PROTO, FRAME, SHORT_BINUNICODE, MEMOIZE; the next string is cut
    EXPECT_NE(r.err.find("byte 41, opcode SHORT_BINUNICODE"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kiln::test
