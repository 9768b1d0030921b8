#pragma once
// The Compile timeline's "where the time went" table for one process of a startup report
// (startup::analyze_startup, what `kiln-cli startup` prints): a tree with one row per compile (frame,
// seconds, FX outcome, the biggest phase's cause) and its phases as children (name, seconds, cause,
// fix), the unexplained rest last. The report is a value computed off the UI thread and handed over.
#include <QAbstractItemModel>

#include <memory>

#include "startup/startup_report.hpp"

namespace kiln::ui {

class StartupModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn, SecondsColumn, CauseColumn, FixColumn, ColumnCount };
    static constexpr int SecondsRole = Qt::UserRole + 1;  // the seconds as a double, on every column

    using QAbstractItemModel::QAbstractItemModel;
    void setProcess(std::shared_ptr<const startup::StartupReport> report, int process);
    const startup::ProcessStartup* process() const;
    // The index of a compile's row, or of one of its phases ("unexplained" for the rest).
    QModelIndex compileIndex(int compile) const;
    QModelIndex phaseIndex(int compile, const QString& phase) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const startup::StartupReport> report_;
    int process_ = -1;
};

}  // namespace kiln::ui
