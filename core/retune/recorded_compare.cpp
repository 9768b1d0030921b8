#include "retune/recorded_compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "retune/inventory.hpp"
#include "retune/problem.hpp"
#include "timings/choice_name.hpp"

namespace kiln::retune {

namespace {

const Measurement* on_device(const RetuneChoice& c, int device) {
    for (const auto& m : c.measured)
        if (m.device == device) return &m;
    return nullptr;
}

std::string config_text(const nlohmann::ordered_json& config) {
    std::string s;
    // torch prints the config's keys sorted, as `repr` of the kwargs.
    std::map<std::string, std::string> sorted;
    for (auto it = config.begin(); it != config.end(); ++it) {
        const auto& v = it.value();
        std::string text = v.is_string()    ? "'" + v.get<std::string>() + "'"
                           : v.is_boolean() ? (v.get<bool>() ? "True" : "False")
                                            : v.dump();
        sorted[it.key()] = text;
    }
    for (const auto& [k, v] : sorted) s += (s.empty() ? "" : ", ") + k + "=" + v;
    return s;
}

}  // namespace

std::string display_name(const RetuneChoice& c) {
    timings::Choice named;
    named.name = c.name;
    named.params = c.config;
    return timings::choice_display_name(named);
}

std::string display_name(const RetuneOp& op, const std::string& choice_key) {
    for (const auto& c : op.choices)
        if (c.name == choice_key) return display_name(c);
    return choice_key;
}

std::vector<RecordedComparison> compare_with_recorded(const RetuneOp& op) {
    std::set<int> devices;
    for (const auto& c : op.choices)
        for (const auto& m : c.measured) devices.insert(m.device);
    std::vector<RecordedComparison> out;
    for (int d : devices) {
        RecordedComparison rc;
        rc.device = d;
        // Choices both recorded and measured ok, for the ranking.
        struct Row {
            const RetuneChoice* c;
            double recorded, measured, spread;
        };
        std::vector<Row> rows;
        for (const auto& c : op.choices) {
            const Measurement* m = on_device(c, d);
            if (!m) continue;
            if (m->status == "ok" && m->ms) ++rc.measured;
            else ++rc.failed;
            if (m->ms && c.recorded_ms) rows.push_back({&c, *c.recorded_ms, *m->ms, m->spread_ms});
        }
        if (rows.empty()) {
            out.push_back(rc);
            continue;
        }
        auto by_recorded = rows, by_measured = rows;
        std::stable_sort(by_recorded.begin(), by_recorded.end(),
                         [](const Row& a, const Row& b) { return a.recorded < b.recorded; });
        std::stable_sort(by_measured.begin(), by_measured.end(),
                         [](const Row& a, const Row& b) { return a.measured < b.measured; });
        rc.recorded_winner = by_recorded[0].c->name;
        rc.measured_winner = by_measured[0].c->name;
        rc.same_winner = rc.recorded_winner == rc.measured_winner;
        if (rows.size() > 1) {
            rc.recorded_margin = by_recorded[1].recorded / by_recorded[0].recorded - 1;
            rc.measured_margin = by_measured[1].measured / by_measured[0].measured - 1;
        }
        if (!rc.same_winner) {
            for (const auto& r : rows)
                if (r.c->name == rc.recorded_winner)
                    rc.winner_within_noise = r.measured - by_measured[0].measured <= r.spread + by_measured[0].spread;
        }
        for (std::size_t i = 0; i < by_recorded.size(); ++i)
            for (std::size_t j = i + 1; j < by_recorded.size(); ++j) {
                const Row& a = by_recorded[i];  // recorded faster
                const Row& b = by_recorded[j];
                if (a.recorded == b.recorded) continue;
                double gap = a.measured - b.measured;  // > 0: b now faster
                double noise = a.spread + b.spread;
                if (gap > noise && gap > 0) rc.order_changes.push_back({a.c->name, b.c->name, gap, noise});
            }
        std::sort(rc.order_changes.begin(), rc.order_changes.end(),
                  [](const OrderChange& x, const OrderChange& y) { return x.measured_gap_ms > y.measured_gap_ms; });
        out.push_back(std::move(rc));
    }
    return out;
}

nlohmann::ordered_json to_json(const RecordedComparison& c) {
    nlohmann::ordered_json changes = nlohmann::ordered_json::array();
    for (const auto& o : c.order_changes)
        changes.push_back({{"faster_recorded", o.faster_recorded},
                           {"faster_measured", o.faster_measured},
                           {"measured_gap_ms", o.measured_gap_ms},
                           {"noise_ms", o.noise_ms}});
    return {{"device", c.device},
            {"recorded_winner", c.recorded_winner},
            {"measured_winner", c.measured_winner},
            {"same_winner", c.same_winner},
            {"winner_within_noise", c.winner_within_noise},
            {"recorded_margin", c.recorded_margin},
            {"measured_margin", c.measured_margin},
            {"measured", c.measured},
            {"failed", c.failed},
            {"order_changes", std::move(changes)}};
}

std::optional<double> deviation_from_recorded(const RetuneChoice& c, const Measurement& m) {
    if (m.status != "ok" || !m.ms || !c.recorded_ms || !(*c.recorded_ms > 0)) return std::nullopt;
    return *m.ms / *c.recorded_ms - 1;
}

namespace {
double middle_value(std::vector<double> v) {  // v not empty; the mean of the middle two when even
    std::sort(v.begin(), v.end());
    std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
}  // namespace

RecordedAgreement agreement_with_recorded(const RetuneReport& r) {
    std::vector<double> signed_dev, abs_dev;
    for (const auto& op : r.ops)
        for (const auto& c : op.choices)
            for (const auto& m : c.measured)
                if (auto d = deviation_from_recorded(c, m)) {
                    signed_dev.push_back(*d);
                    abs_dev.push_back(std::fabs(*d));
                }
    RecordedAgreement a;
    a.compared = static_cast<int>(abs_dev.size());
    if (abs_dev.empty()) return a;
    a.median_abs_deviation = middle_value(abs_dev);
    a.median_deviation = middle_value(signed_dev);
    for (double d : abs_dev) {
        a.within_3_percent += d <= 0.03;
        a.within_10_percent += d <= 0.10;
    }
    return a;
}

std::string agreement_text(const RecordedAgreement& a) {
    if (a.compared == 0) return "Kiln against recorded: no choice both recorded and measured ok";
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "Kiln against recorded: median |Kiln/recorded - 1| %.1f %% (signed %+.1f %%), %d of %d within 3 %%",
                  100 * a.median_abs_deviation, 100 * a.median_deviation, a.within_3_percent, a.compared);
    return buf;
}

std::string agreement_note(const RecordedAgreement& a) {
    if (a.compared == 0 || a.median_deviation >= -0.03) return {};
    // bench/RESULTS.md, "The re-tune loop, fifth day": the same benchmark call run again with the GPU
    // kept ahead of the host gave 11-17 us less in torch's main thread and nothing less in autograd's.
    return "Kiln's times are the lower: torch timed its forward and standalone ops in its main thread, where "
           "each pair also holds the GPU's wait for Python's launch of the kernel (10-15 us); measured on an "
           "H200, torch's own benchmarker agrees with Kiln to 1.1-1.3 % when the GPU is kept ahead of the host";
}

std::string autotune_table(const RetuneOp& op, int device) {
    std::ostringstream os;
    std::string shapes, strides, dtypes;
    if (auto tensors = tensors_from_inputs_key(op.inputs); tensors.ok()) {
        for (const auto& t : *tensors) {
            std::string s, st;
            for (auto v : t.sizes) s += (s.empty() ? "" : "x") + std::to_string(v);
            for (auto v : t.strides) st += (st.empty() ? "" : ", ") + std::to_string(v);
            shapes += (shapes.empty() ? "" : ", ") + s;
            strides += (strides.empty() ? "[" : ", [") + st + "]";
            dtypes += (dtypes.empty() ? "" : ", ") + worker::torch_dtype_name(t.dtype);
        }
    }
    os << "AUTOTUNE " << op.op << "(" << shapes << ")  [cuda:" << device << "]\n";
    os << "strides: " << strides << "\n";
    os << "dtypes: " << dtypes << "\n";
    std::vector<std::pair<const RetuneChoice*, const Measurement*>> ok, bad;
    for (const auto& c : op.choices)
        if (const Measurement* m = on_device(c, device)) (m->ms ? ok : bad).push_back({&c, m});
    std::stable_sort(ok.begin(), ok.end(), [](auto& a, auto& b) { return *a.second->ms < *b.second->ms; });
    double best = ok.empty() ? 0 : *ok.front().second->ms;
    char buf[96];
    for (const auto& [c, m] : ok) {
        std::snprintf(buf, sizeof buf, " %.4f ms %.1f%%", *m->ms, best > 0 ? 100.0 * best / *m->ms : 0.0);
        os << "  " << display_name(*c) << buf;
        if (c->kind == ChoiceKind::triton) os << " " << config_text(c->config);
        if (c->recorded_ms) {
            std::snprintf(buf, sizeof buf, "  (recorded %.4f ms)", *c->recorded_ms);
            os << buf;
        }
        os << "\n";
    }
    for (const auto& [c, m] : bad) os << "  " << display_name(*c) << " " << m->status << ": " << m->why << "\n";
    return os.str();
}

}  // namespace kiln::retune
