#include "fake_resp_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

namespace kiln::test {
namespace {

// Reads one RESP array of bulk strings (what clients send). False at EOF or on garbage.
class CommandReader {
public:
    explicit CommandReader(int fd) : fd_(fd) {}
    bool next(std::vector<std::string>& argv) {
        argv.clear();
        std::string head;
        if (!line(head) || head.empty() || head[0] != '*') return false;
        long n = std::stol(head.substr(1));
        for (long i = 0; i < n; ++i) {
            if (!line(head) || head.empty() || head[0] != '$') return false;
            std::size_t len = std::stoul(head.substr(1));
            while (buf_.size() < len + 2)
                if (!fill()) return false;
            argv.push_back(buf_.substr(0, len));
            buf_.erase(0, len + 2);
        }
        return true;
    }

private:
    bool fill() {
        char tmp[4096];
        ssize_t n = ::read(fd_, tmp, sizeof tmp);
        if (n <= 0) return false;
        buf_.append(tmp, static_cast<std::size_t>(n));
        return true;
    }
    bool line(std::string& out) {
        for (;;) {
            auto nl = buf_.find("\r\n");
            if (nl != std::string::npos) {
                out = buf_.substr(0, nl);
                buf_.erase(0, nl + 2);
                return true;
            }
            if (!fill()) return false;
        }
    }
    int fd_;
    std::string buf_;
};

}  // namespace

FakeRespServer::FakeRespServer(Handler handler) : handler_(std::move(handler)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listen_fd_, 8) != 0 || ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
        throw std::runtime_error("FakeRespServer: cannot listen on loopback");
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
}

FakeRespServer::~FakeRespServer() {
    stop_ = true;
    ::shutdown(listen_fd_, SHUT_RDWR);
    thread_.join();
    for (auto& t : connections_) t.join();
    ::close(listen_fd_);
}

void FakeRespServer::serve() {
    while (!stop_) {
        pollfd p{listen_fd_, POLLIN, 0};
        if (::poll(&p, 1, 50) <= 0) continue;
        int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) continue;
        connections_.emplace_back([this, fd] { serve_connection(fd); });
    }
}

void FakeRespServer::serve_connection(int fd) {
    CommandReader reader(fd);
    std::vector<std::string> argv;
    while (!stop_ && reader.next(argv))
        if (!handler_(argv, fd)) break;
    ::close(fd);
}

bool FakeRespServer::send_text(int fd, const std::string& text) {
    for (std::size_t off = 0; off < text.size();) {
        ssize_t n = ::send(fd, text.data() + off, text.size() - off, MSG_NOSIGNAL);
        if (n <= 0) return false;
        off += static_cast<std::size_t>(n);
    }
    return true;
}

bool FakeRespServer::answer_ping(const std::vector<std::string>& argv, int fd) {
    if (argv.empty() || argv[0] != "PING") return false;
    send_text(fd, "+PONG\r\n");
    return true;
}

}  // namespace kiln::test
