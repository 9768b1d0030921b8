#pragma once
// A real redis-server for tests: started on 127.0.0.1 at a free port, with its own temporary
// directory and config (no persistence), stopped and removed when the object dies. Never binds
// anything but loopback. Throws std::runtime_error when redis-server cannot start (a test failure:
// the setup script installs it).
#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace kiln::test {

struct RedisServerOptions {
    std::string password;  // non-empty: requirepass
};

class RedisServer {
public:
    explicit RedisServer(RedisServerOptions options = {});
    ~RedisServer();
    RedisServer(const RedisServer&) = delete;
    RedisServer& operator=(const RedisServer&) = delete;

    int port() const { return port_; }
    std::string host() const { return "127.0.0.1"; }
    // redis://[:password@]127.0.0.1:port/db
    std::string url(int db = 0) const;
    // redis-cli against this server (password passed through REDISCLI_AUTH, not argv).
    CommandResult cli(const std::vector<std::string>& args, const std::string& stdin_data = {}) const;
    const std::filesystem::path& dir() const { return dir_; }

private:
    bool try_start(int port);
    void stop();

    RedisServerOptions options_;
    std::unique_ptr<ScratchDir> scratch_;
    std::filesystem::path dir_;
    int port_ = 0;
    pid_t pid_ = -1;
};

// A loopback TCP port nobody listens on right now (bind to port 0, read it back, close).
int free_loopback_port();

}  // namespace kiln::test
