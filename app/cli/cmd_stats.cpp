// kiln-cli stats [ROOT] [--json]: what is in a cache, per category, like `ccache -s`.
#include <cstdio>
#include <iostream>
#include <optional>

#include "command_registry.hpp"
#include "frontend/open_cache.hpp"
#include "inductor/stats.hpp"
#include "util/json_out.hpp"
#ifdef KILN_HAVE_REMOTE
#include "remote/redis_url.hpp"
#include "remote/remote_stats.hpp"
#endif

namespace kiln::cli {
namespace {

using namespace kiln::inductor;

struct StatsArgs {
    std::string root;
    bool triton = false;
    bool json = false;
    std::string redis;  // --redis [URL]: a remote cache (URL, or torch's variables when empty)
    const CLI::Option* redis_opt = nullptr;
};

void print_human(const CacheStats& s, const ScanResult& scan) {
    std::printf("Cache root    %s (%s)\n\n", s.root.c_str(), std::string(root_kind_name(s.kind)).c_str());
    std::printf("%-22s %9s %9s %12s\n", "category", "files", "entries", "size");
    for (std::size_t i = 0; i < kCategoryCount; ++i) {
        const CategoryStats& c = s.categories[i];
        if (c.files == 0) continue;
        std::printf("%-22s %9llu %9llu %12s\n", std::string(category_name(static_cast<Category>(i))).c_str(),
                    static_cast<unsigned long long>(c.files), static_cast<unsigned long long>(c.entries),
                    format_bytes(c.bytes).c_str());
    }
    std::printf("%-22s %9llu %9s %12s\n\n", "total", static_cast<unsigned long long>(s.total_files), "",
                format_bytes(s.total_bytes).c_str());
    if (!s.unknown.empty()) std::printf("%s\n\n", describe_unknown(s.unknown).c_str());
    if (s[Category::pgo_profile].files)
        std::printf("PGO profiles are kept by evict unless asked for: --category pgo_profile\n\n");
    std::printf("fxgraph keys  %llu\n", static_cast<unsigned long long>(s.fxgraph_keys));
    std::printf("groups        %llu (evicted as a whole)\n", static_cast<unsigned long long>(s.groups));
    std::printf("oldest        %s\n", format_time_utc(s.oldest_mtime_ns).c_str());
    std::printf("newest        %s\n", format_time_utc(s.newest_mtime_ns).c_str());
    std::printf("unreadable    %llu\n", static_cast<unsigned long long>(s.unreadable));
    if (s.quarantine_files)
        std::printf("quarantine    %llu files, %s (.kiln-quarantine/, not in the totals; kiln-cli check --restore)\n",
                    static_cast<unsigned long long>(s.quarantine_files), format_bytes(s.quarantine_bytes).c_str());
    if (scan.symlinks)
        std::printf("symlinks      %llu (not followed)\n", static_cast<unsigned long long>(scan.symlinks));
}

#ifdef KILN_HAVE_REMOTE
// `stats --redis [URL]`: the same schema over a remote cache; an empty URL means torch's variables.
int run_remote_stats(const std::string& url, bool json) {
    auto ep = remote::resolve_redis_endpoint(url);
    if (!ep) return fail(ep.error());
    auto client = remote::RedisClient::connect(*ep);
    if (!client) return fail(client.error());
    auto stats = remote::collect_remote_stats(*client);
    if (!stats) return fail(stats.error());
    if (json) std::cout << dump_json(to_json(*stats)) << "\n";
    else std::cout << remote::format_remote_stats(*stats);
    // Corrupt values are listed, never fatal.
    for (const auto& p : stats->problems) warn(p);
    if (stats->unreadable > stats->problems.size())
        warn(std::to_string(stats->unreadable - stats->problems.size()) + " more unreadable");
    return 0;
}
#endif

int run_stats(const StatsArgs& args) {
#ifdef KILN_HAVE_REMOTE
    if (args.redis_opt && args.redis_opt->count() > 0) return run_remote_stats(args.redis, args.json);
#endif
    // A Mega-Cache blob counts as the cache load_cache_artifacts would make of it.
    auto cache = frontend::open_cache(std::filesystem::path(args.root), frontend::CacheAccess::read,
                                      args.triton ? RootKind::triton : RootKind::inductor);
    if (!cache) return fail(cache.error());
    ScanOptions options;
    if (args.triton) options.kind = RootKind::triton;
    auto scanned = scan_stats(cache->opened(), options);
    if (!scanned.ok()) return fail(frontend::in_given_terms(*cache, scanned.error()));
    CacheStats& stats = scanned->stats;
    const ScanResult* scan = &scanned->scan;
    if (cache->is_blob()) stats.root = cache->label;
    if (!args.triton) read_key_components(stats.unknown, cache->opened());  // a newer torch's keys say so
    if (args.json) std::cout << dump_json(to_json(stats)) << "\n";
    else print_human(stats, *scan);
    // Unreadable parts are reported, never fatal.
    for (const Error& e : scan->errors) warn(e.str());
    if (scan->unreadable > scan->errors.size())
        warn(std::to_string(scan->unreadable - scan->errors.size()) + " more unreadable");
    return 0;
}

Registration stats_command{
    "stats", 10, [](CLI::App& app, Outcome& outcome) {
        auto args = std::make_shared<StatsArgs>();
        auto* cmd = app.add_subcommand("stats", "Files, entries and bytes per category of an Inductor or Triton cache");
        add_root_option(cmd, args->root, "Cache root or Mega-Cache blob");
        cmd->add_flag("--triton", args->triton,
                      "Read a stand-alone Triton cache (default: $TRITON_CACHE_DIR, else ~/.triton/cache)");
        cmd->add_flag("--json", args->json, "Print JSON");
#ifdef KILN_HAVE_REMOTE
        args->redis_opt = cmd->add_option("--redis", args->redis,
                                          "A remote cache on Redis: redis://[user:password@]host:port[/db] "
                                          "(empty: $TORCHINDUCTOR_REDIS_URL, else _HOST/_PORT)")
                              ->expected(0, 1);
#endif
        cmd->callback([args, &outcome] { outcome.exit_code = run_stats(*args); });
    }};

}  // namespace
}  // namespace kiln::cli
