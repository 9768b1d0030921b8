#include "handback/retune_run.hpp"

#include <cmath>
#include <limits>

#include "util/json_get.hpp"
#include "util/python_json.hpp"
#include "util/regular_file.hpp"

namespace kiln::handback {
namespace {

using Json = nlohmann::ordered_json;

using json_get::JsonAt;
namespace jg = json_get;

Error bad(const std::string& origin, const std::string& where, const std::string& what) {
    return make_error(Errc::parse, "retune result: " + where + ": " + what, origin,
                      "give the output of `kiln-cli retune ROOT --json`, unchanged");
}

// A device index or count: an int (the run's JSON says `0`, never 1e22).
constexpr std::int64_t kMaxIndex = std::numeric_limits<int>::max();

Result<RunDevice> device_from(const Json& j, const JsonAt& at) {
    RunDevice d;
    KILN_TRY(auto index, jg::integer_field(j, "index", at, 0, kMaxIndex));
    d.index = static_cast<int>(index);
    KILN_TRY(d.name, jg::string_field(j, "name", at));
    KILN_TRY(d.arch, jg::string_field_or(j, "arch", at, ""));
    return d;
}

Result<Measurement> measurement_from(const Json& j, const JsonAt& at) {
    Measurement m;
    KILN_TRY(auto device, jg::integer_field(j, "device", at, 0, kMaxIndex));
    m.device = static_cast<int>(device);
    KILN_TRY(m.status, jg::string_field(j, "status", at));
    // A time that is not one is no measurement: "ok" with -1000 ms or NaN is refused here, not
    // written into torch's cache (issue 42 #8). Infinity means failed only in torch's own file.
    KILN_TRY(m.ms, jg::optional_time_field(j, "ms", at));
    KILN_TRY(m.spread_ms, jg::optional_time_field(j, "spread_ms", at));
    KILN_TRY(m.why, jg::string_field_or(j, "why", at, ""));
    KILN_TRY(m.torch_inf, jg::boolean_field_or(j, "torch_inf", at, false));
    return m;
}

// The choice's fields; an error names the first that could not be read.
Status read_choice(RunChoice& c, const Json& j, const JsonAt& at) {
    KILN_TRY(c.name, jg::string_field(j, "name", at));
    KILN_TRY(c.kind, jg::string_field_or(j, "kind", at, ""));
    KILN_TRY(c.runnable, jg::boolean_field_or(j, "runnable", at, false));
    KILN_TRY(c.why, jg::string_field_or(j, "why", at, ""));
    KILN_TRY(c.recorded_ms, jg::optional_time_field(j, "recorded_ms", at, jg::Time::infinity_failed));
    KILN_TRY(const Json* measured, jg::field(j, "measured", at));
    if (!measured || measured->is_null()) return ok_status();
    if (!measured->is_array())
        return jg::error_at(at.key("measured"), "is " + jg::describe(*measured) + ", not a list");
    for (size_t i = 0; i < measured->size(); ++i) {
        KILN_TRY(auto m, measurement_from((*measured)[i], at.key("measured").index(i)));
        c.measured.push_back(std::move(m));
    }
    return ok_status();
}

RunChoice choice_from(const Json& j, const JsonAt& at) {
    RunChoice c;
    if (Status s = read_choice(c, j, at); !s.ok()) {
        c.unreadable = s.error().message;
        c.runnable = false;
        c.measured.clear();
    }
    return c;
}

Status read_op(RunOp& op, const Json& j, const JsonAt& at) {
    KILN_TRY(op.op, jg::string_field(j, "op", at));
    KILN_TRY(op.inputs, jg::string_field(j, "inputs", at));
    KILN_TRY(op.precision, jg::string_field(j, "precision", at));
    KILN_TRY(const Json* r, jg::field(j, "recorded_for", at));
    if (r && r->is_object()) {
        JsonAt w = at.key("recorded_for");
        KILN_TRY(op.recorded_for.system_hash, jg::string_field_or(*r, "system_hash", w, ""));
        KILN_TRY(op.recorded_for.device, jg::string_field_or(*r, "device", w, ""));
        KILN_TRY(op.recorded_for.triton, jg::string_field_or(*r, "triton", w, ""));
        KILN_TRY(op.recorded_for.cuda, jg::string_field_or(*r, "cuda", w, ""));
    }
    KILN_TRY(const Json* choices, jg::field(j, "choices", at));
    if (!choices || !choices->is_array()) return jg::error_at(at, "has no \"choices\" list");
    for (size_t i = 0; i < choices->size(); ++i)
        op.choices.push_back(choice_from((*choices)[i], at.key("choices").index(i)));
    return ok_status();
}

RunOp op_from(const Json& j, const JsonAt& at) {
    RunOp op;
    if (Status s = read_op(op, j, at); !s.ok()) {
        op.unreadable = s.error().message;
        op.choices.clear();
    }
    return op;
}

Json opt(const std::optional<double>& v) { return v ? Json(*v) : Json(); }

}  // namespace

std::string RunOp::label() const { return op + " " + inputs + " " + precision; }

bool Measurement::ok() const { return status == "ok" && ms && std::isfinite(*ms) && *ms >= 0; }

const Measurement* RunChoice::on(int device) const {
    for (const auto& m : measured)
        if (m.device == device) return &m;
    return nullptr;
}

const RunDevice* RetuneRun::device(int index) const {
    for (const auto& d : devices)
        if (d.index == index) return &d;
    return nullptr;
}

Result<RetuneRun> run_from_json(const Json& j, const std::string& origin) {
    if (!j.is_object()) return bad(origin, "top level", "not an object");
    if (!j.contains("devices") || !j["devices"].is_array()) return bad(origin, "top level", "no \"devices\" list");
    if (!j.contains("ops") || !j["ops"].is_array()) return bad(origin, "top level", "no \"ops\" list");
    RetuneRun run;
    const JsonAt top{origin, ""};
    for (size_t i = 0; i < j["devices"].size(); ++i) {
        const auto& d = j["devices"][i];
        JsonAt at = top.key("devices").index(i);
        auto dev = device_from(d, at);
        if (!dev) {
            run.problems.push_back(dev.error().message);
            continue;
        }
        if (run.device(dev->index))
            return bad(origin, at.path, "device " + std::to_string(dev->index) + " listed twice");
        run.devices.push_back(std::move(*dev));
    }
    for (size_t i = 0; i < j["ops"].size(); ++i) run.ops.push_back(op_from(j["ops"][i], top.key("ops").index(i)));
    return run;
}

Result<RetuneRun> read_run_file(const std::string& path) {
    KILN_TRY(auto text, read_regular_file(path, 256u << 20));
    KILN_TRY(auto j, py_loads(text, path));
    return run_from_json(j, path);
}

Json to_json(const RetuneRun& run) {
    Json j;
    j["devices"] = Json::array();
    for (const auto& d : run.devices) j["devices"].push_back({{"index", d.index}, {"name", d.name}, {"arch", d.arch}});
    j["ops"] = Json::array();
    for (const auto& op : run.ops) {
        Json o{{"op", op.op}, {"inputs", op.inputs}, {"precision", op.precision}};
        o["recorded_for"] = {{"system_hash", op.recorded_for.system_hash},
                             {"device", op.recorded_for.device},
                             {"triton", op.recorded_for.triton},
                             {"cuda", op.recorded_for.cuda}};
        o["choices"] = Json::array();
        for (const auto& c : op.choices) {
            Json cj{{"name", c.name},
                    {"kind", c.kind},
                    {"runnable", c.runnable},
                    {"why", c.why},
                    {"recorded_ms", opt(c.recorded_ms)}};
            cj["measured"] = Json::array();
            for (const auto& m : c.measured) {
                cj["measured"].push_back({{"device", m.device},
                                          {"status", m.status},
                                          {"ms", opt(m.ms)},
                                          {"spread_ms", opt(m.spread_ms)},
                                          {"why", m.why}});
                if (m.torch_inf) cj["measured"].back()["torch_inf"] = true;
            }
            o["choices"].push_back(std::move(cj));
        }
        j["ops"].push_back(std::move(o));
    }
    return j;
}

}  // namespace kiln::handback
