#pragma once
// A misbehaving "Redis" for the client's failure tests: a loopback TCP server on a thread that reads
// RESP commands and answers each with whatever the test's handler writes (broken replies, trickles,
// endless SCAN cursors, an HTTP banner). Real Redis is tests/support/redis_server.hpp; this one only
// exists to say what a real server never would.
#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace kiln::test {

class FakeRespServer {
public:
    // handler(argv, fd): called for each command read on a connection; writes its answer to fd
    // (send_text helps); returns false to close the connection.
    using Handler = std::function<bool(const std::vector<std::string>& argv, int fd)>;

    explicit FakeRespServer(Handler handler);
    ~FakeRespServer();
    FakeRespServer(const FakeRespServer&) = delete;
    FakeRespServer& operator=(const FakeRespServer&) = delete;

    int port() const { return port_; }
    std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_); }

    // Writes all of `text`; false when the peer went away.
    static bool send_text(int fd, const std::string& text);
    // The usual answer to the client's connection check.
    static bool answer_ping(const std::vector<std::string>& argv, int fd);

private:
    void serve();
    void serve_connection(int fd);

    Handler handler_;
    int listen_fd_ = -1;
    int port_ = 0;
    std::atomic<bool> stop_{false};
    std::thread thread_;
    std::vector<std::thread> connections_;
};

}  // namespace kiln::test
