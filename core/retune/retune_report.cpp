#include "retune/retune_report.hpp"

#include <cmath>

#include "retune/recorded_compare.hpp"

namespace kiln::retune {

using J = nlohmann::ordered_json;

const char* choice_kind_name(ChoiceKind k) {
    switch (k) {
        case ChoiceKind::triton: return "triton";
        case ChoiceKind::extern_op: return "extern";
        case ChoiceKind::other: return "other";
    }
    return "other";
}

std::string statistic_description(const std::string& name) {
    if (name == "torch-min")
        return "the minimum over CUDA event pairs, as torch 2.11's InductorBenchmarker.benchmark_gpu returns and "
               "writes it (an L2-sized buffer zeroed before each pair; 5 estimate pairs, then min(100, 25 ms / "
               "estimate) pairs)";
    if (name == "median") return "the median of the timed runs (triton do_bench's rule: 25 ms warm-up, 100 ms runs)";
    return name;
}

namespace {

J ms_or_null(const std::optional<double>& ms) { return ms && std::isfinite(*ms) ? J(*ms) : J(); }

J to_json(const Measurement& m) {
    J j{{"device", m.device},
        {"status", m.status},
        {"ms", ms_or_null(m.ms)},
        {"spread_ms", m.spread_ms},
        {"why", m.why},
        {"min_ms", m.min_ms},
        {"median_ms", m.median_ms},
        {"runs", m.runs},
        {"kernel_seconds", m.kernel_seconds},
        {"wall_seconds", m.wall_seconds},
        {"worker_seconds", m.worker_seconds}};
    if (m.torch_inf) j["torch_inf"] = true;
    if (!m.phases_ms.is_null()) j["phases_ms"] = m.phases_ms;
    return j;
}

J to_json(const RetuneChoice& c) {
    J j{{"name", c.name},
        {"kind", choice_kind_name(c.kind)},
        {"module", c.module},
        {"binary", c.binary},
        {"config", c.config},
        {"grid", c.grid ? J(*c.grid) : J()},
        {"grid_rule", c.grid_rule},
        {"runnable", c.runnable},
        {"why", c.why},
        {"recorded_ms", ms_or_null(c.recorded_ms)}};
    if (!c.kernel.empty()) j["kernel"] = c.kernel;
    if (!c.args.empty()) {
        J args = J::array();
        for (const auto& a : c.args) args.push_back(J(worker::to_json(a)));
        j["signature"] = std::move(args);
    }
    if (c.triton) j["launch"] = J(worker::to_json(*c.triton));
    if (c.gemm) {
        j["call"] = c.gemm->describe();
        j["gemm"] = J(cuda::to_json(*c.gemm));
    }
    J measured = J::array();
    for (const auto& m : c.measured) measured.push_back(to_json(m));
    j["measured"] = std::move(measured);
    return j;
}

std::string str(const nlohmann::json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<double> opt_ms(const nlohmann::json& j, const char* key) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}

}  // namespace

J to_json(const RetuneReport& r) {
    J ops = J::array();
    for (const auto& op : r.ops) {
        J choices = J::array();
        for (const auto& c : op.choices) choices.push_back(to_json(c));
        ops.push_back(J{{"op", op.op},
                        {"inputs", op.inputs},
                        {"precision", op.precision},
                        {"recorded_for",
                         {{"system_hash", op.recorded_for.system_hash},
                          {"device", op.recorded_for.device},
                          {"triton", op.recorded_for.triton},
                          {"cuda", op.recorded_for.cuda}}},
                        {"cache_file", op.cache_file},
                        {"choices", std::move(choices)}});
        if (!r.devices.empty()) {
            J cmp = J::array();
            for (const auto& c : compare_with_recorded(op)) cmp.push_back(to_json(c));
            ops.back()["comparison"] = std::move(cmp);
        }
    }
    J j{{"root", r.root}};
    if (!r.devices.empty()) {
        J devs = J::array();
        for (const auto& d : r.devices) devs.push_back(J{{"index", d.index}, {"name", d.name}, {"arch", d.arch}});
        j["devices"] = std::move(devs);
        j["wall_seconds"] = r.wall_seconds;
        if (!r.statistic.empty()) {
            j["statistic"] = r.statistic;
            j["statistic_means"] = statistic_description(r.statistic);
        }
        j["phase_seconds"] = r.phase_seconds;
        if (!r.timeline.is_null()) j["timeline"] = r.timeline;
        j["session_logs"] = r.session_logs;
    }
    j["ops"] = std::move(ops);
    if (!r.warnings.empty()) j["warnings"] = r.warnings;
    return j;
}

Result<RetuneReport> retune_report_from_json(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("ops") || !j["ops"].is_array())
        return make_error(Errc::parse, "not a retune report: no \"ops\" list", {},
                          "expected the output of kiln-cli retune --json");
    RetuneReport r;
    try {
        r.root = str(j, "root");
        r.wall_seconds = j.value("wall_seconds", 0.0);
        r.statistic = str(j, "statistic");
        if (auto it = j.find("phase_seconds"); it != j.end() && it->is_object())
            for (auto p = it->begin(); p != it->end(); ++p)
                if (p->is_number()) r.phase_seconds[p.key()] = p->get<double>();
        if (auto it = j.find("timeline"); it != j.end() && it->is_object()) r.timeline = *it;
        if (auto it = j.find("devices"); it != j.end() && it->is_array())
            for (const auto& d : *it) r.devices.push_back({d.value("index", 0), str(d, "name"), str(d, "arch")});
        if (auto it = j.find("session_logs"); it != j.end() && it->is_array())
            for (const auto& s : *it) r.session_logs.push_back(s.get<std::string>());
        for (const auto& o : j["ops"]) {
            RetuneOp op;
            op.op = str(o, "op");
            op.inputs = str(o, "inputs");
            op.precision = str(o, "precision");
            op.cache_file = str(o, "cache_file");
            if (auto rf = o.find("recorded_for"); rf != o.end() && rf->is_object())
                op.recorded_for = {str(*rf, "system_hash"), str(*rf, "device"), str(*rf, "triton"), str(*rf, "cuda")};
            for (const auto& c : o.value("choices", nlohmann::json::array())) {
                RetuneChoice ch;
                ch.name = str(c, "name");
                std::string kind = str(c, "kind");
                ch.kind = kind == "triton" ? ChoiceKind::triton
                                           : (kind == "extern" ? ChoiceKind::extern_op : ChoiceKind::other);
                ch.module = str(c, "module");
                ch.binary = str(c, "binary");
                if (auto cfg = c.find("config"); cfg != c.end() && cfg->is_object()) ch.config = *cfg;
                if (auto g = c.find("grid"); g != c.end() && g->is_array() && g->size() == 3)
                    ch.grid = std::array<std::int64_t, 3>{(*g)[0].get<std::int64_t>(), (*g)[1].get<std::int64_t>(),
                                                          (*g)[2].get<std::int64_t>()};
                ch.grid_rule = str(c, "grid_rule");
                ch.runnable = c.value("runnable", false);
                ch.why = str(c, "why");
                ch.recorded_ms = opt_ms(c, "recorded_ms");
                ch.kernel = str(c, "kernel");
                if (auto s = c.find("signature"); s != c.end() && s->is_array())
                    for (const auto& a : *s) ch.args.push_back(worker::kernel_arg_from_json(a));
                if (auto l = c.find("launch"); l != c.end() && l->is_object())
                    ch.triton = worker::triton_binary_from_json(*l);
                if (auto g = c.find("gemm"); g != c.end() && g->is_object()) ch.gemm = cuda::gemm_call_from_json(*g);
                for (const auto& m : c.value("measured", nlohmann::json::array())) {
                    Measurement ms;
                    ms.device = m.value("device", 0);
                    ms.status = str(m, "status");
                    ms.ms = opt_ms(m, "ms");
                    ms.spread_ms = m.value("spread_ms", 0.0);
                    ms.why = str(m, "why");
                    ms.min_ms = m.value("min_ms", 0.0);
                    ms.median_ms = m.value("median_ms", 0.0);
                    ms.torch_inf = m.value("torch_inf", false);
                    ms.runs = m.value("runs", 0);
                    ms.kernel_seconds = m.value("kernel_seconds", 0.0);
                    ms.wall_seconds = m.value("wall_seconds", 0.0);
                    ms.worker_seconds = m.value("worker_seconds", 0.0);
                    if (auto ph = m.find("phases_ms"); ph != m.end()) ms.phases_ms = *ph;
                    ch.measured.push_back(std::move(ms));
                }
                op.choices.push_back(std::move(ch));
            }
            r.ops.push_back(std::move(op));
        }
    } catch (const nlohmann::json::exception& e) {
        return make_error(Errc::parse, std::string("malformed retune report: ") + e.what());
    }
    return r;
}

}  // namespace kiln::retune
