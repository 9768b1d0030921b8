#include "handback/measured_op.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>

#include "hash/sha256.hpp"
#include "inductor/beneath_root.hpp"
#include "inductor/timing_cache_file.hpp"
#include "util/path_component.hpp"
#include "util/process.hpp"
#include "util/python_json.hpp"

namespace kiln::handback {
namespace {

using Json = nlohmann::ordered_json;

std::string short_name(const std::string& name) { return name.size() > 40 ? name.substr(0, 38) + "…" : name; }

// Why torch would record `c` as inf for this device kind ("" when it would not), from Kiln's
// measurement `m` on a device of that kind (may be null) and what torch recorded.
std::string infinite_as_torch(const RunChoice& c, const Measurement* m, const RunOp& op, const std::string& kind) {
    if (m && !m->ok() && m->torch_inf) return m->why.empty() ? "the kernel cannot run on this GPU" : m->why;
    if (!m && !c.runnable && !c.recorded_ms && c.unreadable.empty() && op.recorded_for.device == kind)
        return "torch recorded it as inf on this GPU kind; Kiln cannot run it (" + c.why + ")";
    return "";
}

// Whether `c` on `device` gives the hand-back a time: measured ok or failing as torch fails it.
bool covered(const RunChoice& c, const RunOp& op, int device, const std::string& kind) {
    const Measurement* m = c.on(device);
    return (m && m->ok()) || !infinite_as_torch(c, m, op, kind).empty();
}

// Why `op` is not complete on `device` ("" when it is).
std::string incomplete_on(const RunOp& op, int device, const std::string& kind) {
    if (op.choices.empty()) return "the op has no choices";
    int bad = 0;
    std::string first;
    for (const auto& c : op.choices) {
        const Measurement* m = c.on(device);
        if (covered(c, op, device, kind)) continue;
        if (++bad > 1) continue;
        if (!c.unreadable.empty()) first = c.unreadable;
        else if (!m) first = short_name(c.name) + " was not measured there" + (c.why.empty() ? "" : " (" + c.why + ")");
        else first = short_name(c.name) + " " + m->status + (m->why.empty() ? "" : ": " + m->why);
    }
    if (!bad) return "";
    return std::to_string(bad) + " of " + std::to_string(op.choices.size()) +
           " choices not measured ok (torch would benchmark the op again), e.g. " + first;
}

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// `c` as measured on every device of `full` (each measured every choice of the op): the median of
// the times measured ok; Infinity, as torch writes it, where none ran it.
MeasuredChoice agreed_choice(const RunChoice& c, const RunOp& op, const std::vector<int>& full,
                             const std::string& kind) {
    MeasuredChoice out{c.name, c.kind, 0, std::nullopt};
    std::vector<double> ok;
    for (int d : full) {
        const Measurement* m = c.on(d);
        if (m && m->ok()) {
            ok.push_back(*m->ms);
            out.device_ms.push_back(*m->ms);
            if (m->spread_ms) out.spread_ms = std::max(out.spread_ms.value_or(0), *m->spread_ms);
        } else {
            out.device_ms.push_back(std::numeric_limits<double>::infinity());
        }
    }
    if (!ok.empty()) {
        out.ms = median_of(ok);
        return out;
    }
    out.ms = std::numeric_limits<double>::infinity();
    out.spread_ms.reset();
    out.infinite_why = infinite_as_torch(c, c.on(full.front()), op, kind);
    return out;
}

// Whether the recorded device, Triton key and CUDA version give the recorded file's hash.
bool reproduces(const RecordedFor& r) {
    Json sys;
    sys["device"]["name"] = r.device;
    sys["version"]["triton"] = r.triton;
    sys["version"]["cuda"] = r.cuda;
    return inductor::make_system(sys).hash == r.system_hash;
}

}  // namespace

void fill_recorded_versions(RetuneRun& run, const inductor::OpenedRoot& root) {
    if (root.fd < 0) return;
    for (auto& op : run.ops) {
        auto& r = op.recorded_for;
        // The hash comes from the run's JSON: it names a file only when it is a plain name.
        if (!is_plain_file_name(r.system_hash) || reproduces(r)) continue;
        const std::string rel = "cache/" + r.system_hash;
        auto text = inductor::read_beneath(root, rel, inductor::kMaxCacheFileBytes);
        if (!text) continue;
        auto file = inductor::parse_cache_file(*text, inductor::path_beneath(root, rel));
        if (!file || !file->contains("system") || !(*file)["system"].is_object()) continue;
        const Json& sys = (*file)["system"];
        if (!sys.contains("version") || !sys["version"].is_object()) continue;
        const Json& v = sys["version"];
        if (v.contains("triton") && v["triton"].is_string()) r.triton = v["triton"].get<std::string>();
        if (v.contains("cuda") && v["cuda"].is_string()) r.cuda = v["cuda"].get<std::string>();
        if (sys.contains("device") && sys["device"].is_object() && sys["device"].contains("name") &&
            sys["device"]["name"].is_string())
            r.device = sys["device"]["name"].get<std::string>();
    }
}

Json MeasuredOp::system() const {
    Json sys;
    sys["device"]["name"] = device_name;
    sys["version"]["triton"] = versions.triton;
    sys["version"]["cuda"] = versions.cuda;
    return inductor::make_system(sys).system;
}

std::string MeasuredOp::system_hash() const { return system()["hash"].get<std::string>(); }

const MeasuredChoice* MeasuredOp::winner() const {
    const MeasuredChoice* best = nullptr;
    for (const auto& c : choices)
        if (std::isfinite(c.ms) && (!best || c.ms < best->ms)) best = &c;
    return best;
}

const MeasuredChoice* MeasuredOp::device_winner(std::size_t k) const {
    const MeasuredChoice* best = nullptr;
    for (const auto& c : choices)
        if (k < c.device_ms.size() && std::isfinite(c.device_ms[k]) && (!best || c.device_ms[k] < best->device_ms[k]))
            best = &c;
    return best;
}

std::vector<MeasuredOp::Disagreement> MeasuredOp::disagreements() const {
    std::vector<Disagreement> out;
    const MeasuredChoice* agreed = winner();
    if (agreed_from.size() < 2 || !agreed) return out;
    for (std::size_t k = 0; k < agreed_from.size(); ++k) {
        const MeasuredChoice* own = device_winner(k);
        if (own && own != agreed && own->device_ms[k] < agreed->device_ms[k]) out.push_back({k, own});
    }
    return out;
}

int MeasuredOp::infinite_choices() const {
    return static_cast<int>(std::count_if(choices.begin(), choices.end(), [](const auto& c) { return c.infinite(); }));
}

std::string MeasuredOp::label() const { return op + " " + inputs + " " + precision; }

Selection complete_ops(const RetuneRun& run, const std::optional<SoftwareVersions>& python,
                       std::optional<int> only_device) {
    Selection sel;
    // Device kinds in index order; each kind's devices in index order.
    std::vector<std::string> kinds;
    std::map<std::string, std::vector<int>> by_kind;
    for (const auto& d : run.devices) {
        if (only_device && d.index != *only_device) continue;
        if (!by_kind.count(d.name)) kinds.push_back(d.name);
        by_kind[d.name].push_back(d.index);
    }
    for (size_t op_index = 0; op_index < run.ops.size(); ++op_index) {
        const RunOp& op = run.ops[op_index];
        std::string label = op.op.empty() ? "ops[" + std::to_string(op_index) + "]" : op.label();
        if (!op.unreadable.empty()) {  // one op's bad field costs that op only, on every device
            sel.skipped.push_back({label, "any device", op.unreadable});
            continue;
        }
        for (const auto& kind : kinds) {
            // One device that measured every choice; else (`retune` spreads an op's choices over the
            // GPUs) every choice from the first device of this kind that measured it ok: torch's own
            // multi-device autotuning does the same, and the file is per device kind.
            std::vector<int> from(op.choices.size(), -1);
            std::vector<int> full;  // the devices that each measured every choice
            std::string why;
            for (int index : by_kind[kind]) {
                std::string w = incomplete_on(op, index, kind);
                if (w.empty()) full.push_back(index);
                else if (why.empty()) why = "device " + std::to_string(index) + ": " + w;
            }
            if (!full.empty()) std::fill(from.begin(), from.end(), full.front());
            if (from.empty() || from[0] < 0) {
                bool all = !op.choices.empty();
                int uncovered = 0;
                std::string first;
                for (size_t i = 0; i < op.choices.size(); ++i) {
                    for (int index : by_kind[kind]) {
                        const Measurement* m = op.choices[i].on(index);
                        if (m && m->ok()) {
                            from[i] = index;
                            break;
                        }
                    }
                    // A failure torch records as well counts when no device of this kind ran it.
                    for (int index : by_kind[kind]) {
                        if (from[i] >= 0) break;
                        if (covered(op.choices[i], op, index, kind)) from[i] = index;
                    }
                    all = all && from[i] >= 0;
                    if (from[i] < 0 && !uncovered++)
                        first = op.choices[i].unreadable.empty() ? short_name(op.choices[i].name)
                                                                 : op.choices[i].unreadable;
                }
                if (!all) {
                    if (by_kind[kind].size() > 1)
                        why = std::to_string(uncovered) + " of " + std::to_string(op.choices.size()) +
                              " choices measured ok on none of the " + std::to_string(by_kind[kind].size()) +
                              " devices of this kind (torch would benchmark the op again), e.g. " + first;
                    sel.skipped.push_back({label, kind, why});
                    continue;
                }
            }
            SoftwareVersions v;
            if (python) v = *python;
            else {
                v = {op.recorded_for.triton, op.recorded_for.cuda,
                     "the recorded file cache/" + op.recorded_for.system_hash};
                if (v.triton.empty() || v.cuda.empty()) {
                    sel.skipped.push_back({label, kind,
                                           "the recorded file names no Triton key or CUDA version: pass --python "
                                           "with this machine's torch"});
                    continue;
                }
                if (!op.recorded_for.system_hash.empty() && !reproduces(op.recorded_for)) {
                    sel.skipped.push_back(
                        {label, kind,
                         "the run's recorded Triton key and CUDA version do not give its file's "
                         "hash cache/" +
                             op.recorded_for.system_hash.substr(0, 12) +
                             "… (abbreviated?): give the cache ROOT that holds that file, or --python"});
                    continue;
                }
            }
            bool one = std::all_of(from.begin(), from.end(), [&](int d) { return d == from[0]; });
            MeasuredOp m{op.op, op.inputs, op.precision, kind, one ? from[0] : -1, {}, v, {}, {}};
            if (full.size() > 1) {
                m.device = -1;
                m.agreed_from = full;
                for (const auto& c : op.choices) m.choices.push_back(agreed_choice(c, op, full, kind));
                if (!m.winner()) {
                    sel.skipped.push_back(
                        {label, kind, "no choice ran on this GPU kind (every one fails as torch would)"});
                    continue;
                }
                sel.ops.push_back(std::move(m));
                continue;
            }
            for (size_t i = 0; i < op.choices.size(); ++i) {
                const RunChoice& c = op.choices[i];
                const Measurement* ms = c.on(from[i]);
                if (ms && ms->ok()) {
                    m.choices.push_back({c.name, c.kind, *ms->ms, ms->spread_ms});
                } else {
                    MeasuredChoice inf{c.name, c.kind, std::numeric_limits<double>::infinity(), std::nullopt};
                    inf.infinite_why = infinite_as_torch(c, ms, op, kind);
                    m.choices.push_back(std::move(inf));
                }
            }
            if (!m.winner()) {
                sel.skipped.push_back({label, kind, "no choice ran on this GPU kind (every one fails as torch would)"});
                continue;
            }
            sel.ops.push_back(std::move(m));
        }
    }
    return sel;
}

Result<SoftwareVersions> python_versions(const std::string& python) {
    static const char* script =
        "import json, torch\n"
        "from torch._inductor.runtime.triton_compat import HAS_TRITON, triton_key\n"
        "print(json.dumps({'triton': triton_key() if HAS_TRITON else None, 'cuda': torch.version.cuda,"
        " 'torch': torch.__version__}))\n";
    ProcessOptions p;
    p.argv = {python, "-c", script};
    KILN_TRY(auto r, run_process(p, {.timeout = std::chrono::minutes(2)}));
    if (r.exit_status != 0)
        return make_error(Errc::unavailable, "could not ask torch for its Triton key and CUDA version", python,
                          "pass --python with a Python that imports torch and triton (" +
                              r.err.substr(r.err.size() > 300 ? r.err.size() - 300 : 0) + ")");
    auto line = r.out.substr(0, r.out.find('\n'));
    KILN_TRY(auto j, py_loads(line, python));
    if (!j.is_object() || !j["triton"].is_string() || !j["cuda"].is_string())
        return make_error(Errc::unavailable, "torch reports no Triton key or no CUDA version (a CPU or ROCm build?)",
                          python);
    return SoftwareVersions{j["triton"].get<std::string>(), j["cuda"].get<std::string>(),
                            python + " (torch " + j.value("torch", std::string("?")) + ")"};
}

Result<Shard> parse_shard(std::string_view text) {
    auto slash = text.find('/');
    Shard s;
    auto bad = [&] {
        return make_error(Errc::invalid_argument, "--shard wants I/N with 0 <= I < N (e.g. 0/2)", std::string(text));
    };
    if (slash == std::string_view::npos) return bad();
    auto a = text.substr(0, slash), b = text.substr(slash + 1);
    if (std::from_chars(a.data(), a.data() + a.size(), s.index).ptr != a.data() + a.size() || a.empty()) return bad();
    if (std::from_chars(b.data(), b.data() + b.size(), s.count).ptr != b.data() + b.size() || b.empty()) return bad();
    if (s.count < 1 || s.index < 0 || s.index >= s.count) return bad();
    return s;
}

int shard_of(const std::string& op, const std::string& inputs, const std::string& precision, int count) {
    std::string digest = hash::sha256_hex(op + "\n" + inputs + "\n" + precision);
    std::uint64_t v = std::stoull(digest.substr(0, 15), nullptr, 16);
    return static_cast<int>(v % static_cast<std::uint64_t>(count));
}

RetuneRun shard_run(RetuneRun run, const Shard& shard) {
    std::erase_if(
        run.ops, [&](const RunOp& op) { return shard_of(op.op, op.inputs, op.precision, shard.count) != shard.index; });
    return run;
}

}  // namespace kiln::handback
