// Issue 42 #4 for `autotune`'s session log: SessionLog::default_path builds the log's file name from the
// spec's op name, which is data (a spec, a timing cache), never part of a path. A hostile name gives a
// log inside <root>/kiln/autotune under an escaped name, and nothing anywhere else.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "tuning/session_log.hpp"
#include "util/path_component.hpp"

namespace fs = std::filesystem;

TEST(SessionLogDefaultPath, AHostileOpNameStaysInTheCache) {
    kiln::test::ScratchDir dir("session-log-default-path");
    // Names that, taken as a path, lead out of the logs' folder but never out of the scratch dir (an
    // absolute one too), so that a regression leaves its files where the walk below finds them.
    const std::vector<std::string> names = {"x/../../.../outside/pwn",
                                            "x/../../../../outside/pwn",
                                            "../../../../../outside/pwn",
                                            (dir.path() / "outside" / "abs-pwn").string(),
                                            "..",
                                            ".",
                                            "",
                                            "p" + std::string(3000, '/') + "wn",
                                            std::string("a\0/../b", 7),
                                            "mm"};
    const fs::path root = dir.path() / "a" / "b" / "inductor";
    const fs::path logs = root / "kiln" / "autotune";
    fs::create_directories(root);
    const std::string pid = "-" + std::to_string(::getpid()) + ".jsonl";
    std::set<fs::path> made;
    for (const auto& name : names) {
        const fs::path p = kiln::tuning::SessionLog::default_path(root, name);
        EXPECT_EQ(p.parent_path(), logs) << p;
        const std::string file = p.filename().string();
        EXPECT_EQ(file.rfind(kiln::file_name_part(name) + "-", 0), 0u) << file;
        ASSERT_GT(file.size(), pid.size()) << file;
        EXPECT_EQ(file.substr(file.size() - pid.size()), pid) << file;
        EXPECT_TRUE(kiln::is_plain_file_name(file)) << file;
        auto log = kiln::tuning::SessionLog::open(p);
        ASSERT_TRUE(log.ok()) << log.error().str();
        log->write("session_start", {{"op", name}});
        made.insert(p);
    }
    EXPECT_EQ(made.size(), names.size());  // escaped names still tell the ops apart
    EXPECT_EQ(kiln::tuning::SessionLog::default_path(root, "mm").filename().string().rfind("mm-", 0), 0u);
    for (const auto& e : fs::recursive_directory_iterator(dir.path())) {
        if (e.is_directory()) {
            const fs::path& d = e.path();
            EXPECT_TRUE(d == dir.path() / "a" || d == dir.path() / "a" / "b" || d == root || d == root / "kiln" ||
                        d == logs)
                << d;
        } else {
            EXPECT_EQ(made.count(e.path()), 1u) << e.path();
        }
    }
}
