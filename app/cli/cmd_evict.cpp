// kiln-cli evict [ROOT] (--older-than AGE | --max-size SIZE) [--max-files N] [--stale [--target T]]
// [--category C...] [--yes] [--json]: removes whole groups, least recently used first; a dry run
// unless --yes. PGO profiles and locks only when named with --category; held locks never.
#include <cstdio>
#include <iostream>

#include "command_registry.hpp"
#include "frontend/open_cache.hpp"
#include "health/check.hpp"
#include "inductor/evict.hpp"
#include "inductor/stats.hpp"
#include "portability/target.hpp"
#include "util/json_out.hpp"
#include "util/utf8.hpp"

namespace kiln::cli {
namespace {

using namespace kiln::inductor;

struct EvictArgs {
    std::string root;
    std::string older_than;
    std::string max_size;
    std::vector<std::string> categories;
    std::optional<std::uint64_t> max_files;
    bool stale = false;
    std::string target;
    bool yes = false;
    bool json = false;
    bool force = false;
};

// A dry run opens with what would go per category, and what the .best_config files cost to redo.
void print_dry_run_summary(const EvictReport& r) {
    if (!r.dry_run || r.removed.empty()) return;
    std::printf("Would remove %zu group(s), %s:\n", r.removed.size(), format_bytes(r.freed_bytes).c_str());
    for (const auto& t : totals_by_category(r))
        std::printf("  %-20s %6zu group(s) %10s\n", std::string(category_name(t.category)).c_str(), t.groups,
                    format_bytes(t.bytes).c_str());
    const BestConfigLoss loss = best_config_loss(r);
    if (loss.files > 0) {
        std::printf(
            "Warning: %zu .best_config file(s) would go: the next run of their kernels benchmarks their "
            "configs again",
            loss.files);
        if (loss.by_coordesc > 0) std::printf(" and re-runs coordinate descent for %zu of them", loss.by_coordesc);
        if (loss.with_time > 0)
            std::printf(" (%.1f s of tuning recorded in %zu of them, time_taken_ms)",
                        static_cast<double>(loss.recorded_ms) / 1000, loss.with_time);
        std::printf(".\n");
    }
    std::printf("\n");
}

void print_human(const EvictReport& r) {
    print_dry_run_summary(r);
    const char* verb = r.dry_run ? "would remove" : "removed";
    for (const auto& g : r.removed)
        std::printf("%s  %10s  %-16s last used %s  %s\n", verb, format_bytes(g.bytes).c_str(),
                    std::string(category_name(g.category)).c_str(), format_time_utc(g.last_use_ns).c_str(),
                    printable_name(g.path).c_str());
    for (const auto& p : r.partial)
        std::printf("partial  %10s  freed, then: %s (%s)\n", format_bytes(p.bytes).c_str(),
                    printable_name(p.reason).c_str(), printable_name(p.path).c_str());
    for (const auto& s : r.skipped)
        std::printf("skipped  %s: %s\n", printable_name(s.path).c_str(), printable_name(s.reason).c_str());
    std::printf("%s %zu group(s), %s of %s and %llu of %llu files in %s\n", r.dry_run ? "Would free" : "Freed",
                r.removed.size(), format_bytes(r.freed_bytes).c_str(), format_bytes(r.bytes_before).c_str(),
                static_cast<unsigned long long>(r.freed_files), static_cast<unsigned long long>(r.files_before),
                r.root.c_str());
    if (r.dry_run && !r.removed.empty()) std::printf("Dry run: nothing was deleted; add --yes to delete.\n");
    if (!r.atime_kept)
        std::printf(
            "Note: this cache belongs to another user, so Kiln cannot read it without updating atimes "
            "(O_NOATIME needs the owner or CAP_FOWNER): its own reads (show, timings, ls, the GUI) make "
            "files look recently used to this LRU order.\n");
}

void print_json(const EvictReport& r) {
    nlohmann::ordered_json j;
    j["removed"] = nlohmann::ordered_json::array();
    for (const auto& g : r.removed) j["removed"].push_back({{"path", g.path}, {"bytes", g.bytes}});
    j["freed_bytes"] = r.freed_bytes;
    j["freed_files"] = r.freed_files;
    j["skipped"] = nlohmann::ordered_json::array();
    for (const auto& s : r.skipped) j["skipped"].push_back({{"path", s.path}, {"reason", s.reason}});
    j["partial"] = nlohmann::ordered_json::array();
    for (const auto& p : r.partial)
        j["partial"].push_back({{"path", p.path}, {"bytes", p.bytes}, {"reason", p.reason}});
    j["dry_run"] = r.dry_run;
    j["atime_kept"] = r.atime_kept;
    std::cout << dump_json(j) << "\n";  // file names may be any bytes: never throws
}

int run_evict(const EvictArgs& args) {
    EvictPolicy policy;
    policy.dry_run = !args.yes;
    policy.force = args.force;
    if (!args.older_than.empty()) {
        auto age = parse_age_ns(args.older_than);
        if (!age.ok()) return fail(age.error());
        policy.older_than_ns = *age;
    }
    if (!args.max_size.empty()) {
        auto size = parse_size(args.max_size);
        if (!size.ok()) return fail(size.error());
        policy.max_bytes = *size;
        if (args.max_size.find_first_not_of("0123456789.") == std::string::npos && *size != 0)
            std::fprintf(stderr,
                         "kiln-cli: --max-size %s means %s (a bare number is GB, as in ccache; write %sB for bytes)\n",
                         args.max_size.c_str(), format_bytes(*size).c_str(), args.max_size.c_str());
    }
    policy.max_files = args.max_files;
    for (const auto& name : args.categories) {
        auto c = category_from_name(name);
        if (!c)
            return fail(
                make_error(Errc::invalid_argument, "unknown category", name, "see `kiln-cli stats` for the names"));
        policy.categories.push_back(*c);
    }
    // Evicting changes the cache in place: a directory only, never a blob's temporary unpacking.
    auto cache = frontend::open_cache(std::filesystem::path(args.root), frontend::CacheAccess::write);
    if (!cache) return fail(cache.error());
    const std::string root = cache->root.string();
    if (args.stale) {
        std::optional<portability::Fingerprint> target;
        if (!args.target.empty()) {
            auto fp = portability::load_target(portability::target_spec(args.target));
            if (!fp) return fail(std::move(fp.error()).with_context("--target " + args.target));
            target = std::move(*fp);
        }
        auto stale = health::stale_groups(cache->opened(), target);
        if (!stale) return fail(stale.error());
        policy.named_groups = std::move(*stale);
        if (policy.named_groups.empty() && !policy.older_than_ns && !policy.max_bytes && !policy.max_files) {
            if (args.json) print_json(EvictReport{root, policy.dry_run, {}, {}, {}, 0, 0, 0, 0});
            else std::printf("No stale entries in %s\n", root.c_str());
            return 0;
        }
    }
    auto report = evict_cache(cache->opened(), policy);
    if (!report.ok()) {
        return fail(report.error());
    }
    if (args.json) print_json(*report);
    else print_human(*report);
    return 0;
}

Registration evict_command{
    "evict", 20, [](CLI::App& app, Outcome& outcome) {
        auto args = std::make_shared<EvictArgs>();
        auto* cmd = app.add_subcommand("evict", "Remove least recently used cache groups (a dry run unless --yes)");
        add_root_option(cmd, args->root, "Cache root");
        auto* age =
            cmd->add_option("--older-than", args->older_than, "Remove groups not used for AGE (30d, 12h, 90m, 2w)");
        auto* size = cmd->add_option("--max-size", args->max_size,
                                     "Remove LRU groups until the cache is at most SIZE (500M, 2G, 1.5GiB, 100B; a "
                                     "bare number is GB, as in ccache)");
        age->excludes(size);
        auto* files = cmd->add_option("--max-files", args->max_files,
                                      "Remove LRU groups until the cache holds at most N files (the inode quota that "
                                      "runs out on GPFS/Lustre)");
        auto* stale = cmd->add_flag("--stale", args->stale,
                                    "Remove the entries that can never hit here (kiln-cli check's stale entries)");
        cmd->add_option("--target", args->target,
                        "With --stale: where they must hit (a fingerprint file, cache root, TORCH_TRACE dir, graph "
                        "entry, or `local`; default: this machine when it has a GPU, else the newest torch/Triton "
                        "in the cache)");
        cmd->add_option("--category", args->categories,
                        "Only groups of these categories (fxgraph, triton_compiled, ...)");
        cmd->add_flag("--yes,-y", args->yes, "Really delete (default: list what would go)");
        cmd->add_flag("--force", args->force, "Accept a ROOT that does not look like an Inductor or Triton cache");
        cmd->add_flag("--json", args->json, "Print JSON");
        cmd->callback([args, &outcome, age, size, files, stale] {
            if (age->count() == 0 && size->count() == 0 && files->count() == 0 && stale->count() == 0) {
                outcome.exit_code = fail(make_error(
                    Errc::invalid_argument, "give --older-than AGE, --max-size SIZE, --max-files N or --stale"));
                return;
            }
            outcome.exit_code = run_evict(*args);
        });
    }};

}  // namespace
}  // namespace kiln::cli
