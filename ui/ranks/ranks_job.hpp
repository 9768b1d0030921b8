#pragma once
// The Ranks view's work, run off the UI thread through the calls `kiln-cli ranks DIR... --agree`
// makes (ranks::load_ranks, check_two_readable, compare_ranks, agree, write_agreed_caches), so both
// front ends give one answer. Results are values: a RanksData, shared read-only with the models.
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

#include "ranks/rank_agreement.hpp"
#include "ranks/ranks_report.hpp"

namespace kiln::ui {

class JobControl;

// What a comparison read and found: the ranks as loaded (what agreeing and writing need), the report,
// and one agreement per group of two ranks or more, by `rule`. The ranks and the report are shared:
// agreeing by another rule copies only the agreements.
struct RanksData {
    std::shared_ptr<const std::vector<ranks::LoadedRank>> loaded;
    std::shared_ptr<const ranks::RanksReport> report;
    ranks::AgreeRule rule = ranks::AgreeRule::median;
    std::vector<ranks::Agreement> agreements;
    std::vector<int> agreementGroup;  // per agreement: its index in report->groups

    // The group's members as agree() takes them.
    std::vector<const ranks::LoadedRank*> members(int group) const;
    // The agreement of report->groups[group], or null (a group of one rank).
    const ranks::Agreement* agreementOf(int group) const;
};

struct RanksOutcome {
    std::shared_ptr<const RanksData> data;  // null on error or cancel
    QString error;
    bool cancelled = false;
    qint64 elapsedMs = 0;
};

// Loads each of `dirs` as a rank, compares them and agrees each group by `rule`; progress is the
// ranks read of all, and Cancel stops before the next rank.
RanksOutcome runRanks(const QStringList& dirs, ranks::AgreeRule rule, JobControl& ctl);

// The same ranks agreed by another rule (nothing is read again).
RanksOutcome reagreeRanks(std::shared_ptr<const RanksData> data, ranks::AgreeRule rule);

struct RanksWriteOutcome {
    std::vector<ranks::WrittenRankCache> written;
    QString error;
};

// `kiln-cli ranks --agree --write`: each rank's own timing cache rewritten so that the agreed choice is
// its fastest, for every group that was agreed.
RanksWriteOutcome writeAgreedCaches(std::shared_ptr<const RanksData> data);

}  // namespace kiln::ui
