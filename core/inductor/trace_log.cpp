#include "inductor/trace_log.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include <nlohmann/json.hpp>

#include "util/python_json.hpp"
#include "util/regular_file.hpp"

namespace kiln::inductor {

namespace {

using nlohmann::json;

// "V1126 01:17:33.288000 1311 torch/_inductor/compile_fx.py:1120] {...}": the time and the JSON.
bool split_header(const std::string& line, std::string& time, std::string_view& body) {
    if (line.size() < 24 || std::string_view("VIWEF").find(line[0]) == std::string_view::npos) return false;
    std::size_t close = line.find("] ");
    if (close == std::string::npos) return false;
    std::size_t sp = line.find(' ', 1);
    if (sp == std::string::npos) return false;
    std::size_t sp2 = line.find(' ', sp + 1);
    if (sp2 == std::string::npos || sp2 > close) return false;
    time = line.substr(1, sp2 - 1);
    body = std::string_view(line).substr(close + 2);
    return !body.empty() && body.front() == '{';
}

std::string compile_id_of(const json& meta) {
    auto num = [&](const char* k) -> std::string {
        auto it = meta.find(k);
        return it != meta.end() && it->is_number_integer() ? std::to_string(it->get<std::int64_t>()) : std::string();
    };
    std::string frame = num("frame_id"), fc = num("frame_compile_id"), attempt = num("attempt");
    if (frame.empty() || fc.empty()) return {};
    std::string id = frame + "/" + fc;
    if (!attempt.empty() && attempt != "0") id += "_" + attempt;
    if (std::string ca = num("compiled_autograd_id"); !ca.empty()) id = "!" + ca + "/" + id;
    return id;
}

std::optional<std::int64_t> int_field(const json& j, const char* k) {
    auto it = j.find(k);
    if (it == j.end() || !it->is_number_integer()) return std::nullopt;
    return it->get<std::int64_t>();
}

std::string str_field(const json& j, const char* k) {
    auto it = j.find(k);
    if (it == j.end() || it->is_null()) return {};
    return it->is_string() ? it->get<std::string>() : it->dump();
}

// "fx_graph_cache_miss" -> cache "fx_graph", state "miss"; false for other artifacts.
bool classify(const std::string& name, std::string& cache, std::string& state) {
    for (const char* prefix : {"fx_graph_cache_", "aotautograd_cache_"}) {
        std::string_view p(prefix);
        if (name.compare(0, p.size(), p) != 0) continue;
        std::string s = name.substr(p.size());
        if (s != "hit" && s != "miss" && s != "bypass") return false;
        cache = std::string(p.substr(0, p.size() - 7));
        state = s;
        return true;
    }
    return false;
}

using Record = TraceRecord;

Status to_event(const Record& r, const std::string& log, std::vector<CacheEvent>& out) {
    // Cheap filter first: most records are not cache artifacts.
    if (r.header_json.find("\"artifact\"") == std::string::npos || r.header_json.find("_cache_") == std::string::npos)
        return ok_status();
    json meta = json::parse(r.header_json, nullptr, false);
    if (meta.is_discarded() || !meta.contains("artifact")) return ok_status();
    CacheEvent e;
    e.artifact = str_field(meta["artifact"], "name");
    if (!classify(e.artifact, e.cache, e.state)) return ok_status();
    std::string where = log + ":" + std::to_string(r.line);
    json p = json::parse(r.payload, nullptr, false);
    if (p.is_discarded() || !p.is_object())
        return make_error(Errc::parse, "cache event " + e.artifact + " without a JSON object payload", where,
                          "the log may be truncated");
    e.log = log;
    e.line = r.line;
    e.timestamp = r.time;
    e.key = str_field(p, "key");
    e.compile_id = str_field(p, "compile_id");
    if (e.compile_id.empty()) e.compile_id = compile_id_of(meta);
    if (std::string s = str_field(p, "cache_state"); !s.empty()) e.state = s;
    e.status_detailed = str_field(p, "cache_status_detailed");
    e.reason = str_field(p, "cache_bypass_reason");
    if (e.reason.empty()) e.reason = str_field(p, "reason");
    e.time_taken_ns = int_field(p, "time_taken_ns");
    e.time_saved_ns = int_field(p, "time_saved_ns");
    if (auto it = p.find("components"); it != p.end() && it->is_array()) {
        for (const auto& c : *it)
            if (c.is_string()) e.components.push_back(c.get<std::string>());
    }
    out.push_back(std::move(e));
    return ok_status();
}

}  // namespace

Status for_each_trace_record(const std::filesystem::path& path, const std::function<bool(const TraceRecord&)>& fn) {
    KILN_TRY(OpenedFile file, open_regular_file(path));  // a FIFO or a directory is a clear error, no block
    if (file.size == 0)
        return make_error(Errc::parse, "the log is empty", path.string(), "pass a log written with TORCH_TRACE=<dir>");
    std::FILE* stream = ::fdopen(file.fd.get(), "rb");
    if (!stream) return io_error("fdopen", path.string(), errno);
    file.fd.release();
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> closer(stream, &std::fclose);
    char* buf = nullptr;
    std::size_t cap = 0;
    struct FreeLine {
        char*& p;
        ~FreeLine() { std::free(p); }
    } free_line{buf};
    auto getline_from = [&](std::string& out) {
        ssize_t n = ::getline(&buf, &cap, stream);
        if (n < 0) return false;
        out.assign(buf, static_cast<std::size_t>(n));
        if (!out.empty() && out.back() == '\n') out.pop_back();
        return true;
    };
    std::string line;
    Record rec;
    bool have = false, stop = false;
    std::size_t lineno = 0, headers = 0;
    Status too_deep = ok_status();
    auto flush = [&] {
        // Every reader parses the header and the payload as JSON and walks them: bound the nesting here.
        if (have && !stop &&
            (json_nesting_depth(rec.header_json) > kMaxJsonDepth || json_nesting_depth(rec.payload) > kMaxJsonDepth)) {
            too_deep = make_error(Errc::parse,
                                  "a record's JSON is nested deeper than " + std::to_string(kMaxJsonDepth) + " levels",
                                  path.string() + ":" + std::to_string(rec.line), "the log is corrupt or hostile");
            stop = true;
        }
        if (have && !stop) stop = !fn(rec);
        have = false;
    };
    while (!stop && getline_from(line)) {
        ++lineno;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!line.empty() && line[0] == '\t') {
            if (have) {
                if (!rec.payload.empty()) rec.payload += '\n';
                rec.payload.append(line, 1);
            }
            continue;
        }
        flush();
        std::string time;
        std::string_view body;
        if (!split_header(line, time, body)) continue;
        ++headers;
        rec = Record{lineno, std::move(time), std::string(body), {}};
        have = true;
    }
    flush();
    KILN_CHECK(too_deep);
    if (headers == 0 && lineno > 0)
        return make_error(Errc::parse, "no TORCH_TRACE records (glog lines followed by '{...}')", path.string(),
                          "pass a log written with TORCH_TRACE=<dir>");
    return ok_status();
}

Result<std::vector<CacheEvent>> read_trace_log(const std::filesystem::path& path) {
    std::vector<CacheEvent> out;
    std::string log = path.string();
    Status failed = ok_status();
    KILN_CHECK(for_each_trace_record(path, [&](const TraceRecord& r) {
        failed = to_event(r, log, out);
        return failed.ok();
    }));
    if (!failed) return std::move(failed.error());
    return out;
}

Result<std::vector<std::filesystem::path>> trace_log_files(const std::filesystem::path& path_or_dir) {
    std::error_code ec;
    if (!std::filesystem::is_directory(path_or_dir, ec)) return std::vector<std::filesystem::path>{path_or_dir};
    std::vector<std::filesystem::path> files;
    for (auto it = std::filesystem::recursive_directory_iterator(path_or_dir, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec) && it->path().filename().string().front() != '.') files.push_back(it->path());
    }
    if (ec) return io_error("list", path_or_dir.string(), ec.value());
    std::sort(files.begin(), files.end());
    return files;
}

Result<std::vector<CacheEvent>> read_trace_logs(const std::filesystem::path& path_or_dir) {
    KILN_TRY(auto files, trace_log_files(path_or_dir));
    std::vector<CacheEvent> out;
    for (const auto& f : files) {
        KILN_TRY(auto events, read_trace_log(f));
        for (auto& e : events) out.push_back(std::move(e));
    }
    return out;
}

}  // namespace kiln::inductor
