// Issue 42 #4 for `autotune`'s session log: SessionLog::default_path builds the log's file name from the
// spec's op name, which is data (a spec, a timing cache), never part of a path. A hostile name gives a
// log inside <root>/kiln/autotune under an escaped name, and nothing anywhere else.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "hostile_names.hpp"
#include "test_support.hpp"
#include "tuning/session_log.hpp"
#include "util/path_component.hpp"

namespace fs = std::filesystem;

TEST(SessionLogDefaultPath, AHostileOpNameStaysInTheCache) {
    kiln::test::ScratchDir dir("session-log-default-path");
    const std::vector<std::string> names = kiln::test::hostile_path_names(dir.path());
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
    kiln::test::expect_only_entries(dir.path(), {dir.path() / "a", dir.path() / "a" / "b", root, root / "kiln", logs},
                                    made);
}
