// The client against a real redis-server (tests/support/redis_server.hpp): no mocks.
#include "remote/redis_client.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "redis_server.hpp"

using namespace kiln::remote;
using kiln::test::RedisServer;

namespace {
RedisEndpoint endpoint_of(const RedisServer& s, int db = 0) {
    auto ep = parse_redis_url(s.url(db));
    EXPECT_TRUE(ep) << ep.error().str();
    return *ep;
}
// A client whose commands give up after 200 ms.
kiln::Result<RedisClient> connect_impatient(const RedisServer& s) {
    RedisLimits t;
    t.command = std::chrono::milliseconds(200);
    return RedisClient::connect(endpoint_of(s), t);
}
}  // namespace

TEST(RedisClient, SetGetAndPipelinedBatches) {
    RedisServer server;
    auto c = RedisClient::connect(endpoint_of(server));
    ASSERT_TRUE(c) << c.error().str();
    std::string binary("\x00\x80\xff\r\n$3", 7);
    ASSERT_TRUE(c->set("bin", binary));
    auto got = c->get("bin");
    ASSERT_TRUE(got);
    ASSERT_TRUE(got->has_value());
    EXPECT_EQ(**got, binary);
    auto missing = c->get("nope");
    ASSERT_TRUE(missing);
    EXPECT_FALSE(missing->has_value());

    std::vector<std::pair<std::string, std::string>> items;
    for (int i = 0; i < 500; ++i) items.emplace_back("k" + std::to_string(i), std::string(i, 'x'));
    ASSERT_TRUE(c->set_many(items));
    std::vector<std::string> keys{"k0", "nope", "k499", "k7"};
    auto values = c->get_many(keys);
    ASSERT_TRUE(values) << values.error().str();
    ASSERT_EQ(values->size(), 4u);
    EXPECT_EQ((*values)[0], std::string());
    EXPECT_FALSE((*values)[1].has_value());
    EXPECT_EQ((*values)[2], std::string(499, 'x'));
    EXPECT_EQ((*values)[3], std::string(7, 'x'));

    // A key holding a list is not a string value: reported as absent, the batch still answers.
    ASSERT_TRUE(c->command({"RPUSH", "alist", "a"}));
    auto mixed = c->get_many({"alist", "k1"});
    ASSERT_TRUE(mixed);
    EXPECT_FALSE((*mixed)[0].has_value());
    EXPECT_EQ((*mixed)[1], "x");
}

TEST(RedisClient, ScanWithMatchVisitsEveryKeyOnce) {
    RedisServer server;
    auto c = RedisClient::connect(endpoint_of(server));
    ASSERT_TRUE(c) << c.error().str();
    std::vector<std::pair<std::string, std::string>> items;
    for (int i = 0; i < 1200; ++i) items.emplace_back("pt2:fx-graph-v1::f" + std::to_string(i) + ":c1", "{}");
    for (int i = 0; i < 300; ++i) items.emplace_back("other:" + std::to_string(i), "x");
    ASSERT_TRUE(c->set_many(items));
    std::set<std::string> seen;
    std::string cursor = "0";
    int steps = 0;
    do {
        auto page = c->scan(cursor, "pt2:*", 100);
        ASSERT_TRUE(page) << page.error().str();
        for (auto& k : page->keys) {
            EXPECT_TRUE(k.starts_with("pt2:")) << k;
            seen.insert(k);
        }
        cursor = page->cursor;
        ++steps;
    } while (cursor != "0");
    EXPECT_EQ(seen.size(), 1200u);
    EXPECT_GT(steps, 1);  // COUNT is honoured: the iteration really pages
}

TEST(RedisClient, SelectsTheDatabaseOfTheUrl) {
    RedisServer server;
    auto db3 = RedisClient::connect(endpoint_of(server, 3));
    ASSERT_TRUE(db3) << db3.error().str();
    ASSERT_TRUE(db3->set("where", "three"));
    auto db0 = RedisClient::connect(endpoint_of(server, 0));
    ASSERT_TRUE(db0);
    EXPECT_FALSE(db0->get("where")->has_value());
    auto again = RedisClient::connect(endpoint_of(server, 3));
    EXPECT_EQ(*again->get("where"), "three");
    auto bad_db = RedisClient::connect(endpoint_of(server, 99));  // the server has 16
    ASSERT_FALSE(bad_db);
    EXPECT_NE(bad_db.error().hint.find("db"), std::string::npos) << bad_db.error().str();
}

TEST(RedisClient, PasswordAuth) {
    RedisServer server({.password = "s3cret-pw"});
    auto good = RedisClient::connect(endpoint_of(server));
    ASSERT_TRUE(good) << good.error().str();
    ASSERT_TRUE(good->set("a", "1"));

    RedisEndpoint wrong = endpoint_of(server);
    wrong.password = "not-it";
    auto denied = RedisClient::connect(wrong);
    ASSERT_FALSE(denied);
    EXPECT_EQ(denied.error().code, kiln::Errc::invalid_argument);
    EXPECT_NE(denied.error().message.find("WRONGPASS"), std::string::npos) << denied.error().str();
    EXPECT_NE(denied.error().hint.find("password"), std::string::npos);
    EXPECT_EQ(denied.error().str().find("not-it"), std::string::npos);  // never echo secrets

    RedisEndpoint none = endpoint_of(server);
    none.password.clear();
    auto noauth = RedisClient::connect(none);
    ASSERT_FALSE(noauth);
    EXPECT_NE(noauth.error().message.find("NOAUTH"), std::string::npos) << noauth.error().str();
    EXPECT_NE(noauth.error().hint.find("PASSWORD@"), std::string::npos);
}

TEST(RedisClient, UnreachableServerIsAClearError) {
    RedisEndpoint ep;
    ep.host = "127.0.0.1";
    ep.port = kiln::test::free_loopback_port();  // nobody listens there
    auto c = RedisClient::connect(ep);
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().code, kiln::Errc::io);
    EXPECT_NE(c.error().message.find("cannot connect"), std::string::npos) << c.error().str();
    EXPECT_NE(c.error().context.find(std::to_string(ep.port)), std::string::npos);
    EXPECT_NE(c.error().hint.find("redis-server"), std::string::npos);
}

TEST(RedisClient, CommandTimeout) {
    RedisServer server;
    auto c = connect_impatient(server);
    ASSERT_TRUE(c) << c.error().str();
    auto start = std::chrono::steady_clock::now();
    auto blocked = c->command({"BLPOP", "never-pushed", "5"});  // the server holds the reply for 5 s
    auto took = std::chrono::steady_clock::now() - start;
    ASSERT_FALSE(blocked);
    EXPECT_EQ(blocked.error().code, kiln::Errc::timeout) << blocked.error().str();
    EXPECT_LT(took, std::chrono::seconds(3));
}

TEST(RedisClient, BlockReadsOfLargeAbsentAndForeignValues) {
    RedisServer server;
    auto c = RedisClient::connect(endpoint_of(server));
    ASSERT_TRUE(c) << c.error().str();
    // Values around the reader's 64 KB buffer, an empty one, a list (WRONGTYPE) and a missing key.
    std::vector<std::pair<std::string, std::string>> items;
    for (std::size_t n :
         {std::size_t{0}, std::size_t{1}, std::size_t{65535}, std::size_t{65536}, std::size_t{300000}}) {
        std::string v(n, '\0');
        for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<char>('a' + (i * 7 + n) % 26);
        if (n > 2) v[n / 2] = '\r', v[n / 2 + 1] = '\n';  // CRLF inside a value is data
        items.emplace_back("v" + std::to_string(n), v);
    }
    ASSERT_TRUE(c->set_many(items));
    ASSERT_TRUE(c->command({"RPUSH", "alist", "x"}));
    std::vector<std::string> keys;
    for (int round = 0; round < 3; ++round)  // more keys than the window, in several rounds
        for (const auto& [k, v] : items) keys.push_back(k);
    keys.push_back("alist");
    keys.push_back("missing");
    ValueBlock block;
    for (int again = 0; again < 2; ++again) {  // the block is reused with its capacity
        ASSERT_TRUE(c->get_many(keys, block));
        ASSERT_EQ(block.size(), keys.size());
        for (std::size_t i = 0; i + 2 < keys.size(); ++i) {
            ASSERT_TRUE(block.value(i)) << keys[i];
            EXPECT_EQ(*block.value(i), items[i % items.size()].second) << keys[i];
        }
        EXPECT_FALSE(block.value(keys.size() - 2));  // WRONGTYPE: foreign data, absent
        EXPECT_FALSE(block.value(keys.size() - 1));
    }
    // The connection is still in step: an ordinary command works after the block reads.
    auto pong = c->command({"PING"});
    ASSERT_TRUE(pong) << pong.error().str();
}

TEST(RedisClient, ABlockReadThatTimesOutSaysSoAndDropsTheConnection) {
    RedisServer server;
    auto c = connect_impatient(server);
    ASSERT_TRUE(c) << c.error().str();
    ASSERT_TRUE(c->set("k", "v"));
    auto other = RedisClient::connect(endpoint_of(server));
    ASSERT_TRUE(other);
    ASSERT_TRUE(other->command({"CLIENT", "PAUSE", "1500", "ALL"}));  // the server answers nobody for 1.5 s
    ValueBlock block;
    auto start = std::chrono::steady_clock::now();
    auto st = c->get_many({"k"}, block);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().code, kiln::Errc::timeout) << st.error().str();
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1400));
    // A late reply must never be taken for the next request's: the connection is gone.
    auto after = c->get_many({"k"}, block);
    ASSERT_FALSE(after);
    EXPECT_NE(after.error().str().find("not connected"), std::string::npos) << after.error().str();
}
