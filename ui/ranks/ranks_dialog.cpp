#include "ui/ranks/ranks_dialog.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

#include "ui/common/qt_string.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/ranks/agreement_model.hpp"
#include "ui/ranks/ranks_model.hpp"
#include "ui/theme/palette.hpp"

namespace kiln::ui {

namespace {

// A folder that is a rank (a cache root, or a folder holding one) as itself; else each subfolder
// that is one (a job's folder of rank0/ rank1/ ...), in name order.
QStringList rankFoldersIn(const QString& dir) {
    if (ranks::resolve_rank({dir.toStdString(), "", "", {}, ""})) return {dir};
    QStringList out;
    const QDir d(dir);
    for (const QString& sub : d.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        const QString path = d.filePath(sub);
        if (ranks::resolve_rank({path.toStdString(), "", "", {}, ""})) out << path;
    }
    return out.isEmpty() ? QStringList{dir} : out;  // none: the folder, so that Compare says why
}

}  // namespace

RanksDialog::RanksDialog(JobRunner* jobs, QWidget* parent)
    : QDialog(parent),
      jobs_(jobs),
      channel_(QStringLiteral("ranks-%1").arg(reinterpret_cast<quintptr>(this))),
      dirs_(new QListWidget(this)),
      add_(new QPushButton(tr("Add folder…"), this)),
      remove_(new QPushButton(tr("Remove"), this)),
      compare_(new QPushButton(tr("Compare"), this)),
      cancel_(new QPushButton(tr("Cancel"), this)),
      status_(new QLabel(this)),
      summary_(new QLabel(this)),
      group_(new QComboBox(this)),
      legend_(new QLabel(this)),
      tabs_(new QTabWidget(this)),
      model_(new RanksModel(this)),
      tree_(new QTreeView(this)),
      rule_(new QComboBox(this)),
      showAll_(new QCheckBox(tr("Every op (also those the ranks agree on)"), this)),
      agreementLabel_(new QLabel(this)),
      agreement_(new AgreementModel(this)),
      agreementView_(new QTableView(this)),
      write_(new QPushButton(tr("Write to each rank's timing cache…"), this)) {
    setWindowTitle(tr("Compare ranks"));
    setObjectName(QStringLiteral("ranksDialog"));

    dirs_->setObjectName(QStringLiteral("rankFolders"));
    dirs_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    dirs_->setToolTip(
        tr("Each rank's (or machine's) folder: a cache root, or a folder holding inductor/, stderr*.log (AUTOTUNE "
           "tables) and trace/ (TORCH_TRACE)"));
    dirs_->setMaximumHeight(96);
    add_->setToolTip(tr("A rank's folder, or a job's folder of rank folders (each one that holds a cache is added)"));
    compare_->setDefault(true);
    cancel_->setEnabled(false);
    auto* buttons = new QVBoxLayout;
    buttons->addWidget(add_);
    buttons->addWidget(remove_);
    buttons->addStretch(1);
    buttons->addWidget(compare_);
    buttons->addWidget(cancel_);
    auto* top = new QHBoxLayout;
    top->addWidget(dirs_, 1);
    top->addLayout(buttons);

    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setObjectName(QStringLiteral("ranksSummary"));
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setText(
        tr("Add the folders of a job's ranks (or of several machines) and press Compare: each autotuned op "
           "whose winner differs, the .best_config files and the graph keys and output code that differ, and "
           "whether each changes numerics or only speed, as <code>kiln-cli ranks</code> reports them."));
    group_->setVisible(false);
    group_->setToolTip(
        tr("Ranks are compared only with ranks of the same GPU kind, timing-cache system and torch "
           "version"));
    legend_->setText(rankEffectLegendHtml(palette()));

    tree_->setObjectName(QStringLiteral("ranksTree"));
    tree_->setModel(model_);
    tree_->setUniformRowHeights(true);
    tree_->setAlternatingRowColors(true);
    tree_->setTextElideMode(Qt::ElideMiddle);
    tree_->header()->setStretchLastSection(false);
    tree_->setSelectionBehavior(QAbstractItemView::SelectRows);

    agreementView_->setObjectName(QStringLiteral("ranksAgreement"));
    agreementView_->setModel(agreement_);
    agreementView_->setSelectionBehavior(QAbstractItemView::SelectRows);
    agreementView_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    agreementView_->verticalHeader()->setVisible(false);
    agreementView_->setWordWrap(false);
    agreementView_->setTextElideMode(Qt::ElideMiddle);
    agreementView_->verticalHeader()->setDefaultSectionSize(agreementView_->fontMetrics().height() + 6);
    agreementLabel_->setWordWrap(true);
    agreementLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    rule_->addItem(tr("median: the smallest median of the ranks' times"), int(ranks::AgreeRule::median));
    rule_->addItem(tr("majority: what most ranks picked"), int(ranks::AgreeRule::majority));
    write_->setToolTip(
        tr("kiln-cli ranks --agree --write: rewrite each rank's own timing cache so that the agreed choice is its "
           "fastest (other times and ops kept; Kiln's lock, atomic replace)"));
    write_->setEnabled(false);
    auto* agreeTop = new QHBoxLayout;
    agreeTop->addWidget(new QLabel(tr("Rule:"), this));
    agreeTop->addWidget(rule_);
    agreeTop->addWidget(showAll_);
    agreeTop->addStretch(1);
    agreeTop->addWidget(write_);
    auto* agreePage = new QWidget(this);
    auto* al = new QVBoxLayout(agreePage);
    al->addLayout(agreeTop);
    al->addWidget(agreementLabel_);
    al->addWidget(agreementView_, 1);
    tabs_->addTab(tree_, tr("Differences"));
    tabs_->addTab(agreePage, tr("Agree"));

    auto* groupRow = new QHBoxLayout;
    groupRow->addWidget(group_, 1);
    groupRow->addWidget(legend_);

    auto* lay = new QVBoxLayout(this);
    lay->addLayout(top);
    lay->addWidget(status_);
    lay->addWidget(summary_);
    lay->addLayout(groupRow);
    lay->addWidget(tabs_, 1);
    resize(1400, 860);

    connect(add_, &QPushButton::clicked, this, &RanksDialog::addFolder);
    connect(remove_, &QPushButton::clicked, this, &RanksDialog::removeSelected);
    connect(compare_, &QPushButton::clicked, this, &RanksDialog::compare);
    connect(cancel_, &QPushButton::clicked, this, &RanksDialog::cancel);
    connect(group_, &QComboBox::activated, this, [this](int i) { showGroup(group_->itemData(i).toInt()); });
    connect(rule_, &QComboBox::activated, this,
            [this](int i) { setRule(ranks::AgreeRule(rule_->itemData(i).toInt())); });
    connect(showAll_, &QCheckBox::toggled, agreement_, &AgreementModel::setShowAll);
    connect(write_, &QPushButton::clicked, this, [this] { writeAgreed(true); });
    connect(dirs_, &QListWidget::itemSelectionChanged, this, &RanksDialog::updateButtons);
    connect(jobs_, &JobRunner::progress, this, [this](const QString& label, qint64 done, qint64 total) {
        if (comparing_ && label.startsWith(tr("Comparing")) && total > 0)
            status_->setText(tr("Reading rank %1 of %2 …").arg(std::min(done + 1, total)).arg(total));
    });
    updateButtons();
}

RanksDialog::~RanksDialog() {
    if (jobs_) jobs_->cancel(channel_);
}

void RanksDialog::setRankDirs(const QStringList& dirs) {
    dirs_->clear();
    dirs_->addItems(dirs);
    updateButtons();
}

QStringList RanksDialog::rankDirs() const {
    QStringList out;
    for (int i = 0; i < dirs_->count(); ++i) out << dirs_->item(i)->text();
    return out;
}

void RanksDialog::addFolder() {
    const QString d = QFileDialog::getExistingDirectory(this, tr("A rank's folder, or a folder of rank folders"));
    if (!d.isEmpty()) addRankFolder(d);
}

void RanksDialog::addRankFolder(const QString& dir) {
    QStringList dirs = rankDirs();
    for (const QString& f : rankFoldersIn(QDir::cleanPath(dir)))
        if (!dirs.contains(f)) dirs << f;
    setRankDirs(dirs);
}

void RanksDialog::removeSelected() {
    qDeleteAll(dirs_->selectedItems());
    updateButtons();
}

void RanksDialog::updateButtons() {
    const bool busy = comparing_ || writing_;
    compare_->setEnabled(!busy && dirs_->count() >= 2);
    cancel_->setEnabled(comparing_);
    add_->setEnabled(!busy);
    remove_->setEnabled(!busy && !dirs_->selectedItems().isEmpty());
    const ranks::Agreement* a = agreement_->agreement();
    write_->setEnabled(!busy && a && a->to_write() > 0);
}

void RanksDialog::compare() {
    const QStringList dirs = rankDirs();
    if (dirs.size() < 2) {
        status_->setText(tr("Add two rank folders or more."));
        return;
    }
    comparing_ = true;
    status_->setText(tr("Reading %n rank(s) …", nullptr, int(dirs.size())));
    updateButtons();
    QPointer<RanksDialog> self(this);
    jobs_->start(
        channel_, tr("Comparing %n rank(s)", nullptr, int(dirs.size())),
        [dirs, rule = rule()](JobControl& ctl) { return runRanks(dirs, rule, ctl); },
        [self](RanksOutcome out) {
            if (self) self->showOutcome(std::move(out));
        });
}

void RanksDialog::cancel() {
    jobs_->cancel(channel_);
    status_->setText(tr("Cancelling …"));
}

ranks::AgreeRule RanksDialog::rule() const { return ranks::AgreeRule(rule_->currentData().toInt()); }

void RanksDialog::setRule(ranks::AgreeRule rule) {
    rule_->setCurrentIndex(rule_->findData(int(rule)));
    if (!outcome_.data || outcome_.data->rule == rule || comparing_) return;
    QPointer<RanksDialog> self(this);
    jobs_->start(
        channel_ + QStringLiteral("-agree"), tr("Agreeing ranks"),
        [data = outcome_.data, rule](JobControl&) { return reagreeRanks(data, rule); },
        [self](RanksOutcome out) {
            if (!self || !out.data) return;
            out.elapsedMs = self->outcome_.elapsedMs;  // the comparison's time, not the agreement's
            self->outcome_ = std::move(out);
            self->showAgreement();
            emit self->agreed();
        });
}

void RanksDialog::showOutcome(RanksOutcome out) {
    comparing_ = false;
    outcome_ = std::move(out);
    updateButtons();
    if (!outcome_.data) {
        model_->setReport(nullptr);
        agreement_->setAgreement(nullptr);
        group_->clear();
        group_->setVisible(false);
        status_->setText(writeNote_);
        writeNote_.clear();
        summary_->setText(outcome_.cancelled ? tr("Cancelled: nothing compared.") : errorHtml(outcome_.error));
        updateButtons();
        emit compared(outcome_);
        return;
    }
    const ranks::RanksReport& r = *outcome_.data->report;
    status_->setText(writeNote_.isEmpty() ? tr("Compared in %1 ms.").arg(outcome_.elapsedMs)
                                          : writeNote_ + QStringLiteral("<br>") +
                                                tr("Compared again in %1 ms.").arg(outcome_.elapsedMs));
    writeNote_.clear();
    QString html = QStringLiteral("<p style='font-size:large'><b>%1</b></p>").arg(htmlText(r.headline()));
    for (const auto& g : r.groups) {
        QStringList names;
        for (const auto& n : g.ranks) names << htmlText(n);
        html += QStringLiteral("• <b>%1</b>: %2").arg(htmlText(g.label), names.join(QStringLiteral(", ")));
        if (g.ranks.size() < 2) html += tr(" — the only rank of its kind: not compared");
        html += QStringLiteral("<br>");
        for (const auto& n : g.ops.not_on_every_rank)
            html +=
                QStringLiteral("&nbsp;&nbsp;%1<br>").arg(tr("not on every rank: %1").toHtmlEscaped().arg(htmlText(n)));
    }
    for (const auto& p : r.unreadable) {
        // The error names the folder already when it starts with it.
        const QString error = qstr(p.error), rank = qstr(p.rank);
        html +=
            errorHtml(
                tr("not compared: %1").arg(error.startsWith(rank + QLatin1Char(':')) ? error : rank + ": " + error)) +
            QStringLiteral("<br>");
    }
    for (const auto& n : r.notes) {
        const bool unreadableNote = std::any_of(r.unreadable.begin(), r.unreadable.end(), [&](const auto& p) {
            return n == "not compared: " + p.rank + ": " + p.error;
        });
        const bool loneNote = n.find("is the only rank of its kind") != std::string::npos;
        if (!unreadableNote && !loneNote) html += QStringLiteral("<i>%1</i><br>").arg(htmlText(n));
    }
    const QColor warn = themeColors(palette()).warning;
    for (const auto& rank : r.ranks)
        for (const auto& w : rank.warnings)
            html += QStringLiteral("<span style='color:%1'>%2</span><br>")
                        .arg(warn.name(), tr("warning: %1: %2").arg(qstr(rank.label), qstr(w)).toHtmlEscaped());
    summary_->setText(html);

    // The first group of two ranks or more is shown; the others through the combo box.
    group_->clear();
    int first = -1;
    for (std::size_t g = 0; g < r.groups.size(); ++g) {
        group_->addItem(tr("%1 (%n rank(s))", nullptr, int(r.groups[g].ranks.size())).arg(qstr(r.groups[g].label)),
                        int(g));
        if (first < 0 && r.groups[g].ranks.size() >= 2) first = int(g);
    }
    group_->setVisible(r.groups.size() > 1);
    showGroup(first < 0 ? 0 : first);
    emit compared(outcome_);
}

void RanksDialog::showGroup(int group) {
    if (!outcome_.data) return;
    group_->setCurrentIndex(group_->findData(group));
    model_->setReport(outcome_.data->report, group);
    tree_->expandToDepth(0);
    // The ranks share what the first columns leave of the view (at least 150 px each).
    const int fixed = 360 + 190 + 60;
    tree_->setColumnWidth(RanksModel::WhatColumn, 360);
    tree_->setColumnWidth(RanksModel::EffectColumn, 190);
    tree_->setColumnWidth(RanksModel::SpreadColumn, 60);
    const int available = std::max(tree_->viewport()->width(), width() - 60) - fixed;
    const int perRank = std::max(150, available / std::max(1, model_->rankCount()));
    for (int c = RanksModel::FirstRankColumn; c < model_->columnCount(); ++c) tree_->setColumnWidth(c, perRank);
    showAgreement();
}

void RanksDialog::showAgreement() {
    const ranks::Agreement* a = outcome_.data ? outcome_.data->agreementOf(model_->groupIndex()) : nullptr;
    agreement_->setAgreement(a ? std::shared_ptr<const ranks::Agreement>(outcome_.data, a) : nullptr);
    rule_->setCurrentIndex(rule_->findData(int(outcome_.data ? outcome_.data->rule : rule())));
    if (!a) {
        agreementLabel_->setText(outcome_.data ? tr("This group has one rank: there is nothing to agree on.")
                                               : QString());
        updateButtons();
        return;
    }
    std::size_t differed = 0;
    for (const auto& o : a->ops) differed += o.ranks_differed;
    QString html = tr("<b>%n op(s) agreed</b> for %1; rule: %2.", nullptr, int(a->ops.size()))
                       .arg(htmlText(a->group), htmlText(ranks::agree_rule_text(a->rule)));
    html += QStringLiteral("<br>") + tr("The ranks' winners differed on %1; %2 op(s) need a rank's timing cache "
                                        "changed, the others already run the agreed choice (✓).")
                                         .arg(differed)
                                         .arg(a->to_write());
    for (const auto& s : a->skipped)
        html += QStringLiteral("<br>") + tr("not agreed: %1: %2").arg(qstr(s.op), qstr(s.why)).toHtmlEscaped();
    agreementLabel_->setText(html);
    // Op and agreed choice at most 300 px, the ranks share the rest (at least 150 px each).
    agreementView_->resizeColumnsToContents();
    int fixed = 0;
    for (int c = 0; c < AgreementModel::FirstRankColumn; ++c) {
        agreementView_->setColumnWidth(c, std::min(agreementView_->columnWidth(c), 300));
        fixed += agreementView_->columnWidth(c);
    }
    const int ranks = std::max(1, agreement_->columnCount() - AgreementModel::FirstRankColumn);
    const int perRank = std::max(150, (std::max(agreementView_->viewport()->width(), width() - 70) - fixed) / ranks);
    for (int c = AgreementModel::FirstRankColumn; c < agreement_->columnCount(); ++c)
        agreementView_->setColumnWidth(c, perRank);
    updateButtons();
}

void RanksDialog::writeAgreed(bool confirm) {
    if (!outcome_.data || outcome_.data->agreements.empty() || writing_ || comparing_) return;
    std::size_t ops = 0, rankCount = 0;
    for (std::size_t i = 0; i < outcome_.data->agreements.size(); ++i) {
        ops += outcome_.data->agreements[i].to_write();
        rankCount += outcome_.data->agreements[i].ranks.size();
    }
    if (confirm &&
        QMessageBox::question(
            this, tr("Write the agreed choices"),
            tr("Rewrite the timing cache of each of the %1 ranks so that the agreed choice of %2 op(s) is its fastest?"
               "\n\nOnly those ops' agreed times change; every other time and op is kept. Each file is locked and "
               "replaced atomically. Torch then runs the agreed choice on every rank without benchmarking.")
                .arg(rankCount)
                .arg(ops)) != QMessageBox::Yes)
        return;
    writing_ = true;
    status_->setText(tr("Writing the agreed choices …"));
    updateButtons();
    QPointer<RanksDialog> self(this);
    jobs_->start(
        channel_ + QStringLiteral("-write"), tr("Writing agreed choices"),
        [data = outcome_.data](JobControl&) { return writeAgreedCaches(data); },
        [self](RanksWriteOutcome out) {
            if (!self) return;
            self->writing_ = false;
            if (!out.error.isEmpty()) {
                self->status_->setText(errorHtml(out.error));
                self->updateButtons();
                emit self->written(out);
                return;
            }
            QStringList lines;
            for (const auto& w : out.written)
                lines << tr("wrote %1: %n op(s)", nullptr, w.ops).arg(qstr(w.path)).toHtmlEscaped();
            self->writeNote_ = lines.join(QStringLiteral("<br>"));
            emit self->written(out);
            self->compare();  // the ranks as they are now
        });
}

QString RanksDialog::summaryText() const { return summary_->text(); }

QString RanksDialog::agreementText() const { return agreementLabel_->text(); }

}  // namespace kiln::ui
