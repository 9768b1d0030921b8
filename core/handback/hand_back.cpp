#include "handback/hand_back.hpp"

#include <algorithm>

#include "cuda/driver.hpp"

namespace kiln::handback {

Status check_request(const HandbackRequest& r) {
    if (!r.any())
        return make_error(Errc::invalid_argument, "nothing to do", "handback",
                          "give --write, --publish URL, --pin FILE or --fetch URL --write");
    if (r.fetch && (!r.write || r.publish))
        return make_error(Errc::invalid_argument, "--fetch goes with --write (and not with --publish)", "--fetch");
    if ((r.write || !r.pin.empty()) && r.root.path.empty())
        return make_error(Errc::invalid_argument, "--write and --pin need the cache ROOT", "handback");
    return ok_status();
}

Result<std::vector<std::string>> this_machines_gpu_kinds() {
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

HandbackReport choose_from_run(const RetuneRun& given, const HandbackRequest& request) {
    HandbackReport report;
    RetuneRun run = request.shard ? shard_run(given, *request.shard) : given;
    const ShardSlice slice{request.shard.value_or(Shard{}), run.ops.size(), given.ops.size()};
    if (request.shard && slice.nothing_to_do()) {
        report.shard = slice;
        return report;
    }
    std::optional<SoftwareVersions> python;
    if (!request.python.empty()) {
        auto v = python_versions(request.python);
        if (!v) {
            report.error = v.error();
            return report;
        }
        python = *v;
    }
    // The same decision the GUI's Re-tune dialog shows before anything is written.
    auto plan = plan_handback(std::move(run), request.root, python, request.device);
    if (request.shard) report.shard = slice;
    report.ops = std::move(plan.selection.ops);
    report.skipped = std::move(plan.selection.skipped);
    report.infinite = std::move(plan.infinite);
    report.decided = true;
    return report;
}

HandbackReport choose_from_fleet(FleetFetched fetched, std::vector<MeasuredOp> ops, const HandbackRequest& request) {
    if (const auto& s = request.shard)
        std::erase_if(
            ops, [&](const MeasuredOp& op) { return shard_of(op.op, op.inputs, op.precision, s->count) != s->index; });
    HandbackReport report;
    fetched.ops = ops.size();
    report.fetched = std::move(fetched);
    if (ops.empty()) {
        report.error =
            make_error(Errc::not_found, "the fleet has no re-tuned op for this GPU kind", report.fetched->server,
                       "publish from a machine of this kind first (retune --publish)");
        return report;
    }
    report.infinite = infinite_choices(ops);
    report.ops = std::move(ops);
    report.decided = true;
    return report;
}

void hand_back(HandbackReport& report, const HandbackRequest& request, const PublishStep& publish) {
    if (report.error || !report.decided) return;
    if (report.ops.empty()) {
        report.error = make_error(Errc::not_found, "no complete op: nothing was written", "handback",
                                  "every choice of an op must be measured ok on one device (see the reasons above)");
        return;
    }
    if (request.write) {
        auto written = write_timing_cache(request.root, report.ops);
        if (!written) {
            report.error = written.error();
            return;
        }
        report.written = std::move(written).value();
    }
    if (request.publish) {
        if (!publish) {
            report.error =
                make_error(Errc::unavailable, "this build cannot publish: Kiln was built without hiredis", "--publish");
            return;
        }
        auto published = publish(report.ops);
        if (!published) {
            report.error = published.error();
            return;
        }
        report.published = std::move(published).value();
    }
    if (!request.pin.empty()) {
        PinnedTable pinned{request.pin, build_lookup_table(report.ops, request.root)};
        if (pinned.table.pinned.empty()) {
            report.pinned = std::move(pinned);  // its skipped say why
            report.error = make_error(Errc::not_found, "no op could be pinned: no lookup table written", request.pin);
            return;
        }
        if (Status w = write_lookup_table(request.pin, pinned.table); !w.ok()) {
            report.error = w.error();
            return;
        }
        report.pinned = std::move(pinned);
    }
}

}  // namespace kiln::handback
