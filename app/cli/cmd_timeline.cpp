// kiln-cli timeline [TRACE_LOG_OR_DIR...] [--root ROOT] [--json]: per process (TORCH_TRACE log) each
// compile with its frame, its cache hits, misses and bypasses, the time it took and the compile time
// the hits saved. Without a path, the TORCH_TRACE directories beside the cache root.
#include <cstdio>
#include <iostream>

#include "command_registry.hpp"
#include "frontend/open_cache.hpp"
#include "trace/compile_timeline.hpp"
#include "util/json_out.hpp"
#include "util/utf8.hpp"

namespace kiln::cli {
namespace {

using namespace kiln::trace;

struct TimelineArgs {
    std::vector<std::string> paths;
    std::string root;
    bool json = false;
};

std::string seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, s < 10 ? "%.2f s" : "%.1f s", s);
    return buf;
}

std::string event_text(const TimelineEvent& e) {
    std::string s = std::string(e.cache == "fx_graph" ? "FX " : "AOT ") + e.state;
    if (!e.detail.empty() && e.detail != e.state && e.detail != "hit") s += " (" + e.detail + ")";
    if (!e.key.empty()) s += " " + e.key.substr(0, 12) + "…";
    if (e.time_taken_ns) s += ", compiled in " + seconds(double(*e.time_taken_ns) / 1e9);
    if (e.time_saved_ns) s += ", compiled in " + seconds(double(*e.time_saved_ns) / 1e9) + " when cached";
    if (!e.reason.empty()) s += (e.state == "bypass" ? ": " : "; failed guards: ") + e.reason;
    return s;
}

void print_process(const TimelineProcess& p) {
    // Which process: rank (under torch.distributed), pid (each unless its label says it), the GPU its
    // keys name, its log.
    std::string who;
    for (const auto& id : process_ids(p)) who += id + ", ";
    who += (p.device.empty() ? "" : p.device + ", ") + std::filesystem::path(p.log).filename().string();
    std::printf(
        "%s (%s): %zu compiles in %s; FX graph %zu hits, %zu misses, %zu bypasses; "
        "AOTAutograd %zu hits, %zu misses; the FX hits took %s to compile when cached (torch's time_saved_ns, "
        "not measured here)\n",
        p.label.c_str(), who.c_str(), p.compiles.size(), seconds(p.compile_s()).c_str(), p.count("fx_graph", "hit"),
        p.count("fx_graph", "miss"), p.count("fx_graph", "bypass"), p.count("aotautograd", "hit"),
        p.count("aotautograd", "miss"), seconds(double(p.saved_ns()) / 1e9).c_str());
    for (const auto& c : p.compiles) {
        std::string where = c.function.empty() ? std::string("(before any frame)") : c.function;
        if (c.kind == "backward") where += " backward";
        if (!c.file.empty())
            where += "  " + std::filesystem::path(c.file).filename().string() + ":" + std::to_string(c.line);
        // What a log says is anyone's text (a log beside a shared cache): printed escaped.
        std::printf("  %-6s %-40s %9s%s\n", printable_name(c.compile_id).c_str(), printable_name(where).c_str(),
                    c.compile_s ? seconds(*c.compile_s).c_str() : "-",
                    c.fail.empty() ? "" : ("  " + printable_name(c.fail)).c_str());
        for (const auto& e : c.events) std::printf("           %s\n", printable_name(event_text(e)).c_str());
    }
}

int run_timeline(const TimelineArgs& args) {
    std::vector<std::filesystem::path> paths(args.paths.begin(), args.paths.end());
    if (paths.empty()) {
        // A blob's logs are looked for beside the blob file, as a root's beside the root.
        auto cache = frontend::open_cache(std::filesystem::path(args.root));
        if (!cache) return fail(cache.error());
        paths = find_trace_dirs(cache->named);
        if (paths.empty())
            return fail(make_error(Errc::not_found, "no TORCH_TRACE directory beside the cache", cache->label,
                                   "give one: kiln-cli timeline DIR (torch writes it with TORCH_TRACE=DIR)"));
    }
    CompileTimeline all;
    if (paths.size() == 1) {  // one path: its own error (a truncated log) rather than a warning
        auto t = read_compile_timeline(paths.front());
        if (!t) return fail(t.error());
        all = std::move(t).value();
    } else {
        all = read_compile_timelines(paths);
    }
    if (all.processes.empty())
        return fail(make_error(Errc::not_found, "no TORCH_TRACE log could be read", paths.front().string(),
                               all.warnings.empty() ? "" : all.warnings.front()));
    if (args.json) {
        std::cout << dump_json(to_json(all)) << "\n";
        return 0;
    }
    for (const auto& p : all.processes) print_process(p);
    for (const auto& w : all.warnings) warn(w);
    return 0;
}

Registration timeline_command{
    "timeline", 46, [](CLI::App& app, Outcome& outcome) {
        auto args = std::make_shared<TimelineArgs>();
        auto* cmd = app.add_subcommand("timeline",
                                       "Compile timeline of TORCH_TRACE logs: per process each compile, hit or miss, "
                                       "time spent and time saved");
        cmd->add_option("TRACE_LOG_OR_DIR", args->paths,
                        "TORCH_TRACE logs or directories (default: those beside the cache root)");
        cmd->add_option("--root", args->root,
                        root_help("Cache root or Mega-Cache blob whose TORCH_TRACE directories (beside it) to read"));
        cmd->add_flag("--json", args->json, "Print JSON");
        cmd->callback([args, &outcome] { outcome.exit_code = run_timeline(*args); });
    }};

}  // namespace
}  // namespace kiln::cli
