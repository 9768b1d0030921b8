// kiln-cli env [--json] [--python PY] [--from PATH]: the environment fingerprint: every part of
// Inductor's cache keys bound to this machine (or to the one that wrote PATH), with its value and
// component hash, where each came from, and what is unknown.
#include <cstdio>
#include <iostream>

#include "command_registry.hpp"
#include "frontend/open_cache.hpp"
#include "portability/sources.hpp"
#include "util/json_out.hpp"
#include "util/utf8.hpp"

namespace kiln::cli {
namespace {

using namespace kiln::portability;

struct EnvArgs {
    std::string python;
    std::string from;
    bool json = false;
    bool print_probe = false;
    bool default_root = false;
    const CLI::Option* python_opt = nullptr;
};

// torch_version is a raw digest (torch_key's bytes) that torch's debug lines decode with
// errors="replace": the text is lossy and unreadable, so say so; the component hash identifies it.
std::string shown(const std::string& s) {
    bool text = kiln::is_valid_utf8(s) && s.find("\xef\xbf\xbd") == std::string::npos;
    for (unsigned char c : s) text = text && (c >= 0x20 || c == '\t');
    if (text) return shortened(s, 100);
    return "(binary digest, " + std::to_string(s.size()) + " bytes as torch printed it lossily: compare the hash)";
}

void print_fingerprint(const Fingerprint& fp) {
    std::printf("Environment fingerprint of %s\n", fp.origin.c_str());
    const EnvComponent* h = fp.find(names::system_hash);
    std::printf("system hash   %s\n\n", h && !h->absent ? h->value.c_str() : "unknown");
    std::printf("key components (named as in Inductor's debug lines; [component hash])\n");
    for (const auto& c : fp.components) {
        if (!c.in_key) continue;
        std::string hash = c.hash.empty() ? "" : "[" + c.hash.substr(0, 12) + "…] ";
        std::printf("  %-34s %s%s\n      %s, from %s%s\n", c.name.c_str(), hash.c_str(),
                    c.value.empty() ? "(empty)" : shown(c.value).c_str(), std::string(scope_name(c.scope)).c_str(),
                    c.source.c_str(), c.fresh_default ? " (a fresh process; a program may set it)" : "");
    }
    std::printf("facts\n");
    for (const auto& c : fp.components)
        if (!c.in_key) std::printf("  %-34s %s  (%s)\n", c.name.c_str(), shown(c.value).c_str(), c.source.c_str());
    if (!fp.unknown.empty()) {
        std::printf("unknown\n");
        for (const auto& u : fp.unknown) std::printf("  %-34s %s\n", u.name.c_str(), u.why.c_str());
    }
    for (const auto& n : fp.notes) std::printf("note: %s\n", n.c_str());
}

int run_env(const EnvArgs& args) {
    if (args.print_probe) {
        std::cout << probe_script();
        return 0;
    }
    if (args.default_root) {  // scripts/kiln asks here rather than repeating the rule
        std::cout << frontend::default_cache_root().string() << "\n";
        return 0;
    }
    Result<Fingerprint> fp = Error{};
    if (!args.from.empty()) {
        if (args.python_opt && args.python_opt->count() > 0)
            return fail(make_error(Errc::invalid_argument, "--from and --python exclude each other"));
        fp = load_fingerprint(args.from);
    } else {
        std::optional<std::string> py;
        if (args.python_opt && args.python_opt->count() > 0) py = args.python;
        fp = this_machine_fingerprint(py);
    }
    if (!fp) return fail(fp.error());
    if (args.json) std::cout << dump_json(to_json(*fp), 2) << "\n";
    else print_fingerprint(*fp);
    return 0;
}

Registration env_command{
    "env", 46, [](CLI::App& app, Outcome& outcome) {
        auto args = std::make_shared<EnvArgs>();
        auto* cmd = app.add_subcommand(
            "env", "The environment fingerprint: the parts of Inductor's cache keys bound to this machine");
        args->python_opt =
            cmd->add_option("--python", args->python,
                            "Python with torch to ask for the exact values (default: python3 when it imports torch)");
        cmd->add_option(
            "--from", args->from,
            "Read the fingerprint of the machine that wrote PATH: a cache root, a graph entry, a TORCH_TRACE log or "
            "directory, or a fingerprint file (kiln-cli env --json)");
        cmd->add_flag("--json", args->json, "Print JSON (the fingerprint file `portable --target` reads)");
        cmd->add_flag("--print-probe", args->print_probe,
                      "Print the Python script --python runs (its raw output is accepted by --from and --target too)");
        cmd->add_flag("--default-root", args->default_root,
                      "Print the cache root every command reads when given none ($TORCHINDUCTOR_CACHE_DIR, else "
                      "<tmpdir>/torchinductor_<user>), whether or not it exists");
        cmd->callback([args, &outcome] { outcome.exit_code = run_env(*args); });
    }};

}  // namespace
}  // namespace kiln::cli
