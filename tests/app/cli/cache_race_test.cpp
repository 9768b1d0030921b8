// Issue 29's race loop: `check --quarantine`, `check --restore` and `evict` run over and over on one
// cache while writers add compiled modules the way torch and Kiln's code cache do (the key's lock
// held while writing, the compiler's output written to a hidden temporary and renamed into place).
// Bounded (a fixed number of rounds, a few seconds). Nothing may be lost: every writer succeeds, and
// at the end (every quarantine restored) each file is back with its bytes, unless `evict` reported
// removing its group, which only the old groups it was asked to remove may be.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "../../core/inductor/scanner_test_helpers.hpp"
#include "test_support.hpp"
#include "util/atomic_file.hpp"
#include "util/file_lock.hpp"
#include "util/json_in.hpp"

namespace fs = std::filesystem;

namespace kiln::test {
namespace {

std::string random_key(std::mt19937_64& rng) {
    static const char* b32 = "abcdefghijklmnopqrstuvwxyz234567";
    std::string key = "c";
    for (int i = 0; i < 51; ++i) key += b32[rng() % 32];
    return key;
}

std::map<std::string, std::string> contents_under(const fs::path& root) {
    std::map<std::string, std::string> out;
    for (auto& e : fs::recursive_directory_iterator(root)) {
        std::string rel = fs::relative(e.path(), root).string();
        if (rel.rfind(".kiln-quarantine", 0) == 0 || !e.is_regular_file() || e.is_symlink()) continue;
        out[rel] = read_file(e.path());
    }
    return out;
}

// A real shared library of the H100 fixture: what a C++ build leaves.
std::string some_library() {
    for (auto& e : fs::recursive_directory_iterator(h100_root()))
        if (e.path().extension() == ".so") return read_file(e.path());
    return {};
}

// One module the way a compiler writes it under Kiln's code cache: the key's lock held, the output
// written into ".<key>.<pid>.<tid>.tmp.so" (empty at first, then filled, as a compiler does) and
// renamed onto <xx>/<key>.so, its source beside it through write_atomic. Errors as text.
std::string write_module(const fs::path& root, const std::string& key, const std::string& so, const std::string& py) {
    auto lock = FileLock::acquire(root / "locks" / (key + ".lock"), std::chrono::seconds(20));
    if (!lock) return "lock: " + lock.error().str();
    const fs::path dir = root / key.substr(1, 2);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return "mkdir: " + ec.message();
    const fs::path tmp = dir / ("." + key + temp_suffix() + ".tmp.so");
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return "create " + tmp.string();
    std::this_thread::sleep_for(std::chrono::milliseconds(30));  // the compiler at work
    bool wrote = ::write(fd, so.data(), so.size()) == static_cast<ssize_t>(so.size());
    ::close(fd);
    if (!wrote) return "write " + tmp.string();
    if (::rename(tmp.c_str(), (dir / (key + ".so")).c_str()) != 0)
        return "rename " + tmp.string() + ": " + std::strerror(errno);
    if (auto s = write_atomic(dir / (key + ".py"), py, false); !s.ok()) return "source: " + s.error().str();
    return {};
}

TEST(CliCacheRace, QuarantineRestoreEvictAndWritersLoseNothing) {
    ScratchDir dir{"cache-race"};
    const fs::path root = dir.path() / "cache";
    copy_tree(two_entries_root(), root);
    const std::string so = some_library();
    ASSERT_GT(so.size(), 1000u);
    std::mt19937_64 rng(29);
    set_tree_times(root, now_ns());
    // Broken modules (truncated libraries) for the quarantine to move and the restores to bring back,
    // and old healthy ones, ten days unused, for `evict --older-than 5d` to remove.
    std::set<std::string> old_modules;
    for (int i = 0; i < 4; ++i) {
        std::string key = random_key(rng);
        fs::create_directories(root / key.substr(1, 2));
        std::ofstream(root / key.substr(1, 2) / (key + ".so")) << so.substr(0, so.size() / 3);
        key = random_key(rng);
        fs::create_directories(root / key.substr(1, 2));
        const fs::path old = root / key.substr(1, 2) / (key + ".py");
        std::ofstream(old) << "# an old kernel module\n";
        set_times(old, now_ns() - 10 * kDayNs);
        old_modules.insert(old.string());
    }
    const auto seeded = contents_under(root);

    std::mutex mu;
    std::vector<std::string> failures;
    std::set<std::string> evicted;  // absolute group paths evict reported removed
    std::map<std::string, std::string> written;
    auto fail = [&](std::string what) {
        std::lock_guard<std::mutex> g(mu);
        failures.push_back(std::move(what));
    };
    std::vector<std::thread> threads;
    for (int w = 0; w < 2; ++w)
        threads.emplace_back([&, w] {
            std::mt19937_64 local(1000 + static_cast<unsigned>(w));
            for (int i = 0; i < 12; ++i) {
                std::string key = random_key(local);
                std::string py = "# module " + key + "\n";
                if (std::string err = write_module(root, key, so, py); !err.empty()) {
                    fail("writer: " + err);
                    continue;
                }
                std::lock_guard<std::mutex> g(mu);
                written[key.substr(1, 2) + "/" + key + ".so"] = so;
                written[key.substr(1, 2) + "/" + key + ".py"] = py;
            }
        });
    threads.emplace_back([&] {
        for (int i = 0; i < 8; ++i) {
            auto r = run_command({cli_path(), "check", root.string(), "--quarantine", "--json"});
            if (r.exit_code != 0 && r.exit_code != 1) fail("check --quarantine: " + r.err);
        }
    });
    threads.emplace_back([&] {
        for (int i = 0; i < 12; ++i) {
            std::vector<std::string> ids;
            std::error_code ec;
            for (auto it = fs::directory_iterator(root / ".kiln-quarantine", ec); !ec && it != fs::directory_iterator();
                 it.increment(ec))
                ids.push_back(it->path().filename().string());
            for (const auto& id : ids) {
                auto r = run_command({cli_path(), "check", root.string(), "--restore", id});
                // 2: nothing of it was left to restore (a quarantine that moved nothing, gone meanwhile).
                if (r.exit_code != 0 && r.exit_code != 2) fail("restore " + id + ": " + r.out + r.err);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    });
    threads.emplace_back([&] {
        for (int i = 0; i < 4; ++i) {
            auto r = run_command({cli_path(), "evict", root.string(), "--older-than", "5d", "--yes", "--json"});
            auto j = parse_json_bytes(r.out);
            if (r.exit_code != 0 || j.is_discarded()) {
                fail("evict: " + r.out + r.err);
                continue;
            }
            std::lock_guard<std::mutex> g(mu);
            for (const auto& removed : j["removed"]) evicted.insert(removed["path"].get<std::string>());
            for (const auto& partial : j["partial"]) evicted.insert(partial["path"].get<std::string>());
        }
    });
    for (auto& t : threads) t.join();
    EXPECT_TRUE(failures.empty()) << failures.size() << " failure(s), the first: " << failures.front();

    // Every quarantine restored: each file is where it was, with its bytes.
    std::vector<std::string> ids;
    std::error_code ec;
    for (auto it = fs::directory_iterator(root / ".kiln-quarantine", ec); !ec && it != fs::directory_iterator();
         it.increment(ec))
        ids.push_back(it->path().filename().string());
    for (const auto& id : ids) {
        auto r = run_command({cli_path(), "check", root.string(), "--restore", id});
        EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << r.out << r.err;  // 2: an empty shell, now gone
    }
    EXPECT_FALSE(fs::exists(root / ".kiln-quarantine"));
    const auto now = contents_under(root);
    for (const auto& path : evicted) EXPECT_TRUE(old_modules.count(path)) << "evict removed " << path;
    for (const auto& [rel, bytes] : seeded) {
        if (evicted.count((root / rel).string())) continue;
        auto it = now.find(rel);
        ASSERT_NE(it, now.end()) << rel << " was lost";
        EXPECT_EQ(it->second, bytes) << rel;
    }
    for (const auto& [rel, bytes] : written) {
        auto it = now.find(rel);
        ASSERT_NE(it, now.end()) << "a writer's " << rel << " was lost";
        EXPECT_EQ(it->second, bytes) << rel;
    }
    EXPECT_EQ(written.size(), 2u * 2u * 12u);
}

}  // namespace
}  // namespace kiln::test
