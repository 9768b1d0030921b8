// kiln-cli against a real redis-server holding the H100 fixture in Inductor's remote format:
// stats --redis, and the error paths a user meets first (unreachable, wrong password, bad URL).
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "fake_resp_server.hpp"
#include "redis_server.hpp"
#include "remote/remote_export.hpp"
#include "test_support.hpp"

using namespace kiln::test;
using kiln::remote::RedisClient;

namespace {

// One server for the whole file: filling it with the fixture takes seconds.
class RemoteCli : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        server_ = new RedisServer();
        auto ep = kiln::remote::parse_redis_url(server_->url());
        auto client = RedisClient::connect(*ep);
        ASSERT_TRUE(client) << client.error().str();
        auto items = kiln::remote::remote_items_from_local(h100_root());
        ASSERT_TRUE(items) << items.error().str();
        ASSERT_TRUE(kiln::remote::publish_items(*client, *items));
        ASSERT_TRUE(client->set("pt2:fx-graph-v1::fcorrupt:c1", "this is not json"));
    }
    static void TearDownTestSuite() {
        delete server_;
        server_ = nullptr;
    }
    static RedisServer* server_;
};
RedisServer* RemoteCli::server_ = nullptr;

}  // namespace

TEST_F(RemoteCli, StatsJsonHasTheLocalSchemaByCacheId) {
    auto r = run_command({cli_path(), "stats", "--redis", server_->url(), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["root"], "redis://127.0.0.1:" + std::to_string(server_->port()) + "/0");
    EXPECT_EQ(j["categories"]["fx-graph-v1"]["files"], 14);  // 13 fixture keys + the corrupt one
    EXPECT_EQ(j["categories"]["fx-graph-v1"]["entries"], 14);
    EXPECT_EQ(j["categories"]["autograd-experimental"]["files"], 12);
    EXPECT_EQ(j["categories"]["autotune-best-config-v2"]["files"], 5);
    EXPECT_EQ(j["fxgraph_keys"], 14);
    EXPECT_EQ(j["total"]["files"], 31);
    EXPECT_GT(j["total"]["bytes"].get<long long>(), 10'000'000);  // base64 of ~11 MB of pickles
    EXPECT_EQ(j["unreadable"], 1);
    // The corrupt value is named on stderr, not fatal.
    EXPECT_NE(r.err.find("pt2:fx-graph-v1::fcorrupt:c1"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("not JSON"), std::string::npos) << r.err;
}

TEST_F(RemoteCli, StatsTextAndTorchVariables) {
    // No URL after --redis: torch's own TORCHINDUCTOR_REDIS_HOST / _PORT.
    auto r =
        run_command({"env", "-u", "TORCHINDUCTOR_REDIS_URL", "TORCHINDUCTOR_REDIS_HOST=127.0.0.1",
                     "TORCHINDUCTOR_REDIS_PORT=" + std::to_string(server_->port()), cli_path(), "stats", "--redis"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("(redis)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("fx-graph-v1"), std::string::npos);
    EXPECT_NE(r.out.find("autotune-best-config-v2"), std::string::npos);
    auto url =
        run_command({"env", "TORCHINDUCTOR_REDIS_URL=" + server_->url(), cli_path(), "stats", "--redis", "--json"});
    ASSERT_EQ(url.exit_code, 0) << url.err;
    EXPECT_EQ(nlohmann::json::parse(url.out)["total"]["files"], 31);
}

TEST_F(RemoteCli, ClearErrors) {
    auto unreachable =
        run_command({cli_path(), "stats", "--redis", "redis://127.0.0.1:" + std::to_string(free_loopback_port())});
    EXPECT_EQ(unreachable.exit_code, 1);
    EXPECT_NE(unreachable.err.find("cannot connect to Redis"), std::string::npos) << unreachable.err;

    auto bad_url = run_command({cli_path(), "stats", "--redis", "http://127.0.0.1:6379"});
    EXPECT_EQ(bad_url.exit_code, 2);
    EXPECT_NE(bad_url.err.find("not a redis:// URL"), std::string::npos) << bad_url.err;

    auto tls = run_command({cli_path(), "stats", "--redis", "rediss://127.0.0.1:6379"});
    EXPECT_EQ(tls.exit_code, 2);
    EXPECT_NE(tls.err.find("hiredis 0.14"), std::string::npos) << tls.err;

    RedisServer locked({.password = "team-secret"});
    auto wrong =
        run_command({cli_path(), "stats", "--redis", "redis://:nope@127.0.0.1:" + std::to_string(locked.port())});
    EXPECT_EQ(wrong.exit_code, 2);
    EXPECT_NE(wrong.err.find("WRONGPASS"), std::string::npos) << wrong.err;
    EXPECT_EQ(wrong.err.find("nope"), std::string::npos) << wrong.err;  // the password is never echoed
    auto missing = run_command({cli_path(), "stats", "--redis", "redis://127.0.0.1:" + std::to_string(locked.port())});
    EXPECT_NE(missing.err.find("NOAUTH"), std::string::npos) << missing.err;
    auto right = run_command({cli_path(), "stats", "--redis", locked.url(), "--json"});
    EXPECT_EQ(right.exit_code, 0) << right.err;
}

TEST_F(RemoteCli, ShowDecodesARemoteEntryLikeTheLocalFile) {
    // The same entry, once from the fixture and once from Redis: identical decoded JSON.
    std::string local_file;
    for (auto& e : std::filesystem::recursive_directory_iterator(h100_root() / "fxgraph"))
        if (e.is_regular_file()) {
            local_file = e.path().string();
            break;
        }
    ASSERT_FALSE(local_file.empty());
    const std::string key = std::filesystem::path(local_file).parent_path().filename().string();  // f...
    auto local = run_command({cli_path(), "show", local_file, "--json"});
    ASSERT_EQ(local.exit_code, 0) << local.err;
    auto remote = run_command({cli_path(), "show", server_->url() + "/" + key, "--json"});
    ASSERT_EQ(remote.exit_code, 0) << remote.err;
    EXPECT_EQ(nlohmann::json::parse(remote.out), nlohmann::json::parse(local.out));

    auto missing = run_command({cli_path(), "show", server_->url() + "/fnosuchkey", "--json"});
    EXPECT_EQ(missing.exit_code, 2) << missing.err;
    EXPECT_FALSE(missing.err.empty());
}

namespace {

const kiln::remote::RemoteItem* fx_item(const std::vector<kiln::remote::RemoteItem>& items, const std::string& key) {
    for (const auto& it : items)
        if (it.redis_key == "pt2:fx-graph-v1::" + key + ":c1") return &it;
    return nullptr;
}

std::vector<kiln::remote::RemoteItem> h100_items() {
    auto items = kiln::remote::remote_items_from_local(h100_root());
    EXPECT_TRUE(items) << items.error().str();
    return items ? *items : std::vector<kiln::remote::RemoteItem>{};
}

}  // namespace

TEST_F(RemoteCli, GuardsOnARemoteEntryAgreeWithTheLocalFile) {
    // An entry guarded by "4 <= L['t0'] and 2 <= L['t1']" (golden.json).
    const std::string key = "f3cdfleezqubqjd7q7dm627jcph45mmb5ictibltsepfezuo54wk";
    auto items = h100_items();
    const auto* item = fx_item(items, key);
    ASSERT_NE(item, nullptr);
    const std::string origin =
        "redis://127.0.0.1:" + std::to_string(server_->port()) + "/0/pt2:fx-graph-v1::" + key + ":c1";
    for (const char* sizes : {"8,4", "2,4", "4,1"}) {
        auto remote = run_command({cli_path(), "guards", server_->url() + "/" + key, "--sizes", sizes, "--json"});
        auto local = run_command({cli_path(), "guards", item->source_path, "--sizes", sizes, "--json"});
        ASSERT_EQ(remote.exit_code, 0) << remote.err;
        ASSERT_EQ(local.exit_code, 0) << local.err;
        auto r = nlohmann::json::parse(remote.out), l = nlohmann::json::parse(local.out);
        ASSERT_EQ(r["entries"].size(), 1u);
        EXPECT_EQ(r["entries"][0]["guards_expr"], l["entries"][0]["guards_expr"]) << sizes;
        EXPECT_EQ(r["entries"][0]["pass"], l["entries"][0]["pass"]) << sizes;
        EXPECT_EQ(r["entries"][0]["failing"], l["entries"][0]["failing"]) << sizes;
        EXPECT_EQ(r["entries"][0]["file"], origin);
        if (std::string(sizes) == "8,4") EXPECT_EQ(r["served"], origin);
        else EXPECT_TRUE(r["served"].is_null()) << sizes;
    }
    auto text = run_command({cli_path(), "guards", server_->url() + "/" + key, "--sizes", "2,4"});
    EXPECT_EQ(text.exit_code, 0);
    EXPECT_NE(text.out.find("fail  " + origin), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("failing: 4 <= L['t0']"), std::string::npos) << text.out;
}

TEST_F(RemoteCli, DiffOfRemoteEntriesEqualsTheLocalDiff) {
    auto items = h100_items();
    std::vector<const kiln::remote::RemoteItem*> fx;
    for (const auto& it : items)
        if (it.redis_key.rfind("pt2:fx-graph-v1::", 0) == 0) fx.push_back(&it);
    ASSERT_GE(fx.size(), 2u);
    const auto& a = *fx[0];
    const auto& b = *fx[1];
    auto remote = run_command(
        {cli_path(), "diff", server_->url() + "/" + a.redis_key, server_->url() + "/" + b.redis_key, "--json"});
    auto local = run_command({cli_path(), "diff", a.source_path, b.source_path, "--json"});
    ASSERT_EQ(remote.exit_code, 0) << remote.err;
    ASSERT_EQ(local.exit_code, 0) << local.err;
    EXPECT_EQ(nlohmann::json::parse(remote.out), nlohmann::json::parse(local.out));
    // Mixed: my local entry against the team's remote one, labelled by where each lives.
    auto mixed = run_command({cli_path(), "diff", a.source_path, server_->url() + "/" + b.redis_key});
    ASSERT_EQ(mixed.exit_code, 0) << mixed.err;
    EXPECT_NE(mixed.out.find("A: " + a.source_path), std::string::npos) << mixed.out;
    EXPECT_NE(mixed.out.find("B: redis://127.0.0.1:" + std::to_string(server_->port()) + "/0/" + b.redis_key),
              std::string::npos)
        << mixed.out;
    auto missing = run_command({cli_path(), "diff", a.source_path, server_->url() + "/fnosuchkey"});
    EXPECT_EQ(missing.exit_code, 2) << missing.err;
    EXPECT_NE(missing.err.find("fnosuchkey"), std::string::npos) << missing.err;
}

TEST_F(RemoteCli, DiffErrorsNameTheRedisUrlNotATemporaryPath) {
    // Issue 16: remote diff errors named the temporary file the value was fetched into.
    auto items = h100_items();
    const kiln::remote::RemoteItem* fx = nullptr;
    const kiln::remote::RemoteItem* aot = nullptr;
    for (const auto& it : items) {
        if (!fx && it.redis_key.rfind("pt2:fx-graph-v1::", 0) == 0) fx = &it;
        if (!aot && it.redis_key.rfind("pt2:autograd-experimental::", 0) == 0) aot = &it;
    }
    ASSERT_TRUE(fx && aot);
    auto ep = kiln::remote::parse_redis_url(server_->url());
    auto client = RedisClient::connect(*ep);
    ASSERT_TRUE(client) << client.error().str();
    ASSERT_TRUE(client->set("pt2:fx-graph-v1::fnotapickle:c1", R"({"data": "AAAA"})"));
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"pt2:fx-graph-v1::fcorrupt:c1", "the value is not JSON"},
        {"pt2:fx-graph-v1::fnotapickle:c1", "not a pickle opcode"},
        {aot->redis_key, "no _fx_graph_cache_debug_lines"},
    };
    for (const auto& [key, why] : cases) {
        const std::string url = server_->url() + "/" + key;
        auto r = run_command({cli_path(), "diff", fx->source_path, url});
        EXPECT_NE(r.exit_code, 0) << key;
        EXPECT_NE(r.err.find(url + ": "), std::string::npos) << r.err;
        EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find(std::filesystem::temp_directory_path().string()), std::string::npos) << r.err;
    }
}

TEST_F(RemoteCli, AutotuneShareLetsAnotherMachineSkipBenchmarkingAndTimingsReadsItBack) {
    ScratchDir a("share-a"), b("share-b");
    const std::string url = server_->url(5);  // a db of its own
    const std::string spec = (source_dir() / "resources/examples/reduction_cpu.json").string();
    auto first = run_command({cli_path(), "autotune", spec, "--devices", "cpu", "--cache-dir", a.path().string(),
                              "--share", url, "--json", "--quiet"});
    ASSERT_EQ(first.exit_code, 0) << first.err;
    auto ja = nlohmann::json::parse(first.out);
    EXPECT_FALSE(ja["cache_hit"].get<bool>());
    EXPECT_NE(first.err.find("publish"), std::string::npos) << first.err;

    // "Another machine": an empty cache dir, the same server. Everything comes from Redis.
    auto second = run_command({cli_path(), "autotune", spec, "--devices", "cpu", "--cache-dir", b.path().string(),
                               "--share", url, "--json", "--quiet"});
    ASSERT_EQ(second.exit_code, 0) << second.err;
    auto jb = nlohmann::json::parse(second.out);
    EXPECT_TRUE(jb["cache_hit"].get<bool>());
    EXPECT_EQ(jb["bench_seconds"].get<double>(), 0.0);
    EXPECT_EQ(jb["timings"], ja["timings"]);
    EXPECT_EQ(jb["best"], ja["best"]);

    auto t = run_command({cli_path(), "timings", "--redis", url, "--json"});
    ASSERT_EQ(t.exit_code, 0) << t.err;
    auto jt = nlohmann::json::parse(t.out);
    ASSERT_EQ(jt["ops"].size(), 1u) << jt.dump();
    const auto& op = jt["ops"][0];
    EXPECT_EQ(op["op"], ja["op"]);
    EXPECT_NE(op["inputs"].get<std::string>().find("256x4096"), std::string::npos) << op["inputs"];  // readable form
    EXPECT_EQ(op["best"], ja["best"]);
    EXPECT_EQ(op["choices"].size(), ja["timings"].size());
    for (const auto& c : op["choices"]) {
        const std::string choice = c["choice"];
        ASSERT_TRUE(ja["timings"].contains(choice)) << choice;
        EXPECT_DOUBLE_EQ(c["ms"].get<double>(), ja["timings"][choice].get<double>());
    }
}

TEST_F(RemoteCli, TimingsRedisOnAnEmptyDbAndAnUnreachableServer) {
    auto empty = run_command({cli_path(), "timings", "--redis", server_->url(6), "--json"});
    ASSERT_EQ(empty.exit_code, 0) << empty.err;
    EXPECT_EQ(nlohmann::json::parse(empty.out)["ops"].size(), 0u);
    auto gone = run_command(
        {cli_path(), "timings", "--redis", "redis://127.0.0.1:" + std::to_string(free_loopback_port()), "--json"});
    EXPECT_NE(gone.exit_code, 0);
    EXPECT_NE(gone.err.find("127.0.0.1"), std::string::npos) << gone.err;
}

// Issue 16.3: a key that is not UTF-8 (Redis keys are any bytes) in `stats --redis --json`: the
// problem it causes is listed with the key's bytes as \udcXX escapes, and the JSON parses.
TEST_F(RemoteCli, StatsJsonEncodesABinaryKey) {
    auto ep = kiln::remote::parse_redis_url(server_->url(5));
    auto client = RedisClient::connect(*ep);
    ASSERT_TRUE(client) << client.error().str();
    ASSERT_TRUE(client->set("pt2:fx-graph-v1::f\xff\xfe:c1", "this is not json"));
    auto r = run_command({cli_path(), "stats", "--redis", server_->url(5), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto py = run_command({"python3", "-c", "import json,sys; json.loads(sys.stdin.buffer.read())"}, r.out);
    EXPECT_EQ(py.exit_code, 0) << py.err;
    EXPECT_NE(r.out.find("f\\udcff\\udcfe"), std::string::npos) << r.out;
}

// kiln-cli against a Redis that misbehaves on purpose (tests/support/fake_resp_server.hpp): each run
// ends in seconds with a clear error, and the child's peak memory (its max RSS, from the kernel's
// accounting of waited-for children) stays bounded.
namespace {

std::string resp_bulk(const std::string& s) { return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n"; }

// `kiln-cli stats --redis URL --json` and the largest resident size of any child so far, in MiB.
std::pair<CommandResult, long> stats_with_peak(const FakeRespServer& server) {
    auto r = run_command({cli_path(), "stats", "--redis", server.url(), "--json"});
    rusage usage{};
    ::getrusage(RUSAGE_CHILDREN, &usage);
    return {r, usage.ru_maxrss / 1024};
}

}  // namespace

TEST(RemoteCliHostile, HugeCursorsEndAtOnce) {
    FakeRespServer server([](const std::vector<std::string>& argv, int fd) {
        if (FakeRespServer::answer_ping(argv, fd)) return true;
        if (argv[0] == "DBSIZE") return FakeRespServer::send_text(fd, ":1000000000000000\r\n");
        static int n = 0;
        return FakeRespServer::send_text(fd,
                                         "*2\r\n" + resp_bulk(std::string(4096, '9') + std::to_string(++n)) + "*0\r\n");
    });
    auto [r, peak_mib] = stats_with_peak(server);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("not a 64-bit number"), std::string::npos) << r.err;
    EXPECT_LT(peak_mib, 200);
}

TEST(RemoteCliHostile, NilFloodIsALimitError) {
    std::string flood = "*2\r\n" + resp_bulk("0") + "*4000000\r\n";
    for (int i = 0; i < 4000000; ++i) flood += "$-1\r\n";  // 20 MB of nils
    FakeRespServer server([&flood](const std::vector<std::string>& argv, int fd) {
        if (FakeRespServer::answer_ping(argv, fd)) return true;
        if (argv[0] == "DBSIZE") return FakeRespServer::send_text(fd, ":10\r\n");
        FakeRespServer::send_text(fd, flood);
        return false;
    });
    auto [r, peak_mib] = stats_with_peak(server);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("elements"), std::string::npos) << r.err;
    EXPECT_LT(peak_mib, 200);
}

TEST(RemoteCliHostile, HugeValuesAreFetchedInBoundedBatches) {
    const std::string value(40u << 20, 'v');  // 16 values of 40 MB: 640 MB if one batch held them all
    FakeRespServer server([&value](const std::vector<std::string>& argv, int fd) {
        if (FakeRespServer::answer_ping(argv, fd)) return true;
        if (argv[0] == "DBSIZE") return FakeRespServer::send_text(fd, ":16\r\n");
        if (argv[0] == "SCAN") {
            std::string keys;
            for (int i = 0; i < 16; ++i) keys += resp_bulk("pt2:fx-graph-v1::fbig" + std::to_string(i) + ":c1");
            return FakeRespServer::send_text(fd, "*2\r\n" + resp_bulk("0") + "*16\r\n" + keys);
        }
        return FakeRespServer::send_text(fd, resp_bulk(value));
    });
    auto [r, peak_mib] = stats_with_peak(server);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["total"]["files"], 16);
    EXPECT_EQ(j["unreadable"], 16);  // 'vvvv...' is no Inductor value
    EXPECT_LT(peak_mib, 400);
}
