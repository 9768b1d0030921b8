#include "ui/tuning/autotune_compare_model.hpp"

#include <QBrush>
#include <QColor>
#include <QFont>

#include <limits>

namespace kiln::ui {

AutotuneCompareModel::AutotuneCompareModel(QObject* parent) : QAbstractTableModel(parent) {}

void AutotuneCompareModel::setComparison(timings::Comparison cmp) {
    setComparison(std::make_shared<const timings::Comparison>(std::move(cmp)));
}

void AutotuneCompareModel::setComparison(std::shared_ptr<const timings::Comparison> cmp) {
    beginResetModel();
    cmp_ = cmp ? std::move(cmp) : std::make_shared<const timings::Comparison>();
    endResetModel();
}

int AutotuneCompareModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(cmp_->ops.size());
}
int AutotuneCompareModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : kFixed + 3 * devices() - (devices() > 0 ? 1 : 0) + 1;
}

AutotuneCompareModel::Located AutotuneCompareModel::locate(int column) const {
    int c = column - kFixed;
    if (c < 0 || column >= columnCount() - 1) return {};
    if (c < 2) return {0, c == 0 ? DeviceColumn::best : DeviceColumn::winner};
    c -= 2;
    return {1 + c / 3, static_cast<DeviceColumn>(c % 3)};
}

QVariant AutotuneCompareModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const auto& op = cmp_->ops[static_cast<size_t>(index.row())];
    const int col = index.column();
    if (role == WinnerDiffersRole) return op.winner_differs;
    const bool last = col == columnCount() - 1;
    if (role == Qt::FontRole && last && op.winner_differs) {  // bold, not a fixed colour: legible in both themes
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole) return {};
    if (col < kFixed) {
        const std::string& s = col == 0 ? op.op : col == 1 ? op.inputs : op.precision;
        return QString::fromStdString(s);
    }
    if (last)
        return role == SortRole ? QVariant(op.winner_differs) : QVariant(op.winner_differs ? tr("yes") : tr("no"));
    const Located at = locate(col);
    const size_t d = static_cast<size_t>(at.device);
    switch (at.kind) {
        case DeviceColumn::best:
            if (!op.best_ms[d])
                return role == SortRole ? QVariant(std::numeric_limits<double>::infinity())
                                        : QVariant(QStringLiteral("–"));
            return role == SortRole ? QVariant(*op.best_ms[d]) : QVariant(QString::number(*op.best_ms[d], 'f', 4));
        case DeviceColumn::speedup:
            if (!op.speedup[d]) return role == SortRole ? QVariant(0.0) : QVariant(QStringLiteral("–"));
            return role == SortRole ? QVariant(*op.speedup[d])
                                    : QVariant(QStringLiteral("%1×").arg(*op.speedup[d], 0, 'f', 2));
        case DeviceColumn::winner: {
            // The choice's one name (choice_display_name), its config on a second line: narrow enough
            // that two devices' winners fit beside each other.
            QString label = QString::fromStdString(timings::winner_label(op, d));
            if (role == Qt::DisplayRole) label.replace(QStringLiteral(" ("), QStringLiteral("\n("));
            return label;
        }
    }
    return {};
}

QVariant AutotuneCompareModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, o, role);
    if (section == 0) return tr("Op");
    if (section == 1) return tr("Inputs");
    if (section == 2) return tr("Precision");
    if (section == columnCount() - 1) return tr("Winner differs");
    // The device on a line of its own, numbered as in the chart's legend: headers read in full.
    const Located at = locate(section);
    const QString dev =
        QStringLiteral("%1 %2").arg(at.device + 1).arg(QString::fromStdString(cmp_->devices[size_t(at.device)]));
    switch (at.kind) {
        case DeviceColumn::best: return tr("best ms\n%1").arg(dev);
        case DeviceColumn::speedup: return tr("speed-up vs 1\n%1").arg(dev);
        case DeviceColumn::winner: return tr("winner\n%1").arg(dev);
    }
    return {};
}

ChartTable AutotuneCompareModel::table() const {
    ChartTable t;
    t.title = tr("Device comparison");
    for (int c = 0; c < columnCount(); ++c)
        t.header << headerData(c, Qt::Horizontal).toString().replace(QLatin1Char('\n'), QLatin1Char(' '));
    for (int r = 0; r < rowCount(); ++r) {
        QStringList row;
        for (int c = 0; c < columnCount(); ++c) row << data(index(r, c), Qt::ToolTipRole).toString();
        t.rows.push_back(row);
    }
    return t;
}

}  // namespace kiln::ui
