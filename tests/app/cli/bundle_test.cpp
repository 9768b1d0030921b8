// `kiln-cli bundle` end to end: the real binary on torch's blobs (the fixtures) and on broken,
// truncated and hostile copies of them. A bad blob must give a clear error and exit 2, never a crash.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "blob_craft.hpp"
#include "bundle_fixtures.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace kiln::test {
namespace {

std::set<std::string> files_under(const fs::path& root) {
    std::set<std::string> out;
    if (!fs::exists(root)) return out;
    for (auto& e : fs::recursive_directory_iterator(root))
        if (e.is_regular_file()) out.insert(fs::relative(e.path(), root).string());
    return out;
}

CommandResult cli(std::vector<std::string> args) {
    args.insert(args.begin(), cli_path());
    return run_command(args);
}

TEST(CliBundle, LsListsWhatTorchSaved) {
    for (auto [blob, run] : {std::pair{h200_blob(), fixture_dir() / "h100h200/h200/run_mega.json"},
                             std::pair{pgo_blob(), fixture_dir() / "pgo/run_mega.json"}}) {
        auto r = cli({"bundle", "ls", blob.string(), "--json"});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        auto j = nlohmann::json::parse(r.out);
        EXPECT_TRUE(j["checksum_ok"]);
        EXPECT_TRUE(j["torch_loads"]);
        EXPECT_EQ(j["version"], 1);
        std::vector<std::pair<std::string, std::vector<std::string>>> listed;
        for (const auto& a : j["artifacts"]) {
            if (listed.empty() || listed.back().first != a["type"].get<std::string>())
                listed.push_back({a["type"], {}});
            listed.back().second.push_back(a["key"]);
        }
        EXPECT_EQ(listed, torch_cache_info(run)) << blob;
    }
    auto text = cli({"bundle", "ls", h200_blob().string()});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("CRC-32 e5918990 ok); torch loads it"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("11 artifact(s) in 3 group(s): 4 aot_autograd, 5 inductor, 2 autotune; "
                            "load_cache_artifacts writes 10 file(s)"),
              std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("superseded"), std::string::npos);
}

TEST(CliBundle, ShowDecodesAnArtifactLikeAFile) {
    // The same entry from the blob and from the cache dir: the same printer, the same fields.
    const std::string key = "fnoemmrzwpbfgqmvag6ytfb6u3okm2ojzfb6h6ia32xpla7w6xl6";
    auto from_blob = cli({"bundle", "show", h200_blob().string(), key, "--json"});
    ASSERT_EQ(from_blob.exit_code, 0) << from_blob.err;
    fs::path file;
    for (auto& e : fs::directory_iterator(h100_h200_root() / "fxgraph/no" / key)) file = e.path();
    auto from_file = cli({"show", file.string(), "--json"});
    ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
    EXPECT_EQ(from_blob.out, from_file.out);
    auto guards = cli({"bundle", "show", h200_blob().string(), "fnoemmrz", "--field", "guards_expr"});
    ASSERT_EQ(guards.exit_code, 0) << guards.err;
    EXPECT_EQ(guards.out, cli({"show", file.string(), "--field", "guards_expr"}).out);
    auto bytes = cli({"bundle", "show", h200_blob().string(), key, "--bytes"});
    EXPECT_TRUE(bytes.out == read_file(file));
    auto summary = cli({"bundle", "show", h200_blob().string(), key});
    EXPECT_NE(summary.out.find("fx graph key       " + key), std::string::npos) << summary.out;
    auto pgo = cli({"bundle", "show", pgo_blob().string(), "kiln-dev-job:None:"});
    ASSERT_EQ(pgo.exit_code, 0) << pgo.err;
    EXPECT_NE(pgo.out.find("torch._dynamo.pgo.CodeState"), std::string::npos);
    auto missing = cli({"bundle", "show", pgo_blob().string(), "fnothere"});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("no artifact with this key"), std::string::npos);
    // `show` on a blob says what it is instead of a pickle error.
    auto plain = cli({"show", h200_blob().string()});
    EXPECT_EQ(plain.exit_code, 2);
    EXPECT_NE(plain.err.find("Mega-Cache blob"), std::string::npos) << plain.err;
}

// A key prefix shorter than the minimum used to read "no artifact with this key" although keys start
// with it: it says what the minimum is (bundle show and bundle pack --select alike).
TEST(CliBundle, AShortPrefixSaysPrefixesNeedSixCharacters) {
    const std::string key = "fnoemmrzwpbfgqmvag6ytfb6u3okm2ojzfb6h6ia32xpla7w6xl6";
    auto shown = cli({"bundle", "show", h200_blob().string(), key.substr(0, 4)});
    EXPECT_EQ(shown.exit_code, 2);
    EXPECT_EQ(shown.err.find("no artifact with this key"), std::string::npos) << shown.err;
    EXPECT_NE(shown.err.find("a key prefix needs 6+ characters"), std::string::npos) << shown.err;
    EXPECT_TRUE(shown.out.empty()) << shown.out;
    EXPECT_EQ(cli({"bundle", "show", h200_blob().string(), key.substr(0, 6), "--field", "guards_expr"}).exit_code, 0);
    ScratchDir tmp("cli_bundle_short_prefix");
    auto packed = cli({"bundle", "pack", h100_h200_root().string(), "--out", (tmp.path() / "x.bin").string(),
                       "--select", key.substr(0, 4)});
    EXPECT_EQ(packed.exit_code, 2);
    EXPECT_NE(packed.err.find("a key prefix needs 6+ characters"), std::string::npos) << packed.err;
}

TEST(CliBundle, UnpackThenDiffAgainstTheFixtureCache) {
    ScratchDir dir("cli-bundle-unpack");
    fs::path root = dir.path() / "root";
    auto dry = cli({"bundle", "unpack", h200_blob().string(), "--into", root.string(), "--dry-run"});
    ASSERT_EQ(dry.exit_code, 0) << dry.err;
    EXPECT_NE(dry.out.find("Would write 10 file(s)"), std::string::npos) << dry.out;
    EXPECT_FALSE(fs::exists(root));
    auto r = cli({"bundle", "unpack", h200_blob().string(), "--into", root.string(), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["files_written"], 10);
    for (const auto& f : files_under(root)) EXPECT_EQ(read_file(root / f), read_file(h100_h200_root() / f)) << f;
    auto d = cli({"bundle", "diff", h200_blob().string(), root.string(), "--json"});
    ASSERT_EQ(d.exit_code, 0) << d.err;
    auto j = nlohmann::json::parse(d.out);
    EXPECT_EQ(j["keys"].size(), 10u);
    for (const auto& k : j["keys"]) EXPECT_EQ(k["status"], "same") << k;
    // A changed file: diff names the key, unpack refuses to overwrite it (exit 1) until --force.
    fs::path tune = root / "bg/ac87608fd53b84d385492d6661caeb048f9609fde73a1dc80c5b5f28e105198f.best_config";
    craft::write(tune, "{}");
    auto changed = cli({"bundle", "diff", h200_blob().string(), root.string()});
    EXPECT_NE(changed.out.find("different bytes:\n  autotune      bg/ac87608f"), std::string::npos) << changed.out;
    auto refused = cli({"bundle", "unpack", h200_blob().string(), "--into", root.string()});
    EXPECT_EQ(refused.exit_code, 1);
    EXPECT_EQ(read_file(tune), "{}");
    auto forced = cli({"bundle", "unpack", h200_blob().string(), "--into", root.string(), "--force"});
    EXPECT_EQ(forced.exit_code, 0) << forced.err;
    EXPECT_EQ(read_file(tune), read_file(h100_h200_root() / fs::relative(tune, root)));
}

TEST(CliBundle, PackLsUnpackRoundTrip) {
    ScratchDir dir("cli-bundle-pack");
    fs::path blob = dir.path() / "packed.bin", out = dir.path() / "out";
    auto p = cli({"bundle", "pack", pgo_root().string(), "--out", blob.string(), "--include-pgo"});
    ASSERT_EQ(p.exit_code, 0) << p.err;
    EXPECT_NE(p.out.find("Packed 7 artifact(s)"), std::string::npos) << p.out;
    auto ls = cli({"bundle", "ls", blob.string(), "--json"});
    ASSERT_EQ(ls.exit_code, 0) << ls.err;
    EXPECT_EQ(nlohmann::json::parse(ls.out)["files_written"], 8);  // and the PGO lock
    auto u = cli({"bundle", "unpack", blob.string(), "--into", out.string()});
    ASSERT_EQ(u.exit_code, 0) << u.err;
    for (const auto& f : files_under(out)) EXPECT_EQ(read_file(out / f), read_file(pgo_root() / f)) << f;
    auto sel = cli({"bundle", "pack", h100_h200_root().string(), "--out", blob.string(), "--select", "alnhssopd435b6"});
    ASSERT_EQ(sel.exit_code, 0) << sel.err;
    EXPECT_NE(sel.out.find("2 graph entries added for closure"), std::string::npos) << sel.out;
    auto bad = cli({"bundle", "pack", pgo_root().string(), "--out", blob.string(), "--select", "nothing-like-it"});
    EXPECT_EQ(bad.exit_code, 2);
    auto both = cli({"bundle", "pack", pgo_root().string(), "--out", blob.string(), "--select", "x", "--since", "2h"});
    EXPECT_EQ(both.exit_code, 2);
    auto stats = cli({"stats", pgo_blob().string(), "--json"});
    ASSERT_EQ(stats.exit_code, 0) << stats.err;
    auto sj = nlohmann::json::parse(stats.out);
    EXPECT_EQ(sj["categories"]["pgo_profile"]["files"], 1);
    EXPECT_EQ(sj["total"]["files"], 5);
}

// Every corrupted copy: exit 1 (a file that does not decode: the work failed, HACKING's rule) with a
// message that names the byte offset; never a signal.
void expect_clear_error(const fs::path& blob, const std::string& what) {
    for (const char* sub : {"ls", "unpack"}) {
        std::vector<std::string> args{"bundle", sub, blob.string()};
        if (std::string(sub) == "unpack") args.insert(args.end(), {"--into", (blob.parent_path() / "never").string()});
        auto r = cli(args);
        EXPECT_EQ(r.exit_code, 1) << what << ": " << r.err;
        EXPECT_NE(r.err.find(": byte "), std::string::npos) << what << ": " << r.err;
        EXPECT_TRUE(r.out.empty()) << what;
    }
    EXPECT_FALSE(fs::exists(blob.parent_path() / "never"));
}

TEST(CliBundle, TruncatedAtEvery4KiBIsAClearError) {
    ScratchDir dir("cli-bundle-trunc");
    std::string good = read_file(pgo_blob());
    for (std::size_t cut = 0; cut < good.size(); cut += 4096) {
        craft::write(dir.path() / "t.bin", good.substr(0, cut));
        expect_clear_error(dir.path() / "t.bin", "cut at " + std::to_string(cut));
    }
}

TEST(CliBundle, FlippedBitsBadChecksumBadVersion) {
    ScratchDir dir("cli-bundle-flip");
    std::string good = read_file(pgo_blob());
    for (std::size_t at :
         {0ul, 5ul, 11ul, 12ul, 19ul, 27ul, 40ul, 64ul, 70ul, 500ul, 4096ul, 200000ul, good.size() - 1}) {
        std::string b = good;
        b[at] = static_cast<char>(b[at] ^ 0x10);
        craft::write(dir.path() / "f.bin", b);
        expect_clear_error(dir.path() / "f.bin", "flip at " + std::to_string(at));
    }
    std::string bad_crc = good;
    bad_crc[0] ^= 1;
    craft::write(dir.path() / "c.bin", bad_crc);
    auto r = cli({"bundle", "ls", (dir.path() / "c.bin").string()});
    EXPECT_NE(r.err.find("checksum mismatch: bytes 0-3 say 0xd23a61a6, the CRC-32 of bytes 4-412266 is 0xd33a61a6"),
              std::string::npos)
        << r.err;
    auto listed = cli({"bundle", "ls", (dir.path() / "c.bin").string(), "--no-verify"});
    EXPECT_EQ(listed.exit_code, 1);  // listed, and flagged: torch refuses it
    EXPECT_NE(listed.out.find("torch refuses it"), std::string::npos) << listed.out;
    craft::write(dir.path() / "v.bin", craft::blob(craft::group("autotune", {{craft::kTune, "{}"}}), 7));
    auto big = cli({"bundle", "ls", h200_blob().string(), "--max-size", "1M"});  // the memory bound
    EXPECT_EQ(big.exit_code, 1);
    EXPECT_NE(big.err.find("over the limit of 1000000"), std::string::npos) << big.err;
    auto v = cli({"bundle", "ls", (dir.path() / "v.bin").string()});
    EXPECT_EQ(v.exit_code, 2);
    EXPECT_NE(v.err.find("format version 7"), std::string::npos) << v.err;
}

TEST(CliBundle, HostileKeysNeverLeaveTheRoot) {
    ScratchDir dir("cli-bundle-hostile");
    fs::path root = dir.path() / "a" / "root";
    fs::create_directories(root);
    std::string body = craft::group("autotune", {{"../esc.best_config", "{}"}, {"/tmp/abs.best_config", "{}"}}) +
                       craft::group("aot_autograd", {{"../../x", "c"}}) +
                       craft::group("inductor", {{craft::kFx, "ok"}});
    craft::write(dir.path() / "h.bin", craft::blob(body));
    auto ls = cli({"bundle", "ls", (dir.path() / "h.bin").string()});
    EXPECT_EQ(ls.exit_code, 1);
    EXPECT_NE(ls.out.find("key '../esc.best_config' (autotune, byte 40) is not an autotune key"), std::string::npos)
        << ls.out;
    auto u = cli(
        {"bundle", "unpack", (dir.path() / "h.bin").string(), "--into", root.string(), "--force", "--ignore-unknown"});
    EXPECT_EQ(u.exit_code, 2);
    EXPECT_NE(u.err.find("refusing to unpack"), std::string::npos) << u.err;
    EXPECT_EQ(files_under(dir.path() / "a"), std::set<std::string>{});
    EXPECT_FALSE(fs::exists(dir.path() / "x"));
}

TEST(CliBundle, DuplicateGroupsAndUnknownTypes) {
    ScratchDir dir("cli-bundle-dup");
    std::string a = "zz/" + std::string(64, 'a') + ".best_config", b = "zz/" + std::string(64, 'b') + ".best_config";
    craft::write(dir.path() / "d.bin",
                 craft::blob(craft::group("autotune", {{a, "A"}}) + craft::group("autotune", {{b, "B"}})));
    auto ls = cli({"bundle", "ls", (dir.path() / "d.bin").string()});
    EXPECT_EQ(ls.exit_code, 0) << ls.err;
    EXPECT_NE(ls.out.find("group 'autotune' at byte 12 (1 artifacts) is ignored by torch"), std::string::npos)
        << ls.out;
    auto u = cli({"bundle", "unpack", (dir.path() / "d.bin").string(), "--into", (dir.path() / "r").string()});
    EXPECT_EQ(u.exit_code, 0) << u.err;
    EXPECT_EQ(files_under(dir.path() / "r"), std::set<std::string>{b});
    craft::write(dir.path() / "u.bin", craft::blob(craft::group("inductor_triton", {{"k", "v"}})));
    auto unknown = cli({"bundle", "ls", (dir.path() / "u.bin").string()});
    EXPECT_EQ(unknown.exit_code, 1);
    EXPECT_NE(unknown.out.find("torch 2.11 rejects it (unknown type 'inductor_triton')"), std::string::npos)
        << unknown.out;
    auto refused = cli({"bundle", "unpack", (dir.path() / "u.bin").string(), "--into", (dir.path() / "r2").string()});
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_NE(refused.err.find("--ignore-unknown"), std::string::npos) << refused.err;
}

// Issue 29 item 5: an entry swapped for a symlink to a file outside the cache after the scan never
// gets that file's bytes into a blob: pack reads beneath the root's descriptor without following
// symlinks and only the file the scan saw (inode, size). A bounded race: a thread flips the entry
// between the real file and the link while pack runs again and again.
TEST(CliBundle, PackNeverReadsThroughASymlinkSwappedInAfterTheScan) {
    ScratchDir dir("cli-bundle-swap");
    const fs::path root = dir.path() / "cache";
    fs::copy(two_entries_root(), root, fs::copy_options::recursive);
    const fs::path entry = root /
                           "fxgraph/sb/fsbnatbp6m2keoozno6te7auv6dbw22iozfrx4joxfgl6rn734eh/"
                           "deg4ivyb4kcgy5eslbjybulmyzbjan4oasgg56equm4f3dzcmga";
    const fs::path backup = dir.path() / "entry.real", outside = dir.path() / "outside";
    fs::create_hard_link(entry, backup);
    const std::string marker = "OUTSIDE-THE-CACHE-29";
    {
        std::ofstream o(outside);
        for (std::uintmax_t n = 0; n < fs::file_size(entry); n += marker.size()) o << marker;
    }
    std::atomic<bool> stop{false};
    std::thread swapper([&] {
        const fs::path link_tmp = entry.parent_path() / "link.tmp", file_tmp = entry.parent_path() / "file.tmp";
        while (!stop.load()) {
            std::error_code ec;
            fs::create_symlink(outside, link_tmp, ec);
            fs::rename(link_tmp, entry, ec);
            std::this_thread::sleep_for(std::chrono::microseconds(200));
            fs::create_hard_link(backup, file_tmp, ec);
            fs::rename(file_tmp, entry, ec);
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
    });
    int packed = 0;
    for (int i = 0; i < 40 && !::testing::Test::HasFailure(); ++i) {
        const fs::path blob = dir.path() / ("blob" + std::to_string(i));
        auto r = cli({"bundle", "pack", root.string(), "--out", blob.string()});
        if (r.exit_code != 0) continue;  // refused: the entry changed under it
        ++packed;
        EXPECT_EQ(read_file(blob).find(marker), std::string::npos) << "pack " << i << " read the outside file";
        fs::remove(blob);
    }
    stop = true;
    swapper.join();
    EXPECT_GT(packed, 0);
}

// Keys are a blob's (anyone's) bytes: an escape sequence or a newline in one was printed raw by `bundle
// ls` and `unpack` (a terminal title set, a screen cleared, a fake line). They are printed escaped.
TEST(CliBundle, KeysWithEscapesAndNewlinesArePrintedEscaped) {
    ScratchDir dir("cli-bundle-escapes");
    const std::string key = "job\x1b]0;pwned\x07\nfake line\x1b[2J";
    craft::write(dir.path() / "e.bin",
                 craft::blob(craft::group("pgo", {{key, "p"}}) + craft::group("inductor", {{"f\x1b[31mred\n", "c"}})));
    auto ls = cli({"bundle", "ls", (dir.path() / "e.bin").string()});
    EXPECT_EQ(ls.exit_code, 1) << ls.err;  // the inductor key is refused
    EXPECT_EQ(ls.out.find('\x1b'), std::string::npos) << ls.out;
    EXPECT_EQ(ls.out.find("\nfake line"), std::string::npos) << ls.out;
    EXPECT_NE(ls.out.find(R"(job\x1b]0;pwned\x07\nfake line\x1b[2J)"), std::string::npos) << ls.out;
    EXPECT_NE(ls.out.find(R"(key 'f\x1b[31mred\n')"), std::string::npos) << ls.out;
    auto refused = cli({"bundle", "unpack", (dir.path() / "e.bin").string(), "--into", (dir.path() / "r").string()});
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_EQ(refused.err.find('\x1b'), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find(R"(f\x1b[31mred\n)"), std::string::npos) << refused.err;

    craft::write(dir.path() / "p.bin", craft::blob(craft::group("pgo", {{key, "p"}})));
    for (bool dry : {true, false}) {
        std::vector<std::string> args{"bundle", "unpack", (dir.path() / "p.bin").string(), "--into",
                                      (dir.path() / "r").string()};
        if (dry) args.push_back("--dry-run");
        auto u = cli(args);
        EXPECT_EQ(u.exit_code, 0) << u.err;
        EXPECT_EQ(u.out.find('\x1b'), std::string::npos) << u.out;
        EXPECT_EQ(u.out.find("\nfake line"), std::string::npos) << u.out;
        EXPECT_NE(u.out.find(R"(code_state_job\x1b]0;pwned\x07\nfake line\x1b[2J.pkl)"), std::string::npos) << u.out;
    }
    EXPECT_EQ(read_file(dir.path() / "r" / "dynamo" / ("code_state_" + key + ".pkl")),
              "p");  // the bytes as torch writes them
}

// torch names a PGO profile code_state_<key>.pkl and leaves <that>.lock beside it: a key of 236-240
// bytes gave a profile name that fits 255 bytes and a lock name that does not. The dry run promised
// success; unpack wrote the profile, then failed. Now the key check (which both share) refuses it.
TEST(CliBundle, PgoKeyWhoseLockNameIsTooLongIsRefusedBeforeAnyWrite) {
    ScratchDir dir("cli-bundle-pgo-long");
    for (std::size_t n : {236u, 240u}) {
        craft::write(dir.path() / "l.bin", craft::blob(craft::group("pgo", {{std::string(n, 'k'), "p"}})));
        auto dry = cli(
            {"bundle", "unpack", (dir.path() / "l.bin").string(), "--into", (dir.path() / "r").string(), "--dry-run"});
        EXPECT_EQ(dry.exit_code, 2) << n << ": " << dry.out;
        EXPECT_NE(dry.err.find("too long for a file name"), std::string::npos) << dry.err;
        auto u = cli({"bundle", "unpack", (dir.path() / "l.bin").string(), "--into", (dir.path() / "r").string()});
        EXPECT_EQ(u.exit_code, 2) << n << ": " << u.out;
        EXPECT_EQ(files_under(dir.path() / "r"), std::set<std::string>{}) << n;
    }
    craft::write(dir.path() / "ok.bin", craft::blob(craft::group("pgo", {{std::string(235, 'k'), "p"}})));
    auto ok = cli({"bundle", "unpack", (dir.path() / "ok.bin").string(), "--into", (dir.path() / "r").string()});
    EXPECT_EQ(ok.exit_code, 0) << ok.err;
    EXPECT_EQ(files_under(dir.path() / "r").size(), 2u);  // the profile and its lock
}

// A FIFO (or anything but a file) at the PGO lock's name was taken for torch's lock file; opening it
// for writing without O_NONBLOCK would block unpack forever. It is in the way, like any non-file.
TEST(CliBundle, FifoAtThePgoLockIsInTheWay) {
    ScratchDir dir("cli-bundle-pgo-fifo");
    craft::write(dir.path() / "p.bin", craft::blob(craft::group("pgo", {{"job", "p"}})));
    const fs::path root = dir.path() / "r";
    fs::create_directories(root / "dynamo");
    ASSERT_EQ(::mkfifo((root / "dynamo" / "code_state_job.pkl.lock").c_str(), 0600), 0);
    auto u = cli({"bundle", "unpack", (dir.path() / "p.bin").string(), "--into", root.string(), "--force"});
    EXPECT_EQ(u.exit_code, 1) << u.out << u.err;
    EXPECT_NE(u.out.find("conflict"), std::string::npos) << u.out;
    EXPECT_NE(u.out.find("not a regular file"), std::string::npos) << u.out;
    EXPECT_FALSE(fs::exists(root / "dynamo" / "code_state_job.pkl"));
}

// io_error composed "cannot open the cache root" + " failed: ..." into doubled wording.
TEST(CliBundle, ARootThatCannotBeMadeSaysSoOnce) {
    ScratchDir dir("cli-bundle-root-file");
    craft::write(dir.path() / "p.bin", craft::blob(craft::group("pgo", {{"job", "p"}})));
    std::ofstream(dir.path() / "file") << "x";
    auto u = cli({"bundle", "unpack", (dir.path() / "p.bin").string(), "--into", (dir.path() / "file" / "r").string()});
    EXPECT_EQ(u.exit_code, 1) << u.err;
    EXPECT_NE(u.err.find("cannot open the cache root: Not a directory"), std::string::npos) << u.err;
    EXPECT_EQ(u.err.find("failed"), std::string::npos) << u.err;
}

}  // namespace
}  // namespace kiln::test
