#include "handback/handback_plan.hpp"

namespace kiln::handback {

std::vector<InfiniteChoice> infinite_choices(const std::vector<MeasuredOp>& ops) {
    std::vector<InfiniteChoice> out;
    for (const auto& op : ops)
        for (const auto& c : op.choices)
            if (c.infinite()) out.push_back({op.label(), op.device_name, c.name, c.infinite_why});
    return out;
}

HandbackPlan plan_handback(RetuneRun run, const inductor::OpenedRoot& root,
                           const std::optional<SoftwareVersions>& python, std::optional<int> only_device) {
    fill_recorded_versions(run, root);
    HandbackPlan plan;
    plan.selection = complete_ops(run, python, only_device);
    plan.infinite = infinite_choices(plan.selection.ops);
    return plan;
}

}  // namespace kiln::handback
