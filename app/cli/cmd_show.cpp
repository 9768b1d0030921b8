// kiln-cli show FILE...: what an Inductor graph entry (fxgraph/..., aotautograd/...) holds, read
// by the safe decoder (nothing in the file is imported or run). A summary for people, `--json`
// for programs (one object a line), `--field NAME [--raw]` for one field.
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "bundle/blob.hpp"
#include "command_registry.hpp"
#include "entry_print.hpp"
#include "frontend/entry_ref.hpp"
#include "frontend/open_cache.hpp"
#include "inductor/beneath_root.hpp"
#include "inductor/graph_entry.hpp"
#include "inductor/guard_lookup.hpp"
#include "pickle/buffer.hpp"
#include "pickle/json.hpp"
#include "timings/collect.hpp"
#include "timings/graph_kernels.hpp"
#include "util/json_out.hpp"

namespace kiln::cli {
namespace {

struct ShowArgs {
    std::vector<std::string> files;
    EntryPrintOptions print;
    bool kernels = false;
    std::string root;
};

// --kernels: what the entry's output code launches, joined to modules, .best_config and autotune rows.
// `looked_up`: the cache a key prefix was found in (already opened: read through it, not opened again).
int print_kernels(const std::string& path, const inductor::GraphEntry& entry, const ShowArgs& a,
                  const frontend::OpenedCache* looked_up) {
    // The root opened once (--root, else the one the entry is in), its modules and timings read through it.
    std::optional<frontend::OpenedCache> own;
    if (!looked_up) {
        std::optional<std::filesystem::path> root;
        if (!a.root.empty()) root = std::filesystem::path(a.root);
        else root = timings::entry_root(path);
        if (!root)
            return fail(make_error(Errc::invalid_argument, "cannot tell the cache root of this entry", path,
                                   "pass --root ROOT (the directory holding fxgraph/)"));
        auto opened = frontend::open_cache(*root);  // a blob's temporary root lives as long as this
        if (!opened) return fail(opened.error());
        own = std::move(*opened);
    }
    const frontend::OpenedCache* cache = looked_up ? looked_up : &*own;
    auto set = timings::collect_timings_from({cache->opened()});
    auto k = timings::graph_kernels(cache->opened(), entry, set ? &*set : nullptr);
    if (!k) return fail(k.error());
    if (a.print.json) {
        std::cout << dump_json(timings::to_json(*k), -1) << "\n";
        return 0;
    }
    std::printf("%s\n  output code: %s\n  %zu kernels launched:\n", path.c_str(), k->output_module.c_str(),
                k->kernels.size());
    for (const auto& g : k->kernels) {
        std::printf("  %-40s %-8s x%u\n", g.ref.name.c_str(),
                    std::string(inductor::kernel_kind_name(g.ref.kind)).c_str(), g.ref.launches);
        if (!g.module_path.empty()) std::printf("      module: %s\n", g.module_path.c_str());
        if (!g.params.empty()) std::printf("      config: %s\n", timings::params_text(g.params).c_str());
        if (!g.best_config_path.empty())
            std::printf("      .best_config: %s  %s\n", g.best_config_path.c_str(), g.best_config.dump().c_str());
        if (!g.fused_ops.empty()) {
            std::string ops;
            for (const auto& o : g.fused_ops) ops += (ops.empty() ? "" : ", ") + o;
            std::printf("      epilogue fused into the template: %s\n", ops.c_str());
        }
        if (g.autotune) {
            std::printf("      %s\n", timings::describe_autotune(g).c_str());
            std::printf("      from %s (the choice there: %s)\n", g.autotune->source.c_str(),
                        g.autotune->choice.c_str());
        }
        if (!g.note.empty()) std::printf("      note: %s\n", g.note.c_str());
    }
    return 0;
}

// What show prints, in order: a file or remote entry named as given, or an entry of the key dir a key
// prefix named, read beneath the cache it was looked up in (`cache`: an index into run_show's caches).
struct ShowItem {
    std::string path;  // as reports name it
    int cache = -1;
    std::string rel;  // with `cache`: the entry file relative to its opened root
};

// A key dir stands for its entries, in torch's lookup order.
void add_items(const std::string& file, std::vector<ShowItem>& out) {
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec)) {
        if (auto entries = inductor::key_dir_entries(file); entries.ok() && !entries->empty()) {
            for (const auto& e : *entries) out.push_back({e.string()});
            return;
        }
    }
    out.push_back({file});
}

// A local entry file, or (with Redis support) a remote value redis://host:port[/db]/KEY.
Result<inductor::GraphEntry> load_any(const std::string& text) {
    KILN_TRY(auto ref, frontend::parse_entry_ref(text));
    KILN_TRY(auto named, frontend::load_entry(ref, remote_fetch()));
    return std::move(named.entry);
}

// An entry of a looked-up key dir, read beneath the cache's opened root.
Result<inductor::GraphEntry> load_beneath(const frontend::OpenedCache& cache, const std::string& rel) {
    KILN_TRY(auto named, frontend::load_entry(cache.opened(), rel));
    return std::move(named.entry);
}

int run_show(const ShowArgs& a) {
    if (a.print.raw && a.print.field.empty())
        return fail(make_error(Errc::invalid_argument, "--raw needs --field NAME"));
    int status = 0;
    // A key prefix as `ls` prints it names its key dir under --root (default: the default root), which
    // is opened once: the key dir's entries are listed and read through it (issue 44).
    std::vector<ShowItem> items;
    std::vector<frontend::OpenedCache> caches;  // a blob's temporary root lives as long as these
    for (const auto& f : a.files) {
        auto r = frontend::resolve_entry_ref(
            f, a.root.empty() ? std::nullopt : std::optional<std::filesystem::path>(a.root));
        if (!r) return fail(r.error());
        if (!r->cache) {
            add_items(f, items);
            continue;
        }
        caches.push_back(std::move(*r->cache));
        const inductor::OpenedRoot opened = caches.back().opened();
        auto entries = inductor::key_dir_entries(opened, r->key_dir);
        if (!entries) return fail(frontend::in_given_terms(caches.back(), entries.error()));
        for (const auto& rel : *entries)
            items.push_back({inductor::path_beneath(opened, rel), static_cast<int>(caches.size()) - 1, rel});
    }
    auto label_of = [&](const std::string& path) {  // a blob's entry named by the blob, not its unpacking
        for (const auto& c : caches)
            if (std::string l = frontend::in_given_terms(c, path); l != path) return l;
        return path;
    };
    for (std::size_t i = 0; i < items.size(); ++i) {
        const auto& [path, cache_index, rel] = items[i];
        const frontend::OpenedCache* cache =
            cache_index >= 0 ? &caches[static_cast<std::size_t>(cache_index)] : nullptr;
        auto entry = cache ? load_beneath(*cache, rel) : load_any(path);
        if (!entry.ok()) {
            std::fflush(stdout);
            if (!cache && bundle::is_blob_file(path)) {
                status = fail(make_error(
                    Errc::invalid_argument,
                    "a Mega-Cache blob (torch.compiler.save_cache_artifacts), not a graph entry", path,
                    "`kiln-cli bundle ls " + path + "` lists its artifacts, `bundle show BLOB KEY` decodes one"));
                continue;
            }
            status = fail(cache ? frontend::in_given_terms(*cache, entry.error()) : entry.error());
            continue;
        }
        if (!a.print.json && a.print.field.empty() && i > 0) std::printf("\n");
        if (a.kernels) {
            if (int rc = print_kernels(path, *entry, a, cache)) status = rc;
            continue;
        }
        if (int rc = print_entry(label_of(path), *entry, a.print)) status = rc;
    }
    return status;
}

Registration show_command{
    "show", 40, [](CLI::App& app, Outcome& outcome) {
        auto args = std::make_shared<ShowArgs>();
        auto* cmd = app.add_subcommand(
            "show", "What graph entries hold (fxgraph/..., aotautograd/...), decoded without running them");
        cmd->add_option("FILE", args->files,
                        "Graph entry files, key dirs (their entries), keys as `ls` prints them (a prefix), or remote "
                        "entries redis://host:port[/db]/KEY")
            ->required();
        cmd->add_flag("--json", args->print.json,
                      R"(One JSON object a file: {"type": "module.Class", "fields": {...}})");
        cmd->add_option("--field", args->print.field, "Print only this field (JSON; with --raw its text as is)");
        cmd->add_flag("--raw", args->print.raw,
                      "With --field: print the string or bytes as they are (e.g. source_code)");
        cmd->add_flag("--kernels", args->kernels,
                      "The kernels the entry's output code launches: module, .best_config, autotune row");
        cmd->add_option("--root", args->root,
                        "The cache root or blob a key prefix is looked up in (default: as `ls`); with --kernels: "
                        "the cache root (default: the one the entry is in)");
        cmd->callback([args, &outcome] { outcome.exit_code = run_show(*args); });
    }};

}  // namespace
}  // namespace kiln::cli
