#include "handback_flow.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cuda/driver.hpp"
#include "handback/handback_plan.hpp"
#include "handback/lookup_table.hpp"
#include "handback/timing_cache_write.hpp"
#include "util/json_out.hpp"
#ifdef KILN_HAVE_REMOTE
#include "remote/retuned_fleet.hpp"
#include "remote/shared_timings.hpp"
#endif

namespace kiln::cli {
namespace {

using Json = nlohmann::ordered_json;
using namespace kiln::handback;

Json skipped_json(const std::vector<SkippedOp>& skipped) {
    Json a = Json::array();
    for (const auto& s : skipped) a.push_back({{"op", s.label}, {"device", s.device_name}, {"why", s.why}});
    return a;
}

void print_skipped(FILE* to, const std::vector<SkippedOp>& skipped, const char* what) {
    for (const auto& s : skipped)
        std::fprintf(to, "  not %s: %s on %s: %s\n", what, s.label.c_str(), s.device_name.c_str(), s.why.c_str());
}

#ifdef KILN_HAVE_REMOTE  // only --fetch asks
// The GPU kinds of this machine: --device-name, else the driver's names.
Result<std::vector<std::string>> this_machines_devices(const HandbackArgs& a) {
    if (!a.device_names.empty()) return a.device_names;
    KILN_TRY(int n, cuda::device_count());
    std::vector<std::string> names;
    for (int i = 0; i < n; ++i) {
        KILN_TRY(auto f, cuda::device_facts(i));
        if (std::find(names.begin(), names.end(), f.name) == names.end()) names.push_back(f.name);
    }
    if (names.empty())
        return make_error(Errc::unavailable, "this machine has no CUDA device to fetch timings for", "--fetch",
                          "pass --device-name NAME for the GPU kind torch will run on");
    return names;
}
#endif

}  // namespace

void add_handback_options(CLI::App* cmd, HandbackArgs& a, bool with_fetch) {
    cmd->add_flag("--write", a.write,
                  "Write the measured times into ROOT/cache/<this GPU's system hash>, where torch looks "
                  "first (complete ops only; merged, others' ops kept)");
#ifdef KILN_HAVE_REMOTE
    cmd->add_option("--publish", a.publish, "Publish each complete op to Redis (redis://host:port[/db]) for a fleet");
    if (with_fetch)
        cmd->add_option("--fetch", a.fetch,
                        "With --write: the ops a fleet published to Redis for this machine's GPU kind, "
                        "instead of measuring");
#else
    (void)with_fetch;
#endif
    cmd->add_option("--pin", a.pin,
                    "Write an Inductor lookup table (a new file) pinning each op's measured winner, "
                    "device-specific keys");
    cmd->add_option("--shard", a.shard, "Only the I-th of N deterministic slices of the ops (I/N, e.g. 0/2)");
    cmd->add_option("--python", a.python,
                    "A Python with torch: this machine's Triton key and CUDA version for the system hash "
                    "(default: those of the file each op was recorded in)");
    cmd->add_option("--device", a.device, "Only the measurements of this device index");
    cmd->add_option("--device-name", a.device_names,
                    "With --fetch: the GPU kind to fetch for (repeat for several; default: this machine's, from "
                    "the driver)")
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

Result<std::optional<Shard>> shard_arg(const HandbackArgs& a) {
    if (a.shard.empty()) return std::optional<Shard>();
    KILN_TRY(auto s, parse_shard(a.shard));
    return std::optional<Shard>(s);
}

int run_handback(const HandbackArgs& a, const std::optional<RetuneRun>& given) {
    if (!a.any())
        return fail(make_error(Errc::invalid_argument, "nothing to do", "handback",
                               "give --write, --publish URL, --pin FILE or --fetch URL --write"));
    if (!a.fetch.empty() && (!a.write || !a.publish.empty()))
        return fail(
            make_error(Errc::invalid_argument, "--fetch goes with --write (and not with --publish)", "--fetch"));
    if ((a.write || !a.pin.empty()) && a.root.empty())
        return fail(make_error(Errc::invalid_argument, "--write and --pin need the cache ROOT", "handback"));
    auto shard = shard_arg(a);
    if (!shard) return fail(frontend::as_bad_input(shard.error()));

    FILE* tout = a.text_to_stderr ? stderr : stdout;
    Json out = Json::object();
    std::vector<MeasuredOp> ops;
    std::vector<SkippedOp> skipped;
    if (!a.fetch.empty()) {
#ifdef KILN_HAVE_REMOTE
        auto names = this_machines_devices(a);
        if (!names) return fail(names.error());
        auto entries = remote::read_retuned(a.fetch);
        if (!entries) return fail(entries.error());
        for (const auto& w : entries->warnings) warn(w);
        ops = remote::for_devices(*entries, *names);
        if (*shard)
            std::erase_if(ops, [&](const MeasuredOp& op) {
                return shard_of(op.op, op.inputs, op.precision, (*shard)->count) != (*shard)->index;
            });
        out["fetched"] = {{"server", entries->server},
                          {"entries", entries->ops.size()},
                          {"for_devices", *names},
                          {"ops", ops.size()}};
        if (!a.json)
            std::fprintf(tout, "fetched %zu of %zu re-tuned ops from %s for %s\n", ops.size(), entries->ops.size(),
                         entries->server.c_str(), Json(*names).dump().c_str());
        if (ops.empty())
            return fail(make_error(Errc::not_found, "the fleet has no re-tuned op for this GPU kind", entries->server,
                                   "publish from a machine of this kind first (retune --publish)"));
#endif
    } else {
        if (!given) return fail(make_error(Errc::invalid_argument, "no re-tune result", "handback"));
        RetuneRun run = *shard ? shard_run(*given, **shard) : *given;
        if (*shard && run.ops.empty() && !given->ops.empty()) {
            // A slice can be empty (few ops, many hosts): this host has nothing to hand back.
            if (a.json)
                std::cout << dump_json(
                                 Json{{"shard", {{"index", (*shard)->index}, {"count", (*shard)->count}, {"ops", 0}}}})
                          << "\n";
            else
                std::fprintf(tout, "shard %d/%d holds none of the %zu ops: nothing to do\n", (*shard)->index,
                             (*shard)->count, given->ops.size());
            return 0;
        }
        std::optional<SoftwareVersions> python;
        if (!a.python.empty()) {
            auto v = python_versions(a.python);
            if (!v) return fail(v.error());
            python = *v;
        }
        const std::size_t run_ops = run.ops.size();
        // The same decision the GUI's Re-tune dialog shows before anything is written.
        auto plan = plan_handback(std::move(run), a.root, python, a.device);
        ops = std::move(plan.selection.ops);
        skipped = std::move(plan.selection.skipped);
        if (*shard) out["shard"] = {{"index", (*shard)->index}, {"count", (*shard)->count}, {"ops", run_ops}};
        if (!a.json && *shard)
            std::fprintf(tout, "shard %d/%d: %zu of %zu ops\n", (*shard)->index, (*shard)->count, run_ops,
                         given->ops.size());
    }
    out["complete_ops"] = ops.size();
    out["skipped"] = skipped_json(skipped);
    // Choices written as Infinity, as torch writes a choice that fails: which and why.
    Json infinite = Json::array();
    for (const auto& i : infinite_choices(ops))
        infinite.push_back({{"op", i.op}, {"choice", i.choice}, {"why", i.why}});
    out["infinite"] = infinite;
    if (!a.json) {
        std::fprintf(tout, "%zu complete op(s) (every choice measured on one GPU kind)\n", ops.size());
        if (!infinite.empty()) {
            std::fprintf(tout, "  %zu choice(s) written as Infinity, as torch writes a choice that fails:\n",
                         infinite.size());
            for (const auto& i : infinite)
                std::fprintf(tout, "    %s of %s: %s\n", i["choice"].get<std::string>().c_str(),
                             i["op"].get<std::string>().c_str(), i["why"].get<std::string>().c_str());
        }
        print_skipped(tout, skipped, "handed back");
    }
    if (ops.empty())
        return fail(make_error(Errc::not_found, "no complete op: nothing was written", "handback",
                               "every choice of an op must be measured ok on one device (see the reasons above)"));

    if (a.write) {
        auto report = write_timing_cache(a.root, ops);
        if (!report) return fail(report.error());
        Json files = Json::array();
        for (const auto& f : report->files) {
            files.push_back({{"path", f.path},
                             {"device", f.device},
                             {"system_hash", f.system_hash},
                             {"versions_from", f.versions_from},
                             {"added", f.added},
                             {"replaced", f.replaced},
                             {"created", f.created}});
            if (!a.json)
                std::fprintf(tout,
                             "wrote %d op(s) (%d new, %d replaced) to %s%s\n  for %s; Triton key and CUDA version "
                             "from %s\n",
                             f.added + f.replaced, f.added, f.replaced, f.path.c_str(), f.created ? " (new file)" : "",
                             f.device.c_str(), f.versions_from.c_str());
        }
        out["written"] = std::move(files);
    }
#ifdef KILN_HAVE_REMOTE
    if (!a.publish.empty()) {
        auto pub = remote::publish_retuned(a.publish, ops, remote::this_host());
        if (!pub) return fail(pub.error());
        out["published"] = {{"server", pub->server}, {"keys", pub->keys}};
        if (!a.json) {
            std::fprintf(tout, "published %zu op(s) to %s as %s:\n", pub->keys.size(), pub->server.c_str(),
                         remote::this_host().c_str());
            for (const auto& k : pub->keys) std::fprintf(tout, "  %s\n", k.c_str());
        }
    }
#endif
    if (!a.pin.empty()) {
        auto table = build_lookup_table(ops, a.root);
        if (table.pinned.empty()) {
            print_skipped(tout, table.skipped, "pinned");
            return fail(make_error(Errc::not_found, "no op could be pinned: no lookup table written", a.pin));
        }
        if (Status w = write_lookup_table(a.pin, table); !w.ok()) return fail(w.error());
        Json pinned = Json::array();
        for (const auto& p : table.pinned)
            pinned.push_back(
                {{"key", p.key}, {"device", p.device_name}, {"winner", p.winner}, {"ms", p.ms}, {"config", p.config}});
        out["pinned"] = {{"path", a.pin}, {"entries", std::move(pinned)}, {"skipped", skipped_json(table.skipped)}};
        if (!a.json) {
            std::fprintf(tout, "pinned %zu op(s) into %s:\n", table.pinned.size(), a.pin.c_str());
            for (const auto& p : table.pinned)
                std::fprintf(tout, "  %s on %s -> %s (%.4f ms) %s\n", p.label.c_str(), p.device_name.c_str(),
                             p.winner.c_str(), p.ms, p.config.dump().c_str());
            print_skipped(tout, table.skipped, "pinned");
            // The handler is thread-local in torch: the config's class reaches the backward graph too.
            std::fprintf(tout,
                         "load it before compiling: torch._inductor.config.lookup_table.table = json.load(open('%s')); "
                         "torch._inductor.config.inductor_choices_class = "
                         "torch._inductor.lookup_table.LookupTableChoices\n",
                         a.pin.c_str());
        }
    }
    if (a.json) std::cout << dump_json(out) << "\n";
    return 0;
}

}  // namespace kiln::cli
