// Races and crashes: processes racing for one key compile once, a killed compiler leaves no output,
// and the pool compiles many kernels in parallel while sharing one compile per key.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "codecache/compile_pool.hpp"
#include "counting_compiler.hpp"
#include "util/file_lock.hpp"

namespace kiln::codecache {
namespace {

struct ConcurrencyFixture : ::testing::Test {
    test::ScratchDir dir{"codecache_race"};
    test::CountingCompiler cxx{dir.path() / "bin"};
    CodeCacheOptions options{.root = dir.path() / "cache", .cxx = cxx.path().string(), .opt_level = "-O1"};
    CompileRequest add_one{.source = test::kAddOneSource};
};

TEST_F(ConcurrencyFixture, EightProcessesRacingForOneNewKeyCompileOnce) {
    cxx.set("slow", true);  // the first compile takes >= 0.5 s, so all eight overlap it
    std::vector<pid_t> children;
    for (int i = 0; i < 8; ++i) {
        pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            CodeCache cache(options);
            auto out = cache.compile(add_one);
            _exit(out.ok() && Library::open(out->output_path).ok() ? 0 : 1);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) {
        int status = 0;
        waitpid(pid, &status, 0);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    EXPECT_EQ(cxx.calls(), 1);
}

TEST_F(ConcurrencyFixture, KilledCompilerLeavesNoOutputAndNextRequestRebuilds) {
    CodeCache cache(options);
    cxx.set("hang", true);
    std::promise<Result<CompileOutcome>> done;
    std::thread worker([&] { done.set_value(cache.compile(add_one)); });
    // Until the wrapper has written its pid (the file may exist before the number is in it); a sanitizer
    // build on a loaded box takes seconds to get there.
    auto pid_file = cxx.dir() / "hang.pid";
    int pid = 0;
    for (int i = 0; i < 1200 && pid <= 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
        std::ifstream(pid_file) >> pid;
    }
    ASSERT_GT(pid, 0) << "the wrapper never started";
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    worker.join();
    auto killed = done.get_future().get();
    ASSERT_FALSE(killed.ok());
    EXPECT_NE(killed.error().message.find("signal 9"), std::string::npos) << killed.error().str();

    auto key = cache.key_for(add_one).value();
    auto shard = options.root / key.substr(1, 2);
    for (auto& e : std::filesystem::directory_iterator(shard))
        EXPECT_EQ(e.path().extension(), ".cpp") << "the killed build left " << e.path();

    cxx.set("hang", false);
    auto again = cache.compile(add_one);
    ASSERT_TRUE(again.ok()) << again.error().str();
    EXPECT_FALSE(again->hit);
    EXPECT_EQ(cxx.calls(), 2);
}

TEST_F(ConcurrencyFixture, LockTimeoutIsReported) {
    options.lock_timeout = std::chrono::milliseconds(100);
    CodeCache cache(options);
    auto key = cache.key_for(add_one).value();
    auto held = FileLock::acquire(cache.lock_dir() / (key + ".lock"), std::chrono::seconds(1));
    ASSERT_TRUE(held.ok());
    auto out = cache.compile(add_one);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.error().code, Errc::timeout);
    EXPECT_EQ(cxx.calls(), 0);
}

TEST_F(ConcurrencyFixture, PoolCompilesManyKernelsAndOneKeyOnce) {
    CodeCache cache(options);
    CompilePool pool(cache, 2);
    std::vector<std::shared_future<Result<std::shared_ptr<Library>>>> futures;
    for (int i = 0; i < 4; ++i) {
        CompileRequest req{.source = "extern \"C\" int k() { return " + std::to_string(i) + "; }"};
        futures.push_back(pool.load_async(req));
        futures.push_back(pool.load_async(req));  // same key while in flight: joins the first
    }
    for (int i = 0; i < 4; ++i) {
        auto& a = futures[2 * i].get();
        ASSERT_TRUE(a.ok()) << a.error().str();
        EXPECT_EQ(a.value()->symbol<int()>("k").value()(), i);
        EXPECT_EQ(futures[2 * i + 1].get().value().get(), a.value().get());
    }
    EXPECT_EQ(cxx.calls(), 4);
    auto bad = pool.compile_async(CompileRequest{.source = "x", .out_ext = "cubin"}).get();
    EXPECT_FALSE(bad.ok());
}

}  // namespace
}  // namespace kiln::codecache
