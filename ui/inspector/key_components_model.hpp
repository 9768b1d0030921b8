#pragma once
// The debug lines that make up a graph's cache key, one component a row: hash, name, value.
// Values that span lines (the graph code `gm`) show their first line; the tooltip and the pane below
// the table (InspectorWidget) have all of it. A value torch printed from bytes that are not text
// (`torch_version`) says so, escaped, never as mojibake.
#include <QAbstractTableModel>
#include <QVector>

#include "ui/inspector/inspection.hpp"

namespace kiln::ui {

class KeyComponentsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameColumn, ValueColumn, HashColumn, ColumnCount };  // what it is first, its hash last
    explicit KeyComponentsModel(QObject* parent = nullptr);
    void setComponents(QVector<KeyComponentRow> components);
    const QVector<KeyComponentRow>& components() const { return rows_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    QVector<KeyComponentRow> rows_;
};

}  // namespace kiln::ui
