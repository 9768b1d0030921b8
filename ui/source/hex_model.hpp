#pragma once
// Bytes as a table of 16-byte rows (offset | hex | text). A model, so a view lays out only the rows
// on screen: a multi-megabyte cubin or pickle shows instantly.
#include <QAbstractTableModel>
#include <QByteArray>

namespace kiln::ui {

class HexModel : public QAbstractTableModel {
    Q_OBJECT
public:
    static constexpr int kBytesPerRow = 16;
    enum Column { OffsetColumn, HexColumn, TextColumn, ColumnCount };

    explicit HexModel(QObject* parent = nullptr);
    void setBytes(QByteArray bytes);
    const QByteArray& bytes() const { return bytes_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

    // The row holding byte `offset`.

private:
    QByteArray bytes_;
};

}  // namespace kiln::ui
