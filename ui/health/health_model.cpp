#include "ui/health/health_model.hpp"

namespace kiln::ui {

HealthModel::HealthModel(QObject* parent) : QAbstractItemModel(parent) {}

void HealthModel::clear() {
    beginResetModel();
    report_.reset();
    sections_.clear();
    endResetModel();
}

void HealthModel::setReport(std::shared_ptr<const health::HealthReport> report) {
    beginResetModel();
    sections_.clear();
    if (!report) {
        report_.reset();
        endResetModel();
        return;
    }
    for (std::size_t k = 0; k < health::kProblemKinds; ++k) {
        Section s{static_cast<health::ProblemKind>(k), {}};
        for (std::size_t i = 0; i < report->problems.size(); ++i)
            if (report->problems[i].kind == s.kind) s.rows.push_back(i);
        if (!s.rows.empty()) sections_.push_back(std::move(s));
    }
    if (!report->stale.empty()) {
        Section s;
        for (std::size_t i = 0; i < report->stale.size(); ++i) s.rows.push_back(i);
        sections_.push_back(std::move(s));
    }
    report_ = std::move(report);
    endResetModel();
}

QModelIndex HealthModel::index(int row, int column, const QModelIndex& parent) const {
    if (row < 0 || column < 0 || column >= ColCount) return {};
    if (!parent.isValid())
        return row < static_cast<int>(sections_.size()) ? createIndex(row, column, kTop) : QModelIndex();
    if (parent.internalId() != kTop || parent.column() != 0) return {};
    const Section& s = sections_[static_cast<std::size_t>(parent.row())];
    if (row >= static_cast<int>(s.rows.size())) return {};
    return createIndex(row, column, static_cast<quintptr>(parent.row()) + 1);
}

QModelIndex HealthModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || child.internalId() == kTop) return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, kTop);
}

int HealthModel::rowCount(const QModelIndex& parent) const {
    if (!parent.isValid()) return static_cast<int>(sections_.size());
    if (parent.internalId() != kTop || parent.column() != 0) return 0;
    return static_cast<int>(sections_[static_cast<std::size_t>(parent.row())].rows.size());
}

int HealthModel::columnCount(const QModelIndex&) const { return ColCount; }

QVariant HealthModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !report_) return {};
    if (index.internalId() == kTop) {
        const Section& s = sections_[static_cast<std::size_t>(index.row())];
        const QString n = QString::number(s.rows.size());
        if (role == WhyRole)
            return s.kind ? QString::fromUtf8(health::problem_why(*s.kind).data())
                          : tr("Entries that can never hit against %1; no problem unless --strict")
                                .arg(QString::fromStdString(report_->stale_against));
        if (role != Qt::DisplayRole) return {};
        if (index.column() == ColDetail) return n;
        return s.kind ? QString::fromUtf8(health::problem_kind_name(*s.kind).data()) : tr("stale (not counted)");
    }
    const Section& s = sections_[static_cast<std::size_t>(index.internalId() - 1)];
    const std::size_t i = s.rows[static_cast<std::size_t>(index.row())];
    const std::string root = report_->root + "/";
    if (s.kind) {
        const health::Problem& p = report_->problems[i];
        switch (role) {
            case Qt::DisplayRole: return QString::fromStdString(index.column() == ColWhat ? p.path : p.detail);
            case Qt::ToolTipRole: return QString::fromStdString(p.detail);
            case PathRole: return QString::fromStdString(root + p.path);
            case GroupRole: {
                const std::string_view g = p.group();
                return QString::fromUtf8(g.data(), static_cast<qsizetype>(g.size()));
            }
            case WhyRole: return QString::fromUtf8(health::problem_why(p.kind).data());
            default: return {};
        }
    }
    const health::StaleEntry& e = report_->stale[i];
    QStringList differs;
    for (const auto& d : e.differs) differs << QString::fromStdString(d.component);
    switch (role) {
        case Qt::DisplayRole:
            return index.column() == ColWhat ? QString::fromStdString(e.path) : differs.join(QStringLiteral(", "));
        case PathRole: return QString::fromStdString(root + e.path);
        case GroupRole: return QString::fromStdString(e.group);
        case WhyRole: return tr("Differs from the target in: %1").arg(differs.join(QStringLiteral(", ")));
        default: return {};
    }
}

QVariant HealthModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    return section == ColWhat ? tr("Problem / path") : tr("Detail");
}

}  // namespace kiln::ui
