#pragma once
// Paths to the extracted fixtures and scratch directories for tests.
#include <filesystem>
#include <string>
#include <vector>

namespace kiln::test {

std::filesystem::path fixture_dir();       // <build>/fixtures
std::filesystem::path h100_root();         // fixtures/h100/inductor
std::filesystem::path two_entries_root();  // fixtures/two/inductor
std::filesystem::path h100_h200_root();    // fixtures/h100h200/inductor (H100 cache then used on an H200)
std::filesystem::path pgo_root();          // fixtures/pgo/inductor (PGO profile, Mega-Cache blob)
std::filesystem::path source_dir();
std::filesystem::path binary_dir();
std::string cli_path();     // $KILN_CLI
std::string worker_path();  // $KILN_WORKER

std::string read_file(const std::filesystem::path& p);

// A fresh directory under the build tree, removed when the object dies.
class ScratchDir {
public:
    explicit ScratchDir(const std::string& tag);
    ~ScratchDir();
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

struct CommandResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};
// Runs argv (no shell), capturing stdout and stderr.
CommandResult run_command(const std::vector<std::string>& argv, const std::string& stdin_data = {});

}  // namespace kiln::test
