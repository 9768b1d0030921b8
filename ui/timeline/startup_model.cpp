#include "ui/timeline/startup_model.hpp"

#include "ui/common/qt_string.hpp"

namespace kiln::ui {

void StartupModel::setProcess(std::shared_ptr<const startup::StartupReport> report, int process) {
    beginResetModel();
    report_ = std::move(report);
    process_ = report_ && process >= 0 && process < int(report_->processes.size()) ? process : -1;
    endResetModel();
}

const startup::ProcessStartup* StartupModel::process() const {
    return process_ < 0 ? nullptr : &report_->processes[static_cast<std::size_t>(process_)];
}

QModelIndex StartupModel::compileIndex(int compile) const { return index(compile, 0); }

QModelIndex StartupModel::phaseIndex(int compile, const QString& phase) const {
    const auto* p = process();
    if (!p || compile < 0 || compile >= int(p->compiles.size())) return {};
    const auto& phases = p->compiles[static_cast<std::size_t>(compile)].phases;
    const QModelIndex parent = compileIndex(compile);
    for (int i = 0; i < int(phases.size()); ++i)
        if (qstr(phases[static_cast<std::size_t>(i)].name) == phase) return index(i, 0, parent);
    return phase == QLatin1String("unexplained") ? index(int(phases.size()), 0, parent) : QModelIndex();
}

// Top-level rows carry internal id 0; a phase row carries its compile's row + 1.
QModelIndex StartupModel::index(int row, int column, const QModelIndex& parent) const {
    if (!hasIndex(row, column, parent)) return {};
    return createIndex(row, column, parent.isValid() ? quintptr(parent.row() + 1) : quintptr(0));
}

QModelIndex StartupModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || child.internalId() == 0) return {};
    return createIndex(int(child.internalId() - 1), 0, quintptr(0));
}

int StartupModel::rowCount(const QModelIndex& parent) const {
    const auto* p = process();
    if (!p) return 0;
    if (!parent.isValid()) return int(p->compiles.size());
    if (parent.internalId() != 0 || parent.column() != 0) return 0;
    return int(p->compiles[static_cast<std::size_t>(parent.row())].phases.size()) + 1;  // + unexplained
}

int StartupModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant StartupModel::data(const QModelIndex& index, int role) const {
    const auto* p = process();
    if (!p || !index.isValid()) return {};
    const bool isPhase = index.internalId() != 0;
    const auto& c = p->compiles[static_cast<std::size_t>(isPhase ? index.internalId() - 1 : index.row())];
    if (!isPhase) {
        const QString cause =
            c.phases.empty() ? QString() : qstr(c.phases.front().name + ": " + c.phases.front().cause);
        if (role == SecondsRole) return c.seconds;
        if (role == Qt::ToolTipRole)
            return tr("%1\nFX graph: %2%3")
                .arg(qstr(c.label()), c.fx_state.empty() ? tr("no event") : qstr(c.fx_state),
                     c.miss.empty() ? QString() : QStringLiteral("\n") + qstr(c.miss));
        if (role != Qt::DisplayRole) return {};
        switch (index.column()) {
            case NameColumn: return qstr(c.label());
            case SecondsColumn: return formatSeconds(c.seconds);
            case CauseColumn: return cause;
            case FixColumn: {
                for (const auto& ph : c.phases)
                    if (!ph.fix.empty()) return qstr(ph.fix);
                return {};
            }
            default: return {};
        }
    }
    const bool unexplained = index.row() == int(c.phases.size());
    const startup::PhaseCost* ph = unexplained ? nullptr : &c.phases[static_cast<std::size_t>(index.row())];
    const double seconds = unexplained ? c.unexplained_seconds : ph->seconds;
    if (role == SecondsRole) return seconds;
    if (role == Qt::ToolTipRole)
        return unexplained ? tr("time inside the compile that no span of the trace covers")
                           : qstr(ph->cause) + (ph->fix.empty() ? QString() : tr("\nfix: ") + qstr(ph->fix));
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
        case NameColumn: return unexplained ? tr("unexplained") : qstr(ph->name);
        case SecondsColumn: return formatSeconds(seconds);
        case CauseColumn: return unexplained ? tr("no span covers it") : qstr(ph->cause);
        case FixColumn: return unexplained ? QString() : qstr(ph->fix);
        default: return {};
    }
}

QVariant StartupModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case NameColumn: return tr("Compile, then its phases");
        case SecondsColumn: return tr("Seconds");
        case CauseColumn: return tr("Cause");
        case FixColumn: return tr("Fix");
        default: return {};
    }
}

}  // namespace kiln::ui
