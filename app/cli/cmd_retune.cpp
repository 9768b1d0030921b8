// kiln-cli retune ROOT: re-tune a cache's autotuned ops on this machine's GPUs, from the cache
// alone: each Triton choice from its cached cubin, each extern choice through cuBLAS (retune/).
// --list: the inventory (what would run, or why not), no GPU needed.
#include <cmath>
#include <cstdio>
#include <iostream>

#include "command_registry.hpp"
#include "cuda/cublas.hpp"
#include "frontend/open_cache.hpp"
#include "handback_options.hpp"
#include "retune/inventory.hpp"
#include "retune/recorded_compare.hpp"
#include "retune/run.hpp"
#include "util/json_out.hpp"

namespace kiln::cli {
namespace {

using namespace kiln::retune;

struct RetuneArgs {
    std::string root;
    int root_fd = -1;  // ROOT as the parent (the GUI) opened it, inherited
    bool list = false;
    bool json = false;
    bool each_device = false;
    std::string op;
    std::string devices = "all";
    int arch = 0;
    double timeout_s = 30;
    double rep_ms = 100, warmup_ms = 25;
    std::string statistic = "torch";
    HandbackArgs handback;  // --write, --publish, --pin, --shard, --python (issue 31)
};

std::string ms_text(const std::optional<double>& ms) {
    if (!ms) return "failed";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f ms", *ms);
    return buf;
}

std::string grid_text(const RetuneChoice& c) {
    if (!c.grid) return "";
    return "(" + std::to_string((*c.grid)[0]) + "," + std::to_string((*c.grid)[1]) + "," +
           std::to_string((*c.grid)[2]) + ")";
}

void print_op_head(const RetuneOp& op) {
    auto n = count_choices(op);
    std::printf("%s %s  precision %s\n", op.op.c_str(), op.inputs.c_str(), op.precision.c_str());
    std::printf("  recorded on %s (system %.12s, CUDA %s)\n", op.recorded_for.device.c_str(),
                op.recorded_for.system_hash.c_str(), op.recorded_for.cuda.c_str());
    std::printf("  %d choices: %d triton (%d with a binary), %d extern, %d other; %d runnable\n", n.choices, n.triton,
                n.triton_with_binary, n.extern_ops, n.choices - n.triton - n.extern_ops, n.runnable);
}

void print_list(const RetuneReport& r) {
    for (const auto& op : r.ops) {
        print_op_head(op);
        for (const auto& c : op.choices) {
            // The name as `timings` gives it (its tile config included), then what would run.
            std::printf("    %-7s %12s %-12s %s: %s\n", choice_kind_name(c.kind), ms_text(c.recorded_ms).c_str(),
                        grid_text(c).c_str(), display_name(c).c_str(),
                        c.runnable ? (c.gemm ? c.gemm->describe().c_str() : c.binary.c_str())
                                   : ("not runnable: " + c.why).c_str());
        }
        std::printf("\n");
    }
    std::string cublas = cuda::find_cublas();
    std::printf("cuBLAS for extern choices: %s\n", cublas.empty() ? "not found (set KILN_CUBLAS)" : cublas.c_str());
}

void print_run(const RetuneReport& r) {
    for (const auto& d : r.devices) std::printf("device %d: %s (%s)\n", d.index, d.name.c_str(), d.arch.c_str());
    if (!r.statistic.empty()) std::printf("times: %s\n", statistic_description(r.statistic).c_str());
    std::printf("\n");
    for (const auto& op : r.ops) {
        print_op_head(op);
        for (const auto& c : op.choices)
            if (!c.runnable) std::printf("    %s not runnable: %s\n", display_name(c).c_str(), c.why.c_str());
        for (const auto& cmp : compare_with_recorded(op)) {
            std::printf("\n%s", autotune_table(op, cmp.device).c_str());
            std::printf("  vs recorded: %s winner (recorded %s, +%.1f%% over the runner-up; measured %s, +%.1f%%)%s\n",
                        cmp.same_winner ? "same" : "different",
                        cmp.recorded_winner.empty() ? "-" : display_name(op, cmp.recorded_winner).c_str(),
                        100 * cmp.recorded_margin,
                        cmp.measured_winner.empty() ? "-" : display_name(op, cmp.measured_winner).c_str(),
                        100 * cmp.measured_margin,
                        !cmp.same_winner && cmp.winner_within_noise ? " — the recorded winner is within noise" : "");
            std::printf("  %zu pair(s) changed order beyond noise", cmp.order_changes.size());
            for (std::size_t i = 0; i < cmp.order_changes.size() && i < 5; ++i) {
                const auto& o = cmp.order_changes[i];
                std::printf("%s%s now ahead of %s by %.4f ms", i ? "; " : ": ",
                            display_name(op, o.faster_measured).c_str(), display_name(op, o.faster_recorded).c_str(),
                            o.measured_gap_ms);
            }
            std::printf("\n");
        }
        std::printf("\n");
    }
    // The whole run against the cache's recorded times (the GUI's Re-tune dialog shows the same).
    if (auto none = nothing_measured(r)) std::printf("%s\n", none->str().c_str());
    else {
        const auto a = agreement_with_recorded(r);
        std::printf("%s\n", agreement_text(a).c_str());
        if (auto note = agreement_note(a); !note.empty()) std::printf("  %s\n", note.c_str());
    }
    for (const auto& w : r.warnings) warn(w);
    for (const auto& l : r.session_logs) std::printf("session log: %s\n", l.c_str());
    std::printf("wall time %.2f s\n", r.wall_seconds);
}

int run_retune_cmd(const RetuneArgs& a) {
    if (a.root_fd >= 0 && a.root.empty())
        return fail(make_error(Errc::invalid_argument, "--root-fd needs the ROOT it names", "--root-fd"));
    // --write hands the timings to torch in this root's timing cache: a directory, never a blob.
    // --root-fd: the root the GUI opened, read beneath its descriptor (issue 44), not opened again.
    auto cache = a.root_fd >= 0 ? frontend::adopt_opened_root(a.root, a.root_fd)
                                : frontend::open_cache(
                                      std::filesystem::path(a.root),
                                      a.handback.write ? frontend::CacheAccess::write : frontend::CacheAccess::read);
    if (!cache) return fail(cache.error());
    if (a.list) {
        InventoryOptions o;
        if (a.arch > 0) o.arch = a.arch;
        o.op_filter = a.op;
        auto rep = inventory(cache->opened(), o);
        if (!rep) return fail(frontend::in_given_terms(*cache, rep.error()));
        if (a.json) std::cout << dump_json(to_json(*rep)) << "\n";
        else print_list(*rep);
        return 0;
    }
    auto shard = shard_arg(a.handback);
    if (!shard) return fail(frontend::as_bad_input(shard.error()));
    if (!a.handback.fetch.empty()) {
        // The fleet's measurements instead of this machine's: nothing is measured.
        HandbackArgs h = a.handback;
        h.root = cache->root.string();
        h.root_fd = cache->opened().fd;  // --write writes beneath the root opened here (issue 44)
        return run_handback(h, std::nullopt);
    }
    RunOptions o;
    if (*shard)
        o.keep_op = [s = **shard](const RetuneOp& op) {
            return handback::shard_of(op.op, op.inputs, op.precision, s.count) == s.index;
        };
    o.devices = a.devices;
    o.each_device = a.each_device;
    o.wait_for_workers = false;  // the report is printed while the workers exit
    o.op_filter = a.op;
    o.timeout_s = a.timeout_s;
    o.timing.rep_ms = a.rep_ms;
    o.timing.warmup_ms = a.warmup_ms;
    o.timing.statistic = a.statistic == "median" ? kiln::worker::Statistic::median : kiln::worker::Statistic::torch_min;
    if (a.arch > 0) o.arch = a.arch;
    auto rep = run_retune(cache->opened(), o);
    if (!rep) return fail(frontend::in_given_terms(*cache, rep.error()));
    if (a.json) std::cout << dump_json(to_json(*rep)) << "\n";
    else print_run(*rep);
    if (a.handback.any()) {
        // Hand the measurements to torch; with --json the report owns stdout and this says its part on stderr.
        auto run = handback::run_from_json(to_json(*rep), "kiln-cli retune");
        if (!run) return fail(run.error());
        HandbackArgs h = a.handback;
        h.root = cache->root.string();
        h.root_fd = cache->opened().fd;  // --write writes beneath the root opened here (issue 44)
        h.shard.clear();                 // already applied before measuring
        h.text_to_stderr = a.json;
        if (int rc = run_handback(h, *run); rc != 0) return rc;
    }
    for (const auto& op : rep->ops)
        for (const auto& c : op.choices)
            for (const auto& m : c.measured)
                if (m.status != "ok") return 1;  // a choice failed: its reason is printed
    return 0;
}

Registration retune_command("retune", 73, [](CLI::App& app, Outcome& outcome) {
    auto args = std::make_shared<RetuneArgs>();
    auto* cmd = app.add_subcommand("retune",
                                   "Re-tune a cache's autotuned ops on this machine's GPUs: each Triton choice from "
                                   "its cached cubin, each extern choice through cuBLAS (no Python needed)");
    add_root_option(cmd, args->root, "Inductor cache root");
    cmd->add_flag("--list", args->list, "List every autotuned op and what each choice would run (no GPU needed)");
    cmd->add_option("--op", args->op, "Only ops whose name or inputs key contains this");
    cmd->add_option("--devices", args->devices, "GPUs: all (default) or a list such as 0,1");
    cmd->add_flag("--each-device", args->each_device,
                  "Measure every choice on every device instead of spreading choices over them; the hand-back "
                  "then agrees one winner per op across the GPUs (the smallest median of their times)");
    cmd->add_option("--arch", args->arch, "With --list: the GPU architecture to pick binaries for, e.g. 90");
    cmd->add_option("--timeout", args->timeout_s, "Seconds allowed per choice before its worker is stopped")
        ->check(duration_seconds());
    cmd->add_option("--statistic", args->statistic,
                    "The time measured and handed back: torch (default; the minimum over event pairs, as torch "
                    "2.11's benchmarker returns and writes it) or median (do_bench's rule, --rep-ms, --warmup-ms)")
        ->check(CLI::IsMember({"torch", "median"}));
    cmd->add_option("--rep-ms", args->rep_ms, "With --statistic median: timed runs fill this many ms (default 100)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--warmup-ms", args->warmup_ms,
                    "With --statistic median: warm-up runs fill this many ms (default 25)")
        ->check(CLI::PositiveNumber);
    cmd->add_flag("--json", args->json, "Print the report as JSON");
    cmd->add_option("--root-fd", args->root_fd,
                    "ROOT as the parent process opened it, inherited as this descriptor: read beneath it, never "
                    "opened again by its path (ROOT names it in the report; the GUI passes it)")
        ->check(CLI::NonNegativeNumber);
    add_handback_options(cmd, args->handback, true);
    cmd->callback([args, &outcome] { outcome.exit_code = run_retune_cmd(*args); });
});

}  // namespace
}  // namespace kiln::cli
