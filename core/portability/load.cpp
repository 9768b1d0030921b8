// `--from PATH` / `--target PATH`: a fingerprint from whatever the path is.
#include <fstream>

#include "frontend/open_cache.hpp"
#include "inductor/roots.hpp"
#include "portability/cache_files.hpp"
#include "portability/key_env.hpp"
#include "portability/sources.hpp"
#include "util/python_json.hpp"
#include "util/regular_file.hpp"

namespace kiln::portability {

namespace fs = std::filesystem;

namespace {

// The first bytes of a regular file ("" for anything else: a FIFO must not block the sniffing).
std::string head_of(const fs::path& p, std::size_t n) {
    auto f = open_regular_file(p);
    if (!f.ok()) return {};
    return read_prefix(*f, n, p.string()).value_or({});
}

Result<Fingerprint> from_json_file(const fs::path& p) {
    KILN_TRY(auto text, read_regular_file(p, 256u << 20));
    KILN_CHECK(check_json_depth(text, p.string()));
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(text, nullptr, false);
    if (j.is_discarded())
        return make_error(Errc::parse, "not valid JSON", p.string(), "pass the output of `kiln-cli env --json`");
    if (j.is_object() && j.contains("kiln_probe"))
        return fingerprint_from_probe(nlohmann::json(j), nullptr, "probe " + p.string());
    if (j.is_object() && j.contains("system") && j.contains("cache")) {  // an autotune timing cache
        KILN_TRY(auto sys, read_timing_system(p, p.filename().string()));
        Fingerprint fp = sys.as_components("cache " + p.string());
        fp.notes.push_back("a timing cache names only the system (device, CUDA and Triton versions)");
        return fp;
    }
    return fingerprint_from_json(j, p.string());
}

// A Mega-Cache blob: a CRC-32, then the format version 1 as a big-endian u64, then the first group's
// type as a length-prefixed base64 string (megacache notes §1).
bool looks_like_megacache(const std::string& head) {
    if (head.size() < 20 || head.compare(4, 8, std::string("\0\0\0\0\0\0\0\x01", 8)) != 0) return false;
    std::uint64_t len = 0;
    for (int i = 12; i < 20; ++i) len = (len << 8) | static_cast<unsigned char>(head[static_cast<std::size_t>(i)]);
    return len > 0 && len < 64;
}

bool looks_like_trace_line(const std::string& head) {
    return head.size() > 24 && std::string("VIWEC").find(head[0]) != std::string::npos &&
           head.find("] {") != std::string::npos;
}

}  // namespace

static Result<Fingerprint> load_fingerprint_unchecked(const fs::path& path);

Result<Fingerprint> load_fingerprint(const fs::path& path) {
    KILN_TRY(Fingerprint fp, load_fingerprint_unchecked(path));
    check_system_hash(fp);
    return fp;
}

static Result<Fingerprint> load_fingerprint_unchecked(const fs::path& path) {
    std::error_code ec;
    if (!fs::exists(path, ec))
        return make_error(
            Errc::not_found, "no such file or directory", path.string(),
            "pass a fingerprint file (kiln-cli env --json), a cache root, a TORCH_TRACE directory or a graph entry");
    if (fs::is_directory(path, ec)) {
        if (inductor::detect_root_kind(path) == inductor::RootKind::inductor) return fingerprint_from_root(path);
        return fingerprint_from_trace(path);
    }
    if (!fs::is_regular_file(path, ec))  // a FIFO, socket or device: never opened for reading
        return wrong_path_error(path, "not a fingerprint file, TORCH_TRACE log, cache root or graph entry");
    std::string head = head_of(path, 4096);
    std::size_t first = head.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && head[first] == '{') return from_json_file(path);
    if (looks_like_trace_line(head)) return fingerprint_from_trace(path);
    if (!head.empty() && static_cast<unsigned char>(head[0]) == 0x80) return fingerprint_from_entry(path);
    if (looks_like_megacache(head)) {
        // The environment the blob's entries were compiled in: read from them as from a cache root.
        KILN_TRY(frontend::OpenedCache blob, frontend::open_cache(path));
        KILN_TRY(Fingerprint fp, fingerprint_from_root(blob.root));
        fp.origin = blob.label;
        return fp;
    }
    return make_error(
        Errc::parse, "not a fingerprint file, TORCH_TRACE log, cache root or graph entry", path.string(),
        "pass the output of `kiln-cli env --json`, a cache root, a TORCH_TRACE directory or a graph entry");
}

}  // namespace kiln::portability
