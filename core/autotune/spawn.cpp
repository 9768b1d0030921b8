#include "autotune/spawn.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

extern char** environ;

namespace kiln::autotune {

std::string describe_wait_status(int status) {
    if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        const char* abbrev = sigabbrev_np(sig);
        return "killed by signal " + std::to_string(sig) + (abbrev ? std::string(" (SIG") + abbrev + ")" : std::string());
    }
    return "stopped (wait status " + std::to_string(status) + ")";
}

Result<pid_t> spawn_process(const SpawnOptions& o) {
    if (o.argv.empty()) return make_error(Errc::invalid_argument, "empty command");
    // Everything the child needs is built here: after fork only async-signal-safe calls are allowed.
    std::vector<std::string> env_strings;
    for (char** e = environ; e && *e; ++e) {
        std::string kv = *e;
        std::string name = kv.substr(0, kv.find('='));
        if (!o.env.count(name)) env_strings.push_back(kv);
    }
    for (const auto& [k, v] : o.env)
        if (v) env_strings.push_back(k + "=" + *v);
    std::vector<char*> envp, argv;
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> args = o.argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    pid_t parent = ::getpid();

    pid_t pid = ::fork();
    if (pid < 0) {
        int err = errno;
        if (devnull >= 0) ::close(devnull);
        return io_error("fork failed", o.argv[0], err);
    }
    if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127);  // the parent died before the request took effect
        // Restore default signal handling and mask for the new program.
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::signal(SIGPIPE, SIG_DFL);
        int in = o.stdin_fd >= 0 ? o.stdin_fd : devnull;
        if (in >= 0) ::dup2(in, 0);
        if (o.stdout_fd >= 0) ::dup2(o.stdout_fd, 1);
        if (o.stderr_fd >= 0) ::dup2(o.stderr_fd, 2);
        for (int fd : o.keep_fds) {
            int flags = ::fcntl(fd, F_GETFD);
            if (flags >= 0) ::fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
        }
        ::execve(argv[0], argv.data(), envp.data());
        // execve needs a path; fall back to a PATH search for bare names.
        if (!std::strchr(argv[0], '/')) ::execvpe(argv[0], argv.data(), envp.data());
        ::_exit(127);
    }
    if (devnull >= 0) ::close(devnull);
    return pid;
}

Result<ProcessOutput> run_process(SpawnOptions options, std::chrono::milliseconds timeout) {
    int out_pipe[2], err_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) return io_error("pipe failed", options.argv.at(0), errno);
    if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
        ::close(out_pipe[0]); ::close(out_pipe[1]);
        return io_error("pipe failed", options.argv.at(0), errno);
    }
    options.stdout_fd = out_pipe[1];
    options.stderr_fd = err_pipe[1];
    auto pid = spawn_process(options);
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    if (!pid.ok()) {
        ::close(out_pipe[0]); ::close(err_pipe[0]);
        return std::move(pid.error());
    }
    ProcessOutput r;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    int open_fds = 2;
    char buf[65536];
    while (open_fds > 0) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) {
            r.timed_out = true;
            ::kill(*pid, SIGKILL);
            break;
        }
        int n = ::poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000)));
        if (n < 0 && errno != EINTR) break;
        for (auto& p : fds) {
            if (p.fd < 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t k = ::read(p.fd, buf, sizeof buf);
            if (k <= 0) { ::close(p.fd); p.fd = -1; --open_fds; continue; }
            (&p == &fds[0] ? r.out : r.err).append(buf, static_cast<size_t>(k));
        }
    }
    for (auto& p : fds) if (p.fd >= 0) ::close(p.fd);
    ::waitpid(*pid, &r.wait_status, 0);
    r.exit_code = WIFEXITED(r.wait_status) ? WEXITSTATUS(r.wait_status) : 128 + (WIFSIGNALED(r.wait_status) ? WTERMSIG(r.wait_status) : 0);
    return r;
}

}  // namespace kiln::autotune
