#pragma once
// The autotune table: one row per (op, choice) of a TimingSet with the op's columns repeated, so
// a sort/filter proxy can order by time or narrow to one op. Failed choices are rows too (no ms,
// their reason in the tooltip).
#include <QAbstractTableModel>

#include <memory>
#include <vector>

#include "timings/timing_model.hpp"

namespace kiln::ui {

class AutotuneTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { OpCol, InputsCol, PrecisionCol, DeviceCol, ChoiceCol, MsCol, PercentCol, ParamsCol, ColumnCount };
    enum Role {
        SortRole = Qt::UserRole + 1,  // numbers as numbers (failed choices sort last)
        OpIndexRole,                  // index of the row's op in the TimingSet
        ModulePathRole,               // the choice's kernel module ("" if not in the cache)
        IsBestRole,
        ErrorRole,
    };

    explicit AutotuneTableModel(QObject* parent = nullptr);
    void setTimings(std::shared_ptr<const timings::TimingSet> set);
    std::shared_ptr<const timings::TimingSet> timings() const { return set_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

    const timings::Op* opAt(int row) const;
    const timings::Choice* choiceAt(int row) const;
    // Inductor's "% of best" (best / this x 100: the winner reads 100%), or nullopt without times.
    static std::optional<double> percentOfBest(const timings::Op& op, const timings::Choice& c);

private:
    std::shared_ptr<const timings::TimingSet> set_;
    std::vector<std::pair<int, int>> rows_;  // (op, choice)
};

}  // namespace kiln::ui
