#include "ui/ranks/ranks_job.hpp"

#include <QElapsedTimer>
#include <QObject>

#include "ui/common/qt_string.hpp"
#include "ui/jobs/job_control.hpp"

namespace kiln::ui {

namespace {

void agreeEveryGroup(RanksData& d) {
    d.agreements.clear();
    d.agreementGroup.clear();
    for (std::size_t g = 0; g < d.report->groups.size(); ++g) {
        if (d.report->groups[g].members.size() < 2) continue;
        d.agreements.push_back(ranks::agree(d.members(int(g)), d.rule, d.report->groups[g].label));
        d.agreementGroup.push_back(int(g));
    }
}

}  // namespace

std::vector<const ranks::LoadedRank*> RanksData::members(int group) const {
    std::vector<const ranks::LoadedRank*> out;
    if (!report || !loaded || group < 0 || group >= int(report->groups.size())) return out;
    for (auto i : report->groups[std::size_t(group)].members) out.push_back(&(*loaded)[i]);
    return out;
}

const ranks::Agreement* RanksData::agreementOf(int group) const {
    for (std::size_t i = 0; i < agreementGroup.size(); ++i)
        if (agreementGroup[i] == group) return &agreements[i];
    return nullptr;
}

RanksOutcome runRanks(const QStringList& dirs, ranks::AgreeRule rule, JobControl& ctl) {
    RanksOutcome out;
    QElapsedTimer clock;
    clock.start();
    std::vector<ranks::RankSpec> specs;
    for (const auto& d : dirs) specs.push_back({d.toStdString(), "", "", {}, ""});
    std::vector<ranks::RankProblem> problems;
    ctl.setProgress(0, qint64(specs.size()));
    auto loaded = ranks::load_ranks(specs, problems, ctl.cancelFlag(),
                                    [&](std::size_t tried) { ctl.setProgress(qint64(tried), qint64(specs.size())); });
    if (ctl.cancelled()) {
        out.cancelled = true;
        out.error = QObject::tr("Cancelled.");
        return out;
    }
    if (auto st = ranks::check_two_readable(loaded.size(), problems); !st.ok()) {
        out.error = qstr(st.error().str());
        return out;
    }
    auto data = std::make_shared<RanksData>();
    data->rule = rule;
    data->report = std::make_shared<const ranks::RanksReport>(ranks::compare_ranks(loaded, std::move(problems)));
    data->loaded = std::make_shared<const std::vector<ranks::LoadedRank>>(std::move(loaded));
    agreeEveryGroup(*data);
    out.data = std::move(data);
    out.elapsedMs = clock.elapsed();
    return out;
}

RanksOutcome reagreeRanks(std::shared_ptr<const RanksData> data, ranks::AgreeRule rule) {
    RanksOutcome out;
    if (!data) {
        out.error = QObject::tr("Nothing compared yet.");
        return out;
    }
    QElapsedTimer clock;
    clock.start();
    // The ranks and the report shared; the models keep showing the old agreements until these arrive.
    auto next = std::make_shared<RanksData>(*data);
    next->rule = rule;
    agreeEveryGroup(*next);
    out.data = std::move(next);
    out.elapsedMs = clock.elapsed();
    return out;
}

RanksWriteOutcome writeAgreedCaches(std::shared_ptr<const RanksData> data) {
    RanksWriteOutcome out;
    if (!data || data->agreements.empty()) {
        out.error = QObject::tr("No agreement to write: compare two ranks of one kind first.");
        return out;
    }
    for (std::size_t i = 0; i < data->agreements.size(); ++i) {
        auto w = ranks::write_agreed_caches(data->members(data->agreementGroup[i]), data->agreements[i]);
        if (!w) {
            out.error = qstr(w.error().str());
            return out;
        }
        out.written.insert(out.written.end(), w->begin(), w->end());
    }
    return out;
}

}  // namespace kiln::ui
