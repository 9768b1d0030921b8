// The client against servers that misbehave (tests/support/fake_resp_server.hpp): a huge bulk length,
// a reply trickled a byte at a time, a SCAN cursor that never ends, an HTTP server. Each must end
// quickly in a clear error, never a crash, a hang or an allocation of the announced size.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "fake_resp_server.hpp"
#include "remote/redis_client.hpp"
#include "remote/remote_browser.hpp"

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
