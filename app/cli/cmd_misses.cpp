// kiln-cli misses TRACE_LOG_OR_DIR --root ROOT: every FX graph and AOTAutograd cache event of
// TORCH_TRACE logs (§10), classified from the trace (hit, key miss, guard miss, bypass); a guard miss
// with the entries under its key and the failing conjunct, an FX key miss with the closest entry.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "command_registry.hpp"
#include "frontend/open_cache.hpp"
#include "trace/misses.hpp"
#include "trace/trace_log.hpp"
#include "trace/trace_run.hpp"
#include "util/json_out.hpp"

namespace kiln::cli {
namespace {

using namespace kiln::inductor;
using namespace kiln::trace;
using ojson = nlohmann::ordered_json;

struct MissesArgs {
    std::string log;
    std::string root;
    bool json = false;
};

std::string ms(const ojson& ns) { return ns.is_null() ? "" : std::to_string(ns.get<std::int64_t>() / 1000000) + " ms"; }

void print_guard_miss(const ojson& g) {
    std::printf("     this run's values (from the trace's create_symbol):");
    for (const auto& s : g["symbols"])
        std::printf(" %s = %s = %s (%s);", s["name"].get<std::string>().c_str(), s["symbol"].get<std::string>().c_str(),
                    s["value"].is_null() ? "?" : std::to_string(s["value"].get<std::int64_t>()).c_str(),
                    s["source"].get<std::string>().c_str());
    std::printf("\n     cached entries under the same key (%s), in torch's lookup order:\n",
                g["key_dir"].get<std::string>().c_str());
    for (const auto& e : g["entries"]) {
        std::string what = e.contains("error")      ? "skipped: " + e["error"].get<std::string>()
                           : e["pass"].get<bool>()  ? "holds"
                           : e["failing"].is_null() ? "fails"
                                                    : "fails: " + e["failing"].get<std::string>();
        std::printf("       %s  %s%s\n", e["file"].get<std::string>().c_str(), what.c_str(),
                    e["written_after_miss"].get<bool>() ? "  (written at or after this miss: by this compile)" : "");
        if (!e["guards_expr"].is_null())
            std::printf("         guards: %s\n", e["guards_expr"].get<std::string>().c_str());
    }
    if (g.contains("note")) std::printf("     %s\n", g["note"].get<std::string>().c_str());
}

void print_closest(const ojson& j) {
    if (j["closest"].is_null()) {
        std::printf("     no comparison: %s\n", j.value("note", std::string("no entry")).c_str());
        return;
    }
    const auto& c = j["closest"];
    std::printf("     closest older cached entry (another key): %s (%zu components differ, %zu same)\n",
                c["entry"].get<std::string>().c_str(), c["differing"].size(), c["same"].get<std::size_t>());
    auto brief = [](const ojson& v) {
        std::string s = v.get<std::string>();
        return s.find('\n') != std::string::npos ? std::string("(multi-line: kiln-cli diff shows it)")
                                                 : s.substr(0, 120);
    };
    for (const auto& ch : c["changed"])
        std::printf("       %s: cached %s -> this run %s\n", ch["component"].get<std::string>().c_str(),
                    brief(ch["entry"]).c_str(), brief(ch["event"]).c_str());
    for (const auto& n : c["differing"])
        if (std::none_of(c["changed"].begin(), c["changed"].end(),
                         [&](const ojson& ch) { return ch["component"] == n; }))
            std::printf("       %s: present on one side only\n", n.get<std::string>().c_str());
}

int run_misses(const MissesArgs& args) {
    auto run = read_trace_run(args.log);
    if (!run) return fail(run.error());
    std::optional<KeyedEntries> cached;
    std::optional<frontend::OpenedCache> cache;  // a blob's temporary root lives as long as this
    if (!args.root.empty()) {
        auto opened = frontend::open_cache(std::filesystem::path(args.root));
        if (!opened) return fail(opened.error());
        cache = std::move(opened).value();
        // A blob's files were written when it was unpacked: their mtimes are no write times.
        auto loaded = load_keyed_entries(cache->opened(), !cache->is_blob());
        if (!loaded) return fail(frontend::in_given_terms(*cache, loaded.error()));
        cached = std::move(loaded).value();
        if (cache->is_blob()) date_entries_by_run(*cached, *run);
    }
    const inductor::OpenedRoot opened = cache ? cache->opened() : inductor::OpenedRoot{};
    const ojson out = misses_to_json(*run, cache ? &opened : nullptr, cached ? &*cached : nullptr);
    std::size_t fx = 0, fx_misses = 0, aot = 0, aot_misses = 0;
    for (const auto& j : out["events"]) {
        const bool is_aot = j["cache"] == "aotautograd";
        (is_aot ? aot : fx)++;
        (is_aot ? aot_misses : fx_misses) += j["state"] == "miss";
    }
    for (const auto& g : run->gaps) warn(g.str());
    if (args.json) {
        std::cout << dump_json(out) << "\n";
        return 0;
    }
    std::printf(
        "%zu FX graph cache events (%zu misses), %zu AOTAutograd cache events (%zu misses); times: each "
        "process's local time\n",
        fx, fx_misses, aot, aot_misses);
    std::string last_log;
    for (const auto& j : out["events"]) {
        if (j["log"] != last_log) {
            last_log = j["log"];
            std::printf("%s (pid %lld)\n", last_log.c_str(), static_cast<long long>(j["pid"].get<std::int64_t>()));
        }
        std::string where;
        if (!j["function"].is_null()) {
            const ojson& f = j.contains("user_frame") ? j["user_frame"] : j;
            const ojson& line = j.contains("user_frame") ? f["line"] : f["first_line"];
            where = "  " + f["function"].get<std::string>() + " (" + f["file"].get<std::string>() + ":" +
                    (line.is_null() ? "?" : std::to_string(line.get<std::int64_t>())) + ")";
        }
        std::string taken = ms(j["time_taken_ns"]);
        // FX events as LOG#N names them ("#0"), AOT events apart ("AOT#0").
        const bool is_aot = j["cache"] == "aotautograd";
        std::string id = (is_aot ? "AOT#" : "FX#") + std::to_string(j["index"].get<std::size_t>());
        std::printf("%-6s %-10s compile %s%s  key %s  at %s%s\n", id.c_str(), j["class"].get<std::string>().c_str(),
                    j["compile_id"].get<std::string>().c_str(), where.c_str(), j["key"].get<std::string>().c_str(),
                    j["local_time"].get<std::string>().c_str(), taken.empty() ? "" : (", took " + taken).c_str());
        if (is_aot && j.contains("fx_events") && !j["fx_events"].empty()) {
            std::string fx_ids;
            for (const auto& f : j["fx_events"]) fx_ids += (fx_ids.empty() ? "FX#" : ", FX#") + f.dump();
            std::printf("       its FX graph event%s: %s\n", j["fx_events"].size() > 1 ? "s" : "", fx_ids.c_str());
        }
        if (j.contains("note") && !j.contains("closest"))
            std::printf("     %s\n", j["note"].get<std::string>().c_str());
        if (j.contains("reason")) std::printf("     reason: %s\n", j["reason"].get<std::string>().c_str());
        if (j.contains("guard_miss")) print_guard_miss(j["guard_miss"]);
        if (j.contains("closest")) print_closest(j);
    }
    if (cached && !cached->skipped.empty())
        std::printf("(%zu cached entries skipped: no debug lines or undecodable)\n", cached->skipped.size());
    return 0;
}

Registration misses_command{
    "misses", 44, [](CLI::App& app, Outcome& outcome) {
        auto args = std::make_shared<MissesArgs>();
        auto* cmd = app.add_subcommand(
            "misses", "Why did my graph miss the cache: FX graph and AOTAutograd cache events of TORCH_TRACE logs");
        cmd->add_option("TRACE_LOG_OR_DIR", args->log, "A TORCH_TRACE log file or a directory of them")->required();
        cmd->add_option("--root", args->root, "Inductor cache root or Mega-Cache blob to compare misses against");
        cmd->add_flag("--json", args->json, "Print JSON");
        cmd->callback([args, &outcome] { outcome.exit_code = run_misses(*args); });
    }};

}  // namespace
}  // namespace kiln::cli
