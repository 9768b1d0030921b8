#pragma once
// The Portability view's table: one row per judged item of `kiln-cli portable` (graph entries,
// timing caches, .best_config files, Triton kernel dirs), in the report's order: verdict (coloured
// dot), kind, path, and what differs or is unknown.
#include <QAbstractTableModel>

#include <memory>

#include "portability/portable.hpp"

namespace kiln::ui {

class VerdictModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { VerdictColumn, KindColumn, PathColumn, WhyColumn, ColumnCount };
    enum Role {
        AbsolutePathRole = Qt::UserRole + 1,  // QString: the item in the browser's tree
        VerdictRole,                          // int: portability::Verdict
        KindRole,                             // int: portability::ItemKind
    };

    explicit VerdictModel(QObject* parent = nullptr);
    // `root`: the scanned root the items' relative paths start from.
    void setReport(std::shared_ptr<const portability::PortableReport> report, const QString& root);
    const portability::PortableItem* item(int row) const;
    int rowForPath(const QString& absolutePath) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const portability::PortableReport> report_;
    QString root_;
};

// "system_info[device], system_info[hash]" for a miss, "unknown: torch_key" ..., empty for a hit.
QString verdictReason(const portability::PortableItem& item);

}  // namespace kiln::ui
