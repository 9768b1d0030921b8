// kiln-cli show FILE...: what an Inductor graph entry (fxgraph/..., aotautograd/...) holds, read
// by the safe decoder (nothing in the file is imported or run). A summary for people, `--json`
// for programs (one object a line), `--field NAME [--raw]` for one field.
#include <cstdio>
#include <iostream>

#include "bundle/blob.hpp"
#include "command_registry.hpp"
#include "entry_print.hpp"
#include "inductor/graph_entry.hpp"
#include "pickle/buffer.hpp"
#include "pickle/json.hpp"

namespace kiln::cli {
namespace {

struct ShowArgs {
    std::vector<std::string> files;
    EntryPrintOptions print;
};

// A local entry file, or (with Redis support) a remote value redis://host:port[/db]/KEY.
Result<inductor::GraphEntry> load_any(const std::string& text) {
    KILN_TRY(auto ref, frontend::parse_entry_ref(text));
    KILN_TRY(auto named, frontend::load_entry(ref, remote_fetch()));
    return std::move(named.entry);
}

int run_show(const ShowArgs& a) {
    if (a.print.raw && a.print.field.empty())
        return fail(make_error(Errc::invalid_argument, "--raw needs --field NAME"));
    int status = 0;
    for (std::size_t i = 0; i < a.files.size(); ++i) {
        const auto& path = a.files[i];
        auto entry = load_any(path);
        if (!entry.ok()) {
            std::fflush(stdout);
            if (bundle::is_blob_file(path)) {
                status = fail(make_error(
                    Errc::invalid_argument,
                    "a Mega-Cache blob (torch.compiler.save_cache_artifacts), not a graph entry", path,
                    "`kiln-cli bundle ls " + path + "` lists its artifacts, `bundle show BLOB KEY` decodes one"));
                continue;
            }
            status = fail(entry.error());
            continue;
        }
        if (!a.print.json && a.print.field.empty() && i > 0) std::printf("\n");
        if (int rc = print_entry(path, *entry, a.print)) status = rc;
    }
    return status;
}

Registration reg{
    "show", 40, [](CLI::App& app, Outcome& outcome) {
        auto args = std::make_shared<ShowArgs>();
        auto* cmd = app.add_subcommand(
            "show", "What graph entries hold (fxgraph/..., aotautograd/...), decoded without running them");
        cmd->add_option("FILE", args->files, "Graph entry files, or remote entries redis://host:port[/db]/KEY")
            ->required();
        cmd->add_flag("--json", args->print.json,
                      R"(One JSON object a file: {"type": "module.Class", "fields": {...}})");
        cmd->add_option("--field", args->print.field, "Print only this field (JSON; with --raw its text as is)");
        cmd->add_flag("--raw", args->print.raw,
                      "With --field: print the string or bytes as they are (e.g. source_code)");
        cmd->callback([args, &outcome] { outcome.exit_code = run_show(*args); });
    }};

}  // namespace
}  // namespace kiln::cli
