#include "codecache/code_cache.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <system_error>

#include "codecache/artifact_check.hpp"
#include "codecache/build_record.hpp"
#include "codecache/compile_command.hpp"
#include "hash/sha256.hpp"
#include "util/atomic_file.hpp"
#include "util/file_lock.hpp"
#include "util/process.hpp"
#include "util/temp_cleanup.hpp"
#include "util/unique_fd.hpp"
#include "util/utc_time.hpp"

namespace kiln::codecache {
namespace {

using Clock = std::chrono::steady_clock;

// Python's str.strip() for ASCII whitespace (" \t\n\r\v\f" and \x1c-\x1f); Inductor hashes the
// stripped source so leading/trailing blank lines do not change the key.
std::string_view strip_python(std::string_view s) {
    auto space = [](char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' ||
               (c >= '\x1c' && c <= '\x1f');
    };
    while (!s.empty() && space(s.front())) s.remove_prefix(1);
    while (!s.empty() && space(s.back())) s.remove_suffix(1);
    return s;
}

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::filesystem::path path_for(const std::filesystem::path& root, const std::string& key, std::string_view ext) {
    return root / key.substr(1, 2) / (key + "." + std::string(ext));
}

// Temporaries of a killed build for this key (".<key>.<pid>.<tid>.tmp.<ext>"); only called under
// the key's lock, when no live process can be writing them.
void remove_stale_temporaries(const std::filesystem::path& dir, const std::string& key) {
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator(dir, ec); !ec && it != std::filesystem::directory_iterator();
         it.increment(ec)) {
        auto name = it->path().filename().string();
        if (name.rfind("." + key + ".", 0) == 0 && name.find(".tmp.") != std::string::npos)
            std::filesystem::remove(it->path(), ec);
    }
}

}  // namespace

CodeCache::CodeCache(std::filesystem::path root) : CodeCache(CodeCacheOptions{.root = std::move(root)}) {}
CodeCache::CodeCache(CodeCacheOptions options) : options_(std::move(options)) {}

Result<WriteResult> CodeCache::write(std::string_view content, std::string_view ext, std::string_view extra) const {
    WriteResult w;
    w.key = hash::code_hash(strip_python(content), extra);
    w.path = path_for(options_.root, w.key, ext);
    // The key names the content, so an existing file is already right (the seed's exists() check).
    if (::access(w.path.c_str(), F_OK) != 0) KILN_CHECK(write_atomic(w.path, content));
    return w;
}

Result<std::string> CodeCache::command_for(const CompileRequest& req) const {
    KILN_TRY(auto argv, command_template(options_, req));
    return render_command(argv);
}

Result<std::string> CodeCache::key_for(const CompileRequest& req) const {
    KILN_TRY(auto command, command_for(req));
    return hash::code_hash(strip_python(req.source), command);
}

Result<CompileOutcome> CodeCache::compile(const CompileRequest& req) const {
    auto t0 = Clock::now();
    KILN_TRY(auto argv, command_template(options_, req));
    CompileOutcome out;
    out.command = render_command(argv);
    KILN_TRY(auto written, write(req.source, source_ext(req.lang), out.command));
    out.key = written.key;
    out.source_path = written.path;
    out.output_path = path_for(options_.root, out.key, req.out_ext);

    if (!req.force && artifact_problem(out.output_path, req.out_ext).empty()) {
        out.hit = true;
        out.seconds = since(t0);
        return out;
    }
    KILN_TRY(auto lock, FileLock::acquire(lock_dir() / (out.key + ".lock"), options_.lock_timeout));
    // Another process may have built it while we waited for the lock.
    if (!req.force && artifact_problem(out.output_path, req.out_ext).empty()) {
        out.hit = true;
        out.seconds = since(t0);
        return out;
    }
    auto dir = out.output_path.parent_path();
    remove_stale_temporaries(dir, out.key);
    // Keep the real extension last: nvcc and g++ pick behaviour from output names in some modes.
    auto tmp = dir / ("." + out.key + temp_suffix() + ".tmp." + req.out_ext);
    // Removed on SIGTERM/SIGINT/SIGHUP too (registered before the compiler creates it).
    UniqueFd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    TempFileCleanup tmp_cleanup =
        dir_fd.valid() ? TempFileCleanup(dir_fd.get(), tmp.filename().string()) : TempFileCleanup();
    auto real = substitute(argv, out.source_path.string(), tmp.string());
    auto compile_start = Clock::now();
    auto ran = run_process({.argv = real}, {.merge_output = true});
    if (!ran.ok()) {
        Error e = std::move(ran.error());
        if (e.code == Errc::not_found)
            e = make_error(Errc::unavailable, "cannot run the compiler: " + e.message, argv.front(),
                           "install it, or set $CXX / $CUDACXX / --cache options to a compiler that exists");
        return std::move(e).with_context(render_command(real));
    }
    double duration = since(compile_start);
    out.compiler_output = ran->out;
    std::error_code ec;
    if (ran->exit_status != 0) {
        std::filesystem::remove(tmp, ec);
        std::string why = ran->signal ? "compiler killed by signal " + std::to_string(ran->signal)
                                      : "compilation failed (exit status " + std::to_string(ran->exit_status) + ")";
        return make_error(Errc::external, why + "\n" + ran->out, render_command(real),
                          "the compiler's output above says why; the source is " + out.source_path.string());
    }
    if (auto problem = artifact_problem(tmp, req.out_ext); !problem.empty()) {
        std::filesystem::remove(tmp, ec);
        return make_error(Errc::external, "the compiler exited 0 but its output is unusable: " + problem,
                          render_command(real));
    }
    if (Status synced = fsync_file(tmp); !synced.ok()) {
        std::filesystem::remove(tmp, ec);
        return std::move(synced.error());
    }
    if (std::filesystem::rename(tmp, out.output_path, ec); ec) {
        std::filesystem::remove(tmp, ec);
        return io_error("rename compiled output onto", out.output_path.string(), ec.value());
    }
    tmp_cleanup.release();
    BuildRecord rec;
    rec.key = out.key;
    rec.source = out.source_path.string();
    rec.output = out.output_path.string();
    rec.command = render_command(substitute(argv, out.source_path.string(), out.output_path.string()));
    rec.command_template = out.command;
    rec.compiler = argv.front();
    rec.compiler_version = compiler_version(argv.front(), req.lang == Lang::Cuda);
    rec.duration_s = duration;
    rec.exit_code = ran->exit_status;
    rec.time = utc_now(UtcFormat::iso);
    rec.size = std::filesystem::file_size(out.output_path, ec);
    KILN_CHECK(write_build_record(out.output_path, rec));
    out.seconds = since(t0);
    return out;
}

Result<std::shared_ptr<Library>> CodeCache::load(const std::filesystem::path& path) {
    {
        std::lock_guard lock(loaded_mutex_);
        if (auto it = loaded_.find(path.string()); it != loaded_.end()) return it->second;
    }
    KILN_TRY(auto lib, Library::open(path));
    std::lock_guard lock(loaded_mutex_);
    auto [it, inserted] = loaded_.emplace(path.string(), lib);
    return it->second;
}

Result<std::shared_ptr<Library>> CodeCache::compile_and_load(const CompileRequest& req, CompileOutcome* outcome) {
    KILN_TRY(auto out, compile(req));
    auto lib = load(out.output_path);
    if (!lib.ok() && out.hit) {
        // Corrupt in a way the header check missed: rebuild once, replacing it atomically.
        CompileRequest again = req;
        again.force = true;
        KILN_TRY(out, compile(again));
        lib = load(out.output_path);
    }
    if (outcome) *outcome = out;
    return lib;
}

nlohmann::ordered_json to_json(const CompileOutcome& o) {
    nlohmann::ordered_json j;
    j["key"] = o.key;
    j["source"] = o.source_path.string();
    j["output"] = o.output_path.string();
    j["hit"] = o.hit;
    j["seconds"] = o.seconds;
    j["command"] = o.command;
    return j;
}

std::filesystem::path default_code_cache_dir() {
    if (const char* d = std::getenv("KILN_CODE_CACHE_DIR"); d && *d) return d;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::filesystem::path(x) / "kiln/code";
    if (const char* h = std::getenv("HOME"); h && *h) return std::filesystem::path(h) / ".cache/kiln/code";
    return std::filesystem::temp_directory_path() / "kiln-code";
}

}  // namespace kiln::codecache
