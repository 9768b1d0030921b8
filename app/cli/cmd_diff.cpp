// kiln-cli diff A B: why two FX graph cache keys differ. A and B are entry references
// (frontend/entry_ref.hpp: entries, key dirs with one entry, LOG#N / LOG#KEY, redis://…/KEY).
// Components are aligned by name (§6).
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

#include "command_registry.hpp"
#include "inductor/key_diff.hpp"
#include "inductor/newer_torch.hpp"
#include "util/json_out.hpp"

namespace kiln::cli {
namespace {

using namespace kiln::inductor;

struct DiffArgs {
    std::string a, b;
    bool json = false;
};

void print_value_change(const ChangedComponent& c) {
    if (c.component == "gm" || c.a.find('\n') != std::string::npos || c.b.find('\n') != std::string::npos) {
        std::printf("~ %s (line diff, - A + B)\n", c.component.c_str());
        std::string text = format_line_diff(line_diff(c.a, c.b));
        std::size_t pos = 0;
        while (pos < text.size()) {
            std::size_t nl = text.find('\n', pos);
            std::printf("    %s\n", text.substr(pos, nl - pos).c_str());
            pos = nl + 1;
        }
        return;
    }
    std::printf("~ %s\n    A: %s\n    B: %s\n", c.component.c_str(), c.a.c_str(), c.b.c_str());
}

Result<frontend::KeySide> load_side(const std::string& text) {
    KILN_TRY(auto ref, frontend::parse_entry_ref(text));
    return frontend::load_key_side(ref, remote_fetch());
}

int run_diff(const DiffArgs& args) {
    auto a = load_side(args.a);
    if (!a) return fail(a.error());
    auto b = load_side(args.b);
    if (!b) return fail(b.error());
    ComponentDiff d = diff_components(a->components, b->components);
    if (args.json) {
        std::cout << dump_json(to_json(d)) << "\n";
        return 0;
    }
    std::printf("A: %s\nB: %s\n", a->label.c_str(), b->label.c_str());
    std::printf("%zu changed, %zu only in A, %zu only in B, %zu same\n", d.changed.size(), d.only_a.size(),
                d.only_b.size(), d.same);
    for (const auto& c : d.changed) print_value_change(c);
    // A component torch 2.11 does not write is a newer torch's: said so, never read as a config change.
    auto newer = [](const std::string& name) {
        return known_key_component(name)
                   ? std::string()
                   : "; a key component torch " + std::string(kKnownTorch) + " does not write: keyed by a newer torch";
    };
    for (const auto& n : d.only_a) std::printf("- %s (only in A%s)\n", n.c_str(), newer(n).c_str());
    for (const auto& n : d.only_b) std::printf("+ %s (only in B%s)\n", n.c_str(), newer(n).c_str());
    return 0;
}

Registration diff_command{
    "diff", 42, [](CLI::App& app, Outcome& outcome) {
        auto args = std::make_shared<DiffArgs>();
        auto* cmd = app.add_subcommand("diff", "Why two FX graph cache keys differ: their components side by side");
        cmd->add_option("A", args->a,
                        "Entry file, key dir with one entry, TRACE_LOG#N / TRACE_LOG#KEY, or a remote entry "
                        "redis://host:port[/db]/KEY")
            ->required();
        cmd->add_option("B", args->b, "Same forms as A")->required();
        cmd->add_flag("--json", args->json, "Print JSON: changed, only_a, only_b, same");
        cmd->callback([args, &outcome] { outcome.exit_code = run_diff(*args); });
    }};

}  // namespace
}  // namespace kiln::cli
