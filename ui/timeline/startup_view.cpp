#include "ui/timeline/startup_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTextBrowser>
#include <QTreeView>
#include <QVBoxLayout>

#include "ui/common/qt_string.hpp"
#include "ui/timeline/phase_bar_chart.hpp"
#include "ui/timeline/startup_model.hpp"

namespace kiln::ui {

namespace {

double avoidableSeconds(const startup::ProcessStartup& p) {
    double s = 0;
    for (const auto& a : p.avoidable) s += a.seconds;
    return s;
}
}  // namespace

int StartupView::biggestAvoidable(const startup::StartupReport& r) {
    int best = 0;
    for (int i = 1; i < int(r.processes.size()); ++i)
        if (avoidableSeconds(r.processes[static_cast<std::size_t>(i)]) >
            avoidableSeconds(r.processes[static_cast<std::size_t>(best)]))
            best = i;
    return best;
}

StartupView::StartupView(QWidget* parent)
    : QWidget(parent),
      headline_(new QLabel(this)),
      processes_(new QComboBox(this)),
      chart_(new PhaseBarChart(this)),
      side_(new QTextBrowser(this)),
      model_(new StartupModel(this)),
      table_(new QTreeView(this)) {
    setObjectName(QStringLiteral("startupView"));
    headline_->setWordWrap(true);
    headline_->setTextFormat(Qt::RichText);
    QFont big = headline_->font();
    big.setPointSizeF(big.pointSizeF() * 1.15);
    headline_->setFont(big);
    processes_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    side_->setOpenLinks(false);
    side_->setMinimumWidth(260);
    table_->setModel(model_);
    table_->setAlternatingRowColors(true);
    table_->setUniformRowHeights(true);
    table_->header()->setSectionResizeMode(StartupModel::NameColumn, QHeaderView::ResizeToContents);
    table_->header()->setSectionResizeMode(StartupModel::SecondsColumn, QHeaderView::ResizeToContents);
    table_->header()->resizeSection(StartupModel::CauseColumn, 520);

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Process:"), this));
    top->addWidget(processes_);
    top->addStretch(1);
    auto* chartAndSide = new QSplitter(Qt::Horizontal, this);
    chartAndSide->addWidget(chart_);
    chartAndSide->addWidget(side_);
    chartAndSide->setStretchFactor(0, 3);
    chartAndSide->setStretchFactor(1, 1);
    chartAndSide->setSizes({1000, 380});
    auto* body = new QSplitter(Qt::Vertical, this);
    body->addWidget(chartAndSide);
    body->addWidget(table_);
    body->setStretchFactor(0, 3);
    body->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(headline_);
    layout->addLayout(top);
    layout->addWidget(body, 1);

    connect(processes_, &QComboBox::currentIndexChanged, this, &StartupView::selectProcess);
    connect(chart_, &PhaseBarChart::segmentClicked, this, &StartupView::showPhase);
    connect(table_->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex& i) {
        if (!i.isValid()) return;
        if (!i.parent().isValid()) return showPhase(i.row(), {});
        showPhase(i.parent().row(), model_->index(i.row(), StartupModel::NameColumn, i.parent()).data().toString());
    });
}

void StartupView::setReport(std::shared_ptr<const startup::StartupReport> report, const QString& emptyText) {
    report_ = std::move(report);
    const QSignalBlocker block(processes_);
    processes_->clear();
    if (!report_ || report_->processes.empty()) {
        headline_->setText(emptyText.isEmpty() ? tr("No compiles to explain.") : emptyText);
        model_->setProcess(nullptr, -1);
        chart_->setProcess(nullptr);
        side_->clear();
        return;
    }
    for (const auto& p : report_->processes)
        processes_->addItem(tr("%1 (pid %2): %3 compiling")
                                .arg(qstr(p.label), p.pid.empty() ? QStringLiteral("?") : qstr(p.pid),
                                     formatSeconds(p.compile_seconds)));
    const int first = biggestAvoidable(*report_);
    processes_->setCurrentIndex(first);
    selectProcess(first);
}

int StartupView::currentProcess() const { return processes_->currentIndex(); }

void StartupView::selectProcess(int index) {
    if (!report_ || index < 0 || index >= int(report_->processes.size())) return;
    if (processes_->currentIndex() != index) {
        const QSignalBlocker block(processes_);
        processes_->setCurrentIndex(index);
    }
    const auto& p = report_->processes[static_cast<std::size_t>(index)];
    headline_->setText(tr("<b>%1</b>: %2").arg(htmlText(p.label), htmlText(p.headline())));
    headline_->setToolTip(qstr(p.log));
    model_->setProcess(report_, index);
    chart_->setProcess(&p);
    table_->expandToDepth(-1);
    showAvoidable();
}

void StartupView::showAvoidable() {
    const auto* p = model_->process();
    if (!p) return;
    QString h = tr("<h3>What would remove it</h3>");
    if (p->avoidable.empty())
        h += tr("<p>Nothing the trace shows: every second went to work a warm start still does.</p>");
    // The core's words (the CLI's headline says the same): "would go with" only where spans measured
    // the seconds, "inferred: ..." where no span did.
    for (const auto& a : p->avoidable) h += tr("<p>%1<br><i>Fix:</i> %2</p>").arg(htmlText(a.text()), htmlText(a.fix));
    h += tr("<p style=\"color:%1\">Hover a bar for its cause; click one for its fix.</p>")
             .arg(palette().color(QPalette::PlaceholderText).name());
    side_->setHtml(h);
}

void StartupView::showPhase(int compile, const QString& phase) {
    const auto* p = model_->process();
    if (!p || compile < 0 || compile >= int(p->compiles.size())) return;
    const auto& c = p->compiles[static_cast<std::size_t>(compile)];
    QString h = tr("<h3>%1</h3><p>%2 compiling%3</p>")
                    .arg(htmlText(c.label()), formatSeconds(c.seconds),
                         c.miss.empty() ? QString() : tr("; ") + htmlText(c.miss));
    bool found = false;
    for (const auto& ph : c.phases) {
        if (!phase.isEmpty() && qstr(ph.name) != phase) continue;
        if (phase.isEmpty() && ph.fix.empty()) continue;
        found = true;
        h += tr("<p><b>%1</b>: %2<br>%3</p>").arg(htmlText(ph.name), formatSeconds(ph.seconds), htmlText(ph.cause));
        h += ph.fix.empty() ? tr("<p><i>No fix: a warm start still does this.</i></p>")
                            : tr("<p><i>Fix:</i> %1</p>").arg(htmlText(ph.fix));
    }
    if (phase == QLatin1String("unexplained"))
        h += tr("<p><b>unexplained</b>: %1 that no span of the trace covers.</p>")
                 .arg(formatSeconds(c.unexplained_seconds));
    else if (!found) h += tr("<p>No phase of this compile has a fix: it is what a warm start still costs.</p>");
    side_->setHtml(h);
    const QModelIndex i = phase.isEmpty() ? model_->compileIndex(compile) : model_->phaseIndex(compile, phase);
    if (i.isValid() && table_->currentIndex() != i) {
        const QSignalBlocker block(table_->selectionModel());
        table_->setCurrentIndex(i);
        table_->scrollTo(i);
    }
}

}  // namespace kiln::ui
