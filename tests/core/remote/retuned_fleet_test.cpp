// A fleet through a real redis-server: publish complete ops under Kiln's keys, read them back for
// this GPU kind, and the failures a fleet meets (a server that refuses, one that trickles, foreign
// values under our prefix).
#include "remote/retuned_fleet.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "fake_resp_server.hpp"
#include "handback/measured_op.hpp"
#include "redis_server.hpp"
#include "retune_run_fixture.hpp"

using namespace kiln::remote;
using namespace std::chrono_literals;
using kiln::handback::MeasuredOp;

namespace {

const std::string kH100 = "NVIDIA H100 80GB HBM3";

std::vector<MeasuredOp> ops_on(const std::string& device, double factor = 0.9) {
    auto file = kiln::test::cache_file_for(kiln::test::h100_root(), kH100);
    auto run = kiln::handback::run_from_json(kiln::test::run_json_from_cache_file(file, device, factor), "t").value();
    return kiln::handback::complete_ops(run, std::nullopt).ops;
}

}  // namespace

TEST(RetunedFleet, PublishedOpsComeBackWhole) {
    kiln::test::RedisServer server;
    auto h100 = ops_on(kH100), h200 = ops_on("NVIDIA H200", 0.7);
    auto pub = publish_retuned(server.url(), h100, "node-a");
    ASSERT_TRUE(pub) << pub.error().str();
    ASSERT_EQ(pub->keys.size(), 2u);
    EXPECT_EQ(pub->keys[0].rfind("kiln:retuned:v1:NVIDIA H100 80GB HBM3:", 0), 0u) << pub->keys[0];
    EXPECT_NE(pub->keys[0].find(":mm:"), std::string::npos);
    ASSERT_TRUE(publish_retuned(server.url(), h200, "node-b"));
    auto all = read_retuned(server.url());
    ASSERT_TRUE(all) << all.error().str();
    EXPECT_TRUE(all->warnings.empty());
    ASSERT_EQ(all->ops.size(), 4u);
    auto mine = for_devices(*all, {kH100});
    ASSERT_EQ(mine.size(), 2u);
    for (const auto& op : mine) {
        EXPECT_EQ(op.host, "node-a");
        EXPECT_EQ(op.system_hash(), h100[0].system_hash());
        const MeasuredOp& orig = op.inputs == h100[0].inputs ? h100[0] : h100[1];
        ASSERT_EQ(op.choices.size(), orig.choices.size());
        for (size_t i = 0; i < orig.choices.size(); ++i) {
            const auto* c = &orig.choices[i];
            auto it =
                std::find_if(op.choices.begin(), op.choices.end(), [&](const auto& x) { return x.name == c->name; });
            ASSERT_NE(it, op.choices.end());
            EXPECT_EQ(it->ms, c->ms);
            EXPECT_EQ(it->spread_ms, c->spread_ms);
            EXPECT_EQ(it->kind, c->kind);
        }
    }
    // Re-published (a newer measurement of the same op): replaced whole, still two keys for the kind.
    ASSERT_TRUE(publish_retuned(server.url(), ops_on(kH100, 0.5), "node-c"));
    auto again = read_retuned(server.url());
    ASSERT_TRUE(again);
    auto newer = for_devices(*again, {kH100});
    ASSERT_EQ(newer.size(), 2u);
    EXPECT_EQ(newer[0].host, "node-c");
    auto set = retuned_to_timing_set(*again);
    ASSERT_EQ(set.ops.size(), 4u);
    EXPECT_NE(set.ops[0].device.find(" @ node-"), std::string::npos);
    EXPECT_TRUE(set.ops[0].choices[0].spread_ms.has_value());
}

// A value under our prefix that is not ours (or copied under another op's key): a warning, never
// an op that could poison a timing cache.
TEST(RetunedFleet, ForeignValuesAreWarningsNotOps) {
    kiln::test::RedisServer server;
    auto ops = ops_on(kH100);
    ASSERT_TRUE(publish_retuned(server.url(), ops, "node-a"));
    auto c = RedisClient::connect(*parse_redis_url(server.url()));
    ASSERT_TRUE(c);
    ASSERT_TRUE(c->set(std::string(kRetunedPrefix) + "junk", "not json"));
    auto value = c->get(retuned_key(ops[0]));
    ASSERT_TRUE(value && *value);
    ASSERT_TRUE(c->set(std::string(kRetunedPrefix) + "NVIDIA H100 80GB HBM3:13.0:0000:mm:1111", **value));
    auto all = read_retuned(server.url());
    ASSERT_TRUE(all);
    EXPECT_EQ(all->ops.size(), 2u);
    ASSERT_EQ(all->warnings.size(), 2u);
    EXPECT_NE(all->warnings[0].find("does not belong to this key") + all->warnings[1].find("does not belong"),
              2 * std::string::npos);
}

// A server that refuses the transaction, and one that answers a byte at a time: a clear error,
// and nothing applied (MULTI/EXEC: the queued SETs die with the connection).
TEST(RetunedFleet, ARefusingOrTricklingServerIsAnErrorAndAppliesNothing) {
    kiln::test::FakeRespServer refusing([](const std::vector<std::string>& argv, int fd) {
        if (kiln::test::FakeRespServer::answer_ping(argv, fd)) return true;
        kiln::test::FakeRespServer::send_text(fd, "-READONLY You can't write against a read only replica.\r\n");
        return true;
    });
    auto refused = publish_retuned(refusing.url(), ops_on(kH100), "node-a");
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().str().find("READONLY"), std::string::npos) << refused.error().str();

    kiln::test::FakeRespServer trickling([](const std::vector<std::string>& argv, int fd) {
        if (kiln::test::FakeRespServer::answer_ping(argv, fd)) return true;
        for (char ch : std::string("+OK\r\n")) {
            if (!kiln::test::FakeRespServer::send_text(fd, std::string(1, ch))) break;
            std::this_thread::sleep_for(300ms);
        }
        return true;
    });
    RedisLimits limits;
    limits.command = 500ms;
    auto slow = publish_retuned(trickling.url(), ops_on(kH100), "node-a", limits);
    ASSERT_FALSE(slow);
    EXPECT_EQ(slow.error().code, kiln::Errc::timeout) << slow.error().str();
}

// A server that queues every SET and then answers EXEC with an error for each (what Redis does for a
// command that fails when the transaction runs: -OOM, -READONLY after a failover, -ERR): EXEC itself is
// no error reply, so a publish that took any array as success said "published" with nothing stored.
TEST(RetunedFleet, ErrorsInsideExecAreAFailureWithTheServersMessage) {
    std::atomic<int> sets{0};
    kiln::test::FakeRespServer failing([&sets](const std::vector<std::string>& argv, int fd) {
        using kiln::test::FakeRespServer;
        if (FakeRespServer::answer_ping(argv, fd)) return true;
        if (argv[0] == "MULTI") return FakeRespServer::send_text(fd, "+OK\r\n");
        if (argv[0] == "SET") return ++sets, FakeRespServer::send_text(fd, "+QUEUED\r\n");
        if (argv[0] == "EXEC") {
            std::string reply = "*" + std::to_string(sets.load()) + "\r\n";
            for (int i = 0; i < sets; ++i) reply += "-OOM command not allowed when used memory > 'maxmemory'.\r\n";
            return FakeRespServer::send_text(fd, reply);
        }
        return FakeRespServer::send_text(fd, "-ERR unexpected\r\n");
    });
    auto ops = ops_on(kH100);
    auto pub = publish_retuned(failing.url(), ops, "node-a");
    ASSERT_FALSE(pub) << "published " << pub->keys.size() << " op(s)";
    EXPECT_EQ(sets.load(), static_cast<int>(ops.size()));
    EXPECT_NE(pub.error().str().find("OOM command not allowed"), std::string::npos) << pub.error().str();
    EXPECT_NE(pub.error().str().find("2 of 2"), std::string::npos) << pub.error().str();

    // One error among OK replies fails the publish too; a count that does not match the SETs as well.
    for (std::string exec : {std::string("*2\r\n+OK\r\n-ERR no\r\n"), std::string("*1\r\n+OK\r\n")}) {
        kiln::test::FakeRespServer partial([&exec](const std::vector<std::string>& argv, int fd) {
            using kiln::test::FakeRespServer;
            if (FakeRespServer::answer_ping(argv, fd)) return true;
            if (argv[0] == "MULTI") return FakeRespServer::send_text(fd, "+OK\r\n");
            if (argv[0] == "SET") return FakeRespServer::send_text(fd, "+QUEUED\r\n");
            return FakeRespServer::send_text(fd, exec);
        });
        auto r = publish_retuned(partial.url(), ops, "node-a");
        EXPECT_FALSE(r) << exec;
    }
}

namespace {

// The value publish_retuned writes for `op`, with the first choice's `field` set to JSON text
// (Python's NaN and Infinity too).
std::string with_choice_field(const MeasuredOp& op, const std::string& field, const std::string& json_text) {
    auto j = kiln::handback::fleet_value(op, "node-a", 1700000000);
    j["choices"][op.choices.front().name][field] = 424242.5;
    std::string text = kiln::py_dumps(j);
    text.replace(text.find("424242.5"), 8, json_text);
    return text;
}

}  // namespace

// One poisoned key (a wrong type, a negative or NaN time) is a warning; every other key is read, so
// --fetch still works for every host (before, one `kind: 7` threw out of read_retuned).
TEST(RetunedFleet, APoisonedKeyCostsThatKeyOnly) {
    kiln::test::RedisServer server;
    auto h100 = ops_on(kH100), h200 = ops_on("NVIDIA H200", 0.7);
    ASSERT_TRUE(publish_retuned(server.url(), h100, "node-a"));
    ASSERT_TRUE(publish_retuned(server.url(), h200, "node-b"));
    auto c = RedisClient::connect(*parse_redis_url(server.url()));
    ASSERT_TRUE(c);
    ASSERT_TRUE(c->set(retuned_key(h100[0]), with_choice_field(h100[0], "kind", "7")));
    ASSERT_TRUE(c->set(retuned_key(h200[0]), with_choice_field(h200[0], "ms", "-1000")));
    ASSERT_TRUE(c->set(retuned_key(h200[1]), with_choice_field(h200[1], "ms", "NaN")));
    auto all = read_retuned(server.url());
    ASSERT_TRUE(all) << all.error().str();
    ASSERT_EQ(all->ops.size(), 1u);
    EXPECT_EQ(all->ops[0].inputs, h100[1].inputs);
    ASSERT_EQ(all->warnings.size(), 3u);
    std::string warnings;
    for (const auto& w : all->warnings) warnings += w + "\n";
    EXPECT_NE(warnings.find(".kind is 7, not a string"), std::string::npos) << warnings;
    EXPECT_NE(warnings.find(".ms is -1000 ms: a time is never negative"), std::string::npos) << warnings;
    EXPECT_NE(warnings.find(".ms is NaN, not a time"), std::string::npos) << warnings;
    EXPECT_TRUE(for_devices(*all, {"NVIDIA H200"}).empty());
}
