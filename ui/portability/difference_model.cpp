#include "ui/portability/difference_model.hpp"

#include <QGuiApplication>

#include "ui/common/qt_string.hpp"
#include "ui/portability/verdict_style.hpp"

namespace kiln::ui {

namespace {

// Long unbroken runs (hashes, paths) get zero-width break opportunities so the view can wrap them;
// the tooltip and rows() keep the value as it is.
QString breakable(const QString& v) {
    QString out;
    out.reserve(v.size() + v.size() / 16);
    int run = 0;
    for (QChar c : v) {
        out += c;
        run = c.isSpace() ? 0 : run + 1;
        if (run >= 16 && (c.isLetterOrNumber() || c == QLatin1Char('/'))) {
            out += QChar(0x200B);
            run = 0;
        }
    }
    return out;
}
}  // namespace

DifferenceModel::DifferenceModel(QObject* parent) : QAbstractTableModel(parent) {}

void DifferenceModel::setItem(const portability::PortableItem* item) {
    beginResetModel();
    rows_.clear();
    if (item) {
        for (const auto& d : item->assessment.differs)
            rows_.push_back({RowKind::differs, qstr(d.component), qstr(d.cached), qstr(d.target)});
        for (const auto& u : item->assessment.unknown)
            rows_.push_back({RowKind::unknown, qstr(u.name), QString(), tr("unknown: %1").arg(qstr(u.why))});
        for (const auto& h : item->hazards)
            rows_.push_back({RowKind::hazard, qstr(h.component), qstr(h.value), qstr(h.why)});
    }
    endResetModel();
}

int DifferenceModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }

int DifferenceModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DifferenceModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(rows_.size())) return {};
    const Row& r = rows_[std::size_t(index.row())];
    auto text = [&]() -> QString {
        switch (index.column()) {
            case StatusColumn:
                return r.kind == RowKind::differs   ? tr("differs")
                       : r.kind == RowKind::unknown ? tr("unknown")
                                                    : tr("environment");
            case ComponentColumn: return r.component;
            case CachedColumn: return r.cached;
            case TargetColumn: return r.target;
        }
        return {};
    };
    switch (role) {
        case Qt::DisplayRole: return breakable(text());
        case Qt::ToolTipRole:
            if (index.column() == StatusColumn && r.kind == RowKind::hazard)
                return tr(
                    "bound to this machine's environment, not its hardware: breaks sharing between identical "
                    "machines");
            return text();
        case Qt::DecorationRole:
            if (index.column() != StatusColumn || r.kind == RowKind::hazard) return {};
            return verdictColor(r.kind == RowKind::differs ? portability::Verdict::miss : portability::Verdict::unknown,
                                QGuiApplication::palette());
        default: return {};
    }
}

QVariant DifferenceModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case StatusColumn: return tr("Status");
        case ComponentColumn: return tr("Component");
        case CachedColumn: return tr("Cached value");
        case TargetColumn: return tr("Target value");
        default: return {};
    }
}

}  // namespace kiln::ui
