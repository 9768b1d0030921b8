#pragma once
// The pickle's opcode listing (like `pickletools.dis`) as a table: one row per opcode, laid out
// only when on screen, so an 8 MB entry's listing scrolls smoothly.
#include <QAbstractTableModel>

#include <memory>
#include <vector>

#include "pickle/disassemble.hpp"

namespace kiln::ui {

class OpcodeModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { OffsetColumn, OpcodeColumn, ArgumentColumn, ColumnCount };
    explicit OpcodeModel(QObject* parent = nullptr);
    void setOps(std::shared_ptr<const std::vector<pickle::DisassembledOp>> ops);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const std::vector<pickle::DisassembledOp>> ops_;
};

}  // namespace kiln::ui
