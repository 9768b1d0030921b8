// kiln-cli ranks DIR... [--json] [--agree [--rule median|majority] [--write] [--pin FILE]]: where the
// ranks (or machines) of one job disagree (core/ranks), and one agreed choice per op handed to every
// rank through its own timing cache or one lookup table.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include "command_registry.hpp"
#include "ranks/rank_agreement.hpp"
#include "ranks/ranks_report.hpp"
#include "timings/timing_model.hpp"
#include "util/json_out.hpp"

namespace kiln::cli {
namespace {

struct RanksArgs {
    std::vector<std::string> dirs;
    bool json = false;
    bool agree = false;
    bool write = false;
    std::string rule = "median";
    std::string pin;
    int lines = 3;
};

std::string rank_ms_cell(const std::optional<double>& ms, bool winner) {
    char buf[32];
    if (!ms) return "    failed";
    std::snprintf(buf, sizeof buf, "%s%9.4f", winner ? "*" : " ", *ms);
    return buf;
}

// Characters as a terminal shows them (UTF-8 code points: "64×32" is 5 wide, 6 bytes).
std::size_t display_width(const std::string& s) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
}

std::string cut_to_width(const std::string& s, std::size_t n) {
    if (display_width(s) <= n) return s;
    std::size_t bytes = 0, w = 0;
    while (bytes < s.size() && w + 1 < n) {
        ++bytes;
        while (bytes < s.size() && (static_cast<unsigned char>(s[bytes]) & 0xC0) == 0x80) ++bytes;
        ++w;
    }
    return s.substr(0, bytes) + "…";
}

// `s` cut to `n` columns and padded with spaces to them.
std::string padded_column(const std::string& s, std::size_t n) {
    std::string c = cut_to_width(s, n);
    return c + std::string(n - std::min(n, display_width(c)), ' ');
}

void print_rank_ops(const ranks::RankGroup& g) {
    std::printf("\nautotuned ops: %zu of %zu differ", g.ops.differ.size(), g.ops.compared);
    std::printf("  (choices matched by template family + config; * = that rank's winner; ms as each rank measured)\n");
    for (const auto& d : g.ops.differ) {
        std::printf("\n%s(%s)  strides %s  [%s]\n", d.op.c_str(), d.inputs.c_str(), d.strides.c_str(),
                    d.precision.c_str());
        std::printf("  %-52s", "");
        for (const auto& r : g.ranks) std::printf(" %10s", cut_to_width(r, 10).c_str());
        std::printf("\n");
        for (size_t c = 0; c < d.competing.size(); ++c) {
            const auto& ch = d.competing[c];
            std::printf("  %s", padded_column(ch.label, 52).c_str());
            for (size_t r = 0; r < ch.ms.size(); ++r)
                std::printf(" %10s", rank_ms_cell(ch.ms[r], d.winner[r] == static_cast<int>(c)).c_str());
            std::printf("\n");
        }
        std::printf("  spread %.1f%%; %s: %s\n", d.spread_pct, ranks::effect_text(d.verdict.effect),
                    d.verdict.why.c_str());
    }
    for (const auto& n : g.ops.not_on_every_rank) std::printf("  not on every rank: %s\n", n.c_str());
}

void print_rank_kernel_configs(const ranks::RankGroup& g) {
    const auto& k = g.kernels;
    std::printf("\n.best_config: %zu of %zu candidate sets differ (files per rank:", k.differ.size(), k.sets);
    for (auto n : k.kernels) std::printf(" %zu", n);
    std::printf(
        ")\n  (torch names each file after its kernel module's hash, which embeds the device index, and "
        "torch_key: they are matched by configs_hash and config)\n");
    for (const auto& s : k.differ) {
        std::printf("  configs_hash %s…, %zu kernel%s per rank: %s: %s\n", s.configs_hash.substr(0, 8).c_str(),
                    s.per_rank, s.per_rank == 1 ? "" : "s", ranks::effect_text(s.verdict.effect),
                    s.verdict.why.c_str());
        for (size_t r = 0; r < s.configs.size(); ++r) {
            std::string cfgs;
            for (const auto& c : s.configs[r]) cfgs += (cfgs.empty() ? "" : " | ") + timings::params_text(c);
            std::printf("    %-8s %s\n", g.ranks[r].c_str(), cut_to_width(cfgs, 200).c_str());
        }
    }
}

void print_rank_graphs(const ranks::RankGroup& g, int lines) {
    const auto& gr = g.graphs;
    std::printf(
        "\ngraph keys: %zu of %zu differ; output code: %zu of %zu modules differ (%zu only by the device "
        "index)\n",
        gr.keys_differ, gr.keys, gr.modules_differ, gr.modules, gr.modules_device_index_only);
    bool device_index_shown = false;
    for (const auto& d : gr.differ) {
        std::printf("  %s: %s", d.what.c_str(), ranks::effect_text(d.verdict.effect));
        if (d.device_index_only)
            std::printf(" (%zu %s only by the device index)", d.device_index_only,
                        d.kind == "key" ? "key components differ" : "kernels or wrapper differ");
        std::printf("\n");
        // A device-index component is shown once for the whole report (it reads the same in every key).
        int shown = 0;
        for (const auto& c : d.components) {
            if (c.kind == "device_index" && device_index_shown) continue;
            if (++shown > lines) break;
            if (c.kind == "device_index") device_index_shown = true;
            std::printf("    %s [%s]: %s\n", c.component.c_str(), c.kind.c_str(), c.verdict.why.c_str());
            for (size_t r = 0; r < c.values.size(); ++r)
                if (!c.values[r].empty())
                    std::printf("      %-8s %s\n", g.ranks[r].c_str(), cut_to_width(c.values[r], 150).c_str());
        }
        for (const auto& c : d.code) {
            std::printf("    %s [%s]: %s: %s\n", c.section.c_str(), c.kind.c_str(),
                        ranks::effect_text(c.verdict.effect), c.verdict.why.c_str());
            for (size_t r = 0; r < c.values.size(); ++r)
                if (!c.values[r].empty())
                    std::printf("      %-8s %s\n", g.ranks[r].c_str(), cut_to_width(c.values[r], 150).c_str());
        }
    }
}

void print_rank_agreement(const ranks::Agreement& a) {
    std::printf("\nagreed choices for %s (%zu ops; rule: %s)\n", a.group.c_str(), a.ops.size(),
                ranks::agree_rule_text(a.rule).c_str());
    for (const auto& o : a.ops) {
        if (!o.ranks_differed) continue;
        std::printf("  %s(%s) [%s]: %s, median %.4f ms, %d of %zu ranks' winner\n", o.op.c_str(), o.inputs.c_str(),
                    o.precision.c_str(), o.label.c_str(), o.median_ms, o.votes, o.names.size());
    }
    std::printf("  %zu op(s) need a rank's timing cache changed; the others already run the agreed choice\n",
                a.to_write());
    for (const auto& s : a.skipped) std::printf("  not agreed: %s: %s\n", s.op.c_str(), s.why.c_str());
}

int run_ranks(const RanksArgs& args) {
    auto rule = ranks::parse_agree_rule(args.rule);
    if (!rule) return fail(rule.error());
    if ((args.write || !args.pin.empty()) && !args.agree)
        return fail(
            make_error(Errc::invalid_argument, "--write and --pin hand over the agreed choices: add --agree", "ranks"));
    std::vector<ranks::RankSpec> specs;
    for (const auto& d : args.dirs) specs.push_back({d, "", "", {}, ""});
    std::vector<ranks::RankProblem> problems;
    auto loaded = ranks::load_ranks(specs, problems);
    if (auto st = ranks::check_two_readable(loaded.size(), problems); !st.ok()) return fail(st.error());
    for (const auto& p : problems) warn("rank not compared: " + p.rank + ": " + p.error);
    auto report = ranks::compare_ranks(loaded, problems);

    // --agree: one agreement per group of two ranks or more.
    std::vector<ranks::Agreement> agreements;
    std::vector<std::vector<const ranks::LoadedRank*>> agreed_groups;
    if (args.agree)
        for (const auto& g : report.groups) {
            if (g.members.size() < 2) continue;
            std::vector<const ranks::LoadedRank*> members;
            for (auto i : g.members) members.push_back(&loaded[i]);
            agreements.push_back(ranks::agree(members, *rule, g.label));
            agreed_groups.push_back(std::move(members));
        }
    nlohmann::ordered_json written = nlohmann::ordered_json::array();
    if (args.write)
        for (size_t i = 0; i < agreements.size(); ++i) {
            auto w = ranks::write_agreed_caches(agreed_groups[i], agreements[i]);
            if (!w) return fail(w.error());
            for (const auto& f : *w) written.push_back({{"rank", f.rank}, {"path", f.path}, {"ops", f.ops}});
        }
    nlohmann::ordered_json pinned = nullptr;
    if (!args.pin.empty()) {
        if (agreements.size() != 1)
            return fail(make_error(Errc::unsupported,
                                   "--pin writes one lookup table for one GPU kind, and the ranks are "
                                   "of " +
                                       std::to_string(agreements.size()),
                                   "ranks --pin", "give the ranks of one kind"));
        auto table = ranks::agreed_lookup_table(agreed_groups.front(), agreements.front());
        if (auto st = handback::write_lookup_table(args.pin, table); !st.ok()) return fail(st.error());
        pinned = {{"path", args.pin}, {"pinned", table.pinned.size()}, {"skipped", nlohmann::ordered_json::array()}};
        for (const auto& s : table.skipped) pinned["skipped"].push_back({{"op", s.label}, {"why", s.why}});
    }

    if (args.json) {
        auto j = ranks::to_json(report);
        if (args.agree) {
            j["agreements"] = nlohmann::ordered_json::array();
            for (const auto& a : agreements) j["agreements"].push_back(ranks::to_json(a));
            if (args.write) j["written"] = written;
            if (!args.pin.empty()) j["lookup_table"] = pinned;
        }
        std::cout << dump_json(j) << "\n";
        return 0;
    }
    std::printf("%s\n", report.headline().c_str());
    for (const auto& n : report.notes) std::printf("note: %s\n", n.c_str());
    for (const auto& g : report.groups) {
        std::printf("\n== %s: ", g.label.c_str());
        for (size_t i = 0; i < g.ranks.size(); ++i) std::printf("%s%s", i ? ", " : "", g.ranks[i].c_str());
        std::printf("\n");
        if (g.ranks.size() < 2) continue;
        print_rank_ops(g);
        print_rank_kernel_configs(g);
        print_rank_graphs(g, args.lines);
    }
    for (const auto& r : report.ranks)
        for (const auto& w : r.warnings) std::printf("warning: %s: %s\n", r.label.c_str(), w.c_str());
    for (const auto& a : agreements) print_rank_agreement(a);
    for (const auto& w : written)
        std::printf("wrote %s: %d op(s) (%s)\n", w["path"].get<std::string>().c_str(), w["ops"].get<int>(),
                    w["rank"].get<std::string>().c_str());
    if (!pinned.is_null()) {
        std::printf("wrote lookup table %s: %zu op(s) pinned\n", args.pin.c_str(), pinned["pinned"].get<std::size_t>());
        for (const auto& s : pinned["skipped"])
            std::printf("  not pinned: %s: %s\n", s["op"].get<std::string>().c_str(),
                        s["why"].get<std::string>().c_str());
    }
    return 0;
}

const Registration ranks_command{
    "ranks", 62, [](CLI::App& app, Outcome& outcome) {
        auto args = std::make_shared<RanksArgs>();
        auto* cmd = app.add_subcommand(
            "ranks",
            "Where the ranks of a job disagree: autotune winners, .best_config, graph keys and output code, "
            "and whether each changes numerics or only speed; --agree picks one choice per op");
        cmd->add_option("DIR", args->dirs,
                        "Each rank's folder: a cache root, or a folder holding inductor/, stderr*.log (AUTOTUNE "
                        "tables) and trace/ (TORCH_TRACE)")
            ->required();
        cmd->add_flag("--json", args->json, "Print the report (and the agreement) as JSON");
        cmd->add_flag("--agree", args->agree, "One agreed choice per op, by --rule");
        cmd->add_option("--rule", args->rule,
                        "median: the smallest median of the ranks' times; majority: what most ranks picked")
            ->check(CLI::IsMember({"median", "majority"}))
            ->capture_default_str();
        cmd->add_flag("--write", args->write,
                      "Hand the agreed choices to every rank: rewrite its own timing cache so that the agreed choice "
                      "is its fastest (other times and ops kept)");
        cmd->add_option("--pin", args->pin,
                        "Write the agreed choices as one Inductor lookup table (a new FILE) for the ranks' GPU kind");
        cmd->add_option("--lines", args->lines, "Key components shown per graph in text output")->capture_default_str();
        cmd->callback([args, &outcome] { outcome.exit_code = run_ranks(*args); });
    }};

}  // namespace
}  // namespace kiln::cli
