// kiln-cli bundle ls|show|diff|unpack|pack: open, check, unpack and build torch's Mega-Cache blobs
// (torch.compiler.save_cache_artifacts / load_cache_artifacts) without Python.
#include "bundle_commands.hpp"
#include "command_registry.hpp"

namespace kiln::cli {
namespace {

using namespace bundle_cmd;

void blob_options(CLI::App* cmd, BlobArgs& a, bool json = true) {
    cmd->add_option("BLOB", a.blob, "A Mega-Cache blob (the bytes save_cache_artifacts() returned, saved to a file)")
        ->required();
    if (json) cmd->add_flag("--json", a.json, "Print JSON");
    cmd->add_flag("--no-verify", a.no_verify, "Read a blob whose CRC-32 does not match (torch would refuse it)");
    cmd->add_option("--max-size", a.max_size, "Refuse blobs larger than SIZE (default 8GiB; 500M, 2G, ...)");
}

Registration bundle_command{
    "bundle", 60, [](CLI::App& app, Outcome& outcome) {
        auto* cmd = app.add_subcommand(
            "bundle", "Mega-Cache blobs (torch.compiler.save_cache_artifacts): list, show, diff, unpack, pack");
        cmd->require_subcommand(1);

        auto ls = std::make_shared<BlobArgs>();
        auto* c_ls = cmd->add_subcommand(
            "ls", "Check a blob (format, CRC-32, framing, keys) and list its artifacts and where torch writes them");
        blob_options(c_ls, *ls);
        c_ls->callback([ls, &outcome] { outcome.exit_code = run_ls(*ls); });

        auto show = std::make_shared<ShowArgs>();
        auto* c_show = cmd->add_subcommand("show", "Decode one artifact of a blob, like `show` decodes a file");
        blob_options(c_show, show->blob, false);
        c_show->add_option("KEY", show->key, "Its key (a unique prefix of 6+ characters will do)")->required();
        c_show->add_flag("--json", show->print.json, "One JSON object per artifact");
        c_show->add_option("--field", show->print.field, "Print only this field of a graph entry");
        c_show->add_flag("--raw", show->print.raw, "With --field: print the string or bytes as they are");
        c_show->add_flag("--bytes", show->bytes, "Write the artifact's bytes to stdout, as torch would write the file");
        c_show->callback([show, &outcome] { outcome.exit_code = run_show(*show); });

        auto diff = std::make_shared<DiffArgs>();
        auto* c_diff = cmd->add_subcommand(
            "diff",
            "Which artifacts two blobs (or a blob and a cache dir) hold, and whether shared keys' bytes differ");
        c_diff->add_option("A", diff->a, "A blob or a cache dir")->required();
        c_diff->add_option("B", diff->b, "A blob or a cache dir")->required();
        c_diff->add_flag("--json", diff->json, "Print JSON");
        c_diff->callback([diff, &outcome] { outcome.exit_code = run_diff(*diff); });

        auto unpack = std::make_shared<UnpackArgs>();
        auto* c_unpack =
            cmd->add_subcommand("unpack", "Write the files load_cache_artifacts would write, without Python");
        blob_options(c_unpack, unpack->blob);
        c_unpack->add_option("--into", unpack->into, "The cache dir to write into (made if missing)")->required();
        c_unpack->add_flag("--dry-run,-n", unpack->dry_run, "List what would be written; write nothing");
        c_unpack->add_flag("--force", unpack->force, "Replace existing files whose bytes differ");
        c_unpack->add_flag("--ignore-unknown", unpack->ignore_unknown,
                           "Unpack the known types of a blob torch 2.11 rejects for an unknown type");
        c_unpack->callback([unpack, &outcome] { outcome.exit_code = run_unpack(*unpack); });

        auto pack = std::make_shared<PackArgs>();
        auto* c_pack =
            cmd->add_subcommand("pack", "Build a blob torch's load_cache_artifacts accepts from a cache dir");
        c_pack->add_option("ROOT", pack->root, "The cache dir to pack")->required();
        c_pack->add_option("--out,-o", pack->out, "The blob file to write (atomically)")->required();
        auto* select = c_pack->add_option("--select", pack->select,
                                          "Only these keys (fxgraph/aotautograd keys, best_config names, PGO keys), "
                                          "plus the graphs their AOTAutograd entries need");
        auto* since = c_pack->add_option(
            "--since", pack->since,
            "Only files modified in the last AGE (2h, 30d) or since a date (2026-11-26[T09:30[:00]], UTC)");
        select->excludes(since);
        c_pack->add_flag("--include-pgo", pack->include_pgo, "Also pack PGO profiles (dynamo/code_state_*.pkl)");
        c_pack->add_flag("--no-precompile", pack->no_precompile,
                         "Leave out precompile entries (torch before 2.10 may not know the type and reject the blob)");
        c_pack->add_option("--max-size", pack->max_size, "Refuse to build a blob larger than SIZE (default 8GiB)");
        c_pack->add_flag("--timings", pack->timings,
                         "Add this machine's timing cache: refused, packing nothing (torch's loader replaces the "
                         "target's timing cache whole; the error says why and what merges instead)");
        c_pack->add_flag("--json", pack->json, "Print JSON");
        c_pack->callback([pack, &outcome] { outcome.exit_code = run_pack(*pack); });
    }};

}  // namespace
}  // namespace kiln::cli
