// kiln-cli diff A B: why two FX graph cache keys differ. A and B are graph entries, key dirs with
// one entry, or cache events of a TORCH_TRACE log (LOG#N: the N-th fx_graph event as `misses`
// numbers them; LOG#KEYPREFIX: the first event of that key). Components are aligned by name (§6).
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "command_registry.hpp"
#include "inductor/debug_lines.hpp"
#include "inductor/graph_entry.hpp"
#include "inductor/guard_lookup.hpp"
#include "inductor/key_diff.hpp"
#include "inductor/trace_log.hpp"
#ifdef KILN_HAVE_REMOTE
#include "remote/local_copy.hpp"
#include "remote/redis_url.hpp"
#endif

namespace kiln::cli {
namespace {

namespace fs = std::filesystem;
using namespace kiln::inductor;

struct DiffArgs {
    std::string a, b;
    bool json = false;
};

struct Side {
    std::string label;
    std::vector<KeyComponent> components;
};

int exit_code_for(const Error& e) {
    return e.code == Errc::parse || e.code == Errc::not_found || e.code == Errc::invalid_argument ? 2 : 1;
}

Result<Side> from_entry(const fs::path& file) {
    KILN_TRY(GraphEntry entry, load_graph_entry(file));
    auto lines = entry.debug_lines();
    if (lines.empty())
        return make_error(Errc::not_found, "the entry has no _fx_graph_cache_debug_lines", file.string(),
                          entry.is_aot_autograd() ? "AOTAutograd entries do not record their key's components"
                                                  : "older torch versions do not store them");
    KILN_TRY(auto comps, parse_debug_lines(lines));
    return Side{file.string(), std::move(comps)};
}

Result<Side> from_event(const CacheEvent& e) {
    if (e.components.empty())
        return make_error(Errc::not_found, "the cache event records no components", e.log + ":" + std::to_string(e.line));
    KILN_TRY(auto comps, parse_debug_lines(e.components));
    return Side{e.log + ":" + std::to_string(e.line) + " (" + e.artifact + ", key " + e.key + ")", std::move(comps)};
}

Result<Side> from_log(const fs::path& log, const std::string& selector) {
    KILN_TRY(auto events, read_trace_logs(log));
    std::vector<const CacheEvent*> fx;
    for (const auto& e : events)
        if (e.cache == "fx_graph") fx.push_back(&e);
    if (selector.empty()) {
        if (fx.size() == 1) return from_event(*fx[0]);
        return make_error(Errc::invalid_argument, std::to_string(fx.size()) + " fx_graph cache events in the log",
                          log.string(), "name one: LOG#N (index from `kiln-cli misses`) or LOG#KEY");
    }
    bool numeric = selector.find_first_not_of("0123456789") == std::string::npos;
    if (numeric) {
        std::size_t n = std::stoul(selector);
        if (n >= fx.size())
            return make_error(Errc::not_found, "no fx_graph cache event #" + selector + " (the log has " +
                                                   std::to_string(fx.size()) + ")", log.string());
        return from_event(*fx[n]);
    }
    for (const auto& e : events)
        if (e.key.rfind(selector, 0) == 0) return from_event(e);
    return make_error(Errc::not_found, "no cache event with a key starting with '" + selector + "'", log.string());
}

bool looks_like_pickle(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    char c = 0;
    return in.get(c) && static_cast<unsigned char>(c) == 0x80;
}

Result<Side> load_side(const std::string& spec) {
#ifdef KILN_HAVE_REMOTE
    // A remote entry (redis://host:port[/db]/KEY): a private local copy, labelled with its origin.
    if (remote::is_redis_url(spec)) {
        std::string local = spec;
        std::optional<remote::LocalCopy> keep;
        KILN_CHECK(remote::localize(local, keep));
        KILN_TRY(auto side, from_entry(local));
        side.label = keep->origin();
        return side;
    }
#endif
    std::error_code ec;
    if (auto hash = spec.rfind('#'); hash != std::string::npos && !fs::exists(spec, ec) && fs::exists(spec.substr(0, hash), ec))
        return from_log(spec.substr(0, hash), spec.substr(hash + 1));
    if (fs::is_directory(spec, ec)) {
        KILN_TRY(auto files, key_dir_entries(spec));
        if (files.size() == 1) return from_entry(files[0]);
        bool is_trace_dir = files.empty();
        if (!is_trace_dir)
            return make_error(Errc::invalid_argument, "the key dir holds " + std::to_string(files.size()) + " entries",
                              spec, "name one entry file");
        return from_log(spec, "");
    }
    if (!fs::is_regular_file(spec, ec)) return make_error(Errc::not_found, "no such entry, key dir or log", spec);
    if (looks_like_pickle(spec)) return from_entry(spec);
    return from_log(spec, "");
}

nlohmann::ordered_json to_json(const ComponentDiff& d) {
    nlohmann::ordered_json j;
    j["changed"] = nlohmann::ordered_json::array();
    for (const auto& c : d.changed) j["changed"].push_back({{"component", c.component}, {"a", c.a}, {"b", c.b}});
    j["only_a"] = d.only_a;
    j["only_b"] = d.only_b;
    j["same"] = d.same;
    return j;
}

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

int run_diff(const DiffArgs& args) {
    auto a = load_side(args.a);
    if (!a) return report_error(a.error(), exit_code_for(a.error()));
    auto b = load_side(args.b);
    if (!b) return report_error(b.error(), exit_code_for(b.error()));
    ComponentDiff d = diff_components(a->components, b->components);
    if (args.json) {
        std::cout << to_json(d).dump(2) << "\n";
        return 0;
    }
    std::printf("A: %s\nB: %s\n", a->label.c_str(), b->label.c_str());
    std::printf("%zu changed, %zu only in A, %zu only in B, %zu same\n", d.changed.size(), d.only_a.size(),
                d.only_b.size(), d.same);
    for (const auto& c : d.changed) print_value_change(c);
    for (const auto& n : d.only_a) std::printf("- %s (only in A)\n", n.c_str());
    for (const auto& n : d.only_b) std::printf("+ %s (only in B)\n", n.c_str());
    return 0;
}

Registration reg{"diff", 42, [](CLI::App& app, Outcome& outcome) {
    auto args = std::make_shared<DiffArgs>();
    auto* cmd = app.add_subcommand("diff", "Why two FX graph cache keys differ: their components side by side");
    cmd->add_option("A", args->a, "Entry file, key dir with one entry, TRACE_LOG#N / TRACE_LOG#KEY, or a remote entry "
                                  "redis://host:port[/db]/KEY")->required();
    cmd->add_option("B", args->b, "Same forms as A")->required();
    cmd->add_flag("--json", args->json, "Print JSON: changed, only_a, only_b, same");
    cmd->callback([args, &outcome] { outcome.exit_code = run_diff(*args); });
}};

}  // namespace
}  // namespace kiln::cli
