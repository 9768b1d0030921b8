// Sharing timings through a real redis-server: publish merges (never overwrites a different value),
// concurrent-safe keys per system, and the pulled global cache that tune() reads.
#include "remote/shared_timings.hpp"
#include "remote/timing_share.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>

#include "redis_server.hpp"
#include "util/python_json.hpp"

using namespace kiln::remote;
using kiln::tuning::ChoiceTimings;
using kiln::tuning::TimingKey;

namespace {

nlohmann::ordered_json h100_system() {
    return kiln::inductor::make_system(
               nlohmann::ordered_json::parse(
                   R"({"device": {"name": "NVIDIA H100 80GB HBM3"}, "version": {"cuda": "13.0", "triton": null}})"))
        .system;
}

const TimingKey kMm{"mm",
                    "[('cuda', 'torch.float16', 512, 512, 512, 1, 0), ('cuda', 'torch.float16', 512, 512, 512, 1, 0)]",
                    "highest"};

}  // namespace

TEST(SharedTimings, PublishMergesAndKeepsDisagreements) {
    kiln::test::RedisServer server;
    auto c = RedisClient::connect(*parse_redis_url(server.url()));
    ASSERT_TRUE(c) << c.error().str();
    const double inf = std::numeric_limits<double>::infinity();
    auto first =
        publish_timings(*c, h100_system(), kMm, {{"mm-ca", 0.0123}, {"mm-cb", 0.02}, {"mm-cfail", inf}}, "node-a");
    ASSERT_TRUE(first) << first.error().str();
    EXPECT_EQ(first->added, 3);

    auto second =
        publish_timings(*c, h100_system(), kMm, {{"mm-ca", 0.0123}, {"mm-cb", 0.025}, {"mm-cc", 0.03}}, "node-b");
    ASSERT_TRUE(second) << second.error().str();
    EXPECT_EQ(second->added, 1);        // mm-cc
    EXPECT_EQ(second->same, 1);         // mm-ca
    EXPECT_EQ(second->conflicting, 1);  // mm-cb: both kept

    auto again = publish_timings(*c, h100_system(), kMm, {{"mm-cb", 0.025}}, "node-b");
    ASSERT_TRUE(again);
    EXPECT_EQ(again->same, 1);
    EXPECT_EQ(again->added + again->conflicting, 0);

    std::vector<std::string> warnings;
    auto all = read_shared_timings(*c, &warnings);
    ASSERT_TRUE(all) << all.error().str();
    ASSERT_EQ(all->size(), 1u);
    const auto& s = (*all)[0];
    EXPECT_TRUE(s.redis_key.starts_with("kiln:timings:v1:" + h100_system()["hash"].get<std::string>() + ":mm:"));
    EXPECT_EQ(s.key.inputs_key, kMm.inputs_key);
    ASSERT_EQ(s.choices.at("mm-cb").size(), 2u);
    EXPECT_EQ(s.choices.at("mm-cb")[0].ms, 0.02);  // the first published stays the shared value
    EXPECT_EQ(s.choices.at("mm-cb")[0].host, "node-a");
    EXPECT_EQ(s.choices.at("mm-cb")[1].ms, 0.025);
    EXPECT_EQ(s.choices.at("mm-cb")[1].host, "node-b");
    EXPECT_EQ(s.choices.at("mm-cb")[1].device, "NVIDIA H100 80GB HBM3");
    EXPECT_TRUE(std::isinf(s.choices.at("mm-cfail")[0].ms));
    EXPECT_TRUE(warnings.empty());

    // Another system (a CPU) gets its own key; a foreign value under the prefix is a warning.
    ASSERT_TRUE(publish_timings(*c, kiln::inductor::cpu_system().system, kMm, {{"mm-ca", 1.5}}, "node-a"));
    ASSERT_TRUE(c->set("kiln:timings:v1:junk", "not json"));
    warnings.clear();
    auto both = read_shared_timings(*c, &warnings);
    ASSERT_TRUE(both);
    EXPECT_EQ(both->size(), 2u);
    EXPECT_EQ(warnings.size(), 1u);

    // `kiln-cli timings --redis`: one op per publishing host.
    auto set = shared_to_timing_set(*all, "redis://test");
    ASSERT_EQ(set.ops.size(), 2u);
    EXPECT_EQ(set.ops[0].device, "NVIDIA H100 80GB HBM3 @ node-a");
    EXPECT_EQ(set.ops[1].device, "NVIDIA H100 80GB HBM3 @ node-b");
    EXPECT_EQ(set.ops[0].op, "mm");
    EXPECT_EQ(set.sources.size(), 1u);
}

TEST(SharedTimings, PullWritesAGlobalTimingCacheThatTheTimingCacheReads) {
    kiln::test::RedisServer server;
    auto c = RedisClient::connect(*parse_redis_url(server.url()));
    ASSERT_TRUE(c);
    ASSERT_TRUE(publish_timings(*c, h100_system(), kMm, {{"mm-ca", 0.0123}, {"mm-cb", 0.02}}, "node-a"));
    ASSERT_TRUE(publish_timings(*c, h100_system(), kMm, {{"mm-cb", 0.5}}, "node-b"));

    kiln::test::ScratchDir user_global("user-global");
    // The user's own global file for the same system: its value for mm-ca wins, mm-cb comes from Redis.
    auto sys = kiln::inductor::make_system(h100_system());
    nlohmann::ordered_json mine{{"system", sys.system},
                                {"cache", {{"mm", {{kMm.inputs_key, {{"highest", {{"mm-ca", 0.011}}}}}}}}}};
    {
        std::ofstream out(user_global.path() / sys.hash);
        out << kiln::py_dumps(mine);
    }
    std::filesystem::path dir;
    {
        auto share = TimingShare::open(server.url(), user_global.path());
        ASSERT_TRUE(share) << share.error().str();
        EXPECT_EQ(share->pulled(), 1u);
        dir = share->global_dir();
        kiln::test::ScratchDir root("share-root");
        kiln::tuning::TimingCache cache(root.path(), sys, dir);
        auto got = cache.lookup(kMm);
        ASSERT_TRUE(got) << got.error().str();
        EXPECT_EQ(got->at("mm-ca"), 0.011);
        EXPECT_EQ(got->at("mm-cb"), 0.02);  // the shared (first) value, not node-b's
    }
    EXPECT_FALSE(std::filesystem::exists(dir));  // removed with the TimingShare
}

TEST(SharedTimings, UnreachableServerFailsToOpen) {
    RedisEndpoint ep;
    ep.host = "127.0.0.1";
    ep.port = kiln::test::free_loopback_port();
    auto share = TimingShare::open(ep.url(), std::nullopt);
    ASSERT_FALSE(share);
    EXPECT_NE(share.error().message.find("cannot connect"), std::string::npos);
}

// issue 42: a value's system hash names the file of the pulled global cache, so it is data, never a
// path: a value whose "hash" is "../../outside/pwn" is refused with a warning (the others still
// load), and the writer never joins such a name to its folder.
TEST(SharedTimings, AHashThatIsAPathIsRefusedAndNothingIsWrittenOutside) {
    kiln::test::RedisServer server;
    auto c = RedisClient::connect(*parse_redis_url(server.url()));
    ASSERT_TRUE(c);
    ASSERT_TRUE(publish_timings(*c, h100_system(), kMm, {{"mm-ca", 0.0123}}, "node-a"));
    auto hostile = h100_system();
    hostile["hash"] = "../../outside/pwn";
    nlohmann::ordered_json value{{"system", hostile},
                                 {"op", "mm"},
                                 {"inputs_key", kMm.inputs_key},
                                 {"precision", "highest"},
                                 {"timings", {{"mm-cb", {{{"ms", 0.5}, {"host", "evil"}}}}}}};
    ASSERT_TRUE(c->set(std::string(kSharedTimingsPrefix) + "../../outside/pwn:mm:0", kiln::py_dumps(value)));
    std::vector<std::string> warnings;
    auto all = read_shared_timings(*c, &warnings);
    ASSERT_TRUE(all) << all.error().str();
    ASSERT_EQ(all->size(), 1u);  // the good one
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("not a file name"), std::string::npos) << warnings[0];

    kiln::test::ScratchDir d("share-hostile-hash");
    const auto dir = d.path() / "a" / "b" / "global";
    SharedTimings s = all->front();
    s.system_hash = "../../outside/pwn";
    ASSERT_TRUE(write_as_global_cache({all->front(), s}, dir));
    std::size_t files = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(d.path())) {
        EXPECT_EQ(e.path().filename().string().find("pwn"), std::string::npos) << e.path();
        files += e.is_regular_file();
    }
    EXPECT_EQ(files, 1u);  // the good system's file only
}
