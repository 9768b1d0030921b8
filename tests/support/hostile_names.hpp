#pragma once
// Names from data (an op key in a timing cache, a spec's op name) that a file name is built from
// (issue 42 #4): one list for every test of such a path, and the walk that says nothing landed
// anywhere else.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace kiln::test {

// Names that, taken as a path, lead out of the folder a file is made in but never out of `scratch`
// (the absolute one is inside it), so that a regression leaves its files where
// expect_only_entries finds them. The last is a plain name.
inline std::vector<std::string> hostile_path_names(const std::filesystem::path& scratch) {
    return {"x/../../.../outside/pwn",
            "x/../../../../outside/pwn",
            "../../../../../outside/pwn",
            (scratch / "outside" / "abs-pwn").string(),
            "..",
            ".",
            "",
            "p" + std::string(3000, '/') + "wn",
            "a\nb",
            std::string("a\0/../b", 7),
            "mm"};
}

// Every entry under `scratch` is one of `dirs` or one of `files`.
inline void expect_only_entries(const std::filesystem::path& scratch, const std::set<std::filesystem::path>& dirs,
                                const std::set<std::filesystem::path>& files) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(scratch)) {
        if (e.is_directory()) EXPECT_EQ(dirs.count(e.path()), 1u) << e.path();
        else EXPECT_EQ(files.count(e.path()), 1u) << e.path();
    }
}

}  // namespace kiln::test
