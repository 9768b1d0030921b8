#pragma once
// The Health view's tree: one row per problem kind (with its count), its problems beneath; then the
// stale entries (reported apart: they are no problem unless --strict). Columns: what, detail.
#include <QAbstractItemModel>

#include <memory>

#include "health/health_report.hpp"

namespace kiln::ui {

class HealthModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { ColWhat, ColDetail, ColCount };
    enum Role { PathRole = Qt::UserRole + 1, GroupRole, WhyRole };

    explicit HealthModel(QObject* parent = nullptr);
    // The report is shared, never copied (the window's one check of its scan: hundreds of thousands of
    // problems at a million files).
    void setReport(std::shared_ptr<const health::HealthReport> report);
    void clear();
    const std::shared_ptr<const health::HealthReport>& report() const { return report_; }
    int problemCount() const { return report_ ? static_cast<int>(report_->problems.size()) : 0; }

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    // A section: a problem kind, or the stale entries (kind == nullopt).
    struct Section {
        std::optional<health::ProblemKind> kind;
        std::vector<std::size_t> rows;  // indices into problems / stale
    };
    static constexpr quintptr kTop = 0;  // internalId of section rows; children carry section + 1
    std::shared_ptr<const health::HealthReport> report_;
    std::vector<Section> sections_;
};

}  // namespace kiln::ui
