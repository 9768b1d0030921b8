#include "timings/timing_model.hpp"

#include <cmath>
#include <cstdio>

#include "util/json_get.hpp"

namespace kiln::timings {

const char* source_kind_name(SourceKind k) {
    switch (k) {
        case SourceKind::timing_cache: return "timing_cache";
        case SourceKind::best_config: return "best_config";
        case SourceKind::kernel_perf: return "kernel_perf";
        case SourceKind::mm_log: return "mm_log";
        case SourceKind::stderr_log: return "stderr_log";
        case SourceKind::session_log: return "session_log";
    }
    return "unknown";
}

bool valid_time(const std::optional<double>& ms) { return ms && std::isfinite(*ms) && *ms >= 0; }

std::string invalid_time_reason(const Choice& c) {
    if (!c.ms || valid_time(c.ms)) return {};
    if (std::isnan(*c.ms)) return "NaN";
    if (std::isinf(*c.ms)) return *c.ms > 0 ? "inf" : "-inf";
    return "negative time: torch stores ms minus the cloned inputs' time for kernels that mutate an input";
}

bool is_per_kernel_config(const Op& op) { return op.op == "best_config"; }

void pick_best(Op& op) {
    op.best.clear();
    if (is_per_kernel_config(op)) return;
    std::optional<double> best;
    for (const auto& c : op.choices) {
        if (!valid_time(c.ms)) continue;
        if (!best || *c.ms < *best) {
            best = c.ms;
            op.best = c.name;
        }
    }
}

const Params& no_params() {
    static const Params empty(nlohmann::ordered_json::object());  // braces would make [{}]
    return empty;
}

const Choice* find_choice(const Op& op, const std::string& name) {
    for (const auto& c : op.choices)
        if (c.name == name) return &c;
    return nullptr;
}

std::optional<double> best_ms(const Op& op) {
    const Choice* c = find_choice(op, op.best);
    return c ? c->ms : std::nullopt;
}

std::optional<double> percent_of_best(const Op& op, const Choice& c) {
    const Choice* best = find_choice(op, op.best);
    if (!best || !valid_time(best->ms) || !valid_time(c.ms)) return std::nullopt;
    if (&c == best) return 100.0;
    if ((c.ms_rounded || best->ms_rounded) && c.logged_pct) return c.logged_pct;
    if (*c.ms <= 0) return std::nullopt;
    return 100.0 * *best->ms / *c.ms;
}

bool same_problem(const Op& a, const Op& b) {
    if (a.op != b.op || a.sizes.empty() || a.sizes != b.sizes) return false;
    return a.strides.empty() || b.strides.empty() || a.strides == b.strides;
}

namespace {
std::vector<std::string> split_dims(const std::string& s) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= s.size() && out.size() < 64) {
        std::size_t x = s.find('x', start);
        out.push_back(s.substr(start, x == std::string::npos ? std::string::npos : x - start));
        if (x == std::string::npos) break;
        start = x + 1;
    }
    return out;
}
}  // namespace

std::vector<std::string> mm_log_key_of(const Op& op) {
    if (op.sizes.size() < 2) return {};
    auto a = split_dims(op.sizes[op.sizes.size() - 2]), b = split_dims(op.sizes.back());
    if (a.size() < 2 || b.empty()) return {};
    return {a[0], a[1], b.back()};
}

bool row_major(const std::string& sizes, const std::string& strides) {
    auto sz = split_dims(sizes), st = split_dims(strides);
    if (sz.size() != st.size()) return false;
    long long expect = 1;
    for (std::size_t d = sz.size(); d-- > 0;) {
        long long n = 0, stride = 0;
        for (char ch : sz[d]) n = (ch >= '0' && ch <= '9' && n >= 0 && n < (1ll << 40)) ? n * 10 + (ch - '0') : -1;
        for (char ch : st[d])
            stride = (ch >= '0' && ch <= '9' && stride >= 0 && stride < (1ll << 40)) ? stride * 10 + (ch - '0') : -1;
        if (n < 0 || stride < 0) return false;
        if (n != 1 && stride != expect) return false;  // a size-1 dim's stride is free
        expect *= n;
    }
    return true;
}

bool contiguous_inputs(const Op& op) {
    if (op.strides.size() != op.sizes.size()) return true;  // unknown: nothing to say
    for (std::size_t i = 0; i < op.sizes.size(); ++i)
        if (!row_major(op.sizes[i], op.strides[i])) return false;
    return true;
}

std::string describe_bad_time(const nlohmann::ordered_json& v) {
    if (v.is_null()) return "NaN";
    if (v.is_number()) {
        double d = v.get<double>();
        if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
        if (std::isnan(d)) return "NaN";
    }
    return v.dump();
}

void set_choice_time(Choice& c, const nlohmann::ordered_json& v) {
    auto ms = json_get::time_ms(v, {"", "time"}, json_get::Time::infinity_failed);
    if (ms && std::isfinite(*ms)) c.ms = *ms;
    else if (ms || v.is_null() || (v.is_number() && std::isnan(v.get<double>())))
        c.error = "failed to benchmark (time " + describe_bad_time(v) + ")";
    else c.error = "not a time: " + ms.error().message;
}

std::string ms_text(double ms) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.4f ms", ms);
    return buf;
}

std::string params_text(const nlohmann::ordered_json& params) {
    std::string s;
    for (auto it = params.begin(); it != params.end(); ++it) {
        if (!s.empty()) s += ", ";
        s += it.key() + "=";
        const auto& v = it.value();
        if (v.is_string()) {
            s += '\'';
            s += v.get_ref<const std::string&>();
            s += '\'';
        } else if (v.is_boolean()) s += v.get<bool>() ? "True" : "False";
        else if (v.is_null()) s += "None";
        else s += v.dump();
    }
    return s;
}

static nlohmann::ordered_json sources_of(const Op& op) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    if (!op.source.empty()) out.push_back(op.source);
    for (const auto& s : op.also_from) out.push_back(s);
    return out;
}

nlohmann::ordered_json to_json(const TimingSet& set) {
    using J = nlohmann::ordered_json;
    J out = J::object();
    J sources = J::array();
    for (const auto& s : set.sources)
        sources.push_back(
            J{{"path", s.path}, {"kind", source_kind_name(s.kind)}, {"device", s.device}, {"ops", s.ops}});
    out["sources"] = std::move(sources);
    J ops = J::array();
    for (const auto& op : set.ops) {
        J choices = J::array();
        for (const auto& c : op.choices) {
            J jc{
                {"choice", c.name}, {"ms", c.ms && std::isfinite(*c.ms) ? J(*c.ms) : J(nullptr)}, {"params", c.params}};
            auto pct = percent_of_best(op, c);
            jc["percent_of_best"] = pct ? J(*pct) : J(nullptr);
            if (c.spread_ms) jc["spread_ms"] = *c.spread_ms;  // only where the source measured it
            jc["aliases"] = c.aliases;
            J seen = J::array();
            for (const auto& s : c.seen_in)
                seen.push_back(J{{"kind", source_kind_name(s.kind)},
                                 {"path", s.path},
                                 {"name", s.name},
                                 {"ms", s.ms && std::isfinite(*s.ms) ? J(*s.ms) : J(nullptr)}});
            jc["sources"] = std::move(seen);
            J used = J::array(), graphs = J::array();
            for (const auto& u : c.used_by) {
                used.push_back(u.key);
                graphs.push_back(J{{"key", u.key}, {"name", u.name}, {"kernel", u.kernel}});
            }
            jc["used_by"] = std::move(used);  // fxgraph keys
            jc["used_by_graphs"] = std::move(graphs);
            choices.push_back(std::move(jc));
        }
        ops.push_back(J{{"op", op.op},
                        {"inputs", op.inputs},
                        {"strides", op.strides},
                        {"precision", op.precision},
                        {"device", op.device},
                        {"choices", std::move(choices)},
                        {"best", op.best},
                        {"sources", sources_of(op)}});
    }
    out["ops"] = std::move(ops);
    return out;
}

}  // namespace kiln::timings
