// The fixture's entries written in Inductor's remote format to a real redis-server, then browsed
// back: the bytes must be identical and the decoded entries equal to the local files' (and to what
// Python's own unpickler read: golden.json).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <optional>

#include "inductor/graph_entry.hpp"
#include "redis_server.hpp"
#include "remote/remote_browser.hpp"
#include "remote/remote_export.hpp"
#include "remote/remote_graph.hpp"
#include "remote/remote_value.hpp"
#include "util/python_json.hpp"

using namespace kiln::remote;
namespace fs = std::filesystem;

namespace {

struct Browsed {
    std::map<std::string, RemoteEntry> by_key;
    BrowseTotals totals;
};

Browsed browse_all(RedisClient& c, BrowseOptions options = {}) {
    Browsed b;
    auto totals = browse_remote(c, options, [&](std::vector<RemoteEntry>& batch) -> kiln::Status {
        EXPECT_LE(batch.size(), options.batch);
        for (auto& e : batch) b.by_key.emplace(e.redis_key, std::move(e));
        return kiln::ok_status();
    });
    EXPECT_TRUE(totals) << totals.error().str();
    if (totals) b.totals = *totals;
    return b;
}

// A client on `server` after every entry of the local cache at `root` is published; empty, with the
// failure recorded, when a step fails.
std::optional<RedisClient> published(const kiln::test::RedisServer& server, const fs::path& root) {
    auto client = RedisClient::connect(*parse_redis_url(server.url()));
    if (!client) {
        ADD_FAILURE() << client.error().str();
        return std::nullopt;
    }
    auto items = remote_items_from_local(root);
    if (!items) {
        ADD_FAILURE() << items.error().str();
        return std::nullopt;
    }
    if (auto st = publish_items(*client, *items); !st) {
        ADD_FAILURE() << st.error().str();
        return std::nullopt;
    }
    return std::move(*client);
}

}  // namespace

TEST(FixtureRoundTrip, H100EntriesReadBackIdentically) {
    kiln::test::RedisServer server;
    auto client = RedisClient::connect(*parse_redis_url(server.url()));
    ASSERT_TRUE(client) << client.error().str();
    auto items = remote_items_from_local(kiln::test::h100_root());
    ASSERT_TRUE(items) << items.error().str();
    // 13 fxgraph + 12 aotautograd entries (one per key dir) and 5 best_config files (fixtures/README.md).
    ASSERT_EQ(items->size(), 30u);
    ASSERT_TRUE(publish_items(*client, *items));

    BrowseOptions options;
    options.batch = 7;  // several pipelined batches, the last one partial
    options.scan_count = 5;
    Browsed got = browse_all(*client, options);
    ASSERT_EQ(got.by_key.size(), items->size());
    EXPECT_EQ(got.totals.keys, items->size());
    EXPECT_GT(got.totals.round_trips, 5u);

    auto golden = nlohmann::json::parse(kiln::test::read_file(kiln::test::fixture_dir() / "h100" / "golden.json"));
    std::map<std::string, nlohmann::json> golden_by_path;
    for (auto& g : golden["entries"]) golden_by_path[g["path"].get<std::string>()] = g;

    std::map<std::string, int> per_cache;
    for (const auto& item : *items) {
        auto it = got.by_key.find(item.redis_key);
        ASSERT_NE(it, got.by_key.end()) << item.redis_key;
        RemoteEntry& e = it->second;
        ++per_cache[e.cache_id];
        std::string local = kiln::test::read_file(item.source_path);
        if (e.cache_id == "autotune-best-config-v2") {
            ASSERT_EQ(e.state, RemoteState::json) << e.problem;
            // json.dumps wrote both the local file and the remote value: same bytes.
            EXPECT_EQ(kiln::py_dumps(e.json), local) << item.source_path;
            EXPECT_EQ(e.time_taken_ms, nlohmann::json::parse(local)["time_taken_ms"].get<long long>());
            continue;
        }
        ASSERT_EQ(e.state, RemoteState::graph) << e.redis_key << ": " << e.problem;
        EXPECT_EQ(e.pickle, local) << item.source_path;  // byte-identical pickle

        auto from_disk = kiln::inductor::load_graph_entry(item.source_path);
        ASSERT_TRUE(from_disk) << from_disk.error().str();
        auto from_redis = decode_remote_graph(e, remote_origin(client->endpoint(), e.redis_key));
        ASSERT_TRUE(from_redis) << from_redis.error().str();
        EXPECT_TRUE(e.pickle.empty());  // taken, not copied
        EXPECT_EQ(from_redis->to_json(), from_disk->to_json()) << item.source_path;
        EXPECT_NE(from_redis->origin().find("pt2:"), std::string::npos);

        std::string rel = fs::relative(item.source_path, kiln::test::h100_root()).string();
        ASSERT_TRUE(golden_by_path.count(rel)) << rel;
        const auto& g = golden_by_path[rel];
        EXPECT_EQ(from_redis->type(), g["type"].get<std::string>());
        if (g.contains("cache_key") && g["cache_key"].is_string()) {
            EXPECT_EQ(from_redis->cache_key(), g["cache_key"].get<std::string>());
        }
        // Inductor: int(ns // 1e6); entries without _time_taken_ns (AOTAutograd) record 0.
        bool has_ns = g.contains("_time_taken_ns") && g["_time_taken_ns"].is_number();
        long long ns = has_ns ? g["_time_taken_ns"].get<long long>() : 0;
        if (has_ns) {
            EXPECT_EQ(from_redis->time_taken_ns(), ns);
        }
        EXPECT_EQ(e.time_taken_ms, ns / 1'000'000);
    }
    EXPECT_EQ(per_cache["fx-graph-v1"], 13);
    EXPECT_EQ(per_cache["autograd-experimental"], 12);
    EXPECT_EQ(per_cache["autotune-best-config-v2"], 5);
}

TEST(FixtureRoundTrip, CorruptAndForeignValuesAreListedNotFatal) {
    kiln::test::RedisServer server;
    auto client = published(server, kiln::test::two_entries_root());
    ASSERT_TRUE(client);
    ASSERT_TRUE(client->set_many({
        {"pt2:fx-graph-v1::fnotjson:c1", std::string("\x80\x04\x95garbage", 11)},
        {"pt2:fx-graph-v1::fbadb64:c1", R"({"data": "!!!!", "time_taken_ms": 1})"},
        {"pt2:autograd-experimental::abadpickle:c1", encode_graph_value("not a pickle", 1)},
        {"pt2:autotune-best-config-v2::bad:c1", "{\"XBLOCK\": "},
        {"sessions:1", "someone else's"},
    }));
    ASSERT_TRUE(client->command({"RPUSH", "pt2:fx-graph-v1::flist:c1", "x"}));

    BrowseOptions all;
    all.match = "*";
    Browsed got = browse_all(*client, all);
    EXPECT_EQ(got.by_key.at("pt2:fx-graph-v1::fnotjson:c1").state, RemoteState::corrupt);
    EXPECT_NE(got.by_key.at("pt2:fx-graph-v1::fnotjson:c1").problem.find("not JSON"), std::string::npos);
    EXPECT_EQ(got.by_key.at("pt2:fx-graph-v1::fbadb64:c1").state, RemoteState::corrupt);
    EXPECT_NE(got.by_key.at("pt2:fx-graph-v1::fbadb64:c1").problem.find("base64"), std::string::npos);
    EXPECT_EQ(got.by_key.at("pt2:autotune-best-config-v2::bad:c1").state, RemoteState::corrupt);
    EXPECT_EQ(got.by_key.at("sessions:1").state, RemoteState::foreign);
    EXPECT_EQ(got.by_key.at("pt2:fx-graph-v1::flist:c1").state, RemoteState::missing);
    // Unwraps fine, fails in the pickle decoder with the origin in the error.
    auto& badpickle = got.by_key.at("pt2:autograd-experimental::abadpickle:c1");
    ASSERT_EQ(badpickle.state, RemoteState::graph);
    auto decoded = decode_remote_graph(badpickle, "redis-test/abadpickle");
    ASSERT_FALSE(decoded);
    EXPECT_NE(decoded.error().str().find("redis-test/abadpickle"), std::string::npos) << decoded.error().str();

    // The two-entries fixture: one key dir, two entries -> one remote value (the last written).
    int graphs = 0;
    for (auto& [k, e] : got.by_key) graphs += e.state == RemoteState::graph && e.cache_id == "fx-graph-v1";
    EXPECT_EQ(graphs, 1);
    // The default pattern sees only Inductor's keys.
    Browsed inductor_only = browse_all(*client);
    EXPECT_EQ(inductor_only.by_key.count("sessions:1"), 0u);
    EXPECT_EQ(inductor_only.by_key.size() + 1, got.by_key.size());
}

TEST(FixtureRoundTrip, DecodingOnSeveralThreadsGivesTheLocalEntriesInScanOrder) {
    kiln::test::RedisServer server;
    auto client = RedisClient::connect(*parse_redis_url(server.url()));
    ASSERT_TRUE(client) << client.error().str();
    auto items = remote_items_from_local(kiln::test::h100_root());
    ASSERT_TRUE(items) << items.error().str();
    ASSERT_TRUE(publish_items(*client, *items));
    ASSERT_TRUE(client->set("pt2:fx-graph-v1::fbroken:c1", R"({"data": "gASVAAAA", "time_taken_ms": 1})"));

    // The order the sink sees must be SCAN's: record it with one thread, then compare.
    auto order_of = [&](BrowseOptions o) {
        std::vector<std::string> keys;
        std::map<std::string, RemoteEntry> entries;
        auto totals = browse_remote(*client, o, [&](std::vector<RemoteEntry>& batch) -> kiln::Status {
            for (auto& e : batch) {
                keys.push_back(e.redis_key);
                entries.emplace(e.redis_key, std::move(e));
            }
            return kiln::ok_status();
        });
        EXPECT_TRUE(totals) << totals.error().str();
        return std::make_pair(keys, std::move(entries));
    };
    BrowseOptions one;
    one.batch = 5;
    one.threads = 1;
    BrowseOptions many = one;
    many.threads = 4;
    many.decode_graphs = true;
    auto [order1, plain] = order_of(one);
    auto [order4, decoded] = order_of(many);
    EXPECT_EQ(order4, order1);
    ASSERT_EQ(decoded.size(), items->size() + 1);

    for (const auto& item : *items) {
        const RemoteEntry& e = decoded.at(item.redis_key);
        if (e.state == RemoteState::json) continue;
        ASSERT_TRUE(e.graph) << item.redis_key << ": " << e.decode_problem;
        EXPECT_TRUE(e.pickle.empty());  // moved into the decoded entry's buffer
        auto local = kiln::inductor::load_graph_entry(item.source_path);
        ASSERT_TRUE(local);
        EXPECT_EQ(e.graph->to_json(), local->to_json()) << item.source_path;
        EXPECT_FALSE(plain.at(item.redis_key).graph);  // not asked for: not decoded
    }
    // A value whose base64 unwraps but whose pickle is cut short: listed with why, not fatal.
    const RemoteEntry& broken = decoded.at("pt2:fx-graph-v1::fbroken:c1");
    EXPECT_EQ(broken.state, RemoteState::graph);
    EXPECT_FALSE(broken.graph);
    EXPECT_FALSE(broken.decode_problem.empty());
}

TEST(FixtureRoundTrip, ASinkErrorStopsTheBrowseAndTheFetcher) {
    kiln::test::RedisServer server;
    auto client = published(server, kiln::test::h100_root());
    ASSERT_TRUE(client);
    BrowseOptions o;
    o.batch = 3;
    int calls = 0;
    auto totals = browse_remote(*client, o, [&](std::vector<RemoteEntry>&) -> kiln::Status {
        if (++calls == 2) return kiln::make_error(kiln::Errc::cancelled, "enough");
        return kiln::ok_status();
    });
    ASSERT_FALSE(totals);
    EXPECT_EQ(totals.error().message, "enough");
    EXPECT_EQ(calls, 2);
    // The connection is still usable afterwards (the fetcher finished its pipelined batch).
    auto pong = client->command({"PING"});
    EXPECT_TRUE(pong) << (pong ? "" : pong.error().str());
}
