#include "ui/diff/diff_view.hpp"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

#include "ui/diff/diff_lines_model.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/theme/palette.hpp"

namespace kiln::ui {

DiffView::DiffView(JobRunner* jobs, QWidget* parent)
    : QWidget(parent),
      jobs_(jobs),
      a_(new QLineEdit(this)),
      b_(new QLineEdit(this)),
      events_(new QComboBox(this)),
      summary_(new QLabel(this)),
      changes_(new QTableWidget(0, 3, this)),
      linesView_(new QTableView(this)),
      lines_(new DiffLinesModel(this)) {
    a_->setPlaceholderText(tr("graph entry A (path)"));
    b_->setPlaceholderText(tr("graph entry B (path), or a cache event picked from a TORCH_TRACE log"));
    events_->setPlaceholderText(tr("Cache events of a TORCH_TRACE log"));
    events_->setEnabled(false);
    auto* loadLog = new QPushButton(tr("Load TORCH_TRACE Log…"), this);
    auto* go = new QPushButton(tr("Compare"), this);
    go->setDefault(true);
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::RichText);
    changes_->setHorizontalHeaderLabels({tr("Component"), tr("A"), tr("B")});
    changes_->horizontalHeader()->setStretchLastSection(true);
    changes_->verticalHeader()->hide();
    changes_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // Values read whole: wrapped in two equal columns, each row as tall as its values (a long
    // TensorMetadata or version string would be cut at the column's edge otherwise).
    changes_->setWordWrap(true);
    changes_->setTextElideMode(Qt::ElideNone);
    changes_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    changes_->horizontalHeader()->setSectionResizeMode(2, QHeaderView::Stretch);
    changes_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);  // a few rows: always fit
    linesView_->setModel(lines_);
    linesView_->verticalHeader()->hide();
    linesView_->verticalHeader()->setDefaultSectionSize(linesView_->fontMetrics().height() + 2);
    linesView_->setShowGrid(false);
    linesView_->setWordWrap(false);

    auto* traceRow = new QHBoxLayout;
    traceRow->addWidget(loadLog);
    traceRow->addWidget(events_, 1);
    traceRow->addWidget(go);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(changes_);
    split->addWidget(linesView_);
    split->setSizes({200, 400});
    auto* l = new QVBoxLayout(this);
    l->addWidget(sideRow(tr("A"), a_));
    l->addWidget(sideRow(tr("B"), b_));
    l->addLayout(traceRow);
    l->addWidget(summary_);
    l->addWidget(split, 1);

    connect(go, &QPushButton::clicked, this, &DiffView::compare);
    connect(loadLog, &QPushButton::clicked, this, [this] {
        const QString p =
            QFileDialog::getOpenFileName(this, tr("TORCH_TRACE log"), root_, tr("Logs (*.log);;All files (*)"));
        if (!p.isEmpty()) loadTrace(p);
    });
    connect(events_, qOverload<int>(&QComboBox::activated), this, &DiffView::pickTraceEvent);
}

int DiffView::traceEventOf(const QString& key) const {
    int found = -1;
    for (int i = 0; i < trace_.events.size(); ++i) {
        if (key.isEmpty() || trace_.events[i].key != key) continue;
        if (trace_.events[i].miss) return i;
        if (found < 0) found = i;
    }
    return found;
}

void DiffView::pickTraceEvent(int i) {
    if (i < 0 || i >= trace_.events.size()) return;
    events_->setCurrentIndex(i);
    setSideB(trace_.events[i].spec);
}

QWidget* DiffView::sideRow(const QString& label, QLineEdit* edit) {
    auto* w = new QWidget(this);
    auto* h = new QHBoxLayout(w);
    h->setContentsMargins(0, 0, 0, 0);
    h->addWidget(new QLabel(label, w));
    h->addWidget(edit, 1);
    auto* use = new QPushButton(tr("Use Selection"), w);
    use->setToolTip(tr("Take the entry selected in the cache browser"));
    connect(use, &QPushButton::clicked, this, [this, edit] {
        if (selection_) edit->setText(selection_());
    });
    auto* browse = new QPushButton(tr("Browse…"), w);
    connect(browse, &QPushButton::clicked, this, [this, edit] {
        const QString p = QFileDialog::getOpenFileName(this, tr("Graph entry"), root_);
        if (!p.isEmpty()) edit->setText(p);
    });
    h->addWidget(use);
    h->addWidget(browse);
    return w;
}

void DiffView::setSideA(const QString& spec) { a_->setText(spec); }
void DiffView::setSideB(const QString& spec) { b_->setText(spec); }

void DiffView::setSourceFontSize(int pt) {
    QFont f = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (pt > 0) f.setPointSize(pt);
    linesView_->setFont(f);
}

void DiffView::compare() {
    if (a_->text().isEmpty() || b_->text().isEmpty()) {
        summary_->setText(tr("Choose two entries first."));
        return;
    }
    summary_->setText(tr("Comparing …"));
    jobs_->start(
        QStringLiteral("diff"), tr("Comparing keys"),
        [a = a_->text(), b = b_->text()](JobControl& ctl) { return diffArtifacts(a, b, ctl); },
        [this](DiffOutcome o) { showOutcome(std::move(o)); });
}

void DiffView::loadTrace(const QString& path) {
    events_->clear();
    events_->setEnabled(false);
    jobs_->start(
        QStringLiteral("trace"), tr("Reading TORCH_TRACE log"),
        [path](JobControl& ctl) { return loadTraceEvents(path, ctl); },
        [this, path](TraceEvents t) {
            trace_ = std::move(t);
            if (!trace_.error.isEmpty()) summary_->setText(trace_.error.toHtmlEscaped());
            else summary_->setText(tr("%1 cache events; pick one as B (misses are marked).").arg(trace_.events.size()));
            for (const auto& e : trace_.events)
                events_->addItem((e.miss ? QStringLiteral("✗ ") : QStringLiteral("  ")) + e.label);
            // Until one is picked, the picker says what it holds rather than a generic hint.
            events_->setCurrentIndex(-1);
            events_->setPlaceholderText(trace_.events.isEmpty()
                                            ? tr("No FX graph cache events in %1").arg(QFileInfo(path).fileName())
                                            : tr("%1 cache events of %2: pick one as B")
                                                  .arg(trace_.events.size())
                                                  .arg(QFileInfo(path).fileName()));
            events_->setEnabled(!trace_.events.isEmpty());
            emit traceLoaded();
        });
}

void DiffView::showOutcome(DiffOutcome o) {
    outcome_ = std::move(o);
    if (!outcome_.error.isEmpty()) {
        summary_->setText(errorHtml(outcome_.error));
        changes_->setRowCount(0);
        lines_->setLines({});
        emit compared();
        return;
    }
    QString s = tr("<b>%1 changed</b>, %2 the same").arg(outcome_.changed.size()).arg(outcome_.same);
    if (!outcome_.onlyA.isEmpty())
        s += tr("; only in A: %1").arg(outcome_.onlyA.join(QStringLiteral(", ")).toHtmlEscaped());
    if (!outcome_.onlyB.isEmpty())
        s += tr("; only in B: %1").arg(outcome_.onlyB.join(QStringLiteral(", ")).toHtmlEscaped());
    if (outcome_.changed.isEmpty() && outcome_.onlyA.isEmpty() && outcome_.onlyB.isEmpty())
        s += tr(" — the keys are built from identical components.");
    summary_->setText(s);
    changes_->setRowCount(static_cast<int>(outcome_.changed.size()));
    for (int r = 0; r < outcome_.changed.size(); ++r) {
        const auto& c = outcome_.changed[r];
        // The graph's code differs line by line below; every other value is shown whole.
        auto shown = [&c](const QString& v) {
            const auto nl = v.indexOf('\n');
            return c.component != QStringLiteral("gm") || nl < 0 ? v : v.left(nl) + tr(" … (line by line below)");
        };
        changes_->setItem(r, 0, new QTableWidgetItem(c.component));
        auto* a = new QTableWidgetItem(shown(c.a));
        a->setToolTip(c.a.left(5000));
        auto* b = new QTableWidgetItem(shown(c.b));
        b->setToolTip(c.b.left(5000));
        changes_->setItem(r, 1, a);
        changes_->setItem(r, 2, b);
    }
    changes_->resizeColumnToContents(0);
    lines_->setDark(isDarkPalette(palette()));
    lines_->setLines(outcome_.gmLines);
    linesView_->resizeColumnToContents(DiffLinesModel::LineAColumn);
    linesView_->resizeColumnToContents(DiffLinesModel::LineBColumn);
    linesView_->setVisible(!outcome_.gmLines.isEmpty());
    emit compared();
}

}  // namespace kiln::ui
