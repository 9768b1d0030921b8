#include "worker/tuning_process.hpp"

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "util/process.hpp"
#include "worker/channel.hpp"

namespace fs = std::filesystem;

namespace kiln::worker {

std::string default_worker_path() {
    if (const char* w = std::getenv("KILN_WORKER"); w && *w) return w;
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        for (fs::path p : {self.parent_path() / "kiln-worker", self.parent_path() / "../libexec/kiln/kiln-worker",
                           self.parent_path() / "../bin/kiln-worker"})
            if (fs::exists(p, ec)) return fs::weakly_canonical(p, ec).string();
    }
    return "kiln-worker";
}

TuningProcess::TuningProcess(WorkerConfig config) : config_(std::move(config)) {}
TuningProcess::~TuningProcess() { stop(); }

Status TuningProcess::start() {
    if (valid()) return ok_status();
    // A socket pair rather than two pipes: one descriptor each way, and MSG_NOSIGNAL on send.
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return io_error("socketpair failed", "", errno);
    ProcessOptions o;
    o.argv = {config_.worker_path, "--fd", std::to_string(sv[1])};
    if (config_.preload_cublas) o.argv.push_back("--preload-cublas");
    o.keep_fds = {sv[1]};
    if (config_.cache_root_fd >= 0) {
        o.argv.insert(o.argv.end(), {"--root-fd", std::to_string(config_.cache_root_fd)});
        o.keep_fds.push_back(config_.cache_root_fd);
    }
    if (config_.cuda_device) o.env["CUDA_VISIBLE_DEVICES"] = std::to_string(*config_.cuda_device);
    else o.env["CUDA_VISIBLE_DEVICES"] = std::nullopt;
    auto pid = spawn_process(o);
    ::close(sv[1]);
    if (!pid.ok()) {
        ::close(sv[0]);
        return make_error(Errc::external, "kiln-worker did not start: " + pid.error().str(), config_.worker_path,
                          "check that kiln-worker exists beside kiln-cli or set KILN_WORKER");
    }
    pid_ = *pid;
    fd_ = sv[0];
    ++starts_;
    auto pong = exchange({{"kind", "ping"}}, config_.timeouts.startup);
    if (!pong.ok() || !pong->contains("pong")) {
        std::string why = pong.ok() ? "unexpected reply to ping" : pong.error().str();
        if (!pong.ok() && pong.error().code == Errc::cancelled) why = "worker " + reap_after_eof() + " during start-up";
        else stop();
        return make_error(Errc::external, "kiln-worker did not start: " + why, config_.worker_path,
                          "check that kiln-worker exists beside kiln-cli or set KILN_WORKER");
    }
    pong_ = (*pong)["pong"];
    return ok_status();
}

Result<nlohmann::json> TuningProcess::exchange(const nlohmann::json& message,
                                               std::optional<std::chrono::milliseconds> timeout) {
    if (auto st = write_message(fd_, message); !st.ok()) {
        // The worker is gone (EPIPE / ECONNRESET): treat like an end of stream.
        return make_error(Errc::cancelled, "EOF");
    }
    return read_message(fd_, timeout);
}

bool TuningProcess::wait_exit(std::chrono::milliseconds timeout, int* status) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        pid_t r = ::waitpid(pid_, status, WNOHANG);
        if (r == pid_ || (r < 0 && errno == ECHILD)) return true;
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
}

std::string TuningProcess::reap_after_eof() {
    int status = 0;
    // The stream ended: the worker is exiting or dead. Give it a moment, then make sure.
    if (!wait_exit(std::chrono::milliseconds(2000), &status)) {
        ::kill(pid_, SIGKILL);
        wait_exit(std::chrono::milliseconds(5000), &status);
        clear();
        return "closed its channel and was killed";
    }
    clear();
    return describe_wait_status(status);
}

void TuningProcess::clear() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    pid_ = -1;
}

void TuningProcess::stop() {
    if (!valid()) return;
    int status = 0;
    (void)write_message(fd_, {{"kind", "shutdown"}});
    if (!wait_exit(config_.timeouts.graceful, &status)) {
        ::kill(pid_, SIGTERM);
        if (!wait_exit(config_.timeouts.terminate, &status)) {
            ::kill(pid_, SIGKILL);  // this ends it
            wait_exit(std::chrono::milliseconds(10'000), &status);
        }
    }
    clear();
}

BenchmarkResult TuningProcess::benchmark(const BenchmarkRequest& req) {
    if (!valid()) {
        if (auto st = start(); !st.ok()) return BenchmarkResult::failure(BenchStatus::crash, st.error().str());
    }
    (void)send(req);
    return receive();
}

bool TuningProcess::send(const BenchmarkRequest& req) {
    if (!valid()) return false;
    // A worker that is gone (EPIPE / ECONNRESET) shows up in receive() as an end of stream.
    return write_message(fd_, to_json(req)).ok();
}

BenchmarkResult TuningProcess::receive() {
    if (!valid()) return BenchmarkResult::failure(BenchStatus::crash, "crash: no worker");
    pid_t pid = pid_;
    auto reply = read_message(fd_, config_.timeouts.result);
    if (reply.ok()) {
        BenchmarkResult r = result_from_json(*reply);
        r.worker_pid = pid;
        if (r.details.is_object() && r.details.value("context_lost", false)) {
            // The worker exits after such a reply (worker_loop): reap it; the next request starts another.
            r.reason += "; worker " + reap_after_eof() + ", restarted for the next choice";
        }
        return r;
    }
    if (reply.error().code == Errc::timeout) {
        stop();
        auto secs = std::chrono::duration<double>(config_.timeouts.result).count();
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.3g", secs);
        BenchmarkResult r = BenchmarkResult::failure(
            BenchStatus::timeout, std::string("timeout: no result within ") + buf + " s; worker stopped");
        r.worker_pid = pid;
        return r;
    }
    if (reply.error().code == Errc::cancelled) {
        BenchmarkResult r = BenchmarkResult::failure(BenchStatus::crash, "crash: worker " + reap_after_eof());
        r.worker_pid = pid;
        return r;
    }
    std::string why = reply.error().str();
    stop();
    BenchmarkResult r = BenchmarkResult::failure(BenchStatus::crash, "crash: broken channel to the worker: " + why);
    r.worker_pid = pid;
    return r;
}

}  // namespace kiln::worker
