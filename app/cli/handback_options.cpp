#include "handback_options.hpp"

#include <cstdio>
#include <iostream>

#include "handback/hand_back.hpp"
#include "util/json_out.hpp"
#ifdef KILN_HAVE_REMOTE
#include "remote/retuned_fleet.hpp"
#include "remote/shared_timings.hpp"
#endif

namespace kiln::cli {
namespace {

using Json = nlohmann::ordered_json;
using namespace kiln::handback;

void print_skipped(FILE* to, const std::vector<SkippedOp>& skipped, const char* what) {
    for (const auto& s : skipped)
        std::fprintf(to, "  not %s: %s on %s: %s\n", what, s.label.c_str(), s.device_name.c_str(), s.why.c_str());
}

// Ops whose every choice several devices measured (retune --each-device): one winner agreed across
// them, and each op where a device's own winner was another, with both times on that device.
void print_agreed(FILE* to, const std::vector<MeasuredOp>& ops) {
    std::size_t agreed = 0, differed = 0;
    std::string devices;
    for (const auto& op : ops) {
        if (op.agreed_from.size() < 2) continue;
        ++agreed;
        differed += op.devices_differed();
        if (devices.empty())
            for (int d : op.agreed_from) devices += (devices.empty() ? "" : ", ") + std::to_string(d);
    }
    if (!agreed) return;
    std::fprintf(to, "  %zu op(s) agreed across devices %s (%s); their own winners differed on %zu:\n", agreed,
                 devices.c_str(), agreed_rule_text().c_str(), differed);
    for (const auto& op : ops) {
        const auto differ = op.disagreements();
        if (differ.empty()) continue;
        const MeasuredChoice* w = op.winner();
        std::fprintf(to, "    %s: agreed %s (median %.5f ms)\n", op.label().c_str(), w->name.c_str(), w->ms);
        for (const auto& d : differ)
            std::fprintf(to, "      device %d: its own %s %.5f ms, the agreed %.5f ms (%+.2f %%)\n",
                         op.agreed_from[d.k], d.own->name.c_str(), d.own->device_ms[d.k], w->device_ms[d.k],
                         100 * (w->device_ms[d.k] / d.own->device_ms[d.k] - 1));
    }
}

// What the hand-back did, step by step, as far as it went (its error is printed after this).
void print_handback(FILE* to, const HandbackReport& r) {
    if (const auto& f = r.fetched)
        std::fprintf(to, "fetched %zu of %zu re-tuned ops from %s for %s\n", f->ops, f->entries, f->server.c_str(),
                     Json(f->for_devices).dump().c_str());
    if (const auto& s = r.shard) {
        if (s->nothing_to_do())
            std::fprintf(to, "shard %d/%d holds none of the %zu ops: nothing to do\n", s->shard.index, s->shard.count,
                         s->of);
        else std::fprintf(to, "shard %d/%d: %zu of %zu ops\n", s->shard.index, s->shard.count, s->ops, s->of);
    }
    if (!r.decided) return;
    std::fprintf(to, "%zu complete op(s) (every choice measured on one GPU kind)\n", r.ops.size());
    print_agreed(to, r.ops);
    if (!r.infinite.empty()) {
        std::fprintf(to, "  %zu choice(s) written as Infinity, as torch writes a choice that fails:\n",
                     r.infinite.size());
        for (const auto& i : r.infinite)
            std::fprintf(to, "    %s of %s: %s\n", i.choice.c_str(), i.op.c_str(), i.why.c_str());
    }
    print_skipped(to, r.skipped, "handed back");
    if (r.written)
        for (const auto& f : r.written->files)
            std::fprintf(to,
                         "wrote %d op(s) (%d new, %d replaced) to %s%s\n  for %s; Triton key and CUDA version "
                         "from %s\n",
                         f.added + f.replaced, f.added, f.replaced, f.path.c_str(), f.created ? " (new file)" : "",
                         f.device.c_str(), f.versions_from.c_str());
    if (const auto& p = r.published) {
        std::fprintf(to, "published %zu op(s) to %s as %s:\n", p->keys.size(), p->server.c_str(), p->host.c_str());
        for (const auto& k : p->keys) std::fprintf(to, "  %s\n", k.c_str());
    }
    if (const auto& p = r.pinned) {
        if (p->table.pinned.empty()) {
            print_skipped(to, p->table.skipped, "pinned");
            return;
        }
        std::fprintf(to, "pinned %zu op(s) into %s:\n", p->table.pinned.size(), p->path.c_str());
        for (const auto& e : p->table.pinned)
            std::fprintf(to, "  %s on %s -> %s (%.4f ms) %s\n", e.label.c_str(), e.device_name.c_str(),
                         e.winner.c_str(), e.ms, e.config.dump().c_str());
        print_skipped(to, p->table.skipped, "pinned");
        // The handler is thread-local in torch: the config's class reaches the backward graph too.
        std::fprintf(to,
                     "load it before compiling: torch._inductor.config.lookup_table.table = json.load(open('%s')); "
                     "torch._inductor.config.inductor_choices_class = "
                     "torch._inductor.lookup_table.LookupTableChoices\n",
                     p->path.c_str());
    }
}

#ifdef KILN_HAVE_REMOTE
// --fetch: the fleet's entries for this machine's GPU kinds (--device-name, else the driver's).
HandbackReport fetch_from_fleet(const HandbackArgs& a, const HandbackRequest& request) {
    HandbackReport failed;
    auto kinds = a.device_names.empty() ? this_machines_gpu_kinds() : Result<std::vector<std::string>>(a.device_names);
    if (!kinds) {
        failed.error = kinds.error();
        return failed;
    }
    auto entries = remote::read_retuned(a.fetch);
    if (!entries) {
        failed.error = entries.error();
        return failed;
    }
    for (const auto& w : entries->warnings) warn(w);
    return choose_from_fleet({entries->server, entries->ops.size(), *kinds}, remote::for_devices(*entries, *kinds),
                             request);
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
    HandbackRequest request;
    request.root = {a.root, a.root_fd};
    request.write = a.write;
    request.publish = !a.publish.empty();
    request.fetch = !a.fetch.empty();
    request.pin = a.pin;
    request.python = a.python;
    request.device = a.device;
    if (Status s = check_request(request); !s.ok()) return fail(s.error());
    auto shard = shard_arg(a);
    if (!shard) return fail(frontend::as_bad_input(shard.error()));
    request.shard = *shard;

    HandbackReport report;
    if (request.fetch) {
#ifdef KILN_HAVE_REMOTE
        report = fetch_from_fleet(a, request);
#endif
    } else {
        if (!given) return fail(make_error(Errc::invalid_argument, "no re-tune result", "handback"));
        report = choose_from_run(*given, request);
    }
    PublishStep publish;
#ifdef KILN_HAVE_REMOTE
    if (request.publish)
        publish = [&a](const std::vector<MeasuredOp>& ops) -> Result<PublishedOps> {
            const std::string host = remote::this_host();
            KILN_TRY(auto pub, remote::publish_retuned(a.publish, ops, host));
            return PublishedOps{pub.server, host, pub.keys};
        };
#endif
    hand_back(report, request, publish);
    if (!a.json) print_handback(a.text_to_stderr ? stderr : stdout, report);
    if (report.error) return fail(*report.error);
    if (a.json) std::cout << dump_json(to_json(report)) << "\n";
    return 0;
}

}  // namespace kiln::cli
