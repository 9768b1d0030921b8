// Eviction as `check` judges what it leaves (issue 42 #12): `evict --max-files` on a copy of the H100
// fixture must never leave an entry whose graphs or kernels are gone, whatever the limit and whichever
// groups are the least recently used.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>

#include "health/check.hpp"
#include "inductor/evict.hpp"
#include "opened_dir.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace kiln::health {
namespace {

constexpr std::int64_t kDayNs = 86400LL * 1000000000LL;

// Sets a file's atime and mtime to `ns` (nanoseconds since the epoch).
void set_use_time(const fs::path& p, std::int64_t ns) {
    timespec t{static_cast<time_t>(ns / 1000000000LL), static_cast<long>(ns % 1000000000LL)};
    timespec both[2] = {t, t};
    ASSERT_EQ(::utimensat(AT_FDCWD, p.c_str(), both, AT_SYMLINK_NOFOLLOW), 0) << p;
}

// A copy of the H100 fixture whose files were last used `age(relative path)` days before `now`.
fs::path aged_h100_copy(const test::ScratchDir& dir, std::int64_t now,
                        const std::function<int(const std::string&)>& age_days) {
    fs::path root = dir.path() / "cache";
    fs::copy(test::h100_root(), root, fs::copy_options::recursive);
    for (const auto& e : fs::recursive_directory_iterator(root))
        if (e.is_regular_file())
            set_use_time(e.path(), now - age_days(e.path().lexically_relative(root).string()) * kDayNs);
    return root;
}

// What an entry needs and `check` finds gone: its FX graphs, its Triton kernels, its modules.
std::vector<std::string> missing_kernels(const HealthReport& r) {
    std::vector<std::string> out;
    for (const auto& p : r.problems)
        if (p.kind == ProblemKind::aot_fx_key_missing || p.kind == ProblemKind::triton_kernel_missing ||
            p.kind == ProblemKind::kernel_module_missing || p.kind == ProblemKind::cpp_library_missing)
            out.push_back(std::string(problem_kind_name(p.kind)) + " " + p.path + ": " + p.detail);
    return out;
}

std::size_t entries_left(const fs::path& root) {
    std::size_t n = 0;
    for (const char* kind : {"fxgraph", "aotautograd"})
        if (fs::exists(root / kind))
            for (const auto& e : fs::recursive_directory_iterator(root / kind)) n += e.is_regular_file();
    return n;
}

struct Ages {
    const char* name;
    std::function<int(const std::string&)> age_days;
};

TEST(EvictThenCheck, MaxFilesNeverLeavesAnEntryWithoutItsKernels) {
    const std::int64_t now =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    const std::vector<Ages> ages = {
        // The cache: Triton's dirs last used long ago (Triton never reads them again once an
        // entry's hit wrote them back), the entries and modules recently.
        {"triton oldest", [](const std::string& rel) { return rel.rfind("triton/", 0) == 0 ? 20 : 1; }},
        // Every file its own age: groups of one unit spread over the whole LRU order.
        {"scattered", [](const std::string& rel) { return static_cast<int>(std::hash<std::string>{}(rel) % 30); }},
    };
    for (const auto& a : ages) {
        std::size_t kept_entries = 0;  // at the largest limit: the test must see entries stay, not only go
        for (std::uint64_t max_files : {950u, 700u, 400u, 100u}) {
            SCOPED_TRACE(std::string(a.name) + ", --max-files " + std::to_string(max_files));
            test::ScratchDir dir{"health-evict-units"};
            fs::path root = aged_h100_copy(dir, now, a.age_days);
            auto before = check_cache(kiln::test::open_dir(root));
            ASSERT_TRUE(before.ok()) << before.error().str();
            ASSERT_TRUE(missing_kernels(*before).empty());
            const std::size_t entries_before = entries_left(root);

            inductor::EvictPolicy policy;
            policy.max_files = max_files;
            policy.dry_run = false;
            policy.now_ns = now;
            auto evicted = inductor::evict_cache(kiln::test::open_dir(root), policy);
            ASSERT_TRUE(evicted.ok()) << evicted.error().str();
            EXPECT_FALSE(evicted->removed.empty());
            EXPECT_TRUE(evicted->skipped.empty());

            auto after = check_cache(kiln::test::open_dir(root));
            ASSERT_TRUE(after.ok()) << after.error().str();
            for (const auto& m : missing_kernels(*after)) ADD_FAILURE() << m;
            std::printf("%s, --max-files %llu: %zu of %zu entry files left, %zu group(s) removed\n", a.name,
                        static_cast<unsigned long long>(max_files), entries_left(root), entries_before,
                        evicted->removed.size());
            if (max_files == 950) kept_entries = entries_left(root);
        }
        EXPECT_GT(kept_entries, 0u) << a.name;
    }
}

}  // namespace
}  // namespace kiln::health
