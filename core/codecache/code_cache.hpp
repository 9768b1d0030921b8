#pragma once
// Kiln's content-addressed code cache: Inductor's layout and keys (<root>/<key[1:3]>/<key>.<ext>,
// key = code_hash(source.strip(), command)), made sturdier: atomic writes, per-key flock locks with
// a timeout, compile into a temporary output then rename, and a JSON build record per artifact.
// Ported from the mechanisms of Inductor's CppCodeCache / CUDACodeCache (codecache.py).
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "codecache/library.hpp"
#include "util/result.hpp"

namespace kiln::codecache {

enum class Lang { Cpp, Cuda };

struct WriteResult {
    std::string key;             // "c" + 51 base32 characters
    std::filesystem::path path;  // <root>/<key[1:3]>/<key>.<ext>
};

struct CompileRequest {
    std::string source;  // the code itself, not a path
    Lang lang = Lang::Cpp;
    std::string out_ext = "so";      // Cpp: so|o|exe; Cuda: so|o|cubin|ptx|fatbin|exe
    std::vector<std::string> flags;  // extra compiler flags, appended to the command (part of the key)
    bool force = false;              // rebuild and atomically replace an existing artifact
};

struct CompileOutcome {
    std::string key;
    std::filesystem::path source_path;
    std::filesystem::path output_path;
    bool hit = false;             // the artifact already existed; no compiler ran
    double seconds = 0;           // wall time of this request (compile included when it ran)
    std::string command;          // the command template with dummy_input/dummy_output: the key's `extra`
    std::string compiler_output;  // stdout+stderr of the compiler (empty on a hit)
};

// {"key", "source", "output", "hit", "seconds", "command"} (kiln-cli compile --json).
nlohmann::ordered_json to_json(const CompileOutcome& outcome);

// Kiln's own code cache when none is named: $KILN_CODE_CACHE_DIR, else $XDG_CACHE_HOME/kiln/code,
// else ~/.cache/kiln/code, else <tmp>/kiln-code.
std::filesystem::path default_code_cache_dir();

struct CodeCacheOptions {
    std::filesystem::path root;  // the cache directory
    std::string cxx;             // empty: $CXX, else "g++"
    std::string nvcc;            // empty: find_nvcc() ($CUDACXX, $CUDA_HOME, PATH)
    std::string cuda_arch;       // e.g. "90"; empty: the device's, else "90"
    std::string opt_level = "-O3";
    std::string march = "-march=native";  // C++ only; empty to leave out
    std::vector<std::string> include_dirs;
    std::vector<std::string> library_dirs;
    std::vector<std::string> libraries;               // names for -l
    std::chrono::milliseconds lock_timeout{600'000};  // Inductor's LOCK_TIMEOUT (600 s)
};

class CodeCache {
public:
    explicit CodeCache(std::filesystem::path root);
    explicit CodeCache(CodeCacheOptions options);

    const CodeCacheOptions& options() const { return options_; }
    const std::filesystem::path& root() const { return options_.root; }
    std::filesystem::path lock_dir() const { return options_.root / "locks"; }

    // Inductor's write(): key = code_hash(content.strip(), extra); written atomically if absent.
    Result<WriteResult> write(std::string_view content, std::string_view ext, std::string_view extra = {}) const;

    // The command template for a request (placeholders dummy_input / dummy_output); it is the key's
    // `extra` and what `kiln-cli compile --json` reports as "command".
    Result<std::string> command_for(const CompileRequest& req) const;
    // The key a request maps to, without touching the disk.
    Result<std::string> key_for(const CompileRequest& req) const;

    // Write the source, compile it under the key's lock unless a valid artifact exists. A compiler
    // failure is an Error (Errc::external): context = the real command, message = exit status and
    // the compiler's output.
    Result<CompileOutcome> compile(const CompileRequest& req) const;

    // dlopen with RTLD_NOW; libraries stay loaded (and are shared) for the life of this CodeCache.
    Result<std::shared_ptr<Library>> load(const std::filesystem::path& path);
    // compile() + load(); a library that fails to load as corrupt (e.g. truncated) is rebuilt once.
    Result<std::shared_ptr<Library>> compile_and_load(const CompileRequest& req, CompileOutcome* outcome = nullptr);

private:
    CodeCacheOptions options_;
    std::mutex loaded_mutex_;
    std::unordered_map<std::string, std::shared_ptr<Library>> loaded_;  // by output path
};

}  // namespace kiln::codecache
