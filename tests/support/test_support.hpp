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
// Every single-process TORCH_TRACE run of the fixtures: the H100's cold, warm and changed, the H200's warm
// and mega, two-entries', PGO's.
std::vector<std::filesystem::path> fixture_traces();
std::vector<std::filesystem::path> fixture_rank_traces();  // the ranks fixture's four, one per rank
std::filesystem::path source_dir();
std::filesystem::path binary_dir();
std::string cli_path();     // $KILN_CLI
std::string worker_path();  // $KILN_WORKER

std::string read_file(const std::filesystem::path& p);

// A fresh directory under the build tree (as root under a private home, the temp folder: `nobody`
// must reach it), removed when the object dies.
class ScratchDir {
public:
    explicit ScratchDir(const std::string& tag);
    ~ScratchDir();
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

// kiln-cli where a child run as `nobody` can execute it: cli_path() when every folder above it lets
// others through, else a copy in `dir`.
std::string cli_path_for_others(const ScratchDir& dir);

struct CommandResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};
// Runs argv (no shell), capturing stdout and stderr.
CommandResult run_command(const std::vector<std::string>& argv, const std::string& stdin_data = {});

// Writes `python3` into `dir`: this machine's real interpreter with site-packages hidden (-S), so torch
// cannot be imported whatever is installed. Returns $PATH with `dir` first, for a child's environment or
// setenv, so that "this machine" means one without torch on a GPU host too.
std::string path_without_torch(const std::filesystem::path& dir);

// This machine's CUDA driver: whether libcuda.so.1 loads, and whether it sees a device (the GPU hosts;
// CI machines have neither).
bool cuda_driver_loads();
bool has_cuda_device();

}  // namespace kiln::test
