#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <limits>
#include <thread>

#include "test_support.hpp"
#include "torch_style_writer.hpp"
#include "tuning/timing_cache.hpp"
#include "util/python_json.hpp"

namespace fs = std::filesystem;
using namespace kiln::tuning;
using namespace kiln::inductor;

namespace {

// Copies the fixture's Inductor-written timing cache into a scratch cache root.
fs::path copy_fixture_cache(const fs::path& root) {
    fs::create_directories(root / "cache");
    fs::path src;
    for (const auto& e : fs::directory_iterator(kiln::test::h100_root() / "cache")) src = e.path();
    fs::copy_file(src, root / "cache" / src.filename());
    return root / "cache" / src.filename();
}

size_t count_timings(const nlohmann::ordered_json& cache) {
    size_t n = 0;
    for (auto& [op, by_inputs] : cache.items())
        if (by_inputs.is_object())
            for (auto& [in, by_prec] : by_inputs.items())
                for (auto& [p, choices] : by_prec.items()) n += choices.size();
    return n;
}

}  // namespace

TEST(TimingCache, AdoptsInductorsSystemForTheSameDevice) {
    kiln::test::ScratchDir dir("tc-adopt");
    fs::path file = copy_fixture_cache(dir.path());
    SystemInfo sys = cuda_system(dir.path(), "NVIDIA H100 80GB HBM3", "13.0");
    EXPECT_EQ(sys.hash, file.filename().string());
    SystemInfo other = cuda_system(dir.path(), "NVIDIA H200", "13.0");
    EXPECT_NE(other.hash, file.filename().string());
    EXPECT_TRUE(other.system["version"]["triton"].is_null());
}

TEST(TimingCache, FixtureFileIsReadAndExtendedWithoutLoss) {
    kiln::test::ScratchDir dir("tc-fixture");
    fs::path file = copy_fixture_cache(dir.path());
    auto before = read_cache_file(file);
    ASSERT_TRUE(before.ok()) << before.error().str();
    const size_t n_before = count_timings((*before)["cache"]);
    EXPECT_EQ(n_before, 41u);  // 20 + 21 mm choices, as Inductor wrote them

    TimingCache cache(dir.path(), cuda_system(dir.path(), "NVIDIA H100 80GB HBM3", "13.0"));
    ASSERT_EQ(cache.local_path(), file);
    TimingKey mm{"mm",
                 "[('cuda', 'torch.float16', 512, 512, 512, 1, 0), ('cuda', 'torch.float16', 512, 512, 512, 1, 0)]"};
    auto hit = cache.lookup(mm);
    ASSERT_TRUE(hit.ok());
    ASSERT_EQ(hit->size(), 20u);
    EXPECT_DOUBLE_EQ(hit->at("mm-cqrjyn5jqdhj5q3lohxxeq3fxnpvy6qsigzdm2ykqas7fpkl7zrz"), 0.006144000217318535);

    TimingKey mine{"kiln_matmul", "[('cuda', 'torch.float32', 64, 64, 64, 1, 0)]"};
    ASSERT_TRUE(
        cache.update(mine, {{"kiln_matmul-cabc", 0.5}, {"kiln_matmul-cdef", std::numeric_limits<double>::infinity()}})
            .ok());
    ASSERT_TRUE(cache.update(mm, {{"kiln-extra", 1.25}}).ok());

    auto after = read_cache_file(file);
    ASSERT_TRUE(after.ok()) << after.error().str();
    EXPECT_EQ(count_timings((*after)["cache"]), n_before + 3);
    EXPECT_EQ((*after)["system"], (*before)["system"]);  // Inductor's block, Triton key included, kept
    // Every original timing survives bit for bit.
    for (auto& [op, by_inputs] : (*before)["cache"].items())
        for (auto& [in, by_prec] : by_inputs.items())
            for (auto& [p, choices] : by_prec.items())
                for (auto& [c, ms] : choices.items())
                    EXPECT_EQ((*after)["cache"][op][in][p][c].get<double>(), ms.get<double>()) << c;
    EXPECT_TRUE(
        std::isinf((*after)["cache"]["kiln_matmul"][mine.inputs_key]["highest"]["kiln_matmul-cdef"].get<double>()));
    // The file reads as Python would write it: 4-space indent, Infinity for a failed choice.
    std::string text = kiln::test::read_file(file);
    EXPECT_NE(text.find("\n    \"cache\": {"), std::string::npos);
    EXPECT_NE(text.find("\"kiln_matmul-cdef\": Infinity"), std::string::npos);
    EXPECT_NE(text.find("\"mm-cqrjyn5jqdhj5q3lohxxeq3fxnpvy6qsigzdm2ykqas7fpkl7zrz\": 0.006144000217318535"),
              std::string::npos);
}

TEST(TimingCache, GlobalCacheIsReadOnlyAndLocalWins) {
    kiln::test::ScratchDir dir("tc-global");
    fs::path global = dir.path() / "global";
    SystemInfo sys = cpu_system();
    TimingCache writer(global.parent_path() / "g", sys);
    TimingKey key{"op", "[]"};
    ASSERT_TRUE(writer.update(key, {{"a", 1.0}, {"b", 2.0}}).ok());
    fs::create_directories(global);
    fs::copy_file(writer.local_path(), global / sys.hash);

    TimingCache cache(dir.path() / "root", sys, global);
    ASSERT_TRUE(cache.update(key, {{"b", 3.0}}).ok());
    auto t = cache.lookup(key);
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t->at("a"), 1.0);
    EXPECT_EQ(t->at("b"), 3.0);
    auto g = read_cache_file(global / sys.hash);
    EXPECT_EQ((*g)["cache"]["op"]["[]"]["highest"]["b"].get<double>(), 2.0);  // never written
}

TEST(TimingCache, EightProcessesTimesFiftyUpdatesLoseNothing) {
    kiln::test::ScratchDir dir("tc-concurrent");
    copy_fixture_cache(dir.path());
    SystemInfo sys = cuda_system(dir.path(), "NVIDIA H100 80GB HBM3", "13.0");
    constexpr int kProcs = 8, kUpdates = 50;
    std::vector<pid_t> kids;
    for (int p = 0; p < kProcs; ++p) {
        pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            TimingCache cache(dir.path(), sys);
            int failures = 0;
            for (int i = 0; i < kUpdates; ++i) {
                TimingKey key{"concurrent", "[('cpu', 'torch.float32', " + std::to_string(p % 2) + ")]"};
                if (!cache.update(key, {{"p" + std::to_string(p) + "-u" + std::to_string(i), p + i / 100.0}}).ok())
                    ++failures;
            }
            _exit(failures == 0 ? 0 : 1);
        }
        kids.push_back(pid);
    }
    for (pid_t k : kids) {
        int status = 0;
        waitpid(k, &status, 0);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    TimingCache cache(dir.path(), sys);
    auto all = cache.read_local();
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(count_timings(*all), 41u + kProcs * kUpdates);
    for (int p = 0; p < kProcs; ++p) {
        auto t = cache.lookup({"concurrent", "[('cpu', 'torch.float32', " + std::to_string(p % 2) + ")]"});
        for (int i = 0; i < kUpdates; ++i) EXPECT_EQ(t->count("p" + std::to_string(p) + "-u" + std::to_string(i)), 1u);
    }
}

TEST(TimingCache, CorruptFileIsAnErrorWithItsPath) {
    kiln::test::ScratchDir dir("tc-corrupt");
    SystemInfo sys = cpu_system();
    fs::create_directories(dir.path() / "cache");
    std::ofstream(dir.path() / "cache" / sys.hash) << "{\"cache\": [1,";
    TimingCache cache(dir.path(), sys);
    auto r = cache.lookup({"op", "[]"});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().context.find(sys.hash), std::string::npos);
    EXPECT_FALSE(cache.update({"op", "[]"}, {{"a", 1.0}}).ok());  // never overwrite what we cannot read
}

// issue 42 #9: Inductor rewrites the file without a lock (read, add, rename) while the tuner merges
// into it: whatever Inductor renamed in after the tuner's read is merged too, never dropped.
TEST(TimingCache, AnInductorStyleWriterAtTheSameTimeLosesNoEntry) {
    constexpr int kRounds = 4, kTorchEntries = 200;
    int lost = 0;
    for (int round = 0; round < kRounds; ++round) {
        kiln::test::ScratchDir dir("tc-torch-race");
        const fs::path file = copy_fixture_cache(dir.path());
        TimingCache cache(dir.path(), cuda_system(dir.path(), "NVIDIA H100 80GB HBM3", "13.0"));
        ASSERT_EQ(cache.local_path(), file);
        std::atomic<bool> done{false};
        std::thread torch([&] {
            for (int i = 0; i < kTorchEntries; ++i)
                kiln::test::torch_style_set(file, "torch_op", "[" + std::to_string(i) + "]", "choice", i);
            done = true;
        });
        for (int u = 0; !done; ++u)
            if (!cache.update({"kiln_op", "[" + std::to_string(u) + "]"}, {{"c", 1.0}}).ok()) {
                ADD_FAILURE() << "update " << u << " failed";
                break;
            }
        torch.join();
        auto all = cache.read_local();
        ASSERT_TRUE(all.ok()) << all.error().str();
        lost += kTorchEntries - static_cast<int>(all->contains("torch_op") ? (*all)["torch_op"].size() : 0);
    }
    EXPECT_EQ(lost, 0) << "of " << kRounds * kTorchEntries;
}

// issue 42 #5: a dangling lock link or a lock folder that is a link is refused; nothing is created
// where it points, and the timings are not written.
TEST(TimingCache, ASymlinkedLockIsRefused) {
    kiln::test::ScratchDir dir("tc-lock-link");
    const fs::path file = copy_fixture_cache(dir.path());
    TimingCache cache(dir.path(), cuda_system(dir.path(), "NVIDIA H100 80GB HBM3", "13.0"));
    const std::string before = kiln::test::read_file(file);
    fs::create_directories(dir.path() / "locks");
    fs::create_directories(dir.path() / "outside");
    fs::create_symlink(dir.path() / "outside" / "pwn", cache.lock_path());
    auto s = cache.update({"op", "[]"}, {{"a", 1.0}});
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().str().find("symbolic link"), std::string::npos) << s.error().str();
    EXPECT_FALSE(fs::exists(dir.path() / "outside" / "pwn"));
    fs::remove_all(dir.path() / "locks");
    fs::create_directory_symlink(dir.path() / "outside", dir.path() / "locks");
    EXPECT_FALSE(cache.update({"op", "[]"}, {{"a", 1.0}}).ok());
    EXPECT_TRUE(fs::is_empty(dir.path() / "outside"));
    EXPECT_EQ(kiln::test::read_file(file), before);
}
