#include "ui/portability/verdict_model.hpp"

#include <QGuiApplication>

#include "ui/common/qt_string.hpp"
#include "ui/portability/portability_job.hpp"
#include "ui/portability/verdict_style.hpp"

namespace kiln::ui {

using portability::Verdict;

QString verdictReason(const portability::PortableItem& item) {
    QStringList parts;
    for (const auto& d : item.assessment.differs) parts << qstr(d.component);
    for (const auto& u : item.assessment.unknown) parts << QObject::tr("unknown: %1").arg(qstr(u.name));
    return parts.join(QStringLiteral(", "));
}

VerdictModel::VerdictModel(QObject* parent) : QAbstractTableModel(parent) {}

void VerdictModel::setReport(std::shared_ptr<const portability::PortableReport> report, const QString& root) {
    beginResetModel();
    report_ = std::move(report);
    root_ = root;
    endResetModel();
}

const portability::PortableItem* VerdictModel::item(int row) const {
    if (!report_ || row < 0 || row >= int(report_->items.size())) return nullptr;
    return &report_->items[std::size_t(row)];
}

int VerdictModel::rowForPath(const QString& absolutePath) const {
    for (int r = 0; r < rowCount(); ++r)
        if (itemAbsolutePath(root_, *item(r)) == absolutePath) return r;
    return -1;
}

int VerdictModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !report_ ? 0 : int(report_->items.size());
}

int VerdictModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant VerdictModel::data(const QModelIndex& index, int role) const {
    const portability::PortableItem* it = index.isValid() ? item(index.row()) : nullptr;
    if (!it) return {};
    const Verdict v = it->assessment.verdict;
    switch (role) {
        case Qt::DisplayRole:
            switch (index.column()) {
                case VerdictColumn: return qstr(portability::verdict_name(v));
                case KindColumn: return qstr(portability::item_kind_name(it->kind));
                case PathColumn: return qstr(it->path);
                case WhyColumn: return verdictReason(*it);
            }
            return {};
        case Qt::DecorationRole:
            if (index.column() == VerdictColumn) return verdictColor(v, QGuiApplication::palette());
            return {};
        case Qt::ToolTipRole:
            if (index.column() == VerdictColumn) return verdictTitle(v);
            if (index.column() == PathColumn) return qstr(it->path);
            return verdictReason(*it);
        case AbsolutePathRole: return itemAbsolutePath(root_, *it);
        case VerdictRole: return int(v);
        case KindRole: return int(it->kind);
        default: return {};
    }
}

QVariant VerdictModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case VerdictColumn: return tr("Verdict");
        case KindColumn: return tr("Kind");
        case PathColumn: return tr("Entry");
        case WhyColumn: return tr("Differs / unknown");
        default: return {};
    }
}

}  // namespace kiln::ui
