#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <thread>

#include "cuda/cublas.hpp"
#include "test_support.hpp"
#include "worker/tuning_pool.hpp"

using namespace kiln::worker;
using namespace std::chrono_literals;

namespace {

Timeouts quick() {
    Timeouts t;
    t.result = 1500ms;
    t.graceful = 300ms;
    t.terminate = 300ms;
    return t;
}

BenchmarkRequest test_request(const std::string& mode, double value = 0, double sleep_ms = 0) {
    BenchmarkRequest r;
    r.kind = RequestKind::test;
    r.test_mode = mode;
    r.test_value = value;
    r.test_sleep_ms = sleep_ms;
    r.choice = mode;
    return r;
}

bool process_gone(pid_t pid) {
    if (kill(pid, 0) != 0) return true;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    auto close_paren = line.rfind(')');
    return close_paren != std::string::npos && line.size() > close_paren + 2 && line[close_paren + 2] == 'Z';
}

}  // namespace

TEST(TuningProcess, PingPongAndAFixedValue) {
    TuningProcess p({kiln::test::worker_path(), std::nullopt, quick()});
    ASSERT_TRUE(p.start().ok());
    EXPECT_EQ(p.pong()["pid"].get<int>(), p.pid());
    EXPECT_TRUE(p.pong()["cuda_visible_devices"].is_null());  // a CPU worker sees no CUDA variable
    auto r = p.benchmark(test_request("value", 1.5));
    EXPECT_EQ(r.status, BenchStatus::ok);
    EXPECT_EQ(r.ms, 1.5);
    EXPECT_EQ(r.worker_pid, p.pid());
    auto e = p.benchmark(test_request("error"));
    EXPECT_EQ(e.status, BenchStatus::error);
    EXPECT_NE(e.reason.find("Failed to run"), std::string::npos);
    EXPECT_TRUE(std::isinf(e.ms));
    EXPECT_EQ(p.starts(), 1);  // an error is an answer: the worker stays
}

TEST(TuningProcess, CrashesAndHangsScoreInfinityAndTheWorkerIsReplaced) {
    TuningProcess p({kiln::test::worker_path(), std::nullopt, quick()});
    struct Case {
        const char* mode;
        BenchStatus status;
        const char* reason;
    };
    for (Case c : {Case{"segfault", BenchStatus::crash, "SIGSEGV"}, Case{"abort", BenchStatus::crash, "SIGABRT"},
                   Case{"hang", BenchStatus::timeout, "timeout"}}) {
        auto t0 = std::chrono::steady_clock::now();
        auto r = p.benchmark(test_request(c.mode));
        auto took = std::chrono::steady_clock::now() - t0;
        EXPECT_EQ(r.status, c.status) << c.mode;
        EXPECT_NE(r.reason.find(c.reason), std::string::npos) << c.mode << ": " << r.reason;
        EXPECT_TRUE(std::isinf(r.ms));
        EXPECT_FALSE(p.valid()) << c.mode;  // cleared
        EXPECT_LT(took, 5s) << c.mode;
        EXPECT_TRUE(process_gone(r.worker_pid)) << c.mode;
        auto ok = p.benchmark(test_request("value", 2.0));  // next request: a fresh worker
        EXPECT_EQ(ok.status, BenchStatus::ok) << c.mode;
        EXPECT_NE(ok.worker_pid, r.worker_pid);
    }
    EXPECT_EQ(p.starts(), 4);
}

TEST(TuningProcess, MissingWorkerBinaryIsAClearError) {
    TuningProcess p({"/nonexistent/kiln-worker", std::nullopt, quick()});
    auto st = p.start();
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().str().find("kiln-worker did not start"), std::string::npos);
}

TEST(TuningProcessPool, SurvivesBadChoicesAndFinishesInBoundedTime) {
    TuningProcessPool pool({{Device{}, Device{}}, kiln::test::worker_path(), quick()});
    {
        auto st = pool.start();
        ASSERT_TRUE(st.ok()) << st.error().str();
    }
    std::vector<BenchmarkRequest> reqs;
    for (int i = 0; i < 6; ++i) reqs.push_back(test_request("value", i + 1.0));
    reqs.push_back(test_request("segfault"));
    reqs.push_back(test_request("abort"));
    reqs.push_back(test_request("hang"));
    reqs.push_back(test_request("error"));
    for (int i = 0; i < 6; ++i) reqs.push_back(test_request("value", 10.0 + i));
    auto t0 = std::chrono::steady_clock::now();
    auto res = pool.benchmark(reqs);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 8s);
    ASSERT_EQ(res.size(), reqs.size());
    for (size_t i = 0; i < reqs.size(); ++i) {
        const auto& mode = reqs[i].test_mode;
        if (mode == "value") {
            EXPECT_EQ(res[i].status, BenchStatus::ok);
            EXPECT_EQ(res[i].ms, reqs[i].test_value);
        } else {
            EXPECT_TRUE(std::isinf(res[i].ms)) << mode;
        }
    }
    EXPECT_EQ(res[6].status, BenchStatus::crash);
    EXPECT_EQ(res[7].status, BenchStatus::crash);
    EXPECT_EQ(res[8].status, BenchStatus::timeout);
    EXPECT_EQ(res[9].status, BenchStatus::error);
    // Three different worker processes died (so workers were replaced), none is left behind, and
    // every later choice still got its answer.
    std::set<int> crashed{res[6].worker_pid, res[7].worker_pid, res[8].worker_pid};
    EXPECT_EQ(crashed.size(), 3u);
    for (int pid : crashed) EXPECT_TRUE(process_gone(pid)) << pid;
    int starts = 0;
    for (const auto& w : pool.workers()) starts += w.starts;
    EXPECT_GE(starts, 2 + 2);  // 2 workers cannot run 3 crashing choices without a restart
}

TEST(TuningProcessPool, SpreadsWorkOverFreeWorkers) {
    TuningProcessPool pool({{Device{}, Device{}, Device{}}, kiln::test::worker_path(), quick()});
    {
        auto st = pool.start();
        ASSERT_TRUE(st.ok()) << st.error().str();
    }
    std::vector<BenchmarkRequest> reqs(9, test_request("sleep", 1.0, 150));
    auto t0 = std::chrono::steady_clock::now();
    auto res = pool.benchmark(reqs);
    auto took = std::chrono::steady_clock::now() - t0;
    std::set<int> pids;
    for (const auto& r : res) {
        EXPECT_EQ(r.status, BenchStatus::ok);
        pids.insert(r.worker_pid);
    }
    EXPECT_EQ(pids.size(), 3u);
    EXPECT_LT(took, 9 * 150ms);  // sequential would take 1.35 s; three workers about 0.45 s
}

TEST(TuningProcessPool, EveryWorkerIsWarmedUpBeforeTheFirstRequest) {
    BenchmarkRequest warm;
    warm.kind = RequestKind::cpp;
    TensorMeta t;
    t.sizes = {1 << 20};
    warm.inputs = {t, t};
    warm.output = t;
    PoolOptions po{{Device{}, Device{}}, kiln::test::worker_path(), quick()};
    po.warmup = warm;
    // A warm-up is a real CPU benchmark: under TSan on a loaded 2-core box it took over 1.5 s.
    po.timeouts.result = 30000ms;
    TuningProcessPool pool(po);
    {
        auto st = pool.start();
        ASSERT_TRUE(st.ok()) << st.error().str();
    }
    for (const auto& w : pool.workers()) {
        EXPECT_TRUE(w.warmup_error.empty()) << w.warmup_error;
        EXPECT_GT(w.warmup_seconds, 0);
    }
    auto res = pool.benchmark({test_request("value", 2.5)});
    EXPECT_EQ(res[0].status, BenchStatus::ok);
}

// up() waits for the Pongs only: a re-tune takes the devices' facts from them while the workers
// are still warming up, instead of initialising CUDA itself.
TEST(TuningProcessPool, UpGivesEachWorkersPongBeforeItsWarmUpEnds) {
    PoolOptions po{{Device{}, Device{}}, kiln::test::worker_path(), quick()};
    po.timeouts.result = 10000ms;
    po.warmup = test_request("value", 1, 3000);  // a warm-up of 3 s
    TuningProcessPool pool(po);
    pool.start_async();
    auto st = pool.up();
    ASSERT_TRUE(st.ok()) << st.error().str();
    auto workers = pool.workers();
    ASSERT_EQ(workers.size(), 2u);
    for (const auto& w : workers) {
        EXPECT_GT(w.pid, 0);
        EXPECT_EQ(w.pong.value("pid", -1), w.pid) << w.pong.dump();
        EXPECT_EQ(w.warmup_seconds, 0) << "up() waited for the warm-up";
    }
    EXPECT_TRUE(pool.started().ok());
    for (const auto& w : pool.workers()) EXPECT_GE(w.warmup_seconds, 2.9);

    TuningProcessPool broken({{Device{}}, "/nonexistent/kiln-worker", quick()});
    broken.start_async();
    EXPECT_FALSE(broken.up().ok());
}

// The driver attaches GPUs one process at a time, so a re-tune starts each worker when the one
// before it has answered its Ping (or finished its warm-up): the first takes choices sooner.
TEST(TuningProcessPool, StaggeredWorkersStartEachAfterThePreviousIsUpOrReady) {
    for (auto order : {PoolOptions::Start::after_previous_pong, PoolOptions::Start::after_previous_ready}) {
        PoolOptions po{{Device{}, Device{}, Device{}}, kiln::test::worker_path(), quick()};
        po.timeouts.result = 10000ms;
        po.warmup = test_request("value", 1, 300);
        po.start = order;
        TuningProcessPool pool(po);
        pool.start_async();
        ASSERT_TRUE(pool.up(0).ok());
        ASSERT_TRUE(pool.started().ok());
        auto w = pool.workers();
        ASSERT_EQ(w.size(), 3u);
        for (std::size_t k = 1; k < w.size(); ++k) {
            auto gate = order == PoolOptions::Start::after_previous_pong ? w[k - 1].up : w[k - 1].ready;
            EXPECT_GE(w[k].spawned, gate) << "worker " << k << " started before worker " << k - 1 << " was "
                                          << (order == PoolOptions::Start::after_previous_pong ? "up" : "ready");
        }
        auto res = pool.benchmark({test_request("value", 2.5), test_request("value", 3.5)});
        EXPECT_EQ(res[0].status, BenchStatus::ok);
        EXPECT_EQ(res[1].status, BenchStatus::ok);
    }
    EXPECT_FALSE(TuningProcessPool({{Device{}}, kiln::test::worker_path(), quick()}).up(1).ok());
}

// A worker refused at its Pong (a re-tune's GPU of another architecture) takes no request; the
// next worker starts in its stead and started() says why.
TEST(TuningProcessPool, AWorkerRefusedAtItsPongTakesNoRequests) {
    PoolOptions po{{Device{}, Device{}, Device{}}, kiln::test::worker_path(), quick()};
    po.start = PoolOptions::Start::after_previous_pong;
    auto seen = std::make_shared<std::atomic<int>>(0);
    po.accept = [seen](const nlohmann::json&) -> kiln::Status {
        if ((*seen)++ == 1) return kiln::make_error(kiln::Errc::unsupported, "refused for the test");
        return kiln::ok_status();
    };
    TuningProcessPool pool(po);
    pool.start_async();
    std::vector<BenchmarkRequest> reqs(6, test_request("value", 1, 50));
    auto res = pool.benchmark(reqs);
    auto w = pool.workers();
    ASSERT_EQ(w.size(), 3u);
    for (const auto& r : res) {
        EXPECT_EQ(r.status, BenchStatus::ok);
        EXPECT_NE(r.worker_pid, w[1].pid) << "the refused worker took a request";
    }
    auto st = pool.started();
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().str().find("refused for the test"), std::string::npos) << st.error().str();
    EXPECT_GE(w[2].spawned, w[1].up);
}

// A re-tune groups its requests by op: each worker starts on a group no other worker is on and
// stays on it while it lasts, so an op's inputs and reference are made on one device, not on all.
TEST(TuningProcessPool, EachWorkerKeepsToOneGroupWhileItLasts) {
    PoolOptions po{{Device{}, Device{}}, kiln::test::worker_path(), quick()};
    TuningProcessPool pool(po);
    ASSERT_TRUE(pool.start().ok());
    std::vector<BenchmarkRequest> reqs;
    for (const char* g : {"A", "B"})
        for (int i = 0; i < 6; ++i) {
            reqs.push_back(test_request("value", 1, 40));
            reqs.back().group = g;
        }
    auto res = pool.benchmark(reqs);
    std::set<std::pair<std::string, int>> pairs;  // (group, worker) that ran it
    std::set<int> workers;
    for (std::size_t i = 0; i < res.size(); ++i) {
        ASSERT_EQ(res[i].status, BenchStatus::ok) << res[i].reason;
        pairs.insert({reqs[i].group, res[i].worker_pid});
        workers.insert(res[i].worker_pid);
    }
    EXPECT_EQ(workers.size(), 2u);
    // In queue order both workers would run both groups (4 pairs); kept to groups, at most one
    // worker helps the other at the end.
    EXPECT_LE(pairs.size(), 3u);
    EXPECT_NE(res[0].worker_pid, res[6].worker_pid) << "both groups started on one worker";
}

TEST(TuningProcessPool, NoWorkerOutlivesAKilledParent) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    pid_t parent = fork();
    ASSERT_GE(parent, 0);
    if (parent == 0) {
        close(fds[0]);
        TuningProcessPool pool({{Device{}, Device{}}, kiln::test::worker_path(), quick()});
        if (!pool.start().ok()) _exit(1);
        std::string pids;
        for (const auto& w : pool.workers()) pids += std::to_string(w.pid) + " ";
        pids += "\n";
        (void)!write(fds[1], pids.data(), pids.size());
        pause();  // wait for SIGKILL
        _exit(0);
    }
    close(fds[1]);
    std::string text;
    char buf[256];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) {
        text.append(buf, static_cast<size_t>(n));
        if (text.find('\n') != std::string::npos) break;
    }
    close(fds[0]);
    std::istringstream in(text);
    std::vector<pid_t> workers;
    for (pid_t p; in >> p;) workers.push_back(p);
    ASSERT_EQ(workers.size(), 2u);
    for (pid_t w : workers) EXPECT_FALSE(process_gone(w));
    kill(parent, SIGKILL);
    waitpid(parent, nullptr, 0);
    auto deadline = std::chrono::steady_clock::now() + 3s;
    for (pid_t w : workers) {
        while (!process_gone(w) && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
        EXPECT_TRUE(process_gone(w)) << "worker " << w << " outlived its parent";
    }
}

// With two requests in a worker's channel, the one queued behind a crash, a hang or an error is
// lost with that worker: it must reach the next worker and get its own answer, in order.
TEST(TuningProcessPool, RequestsQueuedBehindACrashReachTheNextWorker) {
    PoolOptions o{{Device{}}, kiln::test::worker_path(), quick()};
    o.pipeline = 2;
    TuningProcessPool pool(o);
    {
        auto st = pool.start();
        ASSERT_TRUE(st.ok()) << st.error().str();
    }
    std::vector<BenchmarkRequest> reqs{test_request("value", 1), test_request("segfault"), test_request("value", 2),
                                       test_request("hang"),     test_request("value", 3), test_request("abort"),
                                       test_request("value", 4), test_request("error"),    test_request("value", 5)};
    auto res = pool.benchmark(reqs);
    ASSERT_EQ(res.size(), reqs.size());
    EXPECT_EQ(res[1].status, BenchStatus::crash);
    EXPECT_EQ(res[3].status, BenchStatus::timeout);
    EXPECT_EQ(res[5].status, BenchStatus::crash);
    EXPECT_EQ(res[7].status, BenchStatus::error);
    for (std::size_t i : {0u, 2u, 4u, 6u, 8u}) {
        EXPECT_EQ(res[i].status, BenchStatus::ok) << i << ": " << res[i].reason;
        EXPECT_EQ(res[i].ms, reqs[i].test_value) << i;
    }
    // Each value after a fault ran on the worker that replaced the faulty one.
    EXPECT_NE(res[2].worker_pid, res[1].worker_pid);
    EXPECT_NE(res[4].worker_pid, res[3].worker_pid);
    EXPECT_NE(res[6].worker_pid, res[5].worker_pid);
    EXPECT_EQ(res[8].worker_pid, res[7].worker_pid);  // an error is no crash: same worker
    EXPECT_EQ(pool.workers().at(0).starts, 4);
}

// Started without waiting: requests queued before the workers are up run on them; with no worker
// able to start, every request fails with why instead of waiting forever.
TEST(TuningProcessPool, StartedWithoutWaitingRunsQueuedRequestsOrSaysWhyNot) {
    TuningProcessPool pool({{Device{}, Device{}}, kiln::test::worker_path(), quick()});
    pool.start_async();
    std::vector<BenchmarkRequest> reqs{test_request("value", 1), test_request("value", 2), test_request("value", 3)};
    auto res = pool.benchmark(reqs);
    for (std::size_t i = 0; i < reqs.size(); ++i) {
        EXPECT_EQ(res[i].status, BenchStatus::ok) << res[i].reason;
        EXPECT_EQ(res[i].ms, reqs[i].test_value);
    }
    EXPECT_TRUE(pool.started().ok());

    TuningProcessPool broken({{Device{}, Device{}}, "/nonexistent/kiln-worker", quick()});
    broken.start_async();
    auto failed = broken.benchmark(reqs);
    for (const auto& r : failed) {
        EXPECT_EQ(r.status, BenchStatus::crash);
        EXPECT_NE(r.reason.find("no worker started"), std::string::npos) << r.reason;
        EXPECT_NE(r.reason.find("/nonexistent/kiln-worker"), std::string::npos) << r.reason;
    }
    EXPECT_FALSE(broken.started().ok());
}

namespace {

bool process_reaped(pid_t pid) { return !std::filesystem::exists("/proc/" + std::to_string(pid)); }

// Sets (or, with nullopt, removes) an environment variable for one scope; the workers inherit it.
class ScopedEnv {
public:
    ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value) setenv(name, value->c_str(), 1);
        else unsetenv(name);
    }
    ~ScopedEnv() {
        if (old_) setenv(name_, old_->c_str(), 1);
        else unsetenv(name_);
    }

private:
    const char* name_;
    std::optional<std::string> old_;
};

}  // namespace

// release() tells the workers to exit and returns without waiting for them (a tool prints its
// report meanwhile); the pool's own threads still reap them. stop() waits.
TEST(TuningProcessPool, ReleasedWorkersExitAfterTheCallerMovesOnAndAreReaped) {
    Timeouts t = quick();
    t.graceful = 20s;  // the worker's slow exit below is waited for, never cut short
    auto pool = std::make_unique<TuningProcessPool>(PoolOptions{{Device{}}, kiln::test::worker_path(), t});
    ASSERT_TRUE(pool->start().ok());
    auto res = pool->benchmark({test_request("slow_exit", 4.5, 3000)});  // lingers 3 s when told to exit
    ASSERT_EQ(res[0].status, BenchStatus::ok) << res[0].reason;
    EXPECT_EQ(res[0].ms, 4.5);
    pid_t pid = pool->workers().at(0).pid;
    TuningProcessPool::release(std::move(pool));
    EXPECT_FALSE(process_gone(pid)) << "release() waited for the worker's exit";
    auto deadline = std::chrono::steady_clock::now() + 15s;
    while (!process_reaped(pid) && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(20ms);
    EXPECT_TRUE(process_reaped(pid)) << "the released worker " << pid << " was not reaped";
    TuningProcessPool::release(nullptr);  // frees the finished pool

    TuningProcessPool waited({{Device{}}, kiln::test::worker_path(), t});
    ASSERT_TRUE(waited.start().ok());
    ASSERT_EQ(waited.benchmark({test_request("slow_exit", 1, 300)})[0].status, BenchStatus::ok);
    pid_t waited_pid = waited.workers().at(0).pid;
    waited.stop();
    EXPECT_TRUE(process_reaped(waited_pid));
}

// A worker told to load cuBLAS ahead whose load fails is still a working worker: it answers, and
// exits cleanly; the error belongs to the requests that need cuBLAS.
TEST(TuningProcess, AFailedCublasPreloadLeavesAWorkingWorker) {
    ScopedEnv lib("KILN_CUBLAS", "libm.so.6");  // loads, but is no cuBLAS
    WorkerConfig c{kiln::test::worker_path(), std::nullopt, quick()};
    c.preload_cublas = true;
    TuningProcess p(c);
    ASSERT_TRUE(p.start().ok());
    auto r = p.benchmark(test_request("value", 2.5));
    EXPECT_EQ(r.status, BenchStatus::ok) << r.reason;
    EXPECT_EQ(r.ms, 2.5);
    pid_t pid = p.pid();
    p.stop();
    EXPECT_TRUE(process_reaped(pid));
}

TEST(Devices, TheDriversGpuListGuessesTheCountWithoutCuda) {
    ScopedEnv unset("CUDA_VISIBLE_DEVICES", std::nullopt);
    kiln::test::ScratchDir dir("driver-gpus");
    EXPECT_FALSE(driver_gpu_count(dir.path().string()).has_value());  // empty: unknown
    EXPECT_FALSE(driver_gpu_count((dir.path() / "missing").string()).has_value());
    for (const char* bus : {"0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0"})
        std::filesystem::create_directories(dir.path() / bus);
    EXPECT_EQ(driver_gpu_count(dir.path().string()), 3);
    ScopedEnv vis("CUDA_VISIBLE_DEVICES", "1");
    EXPECT_FALSE(driver_gpu_count(dir.path().string()).has_value());  // then CUDA sees fewer
}

// The library found first is kept; one that lacks cuBLAS's entry points is a clear error, for the
// early load and for every handle asked for after it, with where to point KILN_CUBLAS.
TEST(Cublas, ALoadThatFailsIsReportedWithWhereToFindTheLibrary) {
    ScopedEnv lib("KILN_CUBLAS", "libm.so.6");
    auto st = kiln::cuda::Cublas::load();
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().message.find("libm.so.6 lacks cublasCreate_v2"), std::string::npos) << st.error().str();
    auto made = kiln::cuda::Cublas::create();
    ASSERT_FALSE(made.ok());
    EXPECT_EQ(made.error().message, st.error().message);
    EXPECT_NE(made.error().hint.find("KILN_CUBLAS"), std::string::npos);
}

// Issue 44: a worker gets the cache root as the command opened it (WorkerConfig::cache_root_fd,
// kiln-worker --root-fd) and reads Triton binaries beneath that descriptor: after the root's path is
// renamed away, the descriptor the worker holds is still the opened directory, at its new place.
TEST(TuningProcess, AWorkerInheritsTheOpenedCacheRoot) {
    kiln::test::ScratchDir dir("tuning-process-root-fd");
    const std::filesystem::path root = dir.path() / "root", moved = dir.path() / "moved";
    std::filesystem::create_directories(root);
    const int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    {
        WorkerConfig config{kiln::test::worker_path(), std::nullopt, quick()};
        config.cache_root_fd = fd;
        TuningProcess p(config);
        ASSERT_TRUE(p.start().ok());
        std::filesystem::rename(root, moved);
        std::error_code ec;
        const auto held =
            std::filesystem::read_symlink("/proc/" + std::to_string(p.pid()) + "/fd/" + std::to_string(fd), ec);
        EXPECT_FALSE(ec) << ec.message();
        EXPECT_EQ(held, moved) << "the worker does not hold the opened root as --root-fd";
        EXPECT_EQ(p.benchmark(test_request("value", 1.5)).status, BenchStatus::ok);
    }
    ::close(fd);
}
