// The client against servers that misbehave (tests/support/fake_resp_server.hpp): a huge bulk length,
// a reply trickled a byte at a time, a SCAN cursor that never ends, an HTTP server. Each must end
// quickly in a clear error, never a crash, a hang or an allocation of the announced size.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "fake_resp_server.hpp"
#include "remote/redis_client.hpp"
#include "remote/remote_browser.hpp"
#include "remote/shared_timings.hpp"

using namespace kiln::remote;
using kiln::test::FakeRespServer;
using namespace std::chrono_literals;

namespace {

kiln::Result<RedisClient> connect_to(const FakeRespServer& s, std::chrono::milliseconds command = 1000ms) {
    auto ep = parse_redis_url(s.url());
    EXPECT_TRUE(ep);
    RedisLimits limits;
    limits.command = command;
    return RedisClient::connect(*ep, limits);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

// `$9223372036854775000` used to reach `new char[n]` on the fetcher thread: std::bad_alloc, SIGABRT.
TEST(RedisHostileServer, HugeBulkLengthIsALimitErrorOnBothReadPaths) {
    FakeRespServer server([](const std::vector<std::string>& argv, int fd) {
        if (FakeRespServer::answer_ping(argv, fd)) return true;
        FakeRespServer::send_text(fd, "$9223372036854775000\r\nabc");
        return true;
    });
    auto c = connect_to(server);
    ASSERT_TRUE(c) << c.error().str();
    ValueBlock block;
    auto st = c->get_many({"pt2:key"}, block);  // straight from the socket
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code, kiln::Errc::limit) << st.error().str();
    EXPECT_NE(st.error().str().find("9223372036854775000"), std::string::npos);

    auto c2 = connect_to(server);
    ASSERT_TRUE(c2);
    auto one = c2->get("pt2:key");  // through hiredis's reader
    ASSERT_FALSE(one.ok());
    EXPECT_TRUE(one.error().code == kiln::Errc::limit || one.error().code == kiln::Errc::timeout) << one.error().str();
}

// A bulk length past what fits in 64 bits is malformed, not a huge allocation.
TEST(RedisHostileServer, BulkLengthBeyond64BitsIsAProtocolError) {
    FakeRespServer server([](const std::vector<std::string>& argv, int fd) {
        if (FakeRespServer::answer_ping(argv, fd)) return true;
        FakeRespServer::send_text(fd, "$99999999999999999999999\r\n");
        return true;
    });
    auto c = connect_to(server);
    ASSERT_TRUE(c);
    ValueBlock block;
    auto st = c->get_many({"k"}, block);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code, kiln::Errc::parse) << st.error().str();
}

// A byte every 150 ms never trips a per-read timeout; the whole reply has 600 ms.
TEST(RedisHostileServer, TrickledReplyTimesOutAsAWhole) {
    FakeRespServer server([](const std::vector<std::string>& argv, int fd) {
        if (FakeRespServer::answer_ping(argv, fd)) return true;
        std::string reply = "$20\r\n01234567890123456789\r\n";
        for (char ch : reply) {
            if (!FakeRespServer::send_text(fd, std::string(1, ch))) break;  // the client gave up
            std::this_thread::sleep_for(150ms);
        }
        return false;
    });
    for (bool block_path : {true, false}) {
        auto c = connect_to(server, 600ms);
        ASSERT_TRUE(c) << c.error().str();
        auto t0 = std::chrono::steady_clock::now();
        kiln::Status st = kiln::ok_status();
        if (block_path) {
            ValueBlock block;
            st = c->get_many({"k"}, block);
        } else {
            auto r = c->get("k");
            if (!r) st = std::move(r.error());
        }
        ASSERT_FALSE(st.ok()) << (block_path ? "block path" : "hiredis path");
        EXPECT_EQ(st.error().code, kiln::Errc::timeout) << st.error().str();
        EXPECT_LT(seconds_since(t0), 2.0) << st.error().str();
    }
}

// SCAN that hands out a new cursor forever, and one that repeats a cursor: both end with an error.
TEST(RedisHostileServer, EndlessScanEnds) {
    int next = 1;
    FakeRespServer endless([&next](const std::vector<std::string>& argv, int fd) {
        if (FakeRespServer::answer_ping(argv, fd)) return true;
        if (argv[0] == "DBSIZE") FakeRespServer::send_text(fd, ":10\r\n");
        else {
            std::string cur = std::to_string(next++);
            FakeRespServer::send_text(fd, "*2\r\n$" + std::to_string(cur.size()) + "\r\n" + cur + "\r\n*0\r\n");
        }
        return true;
    });
    auto c = connect_to(endless);
    ASSERT_TRUE(c);
    auto t0 = std::chrono::steady_clock::now();
    int pages = 0;
    auto st = c->scan_all("pt2:*", 1000, [&](ScanPage&) -> kiln::Result<bool> {
        ++pages;
        return true;
    });
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code, kiln::Errc::limit) << st.error().str();
    EXPECT_LT(pages, 5000);
    EXPECT_LT(seconds_since(t0), 10.0);

    FakeRespServer repeating([](const std::vector<std::string>& argv, int fd) {
        if (FakeRespServer::answer_ping(argv, fd)) return true;
        if (argv[0] == "DBSIZE") FakeRespServer::send_text(fd, ":100000000\r\n");
        else FakeRespServer::send_text(fd, "*2\r\n$2\r\n17\r\n*1\r\n$6\r\npt2:ab\r\n");
        return true;
    });
    auto r = connect_to(repeating);
    ASSERT_TRUE(r);
    auto browse = browse_remote(*r, BrowseOptions{}, [](std::vector<RemoteEntry>&) { return kiln::ok_status(); });
    ASSERT_FALSE(browse.ok());
    EXPECT_NE(browse.error().str().find("a second time"), std::string::npos) << browse.error().str();
}

// Pointing Kiln at an HTTP port gives a hint, not just "Protocol error, got "H"".
TEST(RedisHostileServer, NonRedisServerGetsAHint) {
    FakeRespServer http([](const std::vector<std::string>&, int fd) {
        FakeRespServer::send_text(fd, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
        return false;
    });
    auto c = connect_to(http);
    ASSERT_FALSE(c);
    EXPECT_NE(c.error().hint.find("Redis server"), std::string::npos) << c.error().str();
}

namespace {

std::string bulk(const std::string& s) { return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n"; }

// A SCAN reply: the cursor, then `keys` (raw RESP elements).
std::string scan_reply(const std::string& cursor, std::size_t n, const std::string& element) {
    std::string r = "*2\r\n" + bulk(cursor) + "*" + std::to_string(n) + "\r\n";
    r.reserve(r.size() + n * element.size());
    for (std::size_t i = 0; i < n; ++i) r += element;
    return r;
}

}  // namespace

// DBSIZE 10^15 and a new cursor each reply made the round cap useless: the SCAN ran forever. The
// time spent in SCAN is bounded (scan_total; shortened here) and the cap on rounds is fixed.
TEST(RedisHostileServer, EndlessScanUnderAHugeDbsizeEndsAtTheDeadline) {
    std::atomic<long long> next{1};
    FakeRespServer endless([&next](const std::vector<std::string>& argv, int fd) {
        if (FakeRespServer::answer_ping(argv, fd)) return true;
        if (argv[0] == "DBSIZE") return FakeRespServer::send_text(fd, ":1000000000000000\r\n");
        return FakeRespServer::send_text(fd, scan_reply(std::to_string(next++), 0, ""));
    });
    auto ep = parse_redis_url(endless.url());
    RedisLimits limits;
    limits.scan_total = 1000ms;
    auto c = RedisClient::connect(*ep, limits);
    ASSERT_TRUE(c) << c.error().str();
    long long pages = 0;
    auto st = c->scan_all("pt2:*", 1000, [&](ScanPage&) -> kiln::Result<bool> {
        if (++pages > 3'000'000) return kiln::make_error(kiln::Errc::generic, "the test's own bound: no deadline");
        return true;
    });
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code, kiln::Errc::limit) << st.error().str();
    EXPECT_NE(st.error().message.find("s in SCAN"), std::string::npos) << st.error().str();
    EXPECT_EQ(RedisLimits{}.max_scan_rounds, 1 << 20);  // whatever DBSIZE says

    // `autotune --share` reads the shared timings with the same SCAN: it ends the same way.
    next = 1;
    auto share = collect_shared_timings(endless.url(), limits);
    ASSERT_FALSE(share.ok());
    EXPECT_EQ(share.error().code, kiln::Errc::limit) << share.error().str();
}

// 4 KB cursors, each new, grew Kiln to 2.27 GB in 60 s (every cursor was kept to spot repeats). A cursor
// that is no 64-bit number is refused at once, and repeats are found keeping one cursor (Brent).
TEST(RedisHostileServer, CursorsThatAreNoNumbersAreRefusedAndNoneAreKept) {
    std::atomic<int> served{0};
    FakeRespServer huge([&served](const std::vector<std::string>& argv, int fd) {
        if (FakeRespServer::answer_ping(argv, fd)) return true;
        if (argv[0] == "DBSIZE") return FakeRespServer::send_text(fd, ":10\r\n");
        ++served;
        return FakeRespServer::send_text(fd, scan_reply(std::string(4096, '7') + std::to_string(served), 0, ""));
    });
    auto c = connect_to(huge);
    ASSERT_TRUE(c);
    auto st = c->scan_all("pt2:*", 1000, [](ScanPage&) -> kiln::Result<bool> { return true; });
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code, kiln::Errc::parse) << st.error().str();
    EXPECT_NE(st.error().message.find("not a 64-bit number"), std::string::npos) << st.error().str();
    EXPECT_EQ(served.load(), 1);

    // A loop of 5 cursors after a lead-in of 3: found, holding one cursor at a time.
    std::atomic<int> step{0};
    FakeRespServer looping([&step](const std::vector<std::string>& argv, int fd) {
        if (FakeRespServer::answer_ping(argv, fd)) return true;
        if (argv[0] == "DBSIZE") return FakeRespServer::send_text(fd, ":100000000\r\n");
        int s = step++;
        int cursor = s < 3 ? 100 + s : 200 + (s - 3) % 5;
        return FakeRespServer::send_text(fd, scan_reply(std::to_string(cursor), 0, ""));
    });
    auto l = connect_to(looping);
    ASSERT_TRUE(l);
    auto loop = l->scan_all("pt2:*", 1000, [](ScanPage&) -> kiln::Result<bool> { return true; });
    ASSERT_FALSE(loop.ok());
    EXPECT_NE(loop.error().message.find("a second time"), std::string::npos) << loop.error().str();
    EXPECT_LT(step.load(), 40);
}

// 100 MB of nil replies became 3.2 GB (hiredis builds an object per element), and a `*2000000000`
// header would be allocated as 16 GB of pointers at once. Replies are bounded by elements and bytes.
TEST(RedisHostileServer, ScanRepliesOfMillionsOfElementsAreALimitError) {
    for (const std::string& reply : {"*2\r\n" + bulk("0") + "*2000000000\r\n", scan_reply("0", 2'000'000, "$-1\r\n")}) {
        FakeRespServer flood([&reply](const std::vector<std::string>& argv, int fd) {
            if (FakeRespServer::answer_ping(argv, fd)) return true;
            if (argv[0] == "DBSIZE") return FakeRespServer::send_text(fd, ":10\r\n");
            FakeRespServer::send_text(fd, reply);
            return false;
        });
        auto c = connect_to(flood, 5000ms);
        ASSERT_TRUE(c);
        auto st = c->scan_all("pt2:*", 1000, [](ScanPage&) -> kiln::Result<bool> { return true; });
        ASSERT_FALSE(st.ok());
        EXPECT_EQ(st.error().code, kiln::Errc::limit) << st.error().str();
        EXPECT_NE(st.error().message.find("elements"), std::string::npos) << st.error().str();
    }
}

// A batch of 32 values of 200 MB each reached 6.4 GB: the cap was per value only. A batch's block holds
// at most max_batch_bytes (or one value, when a single one is larger); the rest come in later batches.
TEST(RedisHostileServer, ABatchOfValuesHoldsBoundedBytes) {
    const std::string value(3u << 20, 'v');  // 3 MB each
    FakeRespServer big([&value](const std::vector<std::string>& argv, int fd) {
        if (FakeRespServer::answer_ping(argv, fd)) return true;
        if (argv[0] == "DBSIZE") return FakeRespServer::send_text(fd, ":20\r\n");
        if (argv[0] == "SCAN") {
            std::string keys;
            for (int i = 0; i < 20; ++i) keys += bulk("pt2:fx-graph-v1::fkey" + std::to_string(i) + ":c1");
            return FakeRespServer::send_text(fd, "*2\r\n" + bulk("0") + "*20\r\n" + keys);
        }
        return FakeRespServer::send_text(fd, bulk(value));
    });
    auto ep = parse_redis_url(big.url());
    RedisLimits limits;
    limits.max_batch_bytes = 10u << 20;  // three values fit, a fourth does not
    auto c = RedisClient::connect(*ep, limits);
    ASSERT_TRUE(c) << c.error().str();
    std::vector<std::string> keys;
    for (int i = 0; i < 20; ++i) keys.push_back("pt2:fx-graph-v1::fkey" + std::to_string(i) + ":c1");
    ValueBlock block;
    ASSERT_TRUE(c->get_many(keys, block).ok());
    EXPECT_EQ(block.size(), 3u);
    EXPECT_LE(block.used(), limits.max_batch_bytes);
    ASSERT_TRUE(c->get_many({keys.begin() + 3, keys.end()}, block).ok());  // the connection is still in step
    EXPECT_EQ(block.size(), 3u);

    // A browse gets every value, in blocks of at most three.
    auto b = RedisClient::connect(*ep, limits);
    ASSERT_TRUE(b);
    std::size_t largest_batch = 0;
    auto totals = browse_remote(*b, BrowseOptions{}, [&](std::vector<RemoteEntry>& batch) {
        largest_batch = std::max(largest_batch, batch.size());
        return kiln::ok_status();
    });
    ASSERT_TRUE(totals.ok()) << totals.error().str();
    EXPECT_EQ(totals->keys, 20u);
    EXPECT_EQ(totals->value_bytes, 20u * value.size());
    EXPECT_LE(largest_batch, 3u);
}
