#include "retune/run_jobs.hpp"

namespace kiln::retune {
namespace {

// The extern choice whose output the others are compared with: the op's own ATen kernel first.
int reference_choice(const RetuneOp& op) {
    int any = -1;
    for (std::size_t i = 0; i < op.choices.size(); ++i) {
        const auto& c = op.choices[i];
        if (c.kind != ChoiceKind::extern_op || !c.runnable) continue;
        if (c.name.rfind(op.op + "-", 0) == 0) return static_cast<int>(i);
        if (any < 0) any = static_cast<int>(i);
    }
    return any;
}

}  // namespace

RetuneJobs plan_jobs(RetuneReport& report, const RunOptions& o) {
    RetuneJobs out;
    std::vector<RetuneJob> refs, rest;
    out.reference_of.assign(report.ops.size(), -1);
    for (std::size_t i = 0; i < report.ops.size(); ++i) {
        auto& op = report.ops[i];
        out.reference_of[i] = reference_choice(op);
        for (std::size_t j = 0; j < op.choices.size(); ++j) {
            auto& c = op.choices[j];
            if (!c.runnable) continue;
            auto req = request_for(op, c, o);
            if (!req.ok()) {
                c.runnable = false;
                c.why = req.error().message;
                continue;
            }
            (static_cast<int>(j) == out.reference_of[i] ? refs : rest).push_back({i, j, std::move(*req)});
        }
    }
    for (auto& job : rest) {
        const int ref = out.reference_of[job.op];
        const auto& op = report.ops[job.op];
        if (ref >= 0 && op.choices[static_cast<std::size_t>(ref)].gemm)
            job.request.reference_gemm = *op.choices[static_cast<std::size_t>(ref)].gemm;
    }
    out.jobs = std::move(refs);
    for (auto& job : rest) out.jobs.push_back(std::move(job));
    if (o.rewrite)
        for (auto& job : out.jobs) o.rewrite(report.ops[job.op].choices[job.choice], job.request);
    return out;
}

}  // namespace kiln::retune
