#include "util/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>

extern char** environ;

namespace kiln {

std::string describe_wait_status(int status) {
    if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        const char* abbrev = sigabbrev_np(sig);
        return "killed by signal " + std::to_string(sig) +
               (abbrev ? std::string(" (SIG") + abbrev + ")" : std::string());
    }
    return "stopped (wait status " + std::to_string(status) + ")";
}

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

namespace {

void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

// The child's side, between fork and exec: async-signal-safe calls only.
[[noreturn]] void exec_child(const ProcessOptions& o, char** argv, char** envp, int devnull, pid_t parent,
                             int report_fd) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent died before the request took effect
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
    if (std::strchr(argv[0], '/')) ::execve(argv[0], argv, envp);
    else ::execvpe(argv[0], argv, envp);
    int err = errno;
    [[maybe_unused]] ssize_t n = ::write(report_fd, &err, sizeof err);
    ::_exit(127);
}

void kill_own_group(int) { ::kill(0, SIGKILL); }

// With ProcessOptions::kill_group: a keeper between Kiln and the program. PR_SET_PDEATHSIG reaches
// the program only, not what it starts (a compiler driver's cc1plus, as and ld; python's
// subprocesses), which went on running after a kill -9 of kiln-cli. The keeper leads a new process
// group that the program and all its descendants inherit, turns Kiln's death (PDEATHSIG SIGTERM,
// which it can catch) into a SIGKILL of that whole group, and otherwise ends as the program ended,
// so the caller's waitpid reads the program's status. A timeout kills the group (kill(-pid)).
[[noreturn]] void keep_group(const ProcessOptions& o, char** argv, char** envp, int devnull, pid_t parent,
                             int report_fd) {
    ::setpgid(0, 0);
    struct sigaction on_term {};
    on_term.sa_handler = kill_own_group;
    ::sigaction(SIGTERM, &on_term, nullptr);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::kill(0, SIGKILL);
    pid_t keeper = ::getpid();
    pid_t program = ::fork();
    if (program == 0) {
        ::signal(SIGTERM, SIG_DFL);
        exec_child(o, argv, envp, devnull, keeper, report_fd);
    }
    if (program < 0) {
        int err = errno;
        [[maybe_unused]] ssize_t n = ::write(report_fd, &err, sizeof err);
        ::_exit(127);
    }
    // The keeper needs no descriptor: dropping them all (the report pipe, so the parent's read sees
    // EOF once the program has exec'd; the output pipes; Kiln's lock files, whose flocks a
    // long-lived copy would otherwise hold) leaves each with the program or the parent alone.
    if (::syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
        for (int fd = 3; fd < 1024; ++fd) ::close(fd);
    int status = 0;
    while (::waitpid(program, &status, 0) < 0)
        if (errno != EINTR) ::_exit(127);
    if (WIFSIGNALED(status)) {  // end the same way, without a core file of the keeper
        struct rlimit no_core {};
        ::setrlimit(RLIMIT_CORE, &no_core);
        ::signal(WTERMSIG(status), SIG_DFL);
        ::kill(keeper, WTERMSIG(status));
    }
    ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

}  // namespace

Result<pid_t> spawn_process(const ProcessOptions& o) {
    if (o.argv.empty()) return make_error(Errc::invalid_argument, "empty command");
    // Everything the child needs is built here: after fork only async-signal-safe calls are allowed.
    std::vector<std::string> env_strings;
    for (char** e = environ; e && *e; ++e) {
        std::string kv = *e;
        if (!o.env.count(kv.substr(0, kv.find('=')))) env_strings.push_back(std::move(kv));
    }
    for (const auto& [k, v] : o.env)
        if (v) env_strings.push_back(k + "=" + *v);
    std::vector<char*> envp, argv;
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> args = o.argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    // A close-on-exec pipe: EOF means the exec succeeded, an errno means it did not.
    int report[2];
    if (::pipe2(report, O_CLOEXEC) != 0) return io_error("pipe", o.argv[0], errno);
    int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    pid_t parent = ::getpid();

    pid_t pid = ::fork();
    if (pid == 0) {
        if (o.kill_group) keep_group(o, argv.data(), envp.data(), devnull, parent, report[1]);
        exec_child(o, argv.data(), envp.data(), devnull, parent, report[1]);
    }
    int fork_err = errno;
    if (pid > 0 && o.kill_group) ::setpgid(pid, pid);  // as the keeper does: no window for a kill(-pid)
    close_fd(devnull);
    close_fd(report[1]);
    if (pid < 0) {
        close_fd(report[0]);
        return io_error("fork", o.argv[0], fork_err);
    }
    int exec_err = 0;
    ssize_t n;
    do n = ::read(report[0], &exec_err, sizeof exec_err);
    while (n < 0 && errno == EINTR);
    close_fd(report[0]);
    if (n == static_cast<ssize_t>(sizeof exec_err)) {
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        Error e = io_error("exec", o.argv[0], exec_err);
        if (exec_err == ENOENT) e.hint = "no such program; check the path or PATH";
        return e;
    }
    return pid;
}

Result<ProcessResult> run_process(ProcessOptions options, const RunLimits& limits) {
    if (options.argv.empty()) return make_error(Errc::invalid_argument, "empty command");
    // O_CLOEXEC: children spawned concurrently by other threads must not inherit these pipes, or
    // our read would wait for their exit too.
    int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) return io_error("pipe", options.argv[0], errno);
    if (!limits.merge_output && ::pipe2(err_pipe, O_CLOEXEC) != 0) {
        int err = errno;
        close_fd(out_pipe[0]);
        close_fd(out_pipe[1]);
        return io_error("pipe", options.argv[0], err);
    }
    options.kill_group = true;  // compilers, python: their own children go with them
    options.stdout_fd = out_pipe[1];
    options.stderr_fd = limits.merge_output ? out_pipe[1] : err_pipe[1];
    auto pid = spawn_process(options);
    close_fd(out_pipe[1]);
    close_fd(err_pipe[1]);
    if (!pid.ok()) {
        close_fd(out_pipe[0]);
        close_fd(err_pipe[0]);
        return std::move(pid.error());
    }
    ProcessResult r;
    auto deadline = limits.timeout ? std::chrono::steady_clock::now() + *limits.timeout
                                   : std::chrono::steady_clock::time_point::max();
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    std::string* sinks[2] = {&r.out, &r.err};
    int open_fds = err_pipe[0] >= 0 ? 2 : 1;
    char buf[65536];
    while (open_fds > 0) {
        int wait_ms = -1;
        if (limits.timeout) {
            auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) {
                r.timed_out = true;
                ::kill(-*pid, SIGKILL);  // the keeper's group: the program and all it started
                break;
            }
            wait_ms = static_cast<int>(std::min<long long>(left.count(), 1000));
        }
        if (::poll(fds, 2, wait_ms) < 0 && errno != EINTR) break;
        for (int k = 0; k < 2; ++k) {
            pollfd& p = fds[k];
            if (p.fd < 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t got = ::read(p.fd, buf, sizeof buf);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) {
                close_fd(p.fd);
                --open_fds;
                continue;
            }
            sinks[k]->append(buf, static_cast<std::size_t>(got));
        }
    }
    for (auto& p : fds) close_fd(p.fd);
    while (::waitpid(*pid, &r.wait_status, 0) < 0) {
        if (errno != EINTR) return io_error("waitpid", options.argv[0], errno);
    }
    if (WIFEXITED(r.wait_status)) {
        r.exit_status = WEXITSTATUS(r.wait_status);
    } else if (WIFSIGNALED(r.wait_status)) {
        r.signal = WTERMSIG(r.wait_status);
        r.exit_status = 128 + r.signal;
    }
    return r;
}

}  // namespace kiln
