#include "ui/ranks/agreement_model.hpp"

#include <QFont>
#include <QGuiApplication>

#include "ui/common/qt_string.hpp"
#include "ui/ranks/ranks_model.hpp"
#include "ui/theme/palette.hpp"

namespace kiln::ui {

namespace {

// A rank's own winner, compact; its config alone when it is of the agreed choice's template family.
QString winnerAgainstAgreed(const std::string& winner, const std::string& agreed) {
    const auto family = agreed.substr(0, agreed.find(" ("));
    const QString text = compactChoiceLabel(winner);
    if (agreed.size() > family.size() && winner.rfind(family + " (", 0) == 0)
        return text.mid(text.indexOf(QLatin1Char('(')) + 1).chopped(1);
    return text;
}

}  // namespace

AgreementModel::AgreementModel(QObject* parent) : QAbstractTableModel(parent) {}

void AgreementModel::setAgreement(std::shared_ptr<const ranks::Agreement> agreement) {
    beginResetModel();
    agreement_ = std::move(agreement);
    rebuildRows();
    endResetModel();
}

void AgreementModel::setShowAll(bool all) {
    if (all == showAll_) return;
    beginResetModel();
    showAll_ = all;
    rebuildRows();
    endResetModel();
}

void AgreementModel::rebuildRows() {
    rows_.clear();
    if (!agreement_) return;
    for (std::size_t i = 0; i < agreement_->ops.size(); ++i)
        if (showAll_ || agreement_->ops[i].ranks_differed) rows_.push_back(i);
}

const ranks::AgreedOp* AgreementModel::op(int row) const {
    if (!agreement_ || row < 0 || row >= int(rows_.size())) return nullptr;
    return &agreement_->ops[rows_[std::size_t(row)]];
}

int AgreementModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }

int AgreementModel::columnCount(const QModelIndex& parent) const {
    if (parent.isValid()) return 0;
    return FirstRankColumn + (agreement_ ? int(agreement_->ranks.size()) : 0);
}

QVariant AgreementModel::data(const QModelIndex& index, int role) const {
    const ranks::AgreedOp* o = index.isValid() ? op(index.row()) : nullptr;
    if (!o) return {};
    const int rank = index.column() - FirstRankColumn;
    const bool rankCell = rank >= 0 && std::size_t(rank) < o->winners.size();
    const bool keeps = rankCell && o->winners[std::size_t(rank)] == o->label;
    switch (role) {
        case Qt::DisplayRole:
            switch (index.column()) {
                case OpColumn:
                    return QStringLiteral("%1(%2) [%3]").arg(qstr(o->op), qstr(o->inputs), qstr(o->precision));
                case AgreedColumn: return compactChoiceLabel(o->label);
                case MedianColumn: return QString::number(o->median_ms, 'f', 4);
                case VotesColumn: return tr("%1 of %2").arg(o->votes).arg(o->winners.size());
                default:
                    if (!rankCell) return {};
                    if (keeps) return tr("✓ the agreed choice");
                    return winnerAgainstAgreed(o->winners[std::size_t(rank)], o->label);
            }
        case Qt::ToolTipRole:
            if (index.column() == OpColumn)
                return QStringLiteral("%1(%2) [%3]\n%4")
                    .arg(qstr(o->op), qstr(o->inputs), qstr(o->precision), qstr(o->inputs_key));
            if (index.column() == AgreedColumn) return qstr(o->label) + QLatin1Char('\n') + qstr(o->identity);
            if (index.column() == MedianColumn) return tr("The median of the ranks' times for the agreed choice (ms)");
            if (index.column() == VotesColumn) return tr("Ranks whose own winner the agreed choice was");
            if (rankCell) {
                const auto r = std::size_t(rank);
                const auto& agreement = *agreement_;
                QString text = tr("%1's winner: %2\nit measured the agreed choice (%3) at %4 ms")
                                   .arg(qstr(agreement.ranks[r]), qstr(o->winners[r]), qstr(o->names[r]))
                                   .arg(o->ms[r], 0, 'f', 4);
                if (r < o->write_ms.size() && o->write_ms[r])
                    text += tr("\n--write records %1 ms for it, below the rank's fastest other choice")
                                .arg(*o->write_ms[r], 0, 'f', 4);
                else text += tr("\nalready its fastest: its timing cache is left alone");
                return text;
            }
            return {};
        case Qt::ForegroundRole:
            if (keeps) return themeColors(QGuiApplication::palette()).winner;
            return {};
        case Qt::FontRole:
            if (index.column() == AgreedColumn) {
                QFont f;
                f.setBold(true);
                return f;
            }
            return {};
        case KeepsRole: return keeps;
        default: return {};
    }
}

QVariant AgreementModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case OpColumn: return tr("Op");
        case AgreedColumn: return tr("Agreed choice");
        case MedianColumn: return tr("Median ms");
        case VotesColumn: return tr("Winner on");
        default: {
            const int rank = section - FirstRankColumn;
            if (agreement_ && rank >= 0 && std::size_t(rank) < agreement_->ranks.size())
                return tr("%1's winner").arg(qstr(agreement_->ranks[std::size_t(rank)]));
            return {};
        }
    }
}

}  // namespace kiln::ui
