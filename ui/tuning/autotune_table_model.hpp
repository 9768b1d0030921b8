#pragma once
// The autotune table, grouped by op: one top-level row per op of a TimingSet (its op, inputs,
// precision and device said once, with the winner and its margin over the runner-up), its choices
// as children (time, % of best, "used by graph ..." when a compiled graph of the root runs it,
// parameters most important first). Failed choices are rows too (no ms, their reason in the tooltip).
#include <QAbstractItemModel>

#include <memory>

#include "timings/timing_model.hpp"

namespace kiln::ui {

class AutotuneTableModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { ChoiceCol, MsCol, PercentCol, UsedByCol, ParamsCol, ColumnCount };
    enum Role {
        SortRole = Qt::UserRole + 1,  // numbers as numbers (failed choices sort last); ops keep their order
        OpIndexRole,                  // index of the row's op in the TimingSet (op rows and choices)
        ModulePathRole,               // the choice's kernel module ("" if not in the cache)
        IsBestRole,
        ErrorRole,
        IsOpRole,       // true on an op's group row
        NameRole,       // the choice's full name (the display is shortened)
        OpNameRole,     // op rows: "mm"
        InputsRole,     // op rows: "512x512 float16, 512x512 float16"
        PrecisionRole,  // op rows
        DeviceRole,     // op rows
        MarginRole,     // op rows: how much slower the runner-up is, in % (invalid without one)
        ParamKeysRole,  // choices: the parameter names in the order shown
        UsedByRole,     // choices: the fxgraph keys of the graph entries that run it (QStringList)
    };

    explicit AutotuneTableModel(QObject* parent = nullptr);
    void setTimings(std::shared_ptr<const timings::TimingSet> set);
    std::shared_ptr<const timings::TimingSet> timings() const { return set_; }

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

    QModelIndex opIndex(int op) const { return index(op, 0); }
    const timings::Op* opAt(const QModelIndex& index) const;
    const timings::Choice* choiceAt(const QModelIndex& index) const;  // null on op rows
    // Inductor's "% of best" (best / this x 100: the winner reads 100%) from unrounded times
    // (timings::percent_of_best), or nullopt without times.
    static std::optional<double> percentOfBest(const timings::Op& op, const timings::Choice& c);
    // "mm  512x512 float16, 512x512 float16 · highest · NVIDIA H100 · 20 choices — best triton_mm-cy2dwo
    // 0.0058 ms, 6.1% ahead of mm-cqrjyn": what an op row says.
    static QString opHeading(const timings::Op& op);
    // "used by graph mm (model.py:94)" (one graph) or "used by 2 graphs: ..."; empty when none runs it.
    static QString usedByText(const timings::Choice& c);

private:
    QVariant opData(int op, int column, int role) const;
    QVariant choiceData(int op, int choice, int column, int role) const;
    std::shared_ptr<const timings::TimingSet> set_;
};

}  // namespace kiln::ui
