// One route to a cache (frontend::open_cache) for every command: each command that reads a cache gives
// the same answer on a Mega-Cache blob as on the directory `bundle unpack` makes of it; each command
// that writes refuses a blob and leaves it as it was; and a path that is no cache gets one error text,
// whichever command was given it.
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "bundle_fixtures.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using kiln::test::CommandResult;
using kiln::test::run_command;
using Args = std::vector<std::string>;

std::string cli() { return kiln::test::cli_path(); }
std::string trace_log() { return (kiln::test::fixture_dir() / "h100" / "trace" / "warm").string(); }

void replace_all(std::string& s, const std::string& from, const std::string& to) {
    for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
        s.replace(at, from.size(), to);
}

// The blob in <scratch>/b/ and its unpacking in <scratch>/d/inductor, each with the same TORCH_TRACE
// directory beside it (a link), so that both sides see the same surroundings.
class BlobAndRoot : public ::testing::Test {
protected:
    void SetUp() override {
        fs::create_directories(tmp_.path() / "b");
        fs::create_directories(tmp_.path() / "d");
        fs::copy_file(kiln::test::h200_blob(), blob_);
        fs::create_directory_symlink(kiln::test::fixture_dir() / "h100" / "trace", tmp_.path() / "b" / "trace");
        fs::create_directory_symlink(kiln::test::fixture_dir() / "h100" / "trace", tmp_.path() / "d" / "trace");
        auto r = run_command({cli(), "bundle", "unpack", blob_.string(), "--into", root_.string()});
        ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    // The output of `args` with CACHE replaced by the blob, then by the root; the blob's label, the
    // root's path and their folders written as one token, so the two can be compared.
    std::pair<CommandResult, CommandResult> both(const Args& args) {
        auto run = [&](const std::string& cache) {
            Args argv{cli()};
            for (const auto& a : args) argv.push_back(a == "CACHE" ? cache : a);
            CommandResult r = run_command(argv);
            for (std::string* s : {&r.out, &r.err}) {
                replace_all(*s, blob_.string() + " (Mega-Cache blob, as load_cache_artifacts would write it)", "CACHE");
                replace_all(*s, blob_.string(), "CACHE");
                replace_all(*s, root_.string(), "CACHE");
                replace_all(*s, (tmp_.path() / "b").string(), "DIR");
                replace_all(*s, (tmp_.path() / "d").string(), "DIR");
                // When the files were written: at unpacking, a moment apart on each side.
                *s = std::regex_replace(*s, std::regex(R"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC)"), "TIME");
                *s = std::regex_replace(*s, std::regex(R"re("(\w*mtime\w*)": \d+)re"), "\"$1\": 0");
            }
            return r;
        };
        return {run(blob_.string()), run(root_.string())};
    }
    // `fails`: the cache lacks what the command needs, and both sides say so in one text.
    void expect_same(const Args& args, bool fails = false) {
        auto [on_blob, on_root] = both(args);
        std::string what = args[0] + (args.size() > 1 ? " " + args[1] : "");
        EXPECT_EQ(on_root.exit_code, on_blob.exit_code) << what << "\n" << on_blob.err << on_root.err;
        EXPECT_EQ(on_blob.out, on_root.out) << what;
        if (fails) {
            EXPECT_NE(on_blob.exit_code, 0) << what;
            EXPECT_EQ(on_blob.err, on_root.err) << what;
            return;
        }
        EXPECT_NE(on_blob.exit_code, 2) << what << ": " << on_blob.err;
        EXPECT_FALSE(on_blob.out.empty()) << what;
    }

    kiln::test::ScratchDir tmp_{"cli_open_cache"};
    fs::path blob_ = tmp_.path() / "b" / "megacache.bin";
    fs::path root_ = tmp_.path() / "d" / "inductor";
};

TEST_F(BlobAndRoot, EveryReadingCommandGivesTheSameAnswer) {
    expect_same({"stats", "CACHE"});
    expect_same({"stats", "CACHE", "--json"});
    expect_same({"ls", "CACHE"});
    expect_same({"ls", "CACHE", "--json"});
    expect_same({"check", "CACHE", "--json", "--target", kiln::test::h100_root().string()});
    expect_same({"check", "CACHE", "--list-quarantine"});
    expect_same({"portable", "CACHE", "--json", "--target", kiln::test::h100_root().string()});
    expect_same({"timeline", "--root", "CACHE", "--json"});
    expect_same({"misses", trace_log(), "--root", "CACHE", "--json"});
    expect_same({"startup", trace_log(), "--root", "CACHE", "--json"});
    expect_same({"retune", "CACHE", "--list", "--json"}, true);  // the blob holds no timing cache
    expect_same({"bundle", "pack", "CACHE", "--out", "/dev/null", "--json"});
}

TEST_F(BlobAndRoot, TimingsOfABlobNameItsFilesInsideTheBlob) {
    auto [on_blob, on_root] = both({"timings", "CACHE", "--json"});
    ASSERT_EQ(on_blob.exit_code, 0) << on_blob.err;
    ASSERT_EQ(on_root.exit_code, 0) << on_root.err;
    // The root's files are CACHE/<path>, the blob's CACHE[<path>]: the same once written alike.
    const std::string blob_out = std::regex_replace(on_blob.out, std::regex(R"re(CACHE\[([^\]"]*)\])re"), "CACHE/$1");
    auto b = nlohmann::json::parse(blob_out), r = nlohmann::json::parse(on_root.out);
    ASSERT_FALSE(r["ops"].empty());
    EXPECT_EQ(b["ops"].dump(), r["ops"].dump());
    EXPECT_EQ(b["sources"].size(), r["sources"].size());
    EXPECT_EQ(on_blob.out.find("/tmp/kiln-blob-"), std::string::npos) << "a temporary path leaked";
    EXPECT_EQ(on_blob.out.find("kiln-blob-"), std::string::npos) << on_blob.out;
}

TEST_F(BlobAndRoot, TheBlobsReportsNameTheBlobNeverItsTemporaryRoot) {
    for (const Args& args : std::vector<Args>{{"stats", blob_.string()},
                                              {"ls", blob_.string()},
                                              {"check", blob_.string()},
                                              {"portable", blob_.string(), "--target", kiln::test::h100_root()}}) {
        auto r = run_command([&] {
            Args argv{cli()};
            argv.insert(argv.end(), args.begin(), args.end());
            return argv;
        }());
        EXPECT_NE(r.exit_code, 2) << args[0] << ": " << r.err;
        EXPECT_EQ(r.out.find("kiln-blob-"), std::string::npos) << args[0] << ":\n" << r.out;
        if (args[0] != "portable") {
            EXPECT_NE(r.out.find(blob_.string() + " (Mega-Cache blob"), std::string::npos) << args[0] << ":\n" << r.out;
        }
    }
}

TEST_F(BlobAndRoot, EveryWritingCommandRefusesABlobAndLeavesItAlone) {
    const std::string before = kiln::test::read_file(blob_);
    const std::string b = blob_.string();
    for (const Args& args :
         std::vector<Args>{{"evict", b, "--max-size", "1G", "--yes"},
                           {"evict", "--root", b, "--stale", "--yes"},
                           {"check", b, "--quarantine"},
                           {"check", b, "--restore", "20260101-000000"},
                           {"retune", b, "--write"},
                           {"autotune", (kiln::test::source_dir() / "resources/examples/reduction_cpu.json").string(),
                            "--devices", "cpu", "--cache-dir", b}}) {
        Args argv{cli()};
        argv.insert(argv.end(), args.begin(), args.end());
        auto r = run_command(argv);
        EXPECT_EQ(r.exit_code, 2) << args[0] << " " << args[2] << ": " << r.err;
        EXPECT_EQ(r.err, "kiln-cli: " + b +
                             ": a Mega-Cache blob can only be read: this command changes a cache in place (unpack it "
                             "into a directory first (kiln-cli bundle unpack BLOB DIR) and run on DIR)\n")
            << args[0];
    }
    EXPECT_EQ(kiln::test::read_file(blob_), before);
    EXPECT_EQ(std::distance(fs::directory_iterator(tmp_.path() / "b"), fs::directory_iterator()), 2)
        << "beside the blob: its trace link, nothing written";
}

// Every command that takes a cache, with CACHE where the cache goes.
const std::vector<Args> kCacheCommands = {
    {"stats", "CACHE"},
    {"ls", "CACHE"},
    {"check", "CACHE"},
    {"portable", "CACHE", "--target", "local"},
    {"timeline", "--root", "CACHE"},
    {"misses", "LOG", "--root", "CACHE"},
    {"startup", "LOG", "--root", "CACHE"},
    {"retune", "CACHE", "--list"},
    {"evict", "CACHE", "--max-size", "1G"},
    {"bundle", "pack", "CACHE", "--out", "OUT"},
};

// Runs each command on `cache`: all must fail alike, with one exit code and one error text.
void expect_one_error(const fs::path& cache, const std::string& expected_err, int expected_code) {
    kiln::test::ScratchDir out("cli_open_cache_out");
    for (const auto& args : kCacheCommands) {
        Args argv{cli()};
        for (const auto& a : args)
            argv.push_back(a == "CACHE" ? cache.string()
                           : a == "LOG" ? trace_log()
                           : a == "OUT" ? (out.path() / "x.bin").string()
                                        : a);
        auto r = run_command(argv);
        EXPECT_EQ(r.exit_code, expected_code) << args[0] << ": " << r.err;
        EXPECT_EQ(r.err, expected_err) << args[0];
        EXPECT_TRUE(r.out.empty()) << args[0] << ": " << r.out;
    }
}

TEST(CliOpenCache, AMissingPathIsOneErrorForEveryCommand) {
    kiln::test::ScratchDir tmp("cli_open_cache_missing");
    const fs::path p = tmp.path() / "no-such-cache";
    expect_one_error(p,
                     "kiln-cli: " + p.string() +
                         ": no cache here (no such file or directory) (pass a cache root (the directory holding "
                         "fxgraph/, as TORCHINDUCTOR_CACHE_DIR names it) or a Mega-Cache blob "
                         "(torch.compiler.save_cache_artifacts))\n",
                     2);
}

TEST(CliOpenCache, AFileThatIsNoCacheIsOneErrorForEveryCommand) {
    const fs::path p = kiln::test::fixture_dir() / "h100" / "gpu.txt";
    expect_one_error(p,
                     "kiln-cli: " + p.string() +
                         ": not a cache: a regular file, neither a cache root (a directory) nor a Mega-Cache blob "
                         "(pass a cache root (the directory holding fxgraph/, as TORCHINDUCTOR_CACHE_DIR names it) "
                         "or a Mega-Cache blob (torch.compiler.save_cache_artifacts))\n",
                     2);
}

TEST(CliOpenCache, AnUnreadablePathIsOneErrorForEveryCommand) {
    kiln::test::ScratchDir tmp("cli_open_cache_loop");
    const fs::path p = tmp.path() / "loop";
    fs::create_symlink("loop", p);  // ELOOP: unreadable whoever runs the test (root reads past modes)
    expect_one_error(p,
                     "kiln-cli: " + p.string() +
                         ": cannot read the cache: Too many levels of symbolic links (check its permissions: Kiln "
                         "reads it as the user running it)\n",
                     1);
}

TEST(CliOpenCache, ABrokenBlobIsOneErrorForEveryCommand) {
    kiln::test::ScratchDir tmp("cli_open_cache_broken");
    const fs::path p = tmp.path() / "cut.bin";
    { std::ofstream(p, std::ios::binary) << kiln::test::read_file(kiln::test::h200_blob()).substr(0, 100); }
    auto r = run_command({cli(), "stats", p.string()});
    ASSERT_EQ(r.exit_code, 1);
    ASSERT_EQ(r.err.rfind("kiln-cli: " + p.string() + ": a broken Mega-Cache blob: ", 0), 0u) << r.err;
    // evict writes, so it refuses any blob before reading it: leave it out here.
    kiln::test::ScratchDir out("cli_open_cache_out");
    for (const auto& args : kCacheCommands) {
        if (args[0] == "evict") continue;
        Args argv{cli()};
        for (const auto& a : args)
            argv.push_back(a == "CACHE" ? p.string()
                           : a == "LOG" ? trace_log()
                           : a == "OUT" ? (out.path() / "x.bin").string()
                                        : a);
        auto each = run_command(argv);
        EXPECT_EQ(each.exit_code, 1) << args[0];
        EXPECT_EQ(each.err, r.err) << args[0];
    }
}

}  // namespace

namespace {

// The default root, as kiln-cli reads it and as scripts/kiln (which asks kiln-cli) opens it.
TEST(CliOpenCache, DefaultRootIsOneRuleForKilnCliAndScriptsKiln) {
    kiln::test::ScratchDir tmp("cli_open_cache_default");
    const char* vars[] = {"TORCHINDUCTOR_CACHE_DIR", "TMPDIR", "LOGNAME", "KILN_BUILD_DIR"};
    std::map<std::string, std::optional<std::string>> saved;
    for (const char* v : vars) saved[v] = std::getenv(v) ? std::optional<std::string>(std::getenv(v)) : std::nullopt;
    ::unsetenv("TORCHINDUCTOR_CACHE_DIR");
    ::setenv("TMPDIR", tmp.path().c_str(), 1);
    ::setenv("LOGNAME", "kiln-user", 1);
    ::setenv("KILN_BUILD_DIR", fs::path(cli()).parent_path().parent_path().c_str(), 1);
    const fs::path root = tmp.path() / "torchinductor_kiln-user";
    const std::string script = (kiln::test::source_dir() / "scripts" / "kiln").string();

    auto printed = run_command({cli(), "env", "--default-root"});
    EXPECT_EQ(printed.exit_code, 0) << printed.err;
    EXPECT_EQ(printed.out, root.string() + "\n");
    auto missing = run_command({cli(), "stats"});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find(root.string() + ": no cache at Inductor's default root"), std::string::npos)
        << missing.err;
    // Missing: the script falls back to the bundled sample, as the GUI does.
    auto sample = run_command({script, "root"});
    EXPECT_EQ(sample.exit_code, 0) << sample.err;
    EXPECT_NE(sample.out.find("sample-cache"), std::string::npos) << sample.out;

    fs::create_directory(root);
    EXPECT_EQ(run_command({cli(), "stats"}).exit_code, 0);
    EXPECT_EQ(run_command({script, "root"}).out, root.string() + "\n");
    // $TORCHINDUCTOR_CACHE_DIR wins, for both.
    ::setenv("TORCHINDUCTOR_CACHE_DIR", kiln::test::two_entries_root().c_str(), 1);
    EXPECT_EQ(run_command({cli(), "env", "--default-root"}).out, kiln::test::two_entries_root().string() + "\n");
    EXPECT_EQ(run_command({script, "root"}).out, kiln::test::two_entries_root().string() + "\n");
    EXPECT_EQ(run_command({script, "root", "/given"}).out, "/given\n");

    for (const auto& [name, value] : saved) {
        if (value) ::setenv(name.c_str(), value->c_str(), 1);
        else ::unsetenv(name.c_str());
    }
}

}  // namespace
