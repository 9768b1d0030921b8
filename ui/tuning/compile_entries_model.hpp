#pragma once
// The Compile times view's table: one row per graph entry with a compile time (its compiled frame's
// name, the time as a bar, the key). Rows are built off the UI thread (compileEntryRows) and handed
// over whole; sorting is a sort of the row vector, so 12,000 entries cost the UI thread a few ms where
// a QStandardItemModel behind a sorting proxy cost 170 ms.
#include <QAbstractTableModel>
#include <QString>

#include <map>
#include <string>
#include <vector>

#include "timings/compile_times.hpp"
#include "trace/compile_timeline.hpp"

namespace kiln::ui {

struct CompileEntryRow {
    QString name;  // "mm (gen_inductor_cache.py:94)", or "(no trace) <key prefix>"
    QString path;  // the entry file
    QString key;
    double seconds = 0;
};

// The rows of `data`, slowest first (off the UI thread: names come from the trace's frames).
std::vector<CompileEntryRow> compileEntryRows(const timings::CompileTimes& data,
                                              const std::map<std::string, trace::FrameRef>& frames);

class CompileEntriesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameColumn, TimeColumn, KeyColumn, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;  // the value a column sorts by (seconds for the time)
    static constexpr int PathRole = Qt::UserRole + 2;  // the entry file, on every column

    using QAbstractTableModel::QAbstractTableModel;
    void setRows(std::vector<CompileEntryRow> rows);
    double maxSeconds() const { return max_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

private:
    std::vector<CompileEntryRow> rows_;
    double max_ = 0;
};

}  // namespace kiln::ui
