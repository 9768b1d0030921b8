// kiln-cli misses TRACE_LOG_OR_DIR --root ROOT: every FX graph cache event of TORCH_TRACE logs
// (§10), and for each miss the cached entry whose key components are closest and what differs.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "command_registry.hpp"
#include "inductor/misses.hpp"
#include "inductor/trace_log.hpp"
#include "util/json_out.hpp"

namespace kiln::cli {
namespace {

using namespace kiln::inductor;
using ojson = nlohmann::ordered_json;

struct MissesArgs {
    std::string log;
    std::string root;
    bool json = false;
};

int run_misses(const MissesArgs& args) {
    auto events = read_trace_logs(args.log);
    if (!events) return fail(events.error());
    std::optional<KeyedEntries> cached;
    if (!args.root.empty()) {
        auto loaded = load_keyed_entries(args.root);
        if (!loaded) return fail(loaded.error());
        cached = std::move(loaded).value();
    }
    const ojson out = misses_to_json(*events, cached ? &*cached : nullptr);
    std::size_t misses = 0;
    for (const auto& j : out["events"]) misses += j["state"] == "miss";
    if (args.json) {
        std::cout << dump_json(out) << "\n";
        return 0;
    }
    std::printf("%zu fx_graph cache events, %zu misses\n", out["events"].size(), misses);
    for (const auto& j : out["events"]) {
        std::string taken = j["time_taken_ns"].is_null()
                                ? ""
                                : " took " + std::to_string(j["time_taken_ns"].get<std::int64_t>() / 1000000) + " ms";
        std::printf("#%zu  %-6s compile %s  key %s  at %s%s\n", j["index"].get<std::size_t>(),
                    j["state"].get<std::string>().c_str(), j["compile_id"].get<std::string>().c_str(),
                    j["key"].get<std::string>().c_str(), j["time"].get<std::string>().c_str(), taken.c_str());
        if (!j.contains("closest")) continue;
        if (j["closest"].is_null()) {
            std::printf("     no comparison: %s\n", j.value("note", std::string("no entry")).c_str());
            continue;
        }
        const auto& c = j["closest"];
        std::printf("     closest cached entry: %s (%zu components differ, %zu same)\n",
                    c["entry"].get<std::string>().c_str(), c["differing"].size(), c["same"].get<std::size_t>());
        for (const auto& ch : c["changed"])
            std::printf("       %s: %s -> %s\n", ch["component"].get<std::string>().c_str(),
                        ch["entry"].get<std::string>().substr(0, 120).c_str(),
                        ch["event"].get<std::string>().substr(0, 120).c_str());
        for (const auto& n : c["differing"])
            if (std::none_of(c["changed"].begin(), c["changed"].end(),
                             [&](const ojson& ch) { return ch["component"] == n; }))
                std::printf("       %s: present on one side only\n", n.get<std::string>().c_str());
    }
    if (cached && !cached->skipped.empty())
        std::printf("(%zu cached entries skipped: no debug lines or undecodable)\n", cached->skipped.size());
    return 0;
}

Registration reg{
    "misses", 44, [](CLI::App& app, Outcome& outcome) {
        auto args = std::make_shared<MissesArgs>();
        auto* cmd =
            app.add_subcommand("misses", "Why did my graph miss the cache: FX graph cache events of TORCH_TRACE logs");
        cmd->add_option("TRACE_LOG_OR_DIR", args->log, "A TORCH_TRACE log file or a directory of them")->required();
        cmd->add_option("--root", args->root, "Inductor cache root to compare misses against");
        cmd->add_flag("--json", args->json, "Print JSON");
        cmd->callback([args, &outcome] { outcome.exit_code = run_misses(*args); });
    }};

}  // namespace
}  // namespace kiln::cli
