#include "redis_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace kiln::test {
namespace {

sockaddr_in loopback(int port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

// True once the server answers anything to PING (+PONG, or -NOAUTH when it has a password).
bool answers_ping(int port) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return false;
    sockaddr_in a = loopback(port);
    bool ok = false;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::write(fd, "PING\r\n", 6) == 6) {
        pollfd p{fd, POLLIN, 0};
        char buf[64];
        ok = ::poll(&p, 1, 1000) == 1 && ::read(fd, buf, sizeof buf) > 0 && (buf[0] == '+' || buf[0] == '-');
    }
    ::close(fd);
    return ok;
}

}  // namespace

int free_loopback_port() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) throw std::runtime_error("socket() failed");
    sockaddr_in a = loopback(0);
    socklen_t len = sizeof a;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
        ::close(fd);
        throw std::runtime_error("cannot bind a loopback port");
    }
    ::close(fd);
    return ntohs(a.sin_port);
}

RedisServer::RedisServer(RedisServerOptions options) : options_(std::move(options)) {
    scratch_ = std::make_unique<ScratchDir>("redis");
    dir_ = scratch_->path();
    // The port is free when probed but another process may take it before redis binds: retry.
    for (int attempt = 0; attempt < 5; ++attempt) {
        if (try_start(free_loopback_port())) return;
    }
    std::string log;
    try {
        log = read_file(dir_ / "redis.log");
    } catch (...) {}
    throw std::runtime_error(
        "redis-server did not start (is the redis-server package installed? "
        "./scripts/kiln setup installs it). Its log:\n" +
        log);
}

bool RedisServer::try_start(int port) {
    auto conf = dir_ / "redis.conf";
    {
        std::ofstream out(conf);
        out << "bind 127.0.0.1\nport " << port << "\nprotected-mode yes\nsave \"\"\nappendonly no\n"
            << "daemonize no\ndir " << dir_.string() << "\nlogfile " << (dir_ / "redis.log").string() << "\n"
            << "databases 16\n";
        if (!options_.password.empty()) out << "requirepass " << options_.password << "\n";
    }
    pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // never outlive a crashed test
        int devnull = ::open("/dev/null", O_RDWR);
        ::dup2(devnull, 0);
        ::dup2(devnull, 1);
        ::dup2(devnull, 2);
        ::execlp("redis-server", "redis-server", conf.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid) return false;  // exited: port taken, or not installed
        if (answers_ping(port)) {
            pid_ = pid;
            port_ = port;
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return false;
}

void RedisServer::stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, &status, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    pid_ = -1;
}

RedisServer::~RedisServer() { stop(); }

std::string RedisServer::url(int db) const {
    std::string auth = options_.password.empty() ? "" : ":" + options_.password + "@";
    return "redis://" + auth + host() + ":" + std::to_string(port_) + "/" + std::to_string(db);
}

CommandResult RedisServer::cli(const std::vector<std::string>& args, const std::string& stdin_data) const {
    std::vector<std::string> argv{"env"};
    if (!options_.password.empty()) argv.push_back("REDISCLI_AUTH=" + options_.password);
    for (const char* a : {"redis-cli", "-h", "127.0.0.1", "-p"}) argv.emplace_back(a);
    argv.push_back(std::to_string(port_));
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv, stdin_data);
}

}  // namespace kiln::test
