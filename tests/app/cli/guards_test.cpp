// kiln-cli guards: --expr and key-dir lookups on the two-entries fixture, JSON schemas, bad input.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_support.hpp"

namespace {

using kiln::test::run_command;
using nlohmann::json;

std::string two_entries_key_dir() {
    return (kiln::test::two_entries_root() / "fxgraph/sb/fsbnatbp6m2keoozno6te7auv6dbw22iozfrx4joxfgl6rn734eh")
        .string();
}

json run_json(const std::vector<std::string>& args, int want_exit = 0) {
    std::vector<std::string> argv{kiln::test::cli_path()};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run_command(argv);
    EXPECT_EQ(r.exit_code, want_exit) << r.err;
    return r.exit_code == 0 ? json::parse(r.out) : json();
}

TEST(CliGuards, ExprPassAndFail) {
    auto ok =
        run_json({"guards", "--expr", "Eq(Mod(L['t0'], 16), 0) and L['t1'] <= 4096", "--sizes", "64,1024", "--json"});
    EXPECT_EQ(ok, json::parse(R"({"pass": true, "failing": null})"));
    auto bad = run_json(
        {"guards", "--expr", "2 <= L['t0'] and L['t1']*L['t0'] <= 2147483647", "--sizes", "65536,65536", "--json"});
    EXPECT_EQ(bad["pass"], false);
    EXPECT_EQ(bad["failing"],
              "L['t1']*L['t0'] <= 2147483647 (L['t1'] = 65536, L['t0'] = 65536, L['t1']*L['t0'] = 4294967296)");
    EXPECT_EQ(bad.size(), 2u);
}

TEST(CliGuards, KeyDirServesBoundedEntryForSmallSizes) {
    auto j = run_json({"guards", two_entries_key_dir(), "--sizes", "1000", "--json"});
    ASSERT_EQ(j["entries"].size(), 2u);
    EXPECT_EQ(j["entries"][0]["file"], "deg4ivyb4kcgy5eslbjybulmyzbjan4oasgg56equm4f3dzcmga");
    EXPECT_EQ(j["entries"][0]["guards_expr"], "2 <= L['t0'] and L['t0'] <= 2147483647");
    EXPECT_EQ(j["entries"][0]["pass"], true);
    EXPECT_EQ(j["entries"][0]["failing"], nullptr);
    EXPECT_EQ(j["entries"][1]["pass"], true);
    EXPECT_EQ(j["served"], "deg4ivyb4kcgy5eslbjybulmyzbjan4oasgg56equm4f3dzcmga");
    EXPECT_EQ(j["ambiguous"], true);
    // Key order as printed (nlohmann::json would sort the keys).
    auto raw = run_command({kiln::test::cli_path(), "guards", two_entries_key_dir(), "--sizes", "1000", "--json"});
    std::vector<std::string> keys;
    auto ordered = nlohmann::ordered_json::parse(raw.out);
    for (auto& [k, v] : ordered.items()) keys.push_back(k);
    EXPECT_EQ(keys, (std::vector<std::string>{"entries", "served", "ambiguous"}));
}

TEST(CliGuards, KeyDirServesUnboundedEntryForHugeSizes) {
    auto j = run_json({"guards", two_entries_key_dir(), "--sizes", "2147483664", "--json"});
    EXPECT_EQ(j["served"], "naiolsaiywonfvjqzuuystkn5qe7virsv3d3rgkz7xkb52e6pb5");
    EXPECT_EQ(j["ambiguous"], false);
    EXPECT_EQ(j["entries"][0]["failing"], "L['t0'] <= 2147483647 (L['t0'] = 2147483664)");
}

TEST(CliGuards, TextOutput) {
    auto r = run_command({kiln::test::cli_path(), "guards", two_entries_key_dir(), "--sizes", "1000"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("served: deg4ivyb4kcgy5eslbjybulmyzbjan4oasgg56equm4f3dzcmga  (several entries hold"),
              std::string::npos)
        << r.out;
}

// Without --sizes a key dir lists each entry's guards and what the symbols are (it used to be an error).
TEST(CliGuards, KeyDirWithoutSizesListsGuards) {
    auto r = run_command({kiln::test::cli_path(), "guards", two_entries_key_dir()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("deg4ivyb4kcgy5eslbjybulmyzbjan4oasgg56equm4f3dzcmga\n      guards: 2 <= L['t0'] and "
                         "L['t0'] <= 2147483647\n      t0 = s77"),
              std::string::npos)
        << r.out;
    auto j = run_json({"guards", two_entries_key_dir(), "--json"});
    ASSERT_EQ(j["entries"].size(), 2u);
    EXPECT_EQ(j["entries"][1]["guards"], "2 <= L['t0']");
    EXPECT_EQ(j["entries"][1]["symbols"][0]["symbol"], "s77");
    r = run_command({kiln::test::cli_path(), "guards", "/nonexistent/keydir"});
    EXPECT_EQ(r.exit_code, 2);
}

TEST(CliGuards, BadInputExitsTwoWithAMessage) {
    auto r = run_command({kiln::test::cli_path(), "guards", "--expr", "L['t0'] < os.system('x')", "--sizes", "1"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("unknown function 'os.system' at column 11"), std::string::npos) << r.err;
    r = run_command({kiln::test::cli_path(), "guards", "--expr", "L['t0'] < L['t1']", "--sizes", "1"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("missing symbol L['t1']"), std::string::npos) << r.err;
    r = run_command({kiln::test::cli_path(), "guards", two_entries_key_dir(), "--sizes", "8,x"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("not an integer size: 'x'"), std::string::npos) << r.err;
    r = run_command({kiln::test::cli_path(), "guards", "/nonexistent/keydir", "--sizes", "8"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("no such key dir or entry"), std::string::npos) << r.err;
}

// Issue 16.16/17: a key dir holding an unreadable entry, a pickle that would run os.system and an
// entry whose guards_expr is not a string: each is reported and skipped, as torch skips what it
// cannot load, and the entry whose guards hold is still served.
TEST(CliGuards, BadEntriesInAKeyDirAreReportedAndSkipped) {
    namespace fs = std::filesystem;
    kiln::test::ScratchDir dir("cli-guards-bad");
    fs::path kd = dir.path() / "fsbnatbp6m2keoozno6te7auv6dbw22iozfrx4joxfgl6rn734eh";
    fs::copy(two_entries_key_dir(), kd);
    std::string first = kiln::test::read_file(kd / "deg4ivyb4kcgy5eslbjybulmyzbjan4oasgg56equm4f3dzcmga");
    std::ofstream(kd / "0truncated", std::ios::binary) << first.substr(0, first.size() / 2);
    // pickle.dumps of an object whose __reduce__ is (os.system, ("touch /tmp/x",)), protocol 2
    std::ofstream(kd / "1evil", std::ios::binary) << std::string(
        "\x80\x02"
        "cposix\nsystem\nq\x00X\x0c\x00\x00\x00touch /tmp/xq\x01\x85q\x02Rq\x03.",
        44);
    // a CompiledFxGraph whose guards_expr is the int 42
    std::ofstream(kd / "2intguards", std::ios::binary) << std::string(
        "\x80\x02"
        "ctorch._inductor.output_code\nCompiledFxGraph\n)\x81}(X\x0b\x00\x00\x00guards_exprK*ub.",
        72);
    auto r = run_command({kiln::test::cli_path(), "guards", kd.string(), "--sizes", "1000"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("bad   0truncated"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("bad   1evil\n      skipped: not a graph entry: the pickle builds posix.system"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("bad   2intguards\n      skipped: guards_expr is not a string but int"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("served: deg4ivyb4kcgy5eslbjybulmyzbjan4oasgg56equm4f3dzcmga"), std::string::npos) << r.out;
    auto j = run_json({"guards", kd.string(), "--sizes", "1000", "--json"});
    ASSERT_EQ(j["entries"].size(), 5u);
    EXPECT_TRUE(j["entries"][0].contains("error"));
    EXPECT_FALSE(j["entries"][0]["pass"].get<bool>());
    EXPECT_EQ(j["served"], "deg4ivyb4kcgy5eslbjybulmyzbjan4oasgg56equm4f3dzcmga");
    // The evil entry alone is an error, never "served".
    auto alone = run_command({kiln::test::cli_path(), "guards", (kd / "1evil").string(), "--sizes", "1000"});
    EXPECT_NE(alone.exit_code, 0);
    EXPECT_EQ(alone.out.find("served"), std::string::npos) << alone.out;
    EXPECT_NE(alone.err.find("not a graph entry"), std::string::npos) << alone.err;
}

}  // namespace

namespace {

// A protocol-2 pickle of a CompiledFxGraph holding only `guards_expr` (BINUNICODE, 4-byte length).
std::string crafted_entry(const std::string& guards_expr) {
    static const char head[] =
        "\x80\x02"
        "ctorch._inductor.output_code\nCompiledFxGraph\n)\x81}(X\x0b\x00\x00\x00guards_exprX";
    std::string p(head, sizeof head - 1);  // NULs inside
    const auto n = static_cast<std::uint32_t>(guards_expr.size());
    for (int i = 0; i < 4; ++i) p += static_cast<char>((n >> (8 * i)) & 0xff);
    return p + guards_expr + "ub.";
}

// "L['t0'] + 1 + 1 ... > 1" with `terms` terms, and the -/+ mix.
std::string long_chain(int terms) {
    std::string e = "L['t0']";
    for (int i = 1; i < terms; ++i) e += i % 3 ? " + 1" : " - 1";
    return e + " > 1";
}

}  // namespace

// Issue 16.7: a 60,000-term +/- chain, given with --expr and as an entry's guards_expr in a key dir,
// is evaluated by loops (it crashed the compiler's recursion); the answers are Python's.
TEST(CliGuards, SixtyThousandTermChainsAreEvaluated) {
    namespace fs = std::filesystem;
    std::string sum = "1";
    for (int i = 1; i < 60000; ++i) sum += "+1";
    EXPECT_EQ(run_json({"guards", "--expr", sum + " > 1", "--sizes", "8", "--json"})["pass"], true);
    EXPECT_EQ(run_json({"guards", "--expr", sum + " > 60000", "--sizes", "8", "--json"})["pass"], false);

    kiln::test::ScratchDir dir("cli-guards-chain");
    fs::path kd = dir.path() / "fchain";
    fs::create_directories(kd);
    std::ofstream(kd / "0chain", std::ios::binary) << crafted_entry(long_chain(60000));
    // L['t0'] + 40000 - 19999 > 1 for t0 = 8
    auto j = run_json({"guards", kd.string(), "--sizes", "8", "--json"});
    EXPECT_EQ(j["served"], "0chain") << j.dump().substr(0, 500);
    auto one = run_command({kiln::test::cli_path(), "guards", (kd / "0chain").string(), "--sizes", "8"});
    EXPECT_EQ(one.exit_code, 0) << one.err;
}

namespace {

// The key column of `kiln-cli ls ROOT` for the first row of `kind` ("fxgraph", "aot").
std::string ls_key(const std::string& root, const std::string& kind) {
    auto r = run_command({kiln::test::cli_path(), "ls", root});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
        std::istringstream words(line);
        std::string k, key;
        if (words >> k >> key && k == kind) return key;
    }
    return {};
}

}  // namespace

// Issue 41.5: the key `ls` prints (13 characters) names its key dir, under --root (a root or a blob).
TEST(CliGuards, TheKeyLsPrintsNamesItsKeyDir) {
    const std::string root = kiln::test::two_entries_root().string();
    const std::string prefix = ls_key(root, "fxgraph");
    ASSERT_EQ(prefix.size(), 13u);
    ASSERT_EQ(two_entries_key_dir().find("/" + prefix), two_entries_key_dir().rfind('/'));
    EXPECT_EQ(run_json({"guards", prefix, "--root", root, "--sizes", "8", "--json"}),
              run_json({"guards", two_entries_key_dir(), "--sizes", "8", "--json"}));
    auto listed = run_command({kiln::test::cli_path(), "guards", prefix, "--root", root});
    auto by_dir = run_command({kiln::test::cli_path(), "guards", two_entries_key_dir()});
    EXPECT_EQ(listed.exit_code, 0) << listed.err;
    EXPECT_EQ(listed.out, by_dir.out);
    auto none = run_command({kiln::test::cli_path(), "guards", "fzzzzzzzzzzzz", "--root", root});
    EXPECT_EQ(none.exit_code, 2);
    EXPECT_NE(none.err.find("no graph entry key starts with 'fzzzzzzzzzzzz'"), std::string::npos) << none.err;
}
