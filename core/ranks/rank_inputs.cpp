#include "ranks/rank_inputs.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "inductor/timing_cache_file.hpp"
#include "timings/choice_name.hpp"
#include "timings/collect.hpp"
#include "timings/join_sources.hpp"
#include "timings/kernel_files.hpp"
#include "timings/py_literal.hpp"
#include "timings/timing_cache_source.hpp"
#include "trace/trace_log.hpp"
#include "util/regular_file.hpp"

namespace fs = std::filesystem;

namespace kiln::ranks {
namespace {

using Json = nlohmann::ordered_json;

bool is_dir(const fs::path& p) {
    std::error_code ec;
    return fs::is_directory(p, ec);
}

bool is_hex64(const std::string& s) {
    return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit((unsigned char)c); });
}

// Entries of a directory in name order (none when it cannot be listed).
std::vector<fs::directory_entry> sorted_entries(const fs::path& dir) {
    std::vector<fs::directory_entry> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) out.push_back(*it);
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.path() < b.path(); });
    return out;
}

// The root's timing cache: cache/<64 hex>; with several (a root shared by machines), the newest.
std::string pick_timing_cache(const fs::path& root, std::vector<std::string>& warnings) {
    std::vector<fs::path> files;
    for (const auto& e : sorted_entries(root / "cache")) {
        std::error_code ec;
        if (e.is_regular_file(ec) && is_hex64(e.path().filename().string())) files.push_back(e.path());
    }
    if (files.empty()) return {};
    if (files.size() == 1) return files.front().string();
    std::error_code ec;
    auto newest = *std::max_element(files.begin(), files.end(), [&](const fs::path& a, const fs::path& b) {
        return fs::last_write_time(a, ec) < fs::last_write_time(b, ec);
    });
    warnings.push_back(std::to_string(files.size()) + " timing caches in " + (root / "cache").string() +
                       " (several devices or versions wrote this root); compared the newest, " +
                       newest.filename().string());
    return newest.string();
}

std::string string_at(const Json& j, const Json::json_pointer& p) {
    if (!j.contains(p)) return {};
    const Json& v = j.at(p);
    return v.is_string() ? v.get<std::string>() : std::string{};
}

}  // namespace

void describe_choice(RankChoice& rc) {
    const bool tmpl = rc.family.rfind("triton_", 0) == 0;
    rc.config_known = !tmpl || !rc.params.empty();
    rc.identity = rc.config_known ? choice_identity_of(rc.family, rc.params) : rc.family + "#" + rc.name;
    if (rc.display.empty()) {
        std::string cfg = timings::config_summary(rc.params);
        rc.display = cfg.empty() ? rc.family : rc.family + " (" + cfg + ")";
    }
}

namespace {

// A Triton choice's config from its benchmark module (<root>/<xx>/<key>.py), where the root kept it.
void params_from_module(RankChoice& rc, const fs::path& root) {
    auto kind = timings::choice_kind(rc.name);
    if (!kind.is_template || kind.module_key.empty()) return;
    std::string module = timings::kernel_module_for_key(root, kind.module_key);
    if (module.empty()) return;
    auto info = timings::read_kernel_module_info(module);
    if (!info) return;
    for (auto it = info->params.begin(); it != info->params.end(); ++it)
        if (it.key() != "size_hints") rc.params[it.key()] = it.value();
}

// A table prints times to 4 decimals, except the winner's, which torch's choice stats give in full
// (as a float32).
bool same_time(double cache_ms, const timings::Choice& row) {
    if (row.ms_rounded) return std::fabs(std::round(cache_ms * 1e4) / 1e4 - *row.ms) < 5e-9;
    return std::fabs(cache_ms - *row.ms) <= 1e-6 * std::max(1.0, cache_ms);
}

// The rows of one AUTOTUNE table joined to the op's choices by time: a table prints each time to 4
// decimals, the timing cache in full, for the same benchmark. A row whose time fits one choice of
// its family gives that choice its config and table name; a row that fits several (a tie at 4
// decimals) gives none. Returns the rows that fit no choice (the table is another op's).
std::size_t join_table(RankOp& op, const timings::Op& table, bool apply) {
    std::size_t misfit = 0;
    std::vector<bool> taken(op.choices.size(), false);
    for (const auto& row : table.choices) {
        if (!row.ms) continue;
        const std::string family = timings::choice_kind(row.name).family;
        std::vector<std::size_t> fits;
        for (size_t i = 0; i < op.choices.size(); ++i)
            if (!taken[i] && op.choices[i].ms && op.choices[i].family == family && same_time(*op.choices[i].ms, row))
                fits.push_back(i);
        if (fits.empty()) {
            ++misfit;
            continue;
        }
        if (fits.size() > 1 || !apply) continue;
        RankChoice& c = op.choices[fits.front()];
        taken[fits.front()] = true;
        if (c.params.empty() && row.params->is_object())
            for (auto it = row.params->begin(); it != row.params->end(); ++it) c.params[it.key()] = it.value();
        c.display = timings::choice_display_name(row);
    }
    return misfit;
}

Status read_timing_ops(LoadedRank& r, const std::vector<fs::path>& logs) {
    KILN_TRY(auto file, inductor::read_cache_file(r.timing_cache));
    if (file.contains("system") && file["system"].is_object()) {
        const Json& sys = file["system"];
        r.device = string_at(sys, "/device/name"_json_pointer);
        r.system_hash = string_at(sys, "/hash"_json_pointer);
        r.triton_key = string_at(sys, "/version/triton"_json_pointer);
        r.cuda_version = string_at(sys, "/version/cuda"_json_pointer);
    }
    if (r.system_hash.empty()) r.system_hash = fs::path(r.timing_cache).filename().string();
    if (!file.contains("cache") || !file["cache"].is_object())
        return make_error(Errc::parse, "no \"cache\" object", r.timing_cache);
    // The stderr AUTOTUNE tables: configs and torch's short names (the top rows of each op).
    timings::TimingSet tables;
    if (!logs.empty()) {
        auto set = timings::collect_timings(logs);
        if (set) tables = std::move(*set);
        else r.warnings.push_back("the AUTOTUNE tables were not read (" + set.error().str() + ")");
        for (const auto& w : tables.warnings) r.warnings.push_back(w);
    }
    for (auto op = file["cache"].begin(); op != file["cache"].end(); ++op) {
        if (!op->is_object()) continue;
        for (auto in = op->begin(); in != op->end(); ++in) {
            if (!in->is_object()) continue;
            std::vector<std::string> sizes;
            std::string inputs = in.key();
            if (auto keys = timings::parse_inputs_key(in.key()); keys.ok())
                inputs = timings::describe_inputs(*keys, &sizes);
            for (auto pr = in->begin(); pr != in->end(); ++pr) {
                if (!pr->is_object()) continue;
                RankOp ro{op.key(), in.key(), pr.key(), inputs, {}, -1};
                for (auto c = pr->begin(); c != pr->end(); ++c) {
                    RankChoice rc;
                    rc.name = c.key();
                    rc.family = timings::choice_kind(rc.name).family;
                    if (c->is_number() && std::isfinite(c->get<double>())) rc.ms = c->get<double>();
                    params_from_module(rc, r.root);
                    ro.choices.push_back(std::move(rc));
                }
                // The table of this op: same op and sizes, every timed row fitting a choice (two ops of
                // one size, other strides, have other times).
                const timings::Op* best = nullptr;
                for (const auto& t : tables.ops)
                    if (t.op == ro.op && t.sizes == sizes && join_table(ro, t, false) == 0) {
                        best = &t;
                        break;
                    }
                if (best) join_table(ro, *best, true);
                for (auto& rc : ro.choices) describe_choice(rc);
                for (size_t i = 0; i < ro.choices.size(); ++i)
                    if (ro.choices[i].ms && (ro.winner < 0 || *ro.choices[i].ms < *ro.choices[ro.winner].ms))
                        ro.winner = static_cast<int>(i);
                r.ops.push_back(std::move(ro));
            }
        }
    }
    return ok_status();
}

// <root>/<2 chars>/<hex>.best_config: the config of each coordinate-descent-tuned kernel.
void read_best_configs(LoadedRank& r) {
    for (const auto& d : sorted_entries(r.root)) {
        if (d.path().filename().string().size() != 2 || !is_dir(d.path())) continue;
        for (const auto& f : sorted_entries(d.path())) {
            if (f.path().extension() != ".best_config") continue;
            auto text = read_regular_file(f.path(), 1u << 20);
            if (!text) {
                r.warnings.push_back(text.error().str());
                continue;
            }
            auto j = Json::parse(*text, nullptr, false);
            if (!j.is_object()) {
                r.warnings.push_back(f.path().string() + ": not a JSON object");
                continue;
            }
            BestConfigFile b;
            b.path = f.path().string();
            for (auto it = j.begin(); it != j.end(); ++it) {
                if (it.key() == "configs_hash") b.configs_hash = it->is_string() ? it->get<std::string>() : "";
                else if (it.key() != "found_by_coordesc" && it.key() != "time_taken_ms" &&
                         it.key() != "triton_cache_hash")
                    b.params[it.key()] = it.value();
            }
            r.best_configs.push_back(std::move(b));
        }
    }
}

std::string aot_id_of(const std::string& text) {
    const std::string tag = "# AOT ID: ";
    if (text.rfind(tag, 0) != 0) return {};
    return text.substr(tag.size(), text.find('\n') - tag.size());
}

void read_trace(LoadedRank& r) {
    auto files = trace::trace_log_files(r.trace);
    if (!files) {
        r.warnings.push_back("TORCH_TRACE not read: " + files.error().str());
        return;
    }
    for (const auto& log : *files) {
        std::vector<trace::CacheEvent> events;
        auto st = trace::for_each_trace_record(log, [&](const trace::TraceRecord& rec) {
            (void)trace::append_cache_event(rec, log.string(), events);
            if (rec.header_json.find("\"inductor_output_code\"") == std::string::npos &&
                rec.header_json.find("\"compilation_metrics\"") == std::string::npos)
                return true;
            auto meta = nlohmann::json::parse(rec.header_json, nullptr, false);
            if (!meta.is_object()) return true;
            if (auto oc = meta.find("inductor_output_code"); oc != meta.end() && oc->is_object()) {
                OutputModule m;
                m.path = oc->value("filename", std::string{});
                m.compile_id = trace::record_compile_id(meta);
                m.text = rec.payload;
                m.aot_id = aot_id_of(m.text);
                r.outputs.push_back(std::move(m));
            }
            if (auto cm = meta.find("compilation_metrics"); cm != meta.end() && cm->is_object())
                if (auto v = cm->find("pytorch_version"); v != cm->end() && v->is_string() && r.torch_version.empty())
                    r.torch_version = v->get<std::string>();
            return true;
        });
        if (!st.ok()) r.warnings.push_back("TORCH_TRACE not read: " + st.error().str());
        for (auto& ev : events) {
            GraphKeyEvent k{ev.cache, ev.compile_id, ev.state, ev.key, {}};
            if (auto comps = inductor::parse_debug_lines(ev.components); comps.ok()) k.components = std::move(*comps);
            r.keys.push_back(std::move(k));
        }
    }
}

// Without a trace: the root's output code modules (<xx>/c<key>.py whose first line is "# AOT ID:").
void read_output_modules(LoadedRank& r) {
    for (const auto& d : sorted_entries(r.root)) {
        if (d.path().filename().string().size() != 2 || !is_dir(d.path())) continue;
        for (const auto& f : sorted_entries(d.path())) {
            if (f.path().extension() != ".py") continue;
            auto opened = open_regular_file(f.path());
            if (!opened) continue;
            auto head = read_prefix(*opened, 12, f.path().string());
            if (!head || *head != "# AOT ID: ['") continue;
            auto text = read_opened_file(*opened, f.path().string(), 64u << 20);
            if (!text) {
                r.warnings.push_back(text.error().str());
                continue;
            }
            OutputModule m{aot_id_of(*text), f.path().string(), {}, std::move(*text)};
            r.outputs.push_back(std::move(m));
        }
    }
}

}  // namespace

std::string choice_identity_of(const std::string& family, const nlohmann::ordered_json& params) {
    if (!params.is_object() || params.empty()) return family;
    nlohmann::ordered_json sorted = nlohmann::ordered_json::object();
    std::vector<std::string> keys;
    for (auto it = params.begin(); it != params.end(); ++it) keys.push_back(it.key());
    std::sort(keys.begin(), keys.end());
    for (const auto& k : keys) sorted[k] = params[k];
    return family + "(" + timings::params_text(sorted) + ")";
}

Result<RankSpec> resolve_rank(const RankSpec& in) {
    RankSpec s = in;
    fs::path p = in.path.lexically_normal();
    if (p.filename().empty()) p = p.parent_path();
    std::error_code ec;
    auto st = fs::status(p, ec);
    const std::string hint =
        "name each rank's folder: its cache root, or the folder holding inductor/, stderr*.log and trace/";
    if (!fs::exists(st)) return make_error(Errc::not_found, "no such rank folder", p.string(), hint);
    if (!fs::is_directory(st)) return make_error(Errc::invalid_argument, "not a folder", p.string(), hint);
    fs::path folder = p;
    if (s.root.empty()) {
        if (is_dir(p / "inductor")) s.root = p / "inductor";
        else if (is_dir(p / "cache") || is_dir(p / "fxgraph")) {
            s.root = p;
            if (p.filename() == "inductor" && p.has_parent_path()) folder = p.parent_path();
        } else {
            return make_error(Errc::not_found, "no Inductor cache root in this folder (neither inductor/ nor cache/)",
                              p.string(), hint);
        }
    }
    if (s.stderr_logs.empty())
        for (const auto& e : sorted_entries(folder)) {
            std::string name = e.path().filename().string();
            if (e.is_regular_file(ec) && name.rfind("stderr", 0) == 0 && e.path().extension() == ".log")
                s.stderr_logs.push_back(e.path());
        }
    if (s.trace.empty() && is_dir(folder / "trace")) s.trace = folder / "trace";
    if (s.label.empty()) s.label = folder.filename().string();
    if (s.label.empty()) s.label = folder.string();
    s.path = folder;
    return s;
}

Result<LoadedRank> load_rank(const RankSpec& spec) {
    KILN_TRY(auto s, resolve_rank(spec));
    LoadedRank r;
    r.label = s.label;
    r.folder = s.path.string();
    r.root = s.root.string();
    r.trace = s.trace.string();
    for (const auto& l : s.stderr_logs) r.stderr_logs.push_back(l.string());
    r.timing_cache = pick_timing_cache(s.root, r.warnings);
    if (!r.timing_cache.empty()) {
        if (auto st = read_timing_ops(r, s.stderr_logs); !st.ok()) {
            r.warnings.push_back("timing cache not read: " + st.error().str());
            r.ops.clear();
        }
    } else {
        r.warnings.push_back("no timing cache in " + (s.root / "cache").string() + ": no autotuned op to compare");
    }
    read_best_configs(r);
    if (!s.trace.empty()) read_trace(r);
    else r.warnings.push_back("no TORCH_TRACE (trace/): the graphs' cache keys are not compared");
    if (r.outputs.empty()) read_output_modules(r);
    if (r.ops.empty() && r.best_configs.empty() && r.keys.empty() && r.outputs.empty()) {
        std::string why = r.warnings.empty() ? "" : r.warnings.front();
        return make_error(Errc::not_found,
                          "nothing to compare in this rank: no timing cache, .best_config, "
                          "TORCH_TRACE or output code",
                          r.folder, why);
    }
    return r;
}

}  // namespace kiln::ranks
