#pragma once
// The Ranks view's "Agree" preview: one row per op of a core ranks::Agreement (by default only the
// ops whose winners differed, as `kiln-cli ranks --agree` lists them): the op, the agreed choice, its
// median over the ranks' times, how many ranks' winner it was, then per rank that rank's own winner
// (✓ where it already is the agreed choice, so its timing cache is left alone; its config alone where
// it is of the agreed choice's template family).
#include <QAbstractTableModel>

#include <memory>
#include <vector>

#include "ranks/rank_agreement.hpp"

namespace kiln::ui {

class AgreementModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { OpColumn, AgreedColumn, MedianColumn, VotesColumn, FirstRankColumn };
    enum Role {
        KeepsRole = Qt::UserRole + 1,  // bool: a rank's cell whose rank already runs the agreed choice
    };

    explicit AgreementModel(QObject* parent = nullptr);
    void setAgreement(std::shared_ptr<const ranks::Agreement> agreement);
    const ranks::Agreement* agreement() const { return agreement_.get(); }
    // Every op agreed (false: only those whose ranks' winners differed, the default).
    void setShowAll(bool all);
    const ranks::AgreedOp* op(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    void rebuildRows();
    std::shared_ptr<const ranks::Agreement> agreement_;
    bool showAll_ = false;
    std::vector<std::size_t> rows_;  // indices into agreement_->ops
};

}  // namespace kiln::ui
