#include "test_support.hpp"
#include "fixture_copy.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>

#include "cuda/driver.hpp"

namespace fs = std::filesystem;

namespace kiln::test {

static std::string env_or(const char* name, const char* fallback) {
    const char* v = std::getenv(name);
    return v && *v ? v : fallback;
}

fs::path fixture_dir() { return env_or("KILN_FIXTURE_DIR", KILN_FIXTURE_DIR_DEFAULT); }
fs::path h100_root() { return fixture_dir() / "h100" / "inductor"; }
fs::path two_entries_root() { return fixture_dir() / "two" / "inductor"; }
fs::path h100_h200_root() { return fixture_dir() / "h100h200" / "inductor"; }
fs::path pgo_root() { return fixture_dir() / "pgo" / "inductor"; }

std::vector<fs::path> fixture_traces() {
    const fs::path f = fixture_dir();
    return {f / "h100/trace/cold",
            f / "h100/trace/warm",
            f / "h100/trace/changed",
            f / "h100h200/h200/trace/warm",
            f / "h100h200/h200/trace/mega",
            f / "two/trace/psmall",
            f / "two/trace/huge",
            f / "pgo/trace/p1",
            f / "pgo/trace/p2",
            f / "pgo/trace/mega"};
}

std::vector<fs::path> fixture_rank_traces() {
    const fs::path f = fixture_dir() / "ranks";
    return {f / "rank0/trace", f / "rank1/trace", f / "rank2/trace", f / "rank3/trace"};
}
fs::path source_dir() { return env_or("KILN_SOURCE_DIR", KILN_SOURCE_DIR_DEFAULT); }
fs::path binary_dir() { return env_or("KILN_BINARY_DIR", KILN_BINARY_DIR_DEFAULT); }
// Literals joined by the compiler: GCC 12 at -O1 warns (-Werror) on the std::string + of a file compiled alone.
std::string cli_path() { return env_or("KILN_CLI", KILN_BINARY_DIR_DEFAULT "/bin/kiln-cli"); }
std::string worker_path() { return env_or("KILN_WORKER", KILN_BINARY_DIR_DEFAULT "/bin/kiln-worker"); }

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + p.string());
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

namespace {
// Whether every folder from / down to `dir` lets others through (o+x).
bool traversable_by_others(const fs::path& dir) {
    fs::path p = fs::absolute(dir);
    for (;; p = p.parent_path()) {
        struct stat st {};
        if (::stat(p.c_str(), &st) != 0 || !(st.st_mode & S_IXOTH)) return false;
        if (p == p.root_path()) return true;
    }
}

// As root, tests run a child as `nobody` (run_unprivileged) that must reach the scratch folders: a build
// under a private home (/root is 0700 on Debian) does not let it, so the scratch goes beneath the temp
// folder there, rather than any test opening up the user's home.
fs::path scratch_base() {
    static const fs::path base = [] {
        if (::geteuid() != 0 || traversable_by_others(binary_dir())) return binary_dir() / "test-scratch";
        return fs::temp_directory_path() /
               ("kiln-test-scratch-" + std::to_string(std::hash<std::string>{}(binary_dir().string())));
    }();
    return base;
}
}  // namespace

ScratchDir::ScratchDir(const std::string& tag) {
    static std::atomic<int> counter{0};
    const fs::path base = scratch_base();
    path_ = base / (tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
    if (::geteuid() == 0) {  // whatever the umask, `nobody` passes through (the permission tests set their own)
        constexpr auto through = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                 fs::perms::others_read | fs::perms::others_exec;
        fs::permissions(base, through);
        fs::permissions(path_, through);
    }
}

std::string cli_path_for_others(const ScratchDir& dir) {
    const fs::path cli = cli_path();
    if (traversable_by_others(cli.parent_path())) return cli.string();
    const fs::path copy = dir.path() / "bin" / "kiln-cli";
    fs::create_directories(copy.parent_path());
    fs::copy_file(cli, copy, fs::copy_options::overwrite_existing);
    fs::permissions(dir.path() / "bin", fs::perms::owner_all | fs::perms::others_exec | fs::perms::group_exec);
    fs::permissions(copy, fs::perms::owner_all | fs::perms::others_exec | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::group_read);
    return copy.string();
}

ScratchDir::~ScratchDir() {
    std::error_code ec;
    // Restore permissions that tests may have removed, so cleanup can succeed.
    for (auto it = fs::recursive_directory_iterator(path_, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_directory(ec) && !it->is_symlink(ec))
            fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    }
    fs::remove_all(path_, ec);
}

fs::path copy_h100(const ScratchDir& d) {
    fs::copy(h100_root(), d.path() / "root", fs::copy_options::recursive);
    return d.path() / "root";
}

CommandResult run_command(const std::vector<std::string>& argv, const std::string& stdin_data) {
    int out_pipe[2], err_pipe[2], in_pipe[2];
    if (pipe(out_pipe) || pipe(err_pipe) || pipe(in_pipe)) throw std::runtime_error("pipe failed");
    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        dup2(in_pipe[0], 0);
        dup2(out_pipe[1], 1);
        dup2(err_pipe[1], 2);
        close(in_pipe[1]);
        close(out_pipe[0]);
        close(err_pipe[0]);
        std::vector<char*> args;
        for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execvp(args[0], args.data());
        _exit(127);
    }
    close(in_pipe[0]);
    close(out_pipe[1]);
    close(err_pipe[1]);
    if (!stdin_data.empty()) {
        ssize_t off = 0;
        while (off < static_cast<ssize_t>(stdin_data.size())) {
            ssize_t n = write(in_pipe[1], stdin_data.data() + off, stdin_data.size() - off);
            if (n <= 0) break;
            off += n;
        }
    }
    close(in_pipe[1]);
    CommandResult r;
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    int open_fds = 2;
    char buf[65536];
    while (open_fds > 0) {
        if (poll(fds, 2, -1) < 0) break;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                --open_fds;
                continue;
            }
            (i == 0 ? r.out : r.err).append(buf, n);
        }
    }
    int status = 0;
    waitpid(pid, &status, 0);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

std::string path_without_torch(const std::filesystem::path& dir) {
    const char* env = std::getenv("PATH");
    const std::string path = env ? env : "/usr/bin:/bin";
    std::filesystem::path real;
    for (std::size_t start = 0; start <= path.size() && real.empty();) {
        std::size_t end = path.find(':', start);
        if (end == std::string::npos) end = path.size();
        std::filesystem::path candidate = std::filesystem::path(path.substr(start, end - start)) / "python3";
        if (end > start && access(candidate.c_str(), X_OK) == 0) real = candidate;
        start = end + 1;
    }
    if (real.empty()) throw std::runtime_error("no python3 in $PATH");
    std::ofstream(dir / "python3") << "#!/bin/sh\nexec " << real.string() << " -S \"$@\"\n";
    std::filesystem::permissions(dir / "python3", std::filesystem::perms::owner_all);
    return dir.string() + ":" + path;
}

bool cuda_driver_loads() { return kiln::cuda::driver_info().loaded; }

bool has_cuda_device() {
    auto info = kiln::cuda::driver_info();
    return info.loaded && info.device_count > 0;
}

}  // namespace kiln::test
