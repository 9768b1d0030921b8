#include "ui/tuning/compile_entries_model.hpp"

#include <algorithm>
#include <filesystem>

#include "ui/common/qt_string.hpp"

namespace kiln::ui {

std::vector<CompileEntryRow> compileEntryRows(const timings::CompileTimes& data,
                                              const std::map<std::string, trace::FrameRef>& frames) {
    std::vector<CompileEntryRow> rows;
    rows.reserve(data.graphs.size());
    for (const auto& g : data.graphs) {
        const std::string key = std::filesystem::path(g.path).parent_path().filename().string();
        const auto frame = frames.find(key);
        CompileEntryRow r;
        r.name = frame != frames.end() ? QString::fromStdString(frame->second.label())
                                       : QStringLiteral("(no trace) %1").arg(QString::fromStdString(key.substr(0, 12)));
        r.path = QString::fromStdString(g.path);
        r.key = QString::fromStdString(key);
        r.seconds = double(g.ns) / 1e9;
        rows.push_back(std::move(r));
    }
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.seconds > b.seconds; });
    return rows;
}

void CompileEntriesModel::setRows(std::vector<CompileEntryRow> rows) {
    beginResetModel();
    rows_ = std::move(rows);
    max_ = 0;
    for (const auto& r : rows_) max_ = std::max(max_, r.seconds);
    endResetModel();
}

int CompileEntriesModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int CompileEntriesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CompileEntriesModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const CompileEntryRow& r = rows_[static_cast<std::size_t>(index.row())];
    const int col = index.column();
    switch (role) {
        case Qt::DisplayRole: return col == NameColumn ? r.name : col == TimeColumn ? formatSeconds(r.seconds) : r.key;
        case SortRole:
            return col == NameColumn ? QVariant(r.name) : col == TimeColumn ? QVariant(r.seconds) : QVariant(r.key);
        case PathRole: return r.path;
        case Qt::ToolTipRole: return col == NameColumn ? QVariant(r.path) : QVariant();
        case Qt::TextAlignmentRole:
            return col == TimeColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
        default: return {};
    }
}

QVariant CompileEntriesModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case NameColumn: return tr("Graph entry (compiled frame)");
        case TimeColumn: return tr("Compile time");
        case KeyColumn: return tr("Key");
        default: return {};
    }
}

void CompileEntriesModel::sort(int column, Qt::SortOrder order) {
    if (column < 0 || column >= ColumnCount) return;
    std::vector<int> perm(rows_.size());
    for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int>(i);
    auto less = [&](int a, int b) {
        const auto& x = rows_[static_cast<std::size_t>(a)];
        const auto& y = rows_[static_cast<std::size_t>(b)];
        if (column == TimeColumn) return x.seconds < y.seconds;
        return (column == NameColumn ? x.name.compare(y.name) : x.key.compare(y.key)) < 0;
    };
    auto before = [&](int a, int b) { return order == Qt::AscendingOrder ? less(a, b) : less(b, a); };
    // Rows already in this order (compileEntryRows gives them slowest first, the view's first sort):
    // the stable sort would move none, so no layout change for the view to redo over every row.
    if (std::is_sorted(perm.begin(), perm.end(), before)) return;
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    std::stable_sort(perm.begin(), perm.end(), before);
    std::vector<CompileEntryRow> sorted;
    sorted.reserve(rows_.size());
    std::vector<int> newRow(rows_.size());
    for (std::size_t i = 0; i < perm.size(); ++i) {
        newRow[static_cast<std::size_t>(perm[i])] = static_cast<int>(i);
        sorted.push_back(std::move(rows_[static_cast<std::size_t>(perm[i])]));
    }
    rows_ = std::move(sorted);
    const QModelIndexList old = persistentIndexList();
    QModelIndexList now;
    now.reserve(old.size());
    for (const QModelIndex& i : old) now.push_back(index(newRow[static_cast<std::size_t>(i.row())], i.column()));
    changePersistentIndexList(old, now);
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

}  // namespace kiln::ui
