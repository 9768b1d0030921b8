#pragma once
// The Ranks view's tree over one group of a core ranks::RanksReport (ranks of one GPU kind, timing-cache
// system and torch version), as `kiln-cli ranks` prints it:
//   Autotuned ops: 10 of 16 differ            (effects counted)
//     addmm(1024x1152 ...) [highest]           effect  spread  rank0's winner  rank1's winner ...
//       (a winner's compact label; its config alone where the op's choices are of one template family)
//       triton_mm (BLOCK 64×32×32, ...)                         ★ 0.0160        0.0267 ...
//   .best_config: 7 of 7 candidate sets differ
//     configs_hash f874ed6a…, 4 kernels per rank  effect         rank0's configs ...
//   Graph keys: 5 of 5 differ; output code: 3 of 3 modules differ
//     output code ['0_forward']                effect          rank0's module ...
//       triton_tem_fused_..._1 [config]         effect          rank0's config / line ...
// Columns: what, effect (numerics or speed), spread, then one per rank of the group.
#include <QAbstractItemModel>
#include <QColor>

#include <memory>

#include "ranks/ranks_report.hpp"

class QPalette;

namespace kiln::ui {

class RanksModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { WhatColumn, EffectColumn, SpreadColumn, FirstRankColumn };
    enum Section { OpsSection, KernelsSection, GraphsSection, SectionCount };
    enum Role {
        EffectRole = Qt::UserRole + 1,  // int: ranks::Effect of the row (sections: the worst of their items)
        NodeKindRole,                   // int: NodeKind
        WinnerRole,                     // bool: a rank's cell of a choice row that is that rank's winner
    };
    enum NodeKind { SectionNode, OpNode, ChoiceNode, KernelSetNode, GraphNode, ComponentNode, CodeNode };

    explicit RanksModel(QObject* parent = nullptr);
    // Shows report->groups[group] (none when out of range or the report is null).
    void setReport(std::shared_ptr<const ranks::RanksReport> report, int group = 0);
    const ranks::RanksReport* report() const { return report_.get(); }
    const ranks::RankGroup* group() const;
    int groupIndex() const { return group_; }
    int rankCount() const;

    QModelIndex sectionIndex(Section s) const { return index(int(s), 0); }
    // The op row of ops.differ[i] (child of the ops section).
    QModelIndex opIndex(int i) const { return index(i, 0, sectionIndex(OpsSection)); }

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    struct Node {
        int level = -1;  // 0 section, 1 item, 2 detail
        int section = 0, item = 0, row = 0;
    };
    Node node(const QModelIndex& index) const;
    QVariant display(const Node& n, int column) const;
    QVariant toolTip(const Node& n, int column) const;
    const ranks::Verdict* verdict(const Node& n) const;
    NodeKind kind(const Node& n) const;
    bool isWinnerCell(const Node& n, int column) const;

    std::shared_ptr<const ranks::RanksReport> report_;
    int group_ = 0;
};

// An effect's colour from ui/theme: numerics the error colour, "may change numerics" the warning
// colour, speed only the ok colour, device index only the grey series.
QColor rankEffectColor(ranks::Effect e, const QPalette& palette);
// The legend of those colours, as HTML.
QString rankEffectLegendHtml(const QPalette& palette);
// "9 numerics · 1 speed only" for a list of verdicts.
QString rankEffectCounts(const std::vector<ranks::Effect>& effects);
// A choice's label (ranks::choice_label) short enough for a rank's column: "triton_mm (BLOCK 64×32×32,
// 5 stages, 8 warps)" -> "triton_mm (64×32×32, 5 st, 8 w)"; the whole label is the cell's tooltip.
QString compactChoiceLabel(const std::string& label);

}  // namespace kiln::ui
