// kiln-cli timings PATH... [--json] [--top N] [--op NAME]: every autotune timing Kiln can read
// (Inductor's timing caches, .best_config/.kernel_perf files, mm logs, stderr AUTOTUNE tables,
// Kiln's session logs) normalized into ops and their choices.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include "bundle/blob.hpp"
#include "command_registry.hpp"
#include "frontend/open_cache.hpp"
#include "handback/run_timings.hpp"
#include "inductor/roots.hpp"
#include "timings/choice_name.hpp"
#include "timings/collect.hpp"
#include "timings/compare.hpp"
#include "timings/used_by.hpp"
#include "util/json_out.hpp"
#include "util/regular_file.hpp"
#ifdef KILN_HAVE_REMOTE
#include "remote/retuned_fleet.hpp"
#include "remote/shared_timings.hpp"
#endif

namespace kiln::cli {
namespace {

// --op NAME: ops of that name, and an mm log's records no other source named (they may be any op of
// the mm family: torch's mm log does not say which).
bool op_matches(const timings::Op& op, const std::string& name) {
    return op.op == name || (op.op == "mm_family" && name.find("mm") != std::string::npos);
}

struct TimingsArgs {
    std::vector<std::string> paths;
    bool json = false;
    int top = 10;
    std::string op_filter;
    std::string redis;  // --redis URL: timings shared by `autotune --share` instead of paths
    bool no_graphs = false;
    bool compare = false;  // --compare: each source is one side
};

bool is_redis_url(const std::string& s) { return s.rfind("redis://", 0) == 0 || s.rfind("rediss://", 0) == 0; }

void append(timings::TimingSet& into, timings::TimingSet&& from) {
    for (auto& s : from.sources) into.sources.push_back(std::move(s));
    for (auto& o : from.ops) into.ops.push_back(std::move(o));
    for (auto& w : from.warnings) into.warnings.push_back(std::move(w));
}

// A saved `kiln-cli retune --json` (a file whose JSON has "devices" and "ops"), else nullopt.
std::optional<Result<timings::TimingSet>> as_retune_run(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec) || std::filesystem::path(path).extension() != ".json") return {};
    auto text = read_regular_file(path, 256u << 20);
    if (!text || !handback::looks_like_run(*text)) return {};
    auto run = handback::read_run_file(path);
    if (!run) return Result<timings::TimingSet>(std::move(run.error()));
    return Result<timings::TimingSet>(handback::run_to_timing_set(*run, path));
}

// One source: a Redis server (the timings `autotune --share` shared and the ops re-tuners
// published), a saved re-tune, or files and cache roots.
Result<timings::TimingSet> collect_source(const std::string& source) {
    if (is_redis_url(source)) {
#ifdef KILN_HAVE_REMOTE
        KILN_TRY(auto set, kiln::remote::collect_shared_timings(source));
        KILN_TRY(auto fleet, kiln::remote::read_retuned(source));
        append(set, kiln::remote::retuned_to_timing_set(fleet));
        for (auto& w : fleet.warnings) set.warnings.push_back(std::move(w));
        return set;
#else
        return make_error(Errc::unsupported, "this kiln-cli was built without Redis support (hiredis)", source);
#endif
    }
    if (auto run = as_retune_run(source)) return std::move(*run);
    return timings::collect_timings({std::filesystem::path(source)});
}

// `--compare A B…`: every source's ops, per device (a source with several devices gives one side
// each), and per op where the winners differ and whether by more than the measured noise.
int run_compare(const TimingsArgs& args) {
    if (args.paths.size() < 2)
        return fail(make_error(Errc::invalid_argument, "--compare needs two sources or more", "timings --compare"));
    std::vector<timings::DeviceTimings> sides;
    for (const auto& source : args.paths) {
        auto set = collect_source(source);
        if (!set) return fail(set.error());
        for (const auto& w : set->warnings) warn(w);
        auto per_device = timings::split_by_device(*set);
        if (per_device.empty()) {
            sides.push_back({source, std::move(*set)});
            continue;
        }
        for (auto& d : per_device) {
            d.label = per_device.size() == 1 ? source + " (" + d.label + ")" : source + ": " + d.label;
            sides.push_back(std::move(d));
        }
    }
    if (!args.op_filter.empty())
        for (auto& s : sides)
            std::erase_if(s.set.ops, [&](const timings::Op& op) { return !op_matches(op, args.op_filter); });
    timings::share_params_by_name(sides);
    auto cmp = timings::compare_devices(sides);
    if (args.json) {
        nlohmann::ordered_json j{{"sides", cmp.devices}, {"ops", nlohmann::ordered_json::array()}};
        for (const auto& op : cmp.ops) {
            nlohmann::ordered_json o{{"op", op.op},
                                     {"inputs", op.inputs},
                                     {"precision", op.precision},
                                     {"winners", op.best},
                                     {"winner_labels", nlohmann::ordered_json::array()},
                                     {"winner_differs", op.winner_differs},
                                     {"noise", timings::noise_verdict_name(op.noise)},
                                     {"noise_note", op.noise_note}};
            for (size_t i = 0; i < op.best.size(); ++i) o["winner_labels"].push_back(timings::winner_label(op, i));
            o["best_ms"] = nlohmann::ordered_json::array();
            for (const auto& b : op.best_ms) o["best_ms"].push_back(b ? nlohmann::ordered_json(*b) : nullptr);
            j["ops"].push_back(std::move(o));
        }
        std::cout << dump_json(j) << "\n";
        return 0;
    }
    for (size_t i = 0; i < cmp.devices.size(); ++i) std::printf("%zu = %s\n", i + 1, cmp.devices[i].c_str());
    int differ = 0;
    for (const auto& op : cmp.ops) {
        std::printf("\n%s  %s  [%s]\n", op.op.c_str(), op.inputs.c_str(), op.precision.c_str());
        for (size_t i = 0; i < op.best.size(); ++i) {
            if (op.best[i].empty()) continue;
            std::printf("  %zu: %10.4f ms  %s\n", i + 1, op.best_ms[i].value_or(NAN),
                        timings::winner_label(op, i).c_str());
        }
        if (op.winner_differs) ++differ;
        std::printf("  %s%s%s\n", op.winner_differs ? "winners differ: " : "", timings::noise_verdict_name(op.noise),
                    op.noise_note.empty() ? "" : (" (" + op.noise_note + ")").c_str());
    }
    std::printf("\n%zu op(s) on two sides or more; winners differ on %d\n", cmp.ops.size(), differ);
    return 0;
}

// "  (also triton_mm-cy2dwohf74kn..., triton#4)": the choice's names in its sources other than the
// short name it is shown by (the module hash among them).
std::string aliases_text(const timings::Choice& c, const std::string& shown) {
    std::vector<std::string> names;
    if (c.name != shown) names.push_back(c.name);
    for (const auto& a : c.aliases)
        if (a != shown && std::find(names.begin(), names.end(), a) == names.end()) names.push_back(a);
    if (names.empty()) return {};
    std::string s = "  (also ";
    for (size_t i = 0; i < names.size(); ++i) {
        const std::string& a = names[i];
        s += (i ? ", " : "") + (a.size() > 24 ? a.substr(0, 22) + "..." : a);
    }
    return s + ")";
}

// `text` padded with spaces to `width` characters (UTF-8: "×" is one).
std::string padded(const std::string& text, size_t width) {
    size_t chars = 0;
    for (unsigned char ch : text) chars += (ch & 0xC0) != 0x80;
    return chars >= width ? text : text + std::string(width - chars, ' ');
}

// "      ^ used by graph mm (model.py:94) forward ... [fej3ypleo5ccx] as triton_tem_fused_mm_relu_0":
// the graph entries whose compiled code runs this choice, one line each under it.
void print_used_by(const timings::Choice& c) {
    for (const auto& u : c.used_by)
        std::printf("      ^ used by graph %s [%s] as %s\n", u.name.c_str(), u.key.substr(0, 13).c_str(),
                    u.kernel.c_str());
}

// `several_sources`: the heading names the device (or that the file names none) and the source, so
// the same op read from two files (two machines' logs) gets two headings that say which is which.
void print_op(const timings::Op& op, int top, bool several_sources) {
    std::printf("%s  %s", op.op.c_str(), op.inputs.c_str());
    if (!op.precision.empty()) std::printf("  [%s]", op.precision.c_str());
    if (!op.device.empty()) std::printf("  on %s", op.device.c_str());
    else if (several_sources) std::printf("  on a device the file does not name");
    std::printf("  (%zu choices)", op.choices.size());
    if (several_sources && op.also_from.empty()) std::printf("  from %s", op.source.c_str());
    std::printf("\n");
    if (!op.also_from.empty()) {
        // One op read from several files (the same autotuning): say where, once.
        std::printf("    joined from %s", op.source.c_str());
        for (const auto& s : op.also_from) std::printf(", %s", s.c_str());
        std::printf("\n");
    }
    std::vector<const timings::Choice*> sorted;
    for (const auto& c : op.choices) sorted.push_back(&c);
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](auto* a, auto* b) { return a->ms.value_or(INFINITY) < b->ms.value_or(INFINITY); });
    int shown = 0;
    for (const auto* c : sorted) {
        if (top > 0 && shown++ >= top) {
            std::printf("    ... %zu more (--top 0 shows all)\n", sorted.size() - static_cast<size_t>(top));
            break;
        }
        const char* mark = c->name == op.best ? "*" : " ";
        // torch's short name and the config that sets it apart; the full parameters after the time.
        const timings::ChoiceName name = timings::choice_name(*c);
        const std::string shown = padded(name.display, 52);
        if (std::string bad = timings::invalid_time_reason(*c); !bad.empty()) {
            std::printf("  %s %s %10.4f ms  invalid (%s)  %s%s\n", mark, shown.c_str(), *c->ms, bad.c_str(),
                        timings::params_text(c->params).c_str(), aliases_text(*c, name.short_name).c_str());
        } else if (c->ms) {
            // Inductor's own column: best / this, so the winner reads 100% (from unrounded times).
            double pct = timings::percent_of_best(op, *c).value_or(0.0);
            std::printf("  %s %s %10.4f ms %6.1f%%  %s%s\n", mark, shown.c_str(), *c->ms, pct,
                        timings::params_text(c->params).c_str(), aliases_text(*c, name.short_name).c_str());
            print_used_by(*c);
        } else {
            std::printf("  %s %s %13s  failed: %s%s\n", mark, shown.c_str(), "-", c->error.c_str(),
                        aliases_text(*c, name.short_name).c_str());
        }
    }
}

// .best_config files: one line per kernel with the config it settled on (no benchmark to compare).
void print_kernel_configs(const std::vector<const timings::Op*>& ops) {
    if (ops.empty()) return;
    std::printf("\nper-kernel configs (.best_config: the config autotuning or coordinate descent settled on)\n");
    for (const auto* op : ops) {
        for (const auto& c : op->choices) {
            nlohmann::ordered_json p = c.params;
            std::string how = p.value("found_by_coordesc", false) ? "coordinate descent" : "autotuning";
            std::string took = p.contains("time_taken_ms") && p["time_taken_ms"].is_number()
                                   ? ", search took " + p["time_taken_ms"].dump() + " ms"
                                   : "";
            for (const char* k : {"found_by_coordesc", "time_taken_ms", "configs_hash", "triton_cache_hash"})
                p.erase(k);
            std::printf("  %-40s %s  (by %s%s)\n    %s\n", op->inputs.empty() ? "?" : op->inputs.c_str(),
                        timings::params_text(p).c_str(), how.c_str(), took.c_str(), op->source.c_str());
        }
    }
}

// A file read from a blob's temporary root named as "<blob>[<path in the root>]".
void name_blob_files(timings::TimingSet& set, const std::vector<frontend::OpenedCache>& caches) {
    auto rename = [&](std::string& path) {
        for (const auto& c : caches) {
            const std::string root = c.root.string() + "/";
            if (c.is_blob() && path.rfind(root, 0) == 0) path = c.named.string() + "[" + path.substr(root.size()) + "]";
        }
    };
    for (auto& s : set.sources) rename(s.path);
    for (auto& op : set.ops) {
        rename(op.source);
        for (auto& a : op.also_from) rename(a);
        for (auto& c : op.choices)
            for (auto& s : c.seen_in) rename(s.path);
    }
}

// The roots `set`'s timing caches are in (timings::roots_with_graphs): the one of `caches` where it is
// a cache this command opened, else that root opened now.
std::vector<inductor::OpenedRoot> used_by_roots(const timings::TimingSet& set,
                                                const std::vector<frontend::OpenedCache>& caches,
                                                std::vector<frontend::OpenedCache>& more) {
    std::vector<inductor::OpenedRoot> roots;
    for (const auto& r : timings::roots_with_graphs(set)) {
        auto same = std::find_if(caches.begin(), caches.end(), [&](const frontend::OpenedCache& c) {
            return c.root.lexically_normal() == r.lexically_normal();
        });
        if (same != caches.end()) {
            roots.push_back(same->opened());
        } else if (auto opened = frontend::open_cache(r)) {
            more.push_back(std::move(opened).value());
            roots.push_back(more.back().opened());
        }
    }
    return roots;
}

int run_timings(const TimingsArgs& args) {
    if (args.compare) return run_compare(args);
    std::vector<std::string> others;                 // Redis servers and saved re-tunes
    std::vector<std::optional<std::string>> places;  // files as they are; nullopt: the next of `caches`
    std::vector<frontend::OpenedCache> caches;
    for (const auto& p : args.paths) {
        std::error_code ec;
        if (is_redis_url(p) || as_retune_run(p)) {
            others.push_back(p);
        } else if (bundle::is_blob_file(p) || std::filesystem::is_directory(p, ec)) {
            // A directory (a cache root, a folder of logs), or a Mega-Cache blob as the root
            // load_cache_artifacts would make of it: opened once, read through its descriptor.
            auto cache = frontend::open_cache(std::filesystem::path(p));
            if (!cache) return fail(cache.error());
            caches.push_back(std::move(cache).value());
            places.push_back(std::nullopt);
        } else {
            places.push_back(p);
        }
    }
    if (places.empty() && others.empty() && args.redis.empty()) {
        // Like `stats`: the default cache root.
        auto cache = frontend::open_cache(std::nullopt);
        if (!cache) return fail(cache.error());
        caches.push_back(std::move(cache).value());
        places.push_back(std::nullopt);
    }
    std::vector<timings::TimingPlace> read;  // in the order given
    std::size_t next_cache = 0;
    for (const auto& p : places)
        read.push_back(p ? timings::TimingPlace(std::filesystem::path(*p))
                         : timings::TimingPlace(caches[next_cache++].opened()));
#ifdef KILN_HAVE_REMOTE
    auto set = args.redis.empty() ? (read.empty() ? Result<timings::TimingSet>(timings::TimingSet{})
                                                  : timings::collect_timings_from(read))
                                  : kiln::remote::collect_shared_timings(args.redis);
#else
    auto set = read.empty() ? Result<timings::TimingSet>(timings::TimingSet{}) : timings::collect_timings_from(read);
#endif
    if (!set.ok()) return fail(set.error());
    for (const auto& o : others) {
        auto more = collect_source(o);
        if (!more) return fail(more.error());
        append(*set, std::move(*more));
    }
    for (const auto& w : set->warnings) warn(w);
    if (!args.no_graphs) {
        // Which choices the compiled graphs run ("used by graph ..."); a root whose entries cannot be
        // listed still has its timings.
        std::vector<frontend::OpenedCache> more;
        if (auto marks = timings::mark_used_by(*set, used_by_roots(*set, caches, more)); !marks.ok())
            warn(marks.error().str());
    }
    name_blob_files(*set, caches);
    if (!args.op_filter.empty()) {
        std::erase_if(set->ops, [&](const timings::Op& op) { return !op_matches(op, args.op_filter); });
    }
    if (args.json) {
        std::cout << dump_json(timings::to_json(*set)) << "\n";
        return 0;
    }
    for (const auto& s : set->sources)
        std::printf("source %-12s %3d ops  %s%s%s\n", timings::source_kind_name(s.kind), s.ops, s.path.c_str(),
                    s.device.empty() ? "" : "  on ", s.device.c_str());
    std::vector<const timings::Op*> configs;
    for (const auto& op : set->ops) {
        if (timings::is_per_kernel_config(op)) {
            configs.push_back(&op);
            continue;
        }
        std::printf("\n");
        print_op(op, args.top, set->sources.size() > 1);
    }
    print_kernel_configs(configs);
    if (set->sources.empty()) std::printf("no timing files found\n");
    return 0;
}

const Registration timings_command{
    "timings", 60, [](CLI::App& app, Outcome& outcome) {
        auto args = std::make_shared<TimingsArgs>();
        auto* cmd = app.add_subcommand("timings",
                                       "Show autotune timings: timing caches, .best_config, .kernel_perf, "
                                       "mm logs, stderr AUTOTUNE tables, session logs");
        auto* paths_opt =
            cmd->add_option("paths", args->paths,
                            "Files, or directories (cache roots) searched for all of them, saved re-tunes "
                            "(retune --json), Redis servers (redis://host:port[/db]: shared and re-tuned "
                            "timings) (default: the default cache root, as for stats)")
                ->check(CLI::Validator(
                    [](std::string& s) { return is_redis_url(s) ? std::string() : CLI::ExistingPath(s); },
                    "PATH|redis://…"));
#ifdef KILN_HAVE_REMOTE
        paths_opt->required(false);
        cmd->add_option("--redis", args->redis,
                        "Timings shared in Redis by `autotune --share` (redis://host:port[/db])");
#endif
        (void)paths_opt;
        cmd->add_flag("--json", args->json, "Print {\"sources\": [...], \"ops\": [...]} as JSON");
        cmd->add_flag("--compare", args->compare,
                      "Compare the sources (each a side; a source with several devices gives one side each): per "
                      "op, where the winners differ and whether by more than the measured noise");
        cmd->add_option("--top", args->top, "Choices shown per op in text output (0: all)")->capture_default_str();
        cmd->add_option("--op", args->op_filter, "Only ops of this name (mm, addmm, kernel_perf, ...)");
        cmd->add_flag("--no-graphs", args->no_graphs,
                      "Skip reading the root's graph entries (no \"used by graph\" marks)");
        cmd->callback([args, &outcome] { outcome.exit_code = run_timings(*args); });
    }};

}  // namespace
}  // namespace kiln::cli
