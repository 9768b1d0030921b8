// kiln-cli handback (a saved re-tune handed to torch), timings --compare / redis://, and bundle pack
// --timings, run as a user would, on copies of the fixtures and a real redis-server.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fake_resp_server.hpp"
#include "fixture_copy.hpp"
#include "redis_server.hpp"
#include "retune_run_fixture.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace kiln::test;

namespace {

const std::string kH100 = "NVIDIA H100 80GB HBM3";
const std::string kH200 = "NVIDIA H200";
const std::string kH200File = "c33ff64252de0fc95aafeb63c22d2f93666cf684f9102841c20702613368c40d";

// A saved `retune --json` of the H100 fixture's timing cache, measured on `device`.
fs::path saved_run(const ScratchDir& d, const std::string& device, double factor, const std::string& name) {
    fs::path p = d.path() / name;
    std::ofstream(p) << kiln::py_dumps(run_json_from_cache_file(cache_file_for(h100_root(), kH100), device, factor));
    return p;
}

nlohmann::json load(const fs::path& p) { return nlohmann::json::parse(read_file(p)); }

// Every entry under `root` (a file by its bytes, a FIFO never opened), but for locks/, whose lock files
// every --write takes: the same before and after means nothing was lost, changed or made.
std::map<std::string, std::string> tree_but_locks(const fs::path& root) {
    std::map<std::string, std::string> out;
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
        const std::string rel = fs::relative(it->path(), root).string();
        if (it->path().filename() == "locks") {
            it.disable_recursion_pending();
            continue;
        }
        const auto st = it->symlink_status();
        if (fs::is_symlink(st)) out[rel] = "link:" + fs::read_symlink(it->path()).string();
        else if (fs::is_directory(st)) out[rel] = "dir";
        else if (fs::is_fifo(st)) out[rel] = "fifo";
        else out[rel] = read_file(it->path());
    }
    return out;
}

// chattr +i / -i on `p`: false where the file system or this process's capabilities refuse it.
bool set_immutable(const fs::path& p, bool on) {
    const int fd = ::open(p.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return false;
    int flags = 0;
    bool done = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
    if (done) {
        flags = on ? (flags | FS_IMMUTABLE_FL) : (flags & ~FS_IMMUTABLE_FL);
        done = ::ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
    }
    ::close(fd);
    return done;
}

// `kiln-cli handback ROOT --from RUN --write` and `kiln-cli retune ROOT --fetch URL --write` (the fleet's
// measurements, nothing measured here): both hand back through the same write. Under a kill timer, so
// that a hang (a FIFO opened for reading) fails with 137 instead of blocking the test.
std::vector<CommandResult> write_both_ways(const fs::path& root, const fs::path& run, const std::string& url) {
    std::vector<CommandResult> out;
    const std::vector<std::string> kill{"timeout", "-s", "KILL", "60", cli_path()};
    for (std::vector<std::string> args :
         {std::vector<std::string>{"handback", root.string(), "--from", run.string(), "--write"},
          std::vector<std::string>{"retune", root.string(), "--fetch", url, "--write", "--device-name", kH200}}) {
        args.insert(args.begin(), kill.begin(), kill.end());
        out.push_back(run_command(args));
    }
    return out;
}

}  // namespace

TEST(HandbackCli, WriteSaysWhereAndForWhichDevice) {
    ScratchDir d("cli-hb-write");
    fs::path root = copy_h100(d);
    fs::path run = saved_run(d, kH200, 0.8, "run.json");
    auto r = run_command({cli_path(), "handback", root.string(), "--from", run.string(), "--write"});
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("wrote 2 op(s) (2 new, 0 replaced) to " + (root / "cache" / kH200File).string()),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("for NVIDIA H200; Triton key and CUDA version from the recorded file cache/2b00ebb9"),
              std::string::npos)
        << r.out;
    auto j = load(root / "cache" / kH200File);
    EXPECT_EQ(j["system"]["device"]["name"], kH200);
    EXPECT_EQ(j["cache"]["mm"].size(), 2u);
    // The H100's own file is as it was.
    EXPECT_EQ(read_file(cache_file_for(root, kH100)), read_file(cache_file_for(h100_root(), kH100)));
}

// A ROOT that does not exist is open_cache's error, the same text `stats` gives it, and nothing is made
// there: handback used to skip open_cache for such a path, and --write then made the directory.
TEST(HandbackCli, RootThatDoesNotExistIsOpenCachesError) {
    ScratchDir d("cli-hb-noroot");
    fs::path run = saved_run(d, kH200, 0.8, "run.json");
    const fs::path nope = d.path() / "nope";
    auto stats = run_command({cli_path(), "stats", nope.string()});
    ASSERT_EQ(stats.exit_code, 2) << stats.err;
    const std::vector<std::vector<std::string>> flags{
        {"--from", run.string(), "--write"},
        {"--from", run.string(), "--pin", (d.path() / "table.json").string()},
        {"--fetch", "redis://127.0.0.1:1", "--write", "--device-name", kH200}};
    for (const auto& f : flags) {
        std::vector<std::string> args{cli_path(), "handback", nope.string()};
        args.insert(args.end(), f.begin(), f.end());
        auto r = run_command(args);
        EXPECT_EQ(r.exit_code, 2) << f[2] << ": " << r.err << r.out;
        EXPECT_EQ(r.err, stats.err) << f[2];
        EXPECT_FALSE(fs::exists(nope)) << f[2];
    }
    EXPECT_FALSE(fs::exists(d.path() / "table.json"));
}

// A real H100 re-tune of three fp16 ops of a model (tests/ui/data): the choice of each that needs
// 262144 bytes of shared memory fails there as torch fails it, so it is written as Infinity and
// every op is handed back; the text and --json say which choice and why (core's plan_handback,
// which the GUI's Re-tune dialog shows before a click).
TEST(HandbackCli, InfinityChoicesOfARealRunAreListedWithWhy) {
    ScratchDir d("cli-hb-infinity");
    const fs::path run = source_dir() / "tests/ui/data/retune_model_f16_h100.json";
    fs::create_directories(d.path() / "a");  // empty roots: torch's file for the H100 is made there
    fs::create_directories(d.path() / "b");
    auto r = run_command({cli_path(), "handback", (d.path() / "a").string(), "--from", run.string(), "--write"});
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("3 complete op(s) (every choice measured on one GPU kind)\n"
                         "  3 choice(s) written as Infinity, as torch writes a choice that fails:\n"
                         "    triton_mm-cwi6wsaajlcoal3y4mvfldwuiswlthay6sy52cyeiti2gaqeahot of addmm "),
              std::string::npos)
        << r.out;
    auto j =
        run_command({cli_path(), "handback", (d.path() / "b").string(), "--from", run.string(), "--write", "--json"});
    ASSERT_EQ(j.exit_code, 0) << j.err << j.out;
    auto out = nlohmann::json::parse(j.out);
    EXPECT_EQ(out["complete_ops"], 3);
    EXPECT_TRUE(out["skipped"].empty());
    ASSERT_EQ(out["infinite"].size(), 3u);
    for (const auto& i : out["infinite"])
        EXPECT_EQ(i["why"], "the kernel needs 262144 bytes of shared memory; this GPU allows 232448") << i.dump();
}

TEST(HandbackCli, BadInputIsAClearErrorAndWritesNothing) {
    ScratchDir d("cli-hb-bad");
    fs::path root = copy_h100(d);
    fs::path run = saved_run(d, kH200, 0.8, "run.json");
    { std::ofstream(root / "cache" / kH200File) << "{\"system\": {}, \"cache\": {\"mm\": []}}"; }
    auto r = run_command({cli_path(), "handback", root.string(), "--from", run.string(), "--write"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("torch could not read this timing cache"), std::string::npos) << r.err;
    EXPECT_EQ(read_file(root / "cache" / kH200File), "{\"system\": {}, \"cache\": {\"mm\": []}}");

    fs::path broken = d.path() / "broken.json";
    std::ofstream(broken) << "{\"devices\": [], \"ops\": [{\"op\": 1}]}";
    auto b = run_command({cli_path(), "handback", root.string(), "--from", broken.string(), "--write"});
    EXPECT_EQ(b.exit_code, 2) << b.err;
    EXPECT_NE(b.out.find("not handed back: ops[0] on any device: ops[0].op is 1, not a string"), std::string::npos)
        << b.out;
    EXPECT_NE(b.err.find("no complete op"), std::string::npos) << b.err;

    auto shard =
        run_command({cli_path(), "handback", root.string(), "--from", run.string(), "--write", "--shard", "2/2"});
    EXPECT_EQ(shard.exit_code, 2) << shard.err;
    EXPECT_NE(shard.err.find("--shard wants I/N"), std::string::npos) << shard.err;
}

// Issue 42 #7: one wrong-typed field of a saved run (`runnable: "yes"`, `name: 123`, a 23-digit
// number) was an "internal error" and nothing was handed back. Now that op is skipped with the
// field's path and the other op is written.
TEST(HandbackCli, AWrongTypedFieldCostsItsOpOnly) {
    for (const std::string poison :
         {R"("runnable": "yes")", R"("name": 123)", R"("device": 12345678901234567890123)"}) {
        ScratchDir d("cli-hb-poison");
        fs::path root = copy_h100(d);
        auto j = run_json_from_cache_file(cache_file_for(h100_root(), kH100), kH200, 0.8);
        auto& choice = j["ops"][1]["choices"][2];
        std::string field = poison.substr(1, poison.find('"', 1) - 1);
        if (field == "device") choice["measured"][0]["device"] = 424242;
        else choice[field] = 424242;
        std::string text = kiln::py_dumps(j);
        auto at = text.find("\"" + field + "\": 424242");
        ASSERT_NE(at, std::string::npos);
        text.replace(at, field.size() + 10, poison);
        fs::path run = d.path() / "run.json";
        std::ofstream(run) << text;
        auto r = run_command({cli_path(), "handback", root.string(), "--from", run.string(), "--write"});
        ASSERT_EQ(r.exit_code, 0) << poison << r.err << r.out;
        EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
        EXPECT_NE(r.out.find("1 complete op(s)"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("not handed back: mm "), std::string::npos) << r.out;
        std::string path = field == "device" ? "ops[1].choices[2].measured[0].device is 1.2345678901234568e+22"
                                             : "ops[1].choices[2]." + field + " is ";
        EXPECT_NE(r.out.find(path), std::string::npos) << poison << "\n" << r.out;
        EXPECT_NE(r.out.find("wrote 1 op(s) (1 new, 0 replaced)"), std::string::npos) << r.out;
        auto written = load(root / "cache" / kH200File);
        EXPECT_EQ(written["cache"]["mm"].size(), 1u);
    }
}

TEST(HandbackCli, PinWritesATableAndRefusesAnExistingPath) {
    ScratchDir d("cli-hb-pin");
    fs::path root = copy_h100(d);
    fs::path run = saved_run(d, kH100, 1.0, "run.json");
    fs::path table = d.path() / "table.json";
    auto r = run_command({cli_path(), "handback", root.string(), "--from", run.string(), "--pin", table.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("pinned 2 op(s) into " + table.string()), std::string::npos) << r.out;
    auto j = load(table);
    ASSERT_EQ(j.size(), 2u);
    for (auto& [key, configs] : j.items()) {
        EXPECT_EQ(key.rfind(kH100 + "+((torch.float16, [", 0), 0u) << key;
        ASSERT_EQ(configs.size(), 1u);
        EXPECT_TRUE(configs[0].contains("template_id"));
    }
    std::string before = read_file(table);
    auto again = run_command({cli_path(), "handback", root.string(), "--from", run.string(), "--pin", table.string()});
    EXPECT_NE(again.exit_code, 0);
    EXPECT_NE(again.err.find("exists"), std::string::npos) << again.err;
    EXPECT_EQ(read_file(table), before);
}

// --publish on one host, --fetch … --write on another (a fresh cache dir): the same timing cache
// file as --write there; --shard 0/2 and 1/2 publish exactly the unsharded run's keys.
TEST(HandbackCli, FleetThroughRedis) {
    RedisServer server;
    ScratchDir d("cli-hb-fleet");
    fs::path run = saved_run(d, kH200, 0.8, "run.json");
    auto pub = run_command({cli_path(), "handback", "--from", run.string(), "--publish", server.url(1)});
    ASSERT_EQ(pub.exit_code, 0) << pub.err << pub.out;
    EXPECT_NE(pub.out.find("published 2 op(s) to "), std::string::npos) << pub.out;

    fs::create_directories(d.path() / "fresh");
    auto fetch = run_command({cli_path(), "handback", "--fetch", server.url(1), "--write", "--device-name", kH200,
                              (d.path() / "fresh").string()});
    ASSERT_EQ(fetch.exit_code, 0) << fetch.err << fetch.out;
    EXPECT_NE(fetch.out.find("fetched 2 of 2 re-tuned ops"), std::string::npos) << fetch.out;
    fs::path local = copy_h100(d);
    ASSERT_EQ(run_command({cli_path(), "handback", local.string(), "--from", run.string(), "--write"}).exit_code, 0);
    EXPECT_EQ(load(d.path() / "fresh" / "cache" / kH200File), load(local / "cache" / kH200File));

    // Another GPU kind finds nothing: an error, nothing written.
    fs::create_directories(d.path() / "other");
    auto none = run_command({cli_path(), "handback", "--fetch", server.url(1), "--write", "--device-name",
                             "NVIDIA B200", (d.path() / "other").string()});
    EXPECT_NE(none.exit_code, 0);
    EXPECT_FALSE(fs::exists(d.path() / "other" / "cache"));

    for (const char* s : {"0/2", "1/2"})
        ASSERT_EQ(
            run_command({cli_path(), "handback", "--from", run.string(), "--publish", server.url(2), "--shard", s})
                .exit_code,
            0);
    auto keys = [&](int db) {
        auto r = server.cli({"-n", std::to_string(db), "--raw", "KEYS", "kiln:retuned:*"});
        std::vector<std::string> out;
        std::istringstream in(r.out);
        for (std::string line; std::getline(in, line);)
            if (!line.empty()) out.push_back(line);
        std::sort(out.begin(), out.end());
        return out;
    };
    EXPECT_EQ(keys(1).size(), 2u);
    EXPECT_EQ(keys(1), keys(2));

    auto listed = run_command({cli_path(), "timings", server.url(1)});
    ASSERT_EQ(listed.exit_code, 0) << listed.err;
    EXPECT_NE(listed.out.find("on NVIDIA H200 @ "), std::string::npos) << listed.out;
}

// A server whose EXEC answers an error for each queued SET (-READONLY: a replica since a failover): the
// publish failed, whatever EXEC's own reply type; the user reads the server's message and exit 1.
TEST(HandbackCli, PublishFailsWhenExecAnswersErrors) {
    ScratchDir d("cli-hb-exec-errors");
    fs::path run = saved_run(d, kH200, 0.8, "run.json");
    int queued = 0;
    FakeRespServer server([&queued](const std::vector<std::string>& argv, int fd) {
        if (FakeRespServer::answer_ping(argv, fd)) return true;
        if (argv[0] == "MULTI") return FakeRespServer::send_text(fd, "+OK\r\n");
        if (argv[0] == "SET") return ++queued, FakeRespServer::send_text(fd, "+QUEUED\r\n");
        if (argv[0] == "EXEC") {
            std::string reply = "*" + std::to_string(queued) + "\r\n";
            for (int i = 0; i < queued; ++i) reply += "-READONLY You can't write against a read only replica.\r\n";
            return FakeRespServer::send_text(fd, reply);
        }
        return FakeRespServer::send_text(fd, "-ERR unexpected\r\n");
    });
    auto pub = run_command({cli_path(), "handback", "--from", run.string(), "--publish", server.url()});
    EXPECT_EQ(pub.exit_code, 1) << pub.err << pub.out;
    EXPECT_EQ(pub.out.find("published"), std::string::npos) << pub.out;
    EXPECT_NE(pub.err.find("READONLY You can't write against a read only replica"), std::string::npos) << pub.err;
}

// Issue 42 #7, #8: fleet values with `kind: 7`, `ms: -1000` or `ms: NaN` under valid keys. Before,
// -1000 and NaN went into torch's timing cache unchecked and `kind: 7` made --fetch an internal
// error for every host; now each such key is a warning naming the field and the rest is written.
TEST(HandbackCli, FetchLeavesPoisonedFleetValuesOut) {
    RedisServer server;
    ScratchDir d("cli-hb-fleet-poison");
    // Two GPU kinds' re-tunes of the fixture: four keys, two per kind.
    for (const auto& [device, factor] : {std::pair{kH200, 0.8}, std::pair{std::string("NVIDIA B200"), 0.5}}) {
        fs::path run = saved_run(d, device, factor, "run-" + std::to_string(factor) + ".json");
        ASSERT_EQ(run_command({cli_path(), "handback", "--from", run.string(), "--publish", server.url()}).exit_code,
                  0);
    }
    auto keys = server.cli({"--raw", "KEYS", "kiln:retuned:*"});
    std::vector<std::string> h200, b200;
    std::istringstream in(keys.out);
    for (std::string k; std::getline(in, k);)
        if (!k.empty()) (k.find(":NVIDIA H200:") != std::string::npos ? h200 : b200).push_back(k);
    ASSERT_EQ(h200.size(), 2u);
    ASSERT_EQ(b200.size(), 2u);
    // Rewrites the first choice's `field` of the value under `key` with JSON text.
    auto poison = [&](const std::string& key, const std::string& field, const std::string& value) {
        std::string text = server.cli({"--raw", "GET", key}).out;
        while (!text.empty() && text.back() == '\n') text.pop_back();
        auto at = text.find("\"" + field + "\": ");
        ASSERT_NE(at, std::string::npos) << text;
        auto end = text.find_first_of(",}", at);
        text.replace(at, end - at, "\"" + field + "\": " + value);
        ASSERT_EQ(server.cli({"-x", "SET", key}, text).exit_code, 0);
    };
    poison(h200[0], "ms", "-1000");
    poison(b200[0], "ms", "NaN");
    poison(b200[1], "kind", "7");

    for (const auto& [device, bad] : {std::pair{kH200, 1}, std::pair{std::string("NVIDIA B200"), 2}}) {
        fs::path root = d.path() / ("fresh-" + std::to_string(bad));
        fs::create_directories(root);
        auto fetch = run_command(
            {cli_path(), "handback", "--fetch", server.url(), "--write", "--device-name", device, root.string()});
        EXPECT_EQ(fetch.err.find("internal error"), std::string::npos) << fetch.err;
        EXPECT_NE(fetch.err.find(".ms is -1000 ms: a time is never negative"), std::string::npos) << fetch.err;
        EXPECT_NE(fetch.err.find(".ms is NaN, not a time"), std::string::npos) << fetch.err;
        EXPECT_NE(fetch.err.find(".kind is 7, not a string"), std::string::npos) << fetch.err;
        if (device == kH200) {
            ASSERT_EQ(fetch.exit_code, 0) << fetch.err << fetch.out;
            EXPECT_NE(fetch.out.find("fetched 1 of 1 re-tuned ops"), std::string::npos) << fetch.out;
            std::string written = read_file(root / "cache" / kH200File);
            EXPECT_EQ(written.find("-1000"), std::string::npos);
            EXPECT_EQ(load(root / "cache" / kH200File)["cache"]["mm"].size(), 1u);
        } else {
            EXPECT_NE(fetch.exit_code, 0);  // both of its keys are poisoned: nothing to write
            EXPECT_FALSE(fs::exists(root / "cache"));
        }
    }
}

// --compare: the H100 fixture's cache against a re-tune on "another" GPU where the extern mm wins
// the second op by far: per op, whether the winners differ and whether beyond the measured noise.
TEST(HandbackCli, CompareSaysWhereWinnersDifferAndTheNoise) {
    ScratchDir d("cli-hb-compare");
    auto j = run_json_from_cache_file(cache_file_for(h100_root(), kH100), kH200, 1.0);
    for (auto& c : j["ops"][1]["choices"])
        if (c["kind"] == "extern") c["measured"][0]["ms"] = 1.0;  // now the slowest: a Triton config wins
    fs::path run = d.path() / "run.json";
    std::ofstream(run) << kiln::py_dumps(j);
    fs::path again = d.path() / "again.json";
    std::ofstream(again) << kiln::py_dumps(run_json_from_cache_file(cache_file_for(h100_root(), kH100), kH100, 1.0));
    auto r = run_command({cli_path(), "timings", "--compare", again.string(), run.string(), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto out = nlohmann::json::parse(r.out);
    ASSERT_EQ(out["ops"].size(), 2u);
    EXPECT_FALSE(out["ops"][0]["winner_differs"]);
    EXPECT_EQ(out["ops"][0]["noise"], "same winner");
    EXPECT_TRUE(out["ops"][1]["winner_differs"]);
    EXPECT_EQ(out["ops"][1]["noise"], "beyond noise");
    auto text = run_command({cli_path(), "timings", "--compare", again.string(), run.string()});
    EXPECT_NE(text.out.find("winners differ: beyond noise"), std::string::npos) << text.out;
    // A cache root beside a re-tune: the names join (the root gives the Triton parameters).
    auto mixed = run_command({cli_path(), "timings", "--compare", h100_root().string(), again.string(), "--json"});
    ASSERT_EQ(mixed.exit_code, 0) << mixed.err;
    auto m = nlohmann::json::parse(mixed.out);
    ASSERT_GE(m["ops"].size(), 2u) << mixed.out;
    for (const auto& op : m["ops"]) EXPECT_FALSE(op["winner_differs"]) << op.dump();
}

TEST(HandbackCli, BundlePackTimingsPacksNothingAndSaysWhy) {
    ScratchDir d("cli-hb-bundle");
    fs::path out = d.path() / "blob.bin";
    auto r = run_command({cli_path(), "bundle", "pack", h100_root().string(), "--out", out.string(), "--timings"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("nothing was packed"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("replaces the target's file whole"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
}

// Issue 42, what held and must keep holding: `--write` where torch's timing cache file is a directory
// or a FIFO is a clear error naming the path, at once (the FIFO is never opened to wait for a writer),
// and the cache is as it was: the folder and what it holds, no temporary left, nothing made beside it.
TEST(HandbackCli, WriteIntoADirectoryOrAFifoIsAClearError) {
    RedisServer server;
    ScratchDir d("cli-hb-targets");
    fs::path run = saved_run(d, kH200, 0.8, "run.json");
    ASSERT_EQ(run_command({cli_path(), "handback", "--from", run.string(), "--publish", server.url(1)}).exit_code, 0);
    for (const std::string kind : {"directory", "FIFO"}) {
        fs::path root = copy_h100(d);
        const fs::path target = root / "cache" / kH200File;
        if (kind == "FIFO") {
            ASSERT_EQ(::mkfifo(target.c_str(), 0600), 0);
        } else {
            fs::create_directories(target / "inside");
            std::ofstream(target / "inside" / "file") << "kept";
        }
        const auto before = tree_but_locks(d.path());
        for (const auto& r : write_both_ways(root, run, server.url(1))) {
            EXPECT_EQ(r.exit_code, 2) << kind << ": exit " << r.exit_code << " (137: hung)\n" << r.err;
            EXPECT_NE(r.err.find("not a regular file but a " + kind), std::string::npos) << kind << ": " << r.err;
            EXPECT_NE(r.err.find(target.string()), std::string::npos) << r.err;
            EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
            EXPECT_EQ(r.out.find("wrote "), std::string::npos) << r.out;
            EXPECT_EQ(tree_but_locks(d.path()), before) << kind;
        }
        fs::remove_all(root);
    }
}

// The same for an immutable file (chattr +i): torch's file is read and merged, and the rename onto it
// is refused, so the error says so and the file keeps its bytes; the temporary beside it is removed.
// Where the attribute cannot be set (a user without CAP_LINUX_IMMUTABLE, a file system without it),
// a read-only cache/ folder is the unwritable target instead, which only a user other than root meets.
TEST(HandbackCli, WriteIntoAnImmutableFileIsAClearErrorAndLosesNothing) {
    RedisServer server;
    ScratchDir d("cli-hb-immutable");
    fs::path run = saved_run(d, kH200, 0.8, "run.json");
    ASSERT_EQ(run_command({cli_path(), "handback", "--from", run.string(), "--publish", server.url(1)}).exit_code, 0);
    fs::path root = copy_h100(d);
    const fs::path target = root / "cache" / kH200File;
    // The file torch has: this run's first hand-back, with its ops' times then halved by hand.
    ASSERT_EQ(run_command({cli_path(), "handback", root.string(), "--from", run.string(), "--write"}).exit_code, 0);
    auto j = kiln::py_loads(read_file(target)).value();
    for (auto& [inputs, by_precision] : j["cache"]["mm"].items())
        for (auto& [precision, choices] : by_precision.items())
            for (auto& [name, ms] : choices.items()) ms = ms.get<double>() / 2;
    std::ofstream(target, std::ios::trunc) << kiln::py_dumps(j, {.indent = 4});
    struct Unlock {  // before the scratch dir goes: an immutable file could not be removed
        fs::path file, folder;
        ~Unlock() {
            if (!file.empty()) set_immutable(file, false);
            if (!folder.empty()) fs::permissions(folder, fs::perms::owner_all, fs::perm_options::add);
        }
    } unlock;
    std::string refused;
    if (set_immutable(target, true)) {
        unlock.file = target;
        refused = "Operation not permitted";
    } else if (::geteuid() != 0) {
        fs::permissions(root / "cache", fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                        fs::perm_options::remove);
        unlock.folder = root / "cache";
        refused = "Permission denied";
    } else {
        GTEST_SKIP() << "root without CAP_LINUX_IMMUTABLE (or a file system without chattr +i): no unwritable target";
    }
    const auto before = tree_but_locks(d.path());
    for (const auto& r : write_both_ways(root, run, server.url(1))) {
        EXPECT_EQ(r.exit_code, 1) << "exit " << r.exit_code << " (137: hung)\n" << r.err;
        EXPECT_NE(r.err.find(refused), std::string::npos) << r.err;
        EXPECT_NE(r.err.find(target.string()), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
        EXPECT_EQ(r.out.find("wrote "), std::string::npos) << r.out;
        EXPECT_EQ(tree_but_locks(d.path()), before);  // the halved times too: nothing lost, no temporary
    }
}
