#include "codecache/process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace kiln::codecache {

std::string render_command(const std::vector<std::string>& argv) {
    std::string s;
    for (const auto& a : argv) {
        if (!s.empty()) s += ' ';
        bool plain = !a.empty() && a.find_first_of(" \t\n'\"\\$`") == std::string::npos;
        if (plain) {
            s += a;
            continue;
        }
        s += '\'';
        for (char c : a) s += (c == '\'') ? std::string("'\\''") : std::string(1, c);
        s += '\'';
    }
    return s;
}

Result<ProcessResult> run_process(const std::vector<std::string>& argv) {
    if (argv.empty()) return make_error(Errc::invalid_argument, "empty command");
    int fds[2];
    // O_CLOEXEC: compilers spawned concurrently by other pool threads must not inherit this pipe,
    // or our read would wait for their exit too.
    if (::pipe2(fds, O_CLOEXEC) != 0) return io_error("pipe", argv[0], errno);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        return make_error(Errc::not_found, std::string("cannot run compiler: ") + std::strerror(rc), argv[0],
                          "install it, or set $CXX / $CUDACXX / --cache options to a compiler that exists");
    }
    ProcessResult r;
    char buf[16384];
    for (;;) {
        ssize_t n = ::read(fds[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        r.output.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return io_error("waitpid", argv[0], errno);
    }
    if (WIFEXITED(status)) {
        r.exit_status = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        r.signal = WTERMSIG(status);
        r.exit_status = 128 + r.signal;
    }
    return r;
}

}  // namespace kiln::codecache
