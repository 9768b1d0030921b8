#include "trace/trace_log.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <nlohmann/json.hpp>

#include "util/python_json.hpp"
#include "util/regular_file.hpp"
#include "util/utf8.hpp"

namespace kiln::trace {

namespace {

using nlohmann::json;

// Lines of a file read in 1 MB blocks (logs can be hundreds of MB). A line is kept up to `cap` bytes;
// the rest of a longer one is read past, never stored, and `overlong` says so.
class LineReader {
public:
    explicit LineReader(int fd) : fd_(fd) {}
    Result<bool> next(std::string& line, bool& overlong, std::size_t cap, const std::string& context) {
        line.clear();
        overlong = false;
        bool any = false;
        for (;;) {
            if (pos_ < buf_.size()) {
                any = true;
                std::size_t nl = buf_.find('\n', pos_);
                std::size_t end = nl == std::string::npos ? buf_.size() : nl;
                std::size_t keep = std::min(end - pos_, cap - std::min(cap, line.size()));
                // A long line gets room for the longest kept at once (untouched pages cost nothing):
                // growing by doubling would copy it and hold two buffers. Short lines never do this.
                if (line.size() + keep > std::max<std::size_t>(line.capacity(), 1u << 20)) line.reserve(cap);
                line.append(buf_, pos_, keep);
                overlong |= keep < end - pos_;
                pos_ = end;
                if (nl != std::string::npos) {
                    ++pos_;
                    return true;
                }
            }
            if (eof_) return any;
            buf_.resize(1 << 20);
            ssize_t n = ::read(fd_, buf_.data(), buf_.size());
            if (n < 0 && errno == EINTR) {
                buf_.clear();
                pos_ = 0;
                continue;
            }
            if (n < 0) return io_error("cannot read", context, errno);
            buf_.resize(static_cast<std::size_t>(n));
            pos_ = 0;
            eof_ = n == 0;
        }
    }

private:
    int fd_;
    std::string buf_;
    std::size_t pos_ = 0;
    bool eof_ = false;
};

// "V1126 01:17:33.288000 1311 torch/_inductor/compile_fx.py:1120] {...}": the time, the pid and the JSON.
bool split_header(const std::string& line, std::string& time, std::int64_t& pid, std::string_view& body) {
    if (line.size() < 24 || std::string_view("VIWEC").find(line[0]) == std::string_view::npos) return false;
    std::size_t close = line.find("] ");
    if (close == std::string::npos) return false;
    std::size_t sp = line.find(' ', 1);
    if (sp == std::string::npos) return false;
    std::size_t sp2 = line.find(' ', sp + 1);
    if (sp2 == std::string::npos || sp2 > close) return false;
    time = line.substr(1, sp2 - 1);
    pid = 0;
    for (std::size_t i = sp2 + 1; i < close && line[i] >= '0' && line[i] <= '9' && pid < (1LL << 40); ++i)
        pid = pid * 10 + (line[i] - '0');
    body = std::string_view(line).substr(close + 2);
    return !body.empty() && body.front() == '{';
}

std::optional<std::int64_t> int_field(const json& j, const char* k) {
    auto it = j.find(k);
    if (it == j.end()) return std::nullopt;
    if (it->is_number_integer()) return it->get<std::int64_t>();
    if (!it->is_string()) return std::nullopt;
    // Some torch versions log numbers as strings ("1795656479663684013").
    const auto& s = it->get_ref<const std::string&>();
    if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    return std::stoll(s);
}

std::string str_field(const json& j, const char* k) {
    auto it = j.find(k);
    if (it == j.end() || it->is_null()) return {};
    return it->is_string() ? it->get<std::string>() : it->dump();
}

// "fx_graph_cache_miss" -> cache "fx_graph", state "miss"; false for other artifacts.
bool classify(const std::string& name, std::string& cache, std::string& state) {
    if (name == "fx_graph_bundled_cache_hit") {  // the bundled AOT cache served the graph
        cache = "fx_graph";
        state = "hit";
        return true;
    }
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

}  // namespace

std::string record_compile_id(const nlohmann::json& meta) {
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

Status append_cache_event(const TraceRecord& r, const std::string& log, std::vector<CacheEvent>& out,
                          std::vector<TraceGap>* gaps) {
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
    if (p.is_discarded() || !p.is_object()) {
        // Bytes that are not UTF-8 before the payload's last 4 (where a cut would split a character).
        const std::size_t bad = first_invalid_utf8(r.payload);
        if (bad != std::string::npos && bad + 4 < r.payload.size()) {
            // Which payload line and byte: lines are the record's, each written after a tab.
            std::size_t line = r.line + 1, line_start = 0;
            for (std::size_t nl; (nl = r.payload.find('\n', line_start)) != std::string::npos && nl < bad;) {
                ++line;
                line_start = nl + 1;
            }
            return make_error(Errc::parse,
                              "cache event " + e.artifact + ": its payload is not valid UTF-8 (line " +
                                  std::to_string(line) + ", byte " + std::to_string(bad - line_start + 2) + ")",
                              log + ":" + std::to_string(line), "the log is corrupt: JSON text must be UTF-8");
        }
        if (r.last && gaps) {  // the log was cut off inside its last record: report the rest
            const std::size_t payload_lines =
                r.payload.empty() ? 0
                                  : 1 + static_cast<std::size_t>(std::count(r.payload.begin(), r.payload.end(), '\n'));
            gaps->push_back({log, r.line, r.line + payload_lines,
                             "the log ends inside cache event " + e.artifact +
                                 " (a truncated tail, or a log still being written): it is left out"});
            return ok_status();
        }
        return make_error(Errc::parse, "cache event " + e.artifact + " without a JSON object payload", where,
                          "the log may be truncated");
    }
    e.log = log;
    e.line = r.line;
    e.timestamp = r.time;
    e.pid = r.pid;
    e.bundled = e.artifact == "fx_graph_bundled_cache_hit";
    e.guard_expr = str_field(p, "cache_status_guard_expr");
    e.event_time_ns = int_field(p, "cache_event_time");
    e.key = str_field(p, "key");
    e.compile_id = str_field(p, "compile_id");
    if (e.compile_id.empty()) e.compile_id = record_compile_id(meta);
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

std::string TraceGap::str() const {
    std::string lines = std::to_string(first_line);
    if (last_line > first_line) lines += "-" + std::to_string(last_line);
    return log + ":" + lines + ": " + why;
}

Status for_each_trace_record(const std::filesystem::path& path, const std::function<bool(const TraceRecord&)>& fn,
                             std::vector<TraceGap>* gaps) {
    // Through util's regular-file open: a FIFO never blocks, and reading a log beside a cache leaves
    // its atime alone.
    KILN_TRY(OpenedFile file, open_regular_file(path));
    LineReader in(file.fd.get());
    if (file.size == 0)
        return make_error(Errc::parse, "the log is empty", path.string(), "pass a log written with TORCH_TRACE=<dir>");
    constexpr std::size_t kLineCap = kMaxTraceRecordBytes + 1;
    std::string line;
    TraceRecord rec;
    // have: a record is open; closed: a line that is no payload ended its payload; dropped: it grew
    // past the cap and its text was let go (it is skipped, as a gap).
    bool have = false, closed = false, dropped = false, stop = false;
    std::size_t lineno = 0, headers = 0, rec_last_line = 0;
    Status too_deep = ok_status();
    auto skip = [&](std::size_t first, std::size_t last, std::string why) {
        if (gaps) gaps->push_back({path.string(), first, last, std::move(why)});
    };
    auto flush = [&](bool at_end) {
        if (!have || stop) {
            have = false;
            return;
        }
        have = false;
        if (dropped) {
            skip(rec.line, rec_last_line,
                 "a record larger than " + std::to_string(kMaxTraceRecordBytes >> 20) + " MB, skipped");
            return;
        }
        // Every reader parses the header and the payload as JSON and walks them: bound the nesting here.
        if (json_nesting_depth(rec.header_json) > kMaxJsonDepth || json_nesting_depth(rec.payload) > kMaxJsonDepth) {
            too_deep = make_error(Errc::parse,
                                  "a record's JSON is nested deeper than " + std::to_string(kMaxJsonDepth) + " levels",
                                  path.string() + ":" + std::to_string(rec.line), "the log is corrupt or hostile");
            stop = true;
            return;
        }
        rec.last = at_end;
        stop = !fn(rec);
    };
    auto drop = [&] {
        dropped = true;
        std::string().swap(rec.payload);
        std::string().swap(rec.header_json);
    };
    for (;;) {
        bool overlong = false;
        KILN_TRY(bool got, in.next(line, overlong, kLineCap, path.string()));
        if (!got || stop) break;
        ++lineno;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!line.empty() && line[0] == '\t') {
            if (!have || closed) continue;
            rec_last_line = lineno;
            if (dropped) continue;
            if (overlong || rec.header_json.size() + rec.payload.size() + line.size() > kMaxTraceRecordBytes) {
                drop();
                continue;
            }
            if (!rec.payload.empty()) rec.payload += '\n';
            else rec.payload.reserve(line.size());  // the usual one-line payload: exactly, no doubling
            rec.payload.append(line, 1);
            continue;
        }
        std::string time;
        std::int64_t pid = 0;
        std::string_view body;
        if (!split_header(line, time, pid, body)) {
            if (overlong && !line.empty() && std::string_view("VIWEC").find(line[0]) != std::string_view::npos) {
                flush(false);
                skip(lineno, lineno,
                     "a line longer than " + std::to_string(kMaxTraceRecordBytes >> 20) + " MB, skipped");
                continue;
            }
            closed = true;
            continue;
        }
        flush(false);
        ++headers;
        rec = TraceRecord{lineno, std::move(time), pid, std::string(body), {}, false};
        have = true;
        closed = dropped = false;
        rec_last_line = lineno;
        if (overlong) drop();
    }
    flush(true);
    KILN_CHECK(too_deep);
    if (headers == 0 && lineno > 0)
        return make_error(Errc::parse, "no TORCH_TRACE records (glog lines followed by '{...}')", path.string(),
                          "pass a log written with TORCH_TRACE=<dir>");
    return ok_status();
}

Result<std::vector<CacheEvent>> read_trace_log(const std::filesystem::path& path, std::vector<TraceGap>* gaps) {
    std::vector<CacheEvent> out;
    std::string log = path.string();
    Status failed = ok_status();
    std::vector<TraceGap> own;  // the cut-off tail is a gap even when the caller keeps none
    std::vector<TraceGap>* into = gaps ? gaps : &own;
    KILN_CHECK(for_each_trace_record(
        path,
        [&](const TraceRecord& r) {
            failed = append_cache_event(r, log, out, into);
            return failed.ok();
        },
        into));
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

Result<std::vector<CacheEvent>> read_trace_logs(const std::filesystem::path& path_or_dir, std::vector<TraceGap>* gaps) {
    KILN_TRY(auto files, trace_log_files(path_or_dir));
    std::vector<CacheEvent> out;
    for (const auto& f : files) {
        KILN_TRY(auto events, read_trace_log(f, gaps));
        for (auto& e : events) out.push_back(std::move(e));
    }
    return out;
}

}  // namespace kiln::trace
