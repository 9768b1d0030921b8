#include "tuning/tune_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace kiln::tuning {
namespace {

std::string fmt_ms(double ms) {
    if (!std::isfinite(ms)) return "inf";
    char b[32];
    std::snprintf(b, sizeof b, "%.4f", ms);
    return b;
}

nlohmann::ordered_json choice_json(const ChoiceReport& c) {
    nlohmann::ordered_json info{
        {"id", c.id},         {"params", c.params},          {"status", c.status},
        {"device", c.device}, {"reference", c.is_reference}, {"compile_seconds", c.compile_seconds}};
    if (!c.library.empty()) info["library"] = c.library;
    if (!c.from_cache && c.stats.count > 0) {
        info["overhead_ms"] = c.overhead_seconds * 1000.0;
        info["verify_ms"] = c.verify_seconds * 1000.0;
        if (c.details.contains("phases_ms")) info["phases_ms"] = c.details["phases_ms"];
    }
    if (c.stats.count > 0) info["stats"] = to_json(c.stats);
    return info;
}

}  // namespace

const char* choice_status_name(ChoiceStatus s) {
    switch (s) {
        case ChoiceStatus::ok: return "ok";
        case ChoiceStatus::error: return "error";
        case ChoiceStatus::mismatch: return "mismatch";
        case ChoiceStatus::timeout: return "timeout";
        case ChoiceStatus::crash: return "crash";
        case ChoiceStatus::compile_error: return "compile_error";
        case ChoiceStatus::cached: return "cached";
        case ChoiceStatus::skipped: return "skipped";
    }
    return "error";
}

ChoiceStatus choice_status(worker::BenchStatus s) {
    switch (s) {
        case worker::BenchStatus::ok: return ChoiceStatus::ok;
        case worker::BenchStatus::error: return ChoiceStatus::error;
        case worker::BenchStatus::mismatch: return ChoiceStatus::mismatch;
        case worker::BenchStatus::timeout: return ChoiceStatus::timeout;
        case worker::BenchStatus::crash: return ChoiceStatus::crash;
    }
    return ChoiceStatus::error;
}

nlohmann::ordered_json to_json(const TuneReport& r) {
    nlohmann::ordered_json j;
    j["op"] = r.op;
    j["inputs_key"] = r.inputs_key;
    j["device"] = r.device;
    // Built apart and moved in: ordered_json keeps members in a vector, so references into j
    // would dangle as keys are added.
    nlohmann::ordered_json timings = nlohmann::ordered_json::object();
    nlohmann::ordered_json choices = nlohmann::ordered_json::object();
    nlohmann::ordered_json failures = nlohmann::ordered_json::object();
    for (const auto& c : r.choices) {
        timings[c.key] = std::isfinite(c.ms) ? nlohmann::ordered_json(c.ms) : nlohmann::ordered_json();
        choices[c.key] = choice_json(c);
        if (!std::isfinite(c.ms)) failures[c.key] = c.reason.empty() ? choice_status_name(c.status) : c.reason;
    }
    j["timings"] = std::move(timings);
    j["choices"] = std::move(choices);
    j["failures"] = std::move(failures);
    j["best"] = r.best;
    j["cache_hit"] = r.cache_hit;
    j["session_log"] = r.session_log.string();
    j["cache_file"] = r.cache_file.string();
    j["precision"] = r.precision;
    j["bench_seconds"] = r.bench_seconds;
    j["precompile_seconds"] = r.precompile_seconds;
    j["prepare_seconds"] = r.prepare_seconds;
    j["workers"] = r.workers;
    if (r.cache_error) j["cache_error"] = r.cache_error->str();
    return j;
}

Result<TuneReport> tune_report_from_json(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("best")) return make_error(Errc::parse, "not a kiln-cli autotune report");
    try {
        TuneReport r;
        r.op = j.value("op", "");
        r.inputs_key = j.value("inputs_key", "");
        r.device = j.value("device", "");
        r.best = j.at("best").get<std::string>();
        r.cache_hit = j.value("cache_hit", false);
        r.session_log = j.value("session_log", "");
        r.cache_file = j.value("cache_file", "");
        r.precision = j.value("precision", "");
        r.bench_seconds = j.value("bench_seconds", 0.0);
        r.precompile_seconds = j.value("precompile_seconds", 0.0);
        r.prepare_seconds = j.value("prepare_seconds", 0.0);
        if (auto w = j.find("workers"); w != j.end() && w->is_array()) r.workers.assign(w->begin(), w->end());
        const auto failures = j.value("failures", nlohmann::json::object());
        const auto timings = j.value("timings", nlohmann::json::object());
        const auto choices = j.value("choices", nlohmann::json::object());
        for (const auto& [key, info] : choices.items()) {
            ChoiceReport c;
            c.key = key;
            c.id = info.value("id", "");
            if (info.contains("params")) c.params = info["params"].get<Bindings>();
            c.status = info.value("status", ChoiceStatus::ok);
            c.device = info.value("device", "");
            c.is_reference = info.value("reference", false);
            c.compile_seconds = info.value("compile_seconds", 0.0);
            c.library = info.value("library", "");
            const auto ms = timings.value(key, nlohmann::json());
            c.ms = ms.is_number() ? ms.get<double>() : kFailedMs;
            if (auto f = failures.find(key); f != failures.end() && f->is_string()) c.reason = f->get<std::string>();
            if (auto s = info.find("stats"); s != info.end()) c.stats = worker::timing_stats_from_json(*s);
            r.choices.push_back(std::move(c));
        }
        return r;
    } catch (const nlohmann::json::exception& e) {
        return make_error(Errc::parse, std::string("not a kiln-cli autotune report: ") + e.what());
    }
}

std::string format_autotune_table(const TuneReport& rep, const TuningSpec& spec, std::size_t top) {
    std::string sizes, strides, dtypes;
    for (const auto& t : spec.inputs) {
        std::string sz, st;
        for (auto s : t.sizes) sz += (sz.empty() ? "" : "x") + std::to_string(s);
        for (auto s : t.effective_strides()) st += (st.empty() ? "" : ", ") + std::to_string(s);
        sizes += (sizes.empty() ? "" : ", ") + sz;
        strides.append(strides.empty() ? "" : ", ").append(1, '[').append(st).append(1, ']');
        dtypes += (dtypes.empty() ? "" : ", ") + worker::torch_dtype_name(t.dtype);
    }
    std::vector<const ChoiceReport*> order;
    for (const auto& c : rep.choices) order.push_back(&c);
    std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->ms < b->ms; });
    double best = order.empty() ? kFailedMs : order.front()->ms;
    std::string out = "AUTOTUNE " + rep.op + "(" + sizes + ")\nstrides: " + strides + "\ndtypes: " + dtypes + "\n";
    for (size_t i = 0; i < order.size() && i < top; ++i) {
        const auto* c = order[i];
        char pct[32];
        if (std::isfinite(c->ms) && c->ms > 0) std::snprintf(pct, sizeof pct, "%.1f%%", 100.0 * best / c->ms);
        else std::snprintf(pct, sizeof pct, "0.0%%");
        out += "  " + c->id + " " + fmt_ms(c->ms) + " ms " + pct + " " + c->name;
        if (!c->device.empty() && rep.device.find(',') != std::string::npos) out += " [" + c->device + "]";
        if (c->status != ChoiceStatus::ok && c->status != ChoiceStatus::cached)
            out.append(" (").append(choice_status_name(c->status)).append(")");
        out += "\n";
    }
    char tail[200];
    std::snprintf(tail, sizeof tail,
                  "%s AUTOTUNE benchmarking takes %.4f seconds and %.4f seconds precompiling for %zu choices%s\n",
                  rep.in_process ? "SingleProcess" : "SubProcess", rep.bench_seconds, rep.precompile_seconds,
                  rep.choices.size(), rep.cache_hit ? " (all from the timing cache)" : "");
    return out + tail;
}

}  // namespace kiln::tuning
