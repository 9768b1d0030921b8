#pragma once
// The selected item's components on both sides: those that differ (cached -> target), those the
// target does not record (and why), and the environment-bound values that are not hardware (an
// absolute path in the key ...). Whole values in the cells' tooltips; the view wraps them.
#include <QAbstractTableModel>

#include <vector>

#include "portability/portable.hpp"

namespace kiln::ui {

class DifferenceModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { StatusColumn, ComponentColumn, CachedColumn, TargetColumn, ColumnCount };
    enum class RowKind { differs, unknown, hazard };
    struct Row {
        RowKind kind;
        QString component, cached, target;
    };

    explicit DifferenceModel(QObject* parent = nullptr);
    void setItem(const portability::PortableItem* item);  // null: empty
    const std::vector<Row>& rows() const { return rows_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    std::vector<Row> rows_;
};

}  // namespace kiln::ui
