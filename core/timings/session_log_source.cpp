#include "timings/session_log_source.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include "timings/py_literal.hpp"
#include "timings/text_file.hpp"
#include "timings/timing_cache_source.hpp"
#include "util/json_get.hpp"

namespace kiln::timings {
namespace {

using J = nlohmann::ordered_json;

std::string text_of(const J& rec, const char* key) {
    auto it = rec.find(key);
    if (it == rec.end() || it->is_null()) return {};
    return it->is_string() ? it->get<std::string>() : it->dump();
}

// The record's "event" ("" when absent or not a string: the line is then skipped).
std::string event_of(const J& rec) { return json_get::string_field_or(rec, "event", {}, "").value_or(""); }

struct Header {
    std::string op, inputs, precision;
    std::vector<std::string> sizes, strides;
};

Header header_of(const J& rec) {
    Header h;
    h.op = text_of(rec, "op");
    h.precision = text_of(rec, "precision");
    h.inputs = text_of(rec, "inputs_key");
    if (auto keys = parse_inputs_key(h.inputs); keys.ok()) h.inputs = describe_inputs(*keys, &h.sizes, &h.strides);
    return h;
}

Choice choice_of(const J& rec) {
    Choice c;
    c.name = text_of(rec, "choice");
    // A time is finite and >= 0 (util/json_get); -1000 or NaN never wins, it is the choice's error.
    auto ms = json_get::optional_time_field(rec, "ms", {});
    if (ms) c.ms = *ms;
    std::string status = text_of(rec, "status");
    if (status.empty() && event_of(rec) == "cache_hit") status = "cached";
    const bool ok_status = status == "ok" || status == "cached" || status.empty();
    if (!c.ms || !ok_status) {
        c.ms.reset();  // a failed choice's time is not a result
        std::string reason = text_of(rec, "reason");
        c.error = status.empty() ? reason : (reason.empty() ? status : status + ": " + reason);
        if (!ms && ok_status) c.error = "not a time: " + ms.error().message;
        if (c.error.empty()) c.error = "no time recorded";
    }
    if (auto it = rec.find("params"); it != rec.end() && it->is_object()) c.params = *it;
    return c;
}

}  // namespace

bool looks_like_session_log(const std::string& head) {
    auto j = J::parse(head.substr(0, head.find('\n')), nullptr, false);
    return j.is_object() && event_of(j) == "session_start";
}

SessionTimings parse_session_log(const std::string& text, const std::string& origin) {
    SessionTimings log;
    Header h;
    std::map<std::string, size_t> op_of_device;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        auto rec = J::parse(line, nullptr, false);
        if (rec.is_discarded() || !rec.is_object()) {
            ++log.skipped_lines;
            continue;
        }
        const std::string event = event_of(rec);
        if (event == "session_start") {
            h = header_of(rec);
            log.device = text_of(rec, "devices");
            if (auto n = json_get::integer_field(rec, "choices", {}, 0, std::numeric_limits<int>::max()))
                log.planned_choices = static_cast<int>(*n);
            continue;
        }
        if (event == "session_end") {
            log.ended = true;
            continue;
        }
        if (event != "measurement" && event != "cache_hit") {
            ++log.skipped_lines;
            continue;
        }
        ++log.measured;
        std::string device = text_of(rec, "device");
        if (device.empty()) device = log.device;
        auto [it, fresh] = op_of_device.emplace(device, log.ops.size());
        if (fresh) {
            Op op;
            op.op = h.op;
            op.inputs = h.inputs;
            op.sizes = h.sizes;
            op.strides = h.strides;
            op.precision = h.precision;
            op.device = device;
            op.source = origin;
            log.ops.push_back(std::move(op));
        }
        log.ops[it->second].choices.push_back(choice_of(rec));
    }
    for (auto& op : log.ops) pick_best(op);
    return log;
}

Result<SessionTimings> read_session_log(const std::filesystem::path& path) {
    KILN_TRY(std::string text, read_text_file(path, 256u << 20));
    return parse_session_log(text, path.string());
}

}  // namespace kiln::timings
