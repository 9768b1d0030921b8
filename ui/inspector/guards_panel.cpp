#include "ui/inspector/guards_panel.hpp"

#include <algorithm>

#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpressionValidator>
#include <QTableWidget>
#include <QVBoxLayout>

#include "ui/jobs/job_runner.hpp"

namespace kiln::ui {

GuardsPanel::GuardsPanel(JobRunner* jobs, QWidget* parent)
    : QWidget(parent),
      jobs_(jobs),
      fieldsBox_(new QWidget(this)),
      fields_(new QFormLayout(fieldsBox_)),
      verdict_(new QLabel(this)),
      table_(new QTableWidget(0, 4, this)) {
    verdict_->setWordWrap(true);
    verdict_->setTextFormat(Qt::RichText);
    table_->setHorizontalHeaderLabels({tr("Entry"), tr("Result"), tr("Failing conjunct"), tr("Guards")});
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->verticalHeader()->hide();
    table_->setWordWrap(true);  // the failing conjunct wraps rather than being cut
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    auto* l = new QVBoxLayout(this);
    l->addWidget(new QLabel(tr("Sizes of the graph's symbolic inputs (torch names them t0, t1, …):"), this));
    l->addWidget(fieldsBox_);
    l->addWidget(verdict_);
    l->addWidget(table_, 1);
}

QLineEdit* GuardsPanel::field(const QString& symbol) const {
    const auto i = symbols_.symbols.indexOf(symbol);
    return i >= 0 && i < edits_.size() ? edits_[i] : nullptr;
}

QString GuardsPanel::verdictText() const { return verdict_->text(); }

void GuardsPanel::setKeyDir(const QString& keyDir, const QString& selectedEntry) {
    selectedEntry_ = selectedEntry;
    if (keyDir == keyDir_) {
        showOutcome(outcome_);  // re-mark the selected entry
        return;
    }
    keyDir_ = keyDir;
    symbols_ = GuardSymbols{};
    outcome_ = GuardOutcome{};
    qDeleteAll(edits_);
    edits_.clear();
    while (fields_->rowCount() > 0) fields_->removeRow(0);
    table_->setRowCount(0);
    verdict_->clear();
    if (keyDir.isEmpty()) return;
    verdict_->setText(tr("Reading the guards of %1 …").arg(keyDir.toHtmlEscaped()));
    jobs_->start(
        QStringLiteral("guards"), tr("Reading guards"),
        [dir = keyDir](JobControl& ctl) { return loadGuardSymbols(dir, ctl); },
        [this](GuardSymbols s) { onSymbols(std::move(s)); });
}

void GuardsPanel::onSymbols(GuardSymbols s) {
    if (s.keyDir != keyDir_) return;
    symbols_ = std::move(s);
    static const QRegularExpression intRe(QStringLiteral("-?\\d{1,19}"));
    for (const QString& sym : symbols_.symbols) {
        auto* e = new QLineEdit(fieldsBox_);
        e->setValidator(new QRegularExpressionValidator(intRe, e));
        e->setPlaceholderText(tr("integer"));
        e->setObjectName(QStringLiteral("guard_") + sym);
        connect(e, &QLineEdit::textChanged, this, &GuardsPanel::evaluate);
        fields_->addRow(sym, e);
        edits_.push_back(e);
    }
    if (!symbols_.error.isEmpty()) verdict_->setText(symbols_.error.toHtmlEscaped());
    else if (symbols_.symbols.isEmpty()) verdict_->setText(tr("No entry of this key has symbolic guards."));
    else verdict_->setText(tr("Type a value for each symbol."));
    emit symbolsLoaded();
    evaluate();
}

void GuardsPanel::evaluate() {
    QVector<qint64> values;
    for (auto* e : edits_) {
        bool ok = false;
        const qint64 v = e->text().toLongLong(&ok);
        if (!ok) return;  // wait until every field holds a number
        values.push_back(v);
    }
    jobs_->start(
        QStringLiteral("guards"), tr("Checking guards"),
        [dir = keyDir_, values](JobControl& ctl) { return evaluateGuards(dir, values, ctl); },
        [this](GuardOutcome o) { showOutcome(std::move(o)); });
}

void GuardsPanel::showOutcome(GuardOutcome o) {
    if (o.keyDir != keyDir_) return;
    outcome_ = std::move(o);
    table_->setRowCount(static_cast<int>(outcome_.rows.size()));
    const QColor served = palette().color(QPalette::Highlight);
    for (int r = 0; r < outcome_.rows.size(); ++r) {
        const GuardRow& g = outcome_.rows[r];
        const QString mark = g.file == selectedEntry_ ? QStringLiteral(" ◀") : QString();
        auto* name = new QTableWidgetItem(g.file + mark);
        auto* result = new QTableWidgetItem(!g.error.isEmpty() ? tr("error") : g.pass ? tr("pass") : tr("fail"));
        auto* failing = new QTableWidgetItem(!g.error.isEmpty() ? g.error : g.failing);
        auto* expr = new QTableWidgetItem(g.expr.isEmpty() ? tr("(no guards)") : g.expr);
        expr->setToolTip(g.expr);
        failing->setToolTip(failing->text());  // the whole conjunct, however long
        table_->setItem(r, 0, name);
        table_->setItem(r, 1, result);
        table_->setItem(r, 2, failing);
        table_->setItem(r, 3, expr);
        if (g.file == outcome_.served) {
            for (auto* it : {name, result, failing, expr}) {
                it->setBackground(served);
                it->setForeground(palette().color(QPalette::HighlightedText));
                QFont f = it->font();
                f.setBold(true);
                it->setFont(f);
            }
        }
    }
    table_->resizeColumnsToContents();
    // The failing conjunct gets the room it needs up to a wide column, then wraps (tooltip: all of it).
    table_->setColumnWidth(2, std::min(table_->columnWidth(2), 480));
    table_->resizeRowsToContents();
    if (!outcome_.error.isEmpty()) verdict_->setText(outcome_.error.toHtmlEscaped());
    else if (outcome_.values.isEmpty() && !symbols_.symbols.isEmpty()) return;
    else if (outcome_.served.isEmpty())
        verdict_->setText(tr("<b>Miss:</b> no entry's guards hold; torch would compile again."));
    else if (outcome_.ambiguous)
        verdict_->setText(
            tr("<b>Served: %1</b>. Ambiguous: several entries hold; torch takes the first in sorted file-name order.")
                .arg(outcome_.served.toHtmlEscaped()));
    else
        verdict_->setText(
            tr("<b>Served: %1</b> (the only entry whose guards hold).").arg(outcome_.served.toHtmlEscaped()));
    emit outcomeChanged();
}

}  // namespace kiln::ui
