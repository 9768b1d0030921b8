#include "handback/retune_run.hpp"

#include <cmath>

#include "util/python_json.hpp"
#include "util/regular_file.hpp"

namespace kiln::handback {
namespace {

using Json = nlohmann::ordered_json;

Error bad(const std::string& origin, const std::string& where, const std::string& what) {
    return make_error(Errc::parse, "retune result: " + where + ": " + what, origin,
                      "give the output of `kiln-cli retune ROOT --json`, unchanged");
}

Result<std::string> string_field(const Json& j, const char* key, const std::string& origin, const std::string& where,
                                 bool required = true) {
    if (!j.contains(key) || j[key].is_null()) {
        if (!required) return std::string();
        return bad(origin, where, std::string("no \"") + key + "\"");
    }
    if (!j[key].is_string()) return bad(origin, where, std::string("\"") + key + "\" is not a string");
    return j[key].get<std::string>();
}

Result<std::optional<double>> number_field(const Json& j, const char* key, const std::string& origin,
                                           const std::string& where) {
    if (!j.contains(key) || j[key].is_null()) return std::optional<double>();
    if (!j[key].is_number()) return bad(origin, where, std::string("\"") + key + "\" is not a number");
    return std::optional<double>(j[key].get<double>());
}

Result<int> int_field(const Json& j, const char* key, const std::string& origin, const std::string& where) {
    if (!j.contains(key) || !j[key].is_number_integer())
        return bad(origin, where, std::string("no integer \"") + key + "\"");
    return j[key].get<int>();
}

Result<Measurement> measurement_from(const Json& j, const std::string& origin, const std::string& where) {
    if (!j.is_object()) return bad(origin, where, "not an object");
    Measurement m;
    KILN_TRY(m.device, int_field(j, "device", origin, where));
    KILN_TRY(m.status, string_field(j, "status", origin, where));
    KILN_TRY(m.ms, number_field(j, "ms", origin, where));
    KILN_TRY(m.spread_ms, number_field(j, "spread_ms", origin, where));
    KILN_TRY(m.why, string_field(j, "why", origin, where, false));
    return m;
}

Result<RunChoice> choice_from(const Json& j, const std::string& origin, const std::string& where) {
    if (!j.is_object()) return bad(origin, where, "not an object");
    RunChoice c;
    KILN_TRY(c.name, string_field(j, "name", origin, where));
    KILN_TRY(c.kind, string_field(j, "kind", origin, where, false));
    c.runnable = j.value("runnable", false);
    KILN_TRY(c.why, string_field(j, "why", origin, where, false));
    KILN_TRY(c.recorded_ms, number_field(j, "recorded_ms", origin, where));
    if (j.contains("measured")) {
        if (!j["measured"].is_array()) return bad(origin, where, "\"measured\" is not a list");
        for (size_t i = 0; i < j["measured"].size(); ++i) {
            KILN_TRY(auto m,
                     measurement_from(j["measured"][i], origin, where + ".measured[" + std::to_string(i) + "]"));
            c.measured.push_back(std::move(m));
        }
    }
    return c;
}

Result<RunOp> op_from(const Json& j, const std::string& origin, const std::string& where) {
    if (!j.is_object()) return bad(origin, where, "not an object");
    RunOp op;
    KILN_TRY(op.op, string_field(j, "op", origin, where));
    KILN_TRY(op.inputs, string_field(j, "inputs", origin, where));
    KILN_TRY(op.precision, string_field(j, "precision", origin, where));
    if (j.contains("recorded_for") && j["recorded_for"].is_object()) {
        const auto& r = j["recorded_for"];
        std::string w = where + ".recorded_for";
        KILN_TRY(op.recorded_for.system_hash, string_field(r, "system_hash", origin, w, false));
        KILN_TRY(op.recorded_for.device, string_field(r, "device", origin, w, false));
        KILN_TRY(op.recorded_for.triton, string_field(r, "triton", origin, w, false));
        KILN_TRY(op.recorded_for.cuda, string_field(r, "cuda", origin, w, false));
    }
    if (!j.contains("choices") || !j["choices"].is_array()) return bad(origin, where, "no \"choices\" list");
    for (size_t i = 0; i < j["choices"].size(); ++i) {
        KILN_TRY(auto c, choice_from(j["choices"][i], origin, where + ".choices[" + std::to_string(i) + "]"));
        op.choices.push_back(std::move(c));
    }
    return op;
}

Json opt(const std::optional<double>& v) { return v ? Json(*v) : Json(); }

}  // namespace

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
    for (size_t i = 0; i < j["devices"].size(); ++i) {
        const auto& d = j["devices"][i];
        std::string where = "devices[" + std::to_string(i) + "]";
        if (!d.is_object()) return bad(origin, where, "not an object");
        RunDevice dev;
        KILN_TRY(dev.index, int_field(d, "index", origin, where));
        KILN_TRY(dev.name, string_field(d, "name", origin, where));
        KILN_TRY(dev.arch, string_field(d, "arch", origin, where, false));
        if (run.device(dev.index)) return bad(origin, where, "device " + std::to_string(dev.index) + " listed twice");
        run.devices.push_back(std::move(dev));
    }
    for (size_t i = 0; i < j["ops"].size(); ++i) {
        KILN_TRY(auto op, op_from(j["ops"][i], origin, "ops[" + std::to_string(i) + "]"));
        run.ops.push_back(std::move(op));
    }
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
            for (const auto& m : c.measured)
                cj["measured"].push_back({{"device", m.device},
                                          {"status", m.status},
                                          {"ms", opt(m.ms)},
                                          {"spread_ms", opt(m.spread_ms)},
                                          {"why", m.why}});
            o["choices"].push_back(std::move(cj));
        }
        j["ops"].push_back(std::move(o));
    }
    return j;
}

}  // namespace kiln::handback
