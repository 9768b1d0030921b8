#pragma once
// A side-by-side line diff as a table: line A | text A | line B | text B, rows coloured by kind.
#include <QAbstractTableModel>
#include <QVector>

#include "ui/diff/line_diff.hpp"

namespace kiln::ui {

class DiffLinesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { LineAColumn, TextAColumn, LineBColumn, TextBColumn, ColumnCount };
    explicit DiffLinesModel(QObject* parent = nullptr);
    void setLines(QVector<SideBySideLine> lines);
    const QVector<SideBySideLine>& lines() const { return lines_; }
    void setDark(bool dark) { dark_ = dark; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    QVector<SideBySideLine> lines_;
    bool dark_ = false;
};

}  // namespace kiln::ui
