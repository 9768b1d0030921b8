// kiln-cli check [ROOT] [--target FP|local] [--strict] [--json] [--quarantine] [--restore ID]
// [--list-quarantine]: every problem of a cache (path, kind, why it matters), stale entries apart,
// unused autotune candidates; exit 0 healthy, 1 problems (stale ones too with --strict).
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>

#include "command_registry.hpp"
#include "frontend/open_cache.hpp"
#include "health/check.hpp"
#include "health/quarantine.hpp"
#include "inductor/stats.hpp"
#include "portability/target.hpp"
#include "util/json_out.hpp"
#include "util/utf8.hpp"

namespace kiln::cli {
namespace {

using namespace kiln::health;

struct CheckArgs {
    std::string root;
    std::string target;
    std::string restore;
    bool json = false, strict = false, quarantine = false, list = false;
    std::size_t limit = 50;
};

void print_report(const HealthReport& r, std::size_t limit) {
    if (r.problems.empty())
        std::printf("Healthy: no problems in %llu files of %s\n", (unsigned long long)r.files, r.root.c_str());
    else
        std::printf("%zu problem(s) in %llu files of %s\n", r.problems.size(), (unsigned long long)r.files,
                    r.root.c_str());
    std::map<ProblemKind, std::size_t> shown;
    for (const auto& p : r.problems) {
        if (shown[p.kind]++ == 0)
            std::printf("\n%s: %s\n", std::string(problem_kind_name(p.kind)).c_str(),
                        std::string(problem_why(p.kind)).c_str());
        if (shown[p.kind] <= limit)
            std::printf("  %s\n      %s\n", printable_name(p.path).c_str(), printable_name(p.detail).c_str());
        else if (shown[p.kind] == limit + 1) std::printf("  ... more (--json lists all)\n");
    }
    if (!r.stale.empty()) {
        std::printf("\n%zu stale entr%s (can never hit against %s; not counted unless --strict):\n", r.stale.size(),
                    r.stale.size() == 1 ? "y" : "ies", r.stale_against.c_str());
        std::size_t n = 0;
        for (const auto& s : r.stale) {
            if (n++ >= limit) {
                std::printf("  ... %zu more\n", r.stale.size() - limit);
                break;
            }
            std::printf("  %s\n", printable_name(s.path).c_str());
            for (const auto& d : s.differs)
                std::printf("      %s: %.70s -> %.70s\n", d.component.c_str(), d.cached.c_str(), d.target.c_str());
        }
    }
    if (r.unused_bytes())
        std::printf(
            "\nUnused autotune candidates: %s in %zu entr%s (bundled kernels the graph never launches; not a "
            "problem)\n",
            inductor::format_bytes(r.unused_bytes()).c_str(), r.unused.size(), r.unused.size() == 1 ? "y" : "ies");
    if (r.quarantine_files)
        std::printf("\nQuarantine: %llu files, %s (.kiln-quarantine/)\n", (unsigned long long)r.quarantine_files,
                    inductor::format_bytes(r.quarantine_bytes).c_str());
    if (!r.unknown.empty()) std::printf("\n%s (not a problem)\n", describe_unknown(r.unknown).c_str());
}

int run_restore(const inductor::OpenedRoot& root, const CheckArgs& args) {
    auto r = restore_quarantine(root, args.restore);
    if (!r) return fail(r.error());
    if (args.json) {
        nlohmann::ordered_json j{{"id", args.restore}, {"restored", r->restored}, {"skipped", r->skipped}};
        std::cout << dump_json(j) << "\n";
    } else {
        std::printf("Restored %zu item(s) of quarantine %s\n", r->restored.size(), args.restore.c_str());
        for (const auto& s : r->skipped) std::printf("  left in the quarantine: %s\n", s.c_str());
    }
    return r->skipped.empty() ? 0 : 1;
}

int run_list(const inductor::OpenedRoot& root, const std::string& label, bool json) {
    auto list = list_quarantines(root);
    if (json) {
        nlohmann::ordered_json j = nlohmann::ordered_json::array();
        for (const auto& m : list) j.push_back(to_json(m));
        std::cout << dump_json(j) << "\n";
        return 0;
    }
    if (list.empty()) std::printf("No quarantine in %s\n", label.c_str());
    for (const auto& m : list) std::printf("%s  %s  %zu group(s)\n", m.id.c_str(), m.created.c_str(), m.groups.size());
    return 0;
}

int run_check(const CheckArgs& args) {
    // A Mega-Cache blob is checked as the cache load_cache_artifacts would make of it (read-only).
    const bool writes = args.quarantine || !args.restore.empty();
    auto cache = frontend::open_cache(std::filesystem::path(args.root),
                                      writes ? frontend::CacheAccess::write : frontend::CacheAccess::read);
    if (!cache) return fail(cache.error());
    const std::string root = cache->root.string();
    if (!args.restore.empty()) return run_restore(cache->opened(), args);
    if (args.list) return run_list(cache->opened(), cache->label, args.json);
    CheckOptions options;
    if (!args.target.empty()) {
        auto fp = portability::load_target(portability::target_spec(args.target));
        if (!fp) return fail(std::move(fp.error()).with_context("--target " + args.target));
        options.target = std::move(*fp);
    } else {
        options.default_target = true;  // a machine with a GPU: stale means "can never hit here"
    }
    std::optional<HealthReport> report;
    std::optional<QuarantineOutcome> moved;
    if (args.quarantine) {
        auto run = quarantine_problems(cache->opened(), options, args.strict);
        if (!run) return fail(run.error());
        report = std::move(run->before);
        if (!run->moved.manifest.id.empty() || !run->moved.skipped.empty()) moved = std::move(run->moved);
        if (!run->after.healthy(args.strict))
            warn(std::to_string(run->after.problems.size()) + " problem(s) left after the quarantine");
    } else {
        auto checked = check_cache(cache->opened(), options);
        if (!checked) return fail(frontend::in_given_terms(*cache, checked.error()));
        report = std::move(*checked);
    }
    if (cache->is_blob()) report->root = cache->label;
    inductor::read_key_components(report->unknown, cache->opened());  // a newer torch's keys say so
    if (args.json) {
        nlohmann::ordered_json extra = nlohmann::ordered_json::object();
        if (moved) {
            // No manifest (null) when nothing could be moved: no quarantine was made.
            nlohmann::ordered_json manifest = nullptr;
            if (!moved->manifest.id.empty()) manifest = to_json(moved->manifest);
            extra["quarantine_moved"] = {{"manifest", std::move(manifest)}, {"skipped", moved->skipped}};
        }
        write_json(std::cout, *report, extra);  // dump_json's text, the problems streamed
        std::cout << "\n";
    } else {
        print_report(*report, args.limit);
        if (moved && moved->manifest.id.empty()) {
            std::printf("\nNothing quarantined: no problem group could be moved\n");
            for (const auto& s : moved->skipped) std::printf("  not moved: %s\n", s.c_str());
        } else if (moved) {
            std::printf(
                "\nQuarantined %zu group(s) into %s/.kiln-quarantine/%s/ (undo: kiln-cli check %s --restore %s)\n",
                moved->manifest.groups.size(), root.c_str(), moved->manifest.id.c_str(), root.c_str(),
                moved->manifest.id.c_str());
            for (const auto& s : moved->skipped) std::printf("  not moved: %s\n", s.c_str());
        }
    }
    return report->healthy(args.strict) ? 0 : 1;
}

Registration check_command{
    "check", 18, [](CLI::App& app, Outcome& outcome) {
        auto args = std::make_shared<CheckArgs>();
        auto* cmd = app.add_subcommand(
            "check", "Find broken and stale cache entries; quarantine them (exit 0 healthy, 1 problems found)");
        add_root_option(cmd, args->root, "Cache root or Mega-Cache blob");
        cmd->add_option("--target", args->target,
                        "Stale means 'can never hit there': a fingerprint file, cache root, TORCH_TRACE dir or graph "
                        "entry, or `local` (default: this machine when it has a GPU, else entries whose torch/Triton "
                        "differs from the newest in the cache)");
        cmd->add_flag("--strict", args->strict, "Stale entries count as problems (exit status, --quarantine)");
        cmd->add_flag("--quarantine", args->quarantine,
                      "Move the problem groups into <root>/.kiln-quarantine/<id>/ (undo with --restore ID)");
        cmd->add_option("--restore", args->restore, "Move quarantine ID back into the cache");
        cmd->add_flag("--list-quarantine", args->list, "List the quarantines of the root");
        cmd->add_option("--limit", args->limit, "Problems listed per kind in the text output (default 50)");
        cmd->add_flag("--json", args->json, "Print JSON");
        cmd->callback([args, &outcome] { outcome.exit_code = run_check(*args); });
    }};

}  // namespace
}  // namespace kiln::cli
