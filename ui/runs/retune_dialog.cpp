#include "ui/runs/retune_dialog.hpp"

#include <QCheckBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <map>
#include <set>

#include "handback/handback_report.hpp"
#include "retune/recorded_compare.hpp"
#include "retune/run.hpp"
#include "ui/runs/handback_bar.hpp"

namespace kiln::ui {

namespace {
QString ms(const std::optional<double>& v) { return v ? QString::number(*v, 'f', 4) : QStringLiteral("—"); }
QString percent(double fraction, bool sign) {
    const QString n = QString::number(100 * fraction, 'f', 1);
    return (sign && fraction >= 0 ? QStringLiteral("+") : QString()) + n + QStringLiteral(" %");
}
// Core's sentences start lower case ("nothing was measured: ...", "on a machine without a GPU: ...").
QString sentence(const std::string& text) {
    QString s = QString::fromStdString(text);
    if (!s.isEmpty()) s[0] = s[0].toUpper();
    return s;
}
QTableWidgetItem* cell(const QString& text, const QString& tip = {}) {
    auto* item = new QTableWidgetItem(text);
    item->setToolTip(tip.isEmpty() ? text : tip);
    return item;
}
}  // namespace

RetuneDialog::RetuneDialog(std::shared_ptr<const bundle::RootOrBlob> opened, JobRunner* jobs, QWidget* parent)
    : QDialog(parent),
      root_(opened ? QString::fromStdString(opened->root.string()) : QString()),
      opened_(std::move(opened)),
      controller_(new RetuneController(jobs, this)) {
    const QString& cacheRoot = root_;
    setWindowTitle(tr("Re-tune on this machine"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Runs the choices this cache's autotuning compared — each Triton kernel from its "
                                "cached cubin, each ATen choice through cuBLAS — on this machine's GPUs, and "
                                "shows them beside the times recorded in %1.")
                                 .arg(cacheRoot),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* form = new QFormLayout();
    op_ = new QLineEdit(this);
    op_->setPlaceholderText(tr("every op (or: mm, addmm, bmm, a size such as 1024)"));
    devices_ = new QLineEdit(QStringLiteral("all"), this);
    eachDevice_ = new QCheckBox(tr("Measure every choice on every GPU (to compare them)"), this);
    form->addRow(tr("Ops:"), op_);
    form->addRow(tr("GPUs:"), devices_);
    form->addRow(QString(), eachDevice_);
    layout->addLayout(form);
    auto* buttons = new QHBoxLayout();
    start_ = new QPushButton(tr("Re-tune"), this);
    cancel_ = new QPushButton(tr("Cancel"), this);
    load_ = new QPushButton(tr("Open results…"), this);
    load_->setToolTip(tr("A saved `kiln-cli retune ROOT --json`, e.g. from a GPU machine"));
    cancel_->setEnabled(false);
    buttons->addWidget(start_);
    buttons->addWidget(cancel_);
    buttons->addWidget(load_);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    status_ = new QLabel(this);
    status_->setWordWrap(true);
    layout->addWidget(status_);
    barsLayout_ = new QVBoxLayout();
    layout->addLayout(barsLayout_);
    summary_ = new QLabel(this);
    summary_->setTextFormat(Qt::PlainText);
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setVisible(false);
    layout->addWidget(summary_);
    tabs_ = new QTabWidget(this);
    table_ = new QTableWidget(this);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSortingEnabled(false);
    handbackTable_ = new QTableWidget(this);
    handbackTable_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    handbackTable_->setSortingEnabled(false);
    tabs_->addTab(table_, tr("Choices"));
    tabs_->addTab(handbackTable_, tr("Hand-back"));
    layout->addWidget(tabs_, 1);
    handback_ = new HandbackBar(this);
    layout->addWidget(handback_);
    resize(980, 680);

    connect(start_, &QPushButton::clicked, this, [this] {
        if (QString err = run(); !err.isEmpty()) status_->setText(err);
    });
    connect(cancel_, &QPushButton::clicked, controller_, &RetuneController::cancel);
    connect(load_, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open kiln-cli retune --json output"), QString(),
                                                          tr("JSON (*.json);;All files (*)"));
        if (!path.isEmpty()) loadReportFile(path);
    });
    connect(controller_, &RetuneController::progressChanged, this, &RetuneDialog::showProgress);
    connect(controller_, &RetuneController::reportLoaded, this, [this](const QString& error) {
        load_->setEnabled(true);
        start_->setEnabled(true);
        if (!error.isEmpty()) {
            status_->setText(error);
        } else {
            showReport();
            if (const QString& run = controller_->results().runFile; !run.isEmpty()) handback_->setRun(root_, run);
        }
        emit reportShown(error);
    });
    connect(controller_, &RetuneController::finished, this, [this](bool ok, const QString& message) {
        start_->setEnabled(true);
        cancel_->setEnabled(false);
        load_->setEnabled(true);
        showReport();
        // Why a run failed stands where the report's meaning would, never "0 of 0 choices measured".
        if (!ok) {
            status_->setText(tr("Re-tune failed (why below)."));
            showSummary(message);
        }
        // The run's report, saved beside its session logs, is what the hand-back buttons read.
        if (const QString& run = controller_->results().runFile; !run.isEmpty()) handback_->setRun(root_, run);
        emit finishedRun();
    });
}

QString RetuneDialog::run() {
    RetuneRequest r;
    r.cacheRoot = root_;
    r.opened = opened_;
    r.op = op_->text().trimmed();
    r.devices = devices_->text().trimmed();
    r.eachDevice = eachDevice_->isChecked();
    QString err = controller_->start(r);
    if (!err.isEmpty()) return err;
    start_->setEnabled(false);
    cancel_->setEnabled(true);
    load_->setEnabled(false);
    status_->setText(tr("Starting one worker per GPU…"));
    summary_->clear();
    summary_->setVisible(false);
    table_->clear();
    table_->setRowCount(0);
    handbackTable_->clear();
    handbackTable_->setRowCount(0);
    return {};
}

bool RetuneDialog::loadReportFile(const QString& path) {
    if (controller_->isRunning()) {
        status_->setText(tr("A re-tune is running: open results once it ends."));
        return false;
    }
    // Before the job starts: a job that ends at once is shown from inside loadReportFile.
    load_->setEnabled(false);
    start_->setEnabled(false);
    status_->setText(tr("Reading %1…").arg(path));
    if (controller_->loadReportFile(path, opened_)) return true;
    load_->setEnabled(true);
    start_->setEnabled(true);
    status_->setText(tr("Cannot read reports now: the window is closing."));
    return false;
}

int RetuneDialog::barValue(const QString& device) const {
    auto* bar = bars_.value(device);
    return bar ? bar->value() : -1;
}

QString RetuneDialog::statusText() const { return status_->text(); }
QString RetuneDialog::summaryText() const { return summary_->text(); }

void RetuneDialog::showProgress() {
    const RetuneProgress& p = controller_->progress();
    const int devices = std::max<int>(1, static_cast<int>(p.perDevice.size()));
    for (auto it = p.perDevice.begin(); it != p.perDevice.end(); ++it) {
        QProgressBar*& bar = bars_[it.key()];
        if (!bar) {
            bar = new QProgressBar(this);
            bar->setFormat(it.key() + QStringLiteral(": %v choices"));
            barsLayout_->addWidget(bar);
        }
        // Spread over the GPUs, each takes about its share; with every choice on every GPU, all of them.
        const bool each = eachDevice_->isChecked();
        bar->setMaximum(std::max(it.value(), each ? p.planned : (p.planned + devices - 1) / devices));
        bar->setValue(it.value());
    }
    if (p.measured == 0 && !controller_->isRunning()) status_->setText(tr("Nothing was measured (why below)."));
    else status_->setText(tr("%1 of %2 choices measured, %3 failed").arg(p.measured).arg(p.planned).arg(p.failed));
}

void RetuneDialog::showReport() {
    const auto& rep = controller_->report();
    std::set<int> devices;
    for (const auto& op : rep.ops)
        for (const auto& c : op.choices)
            for (const auto& m : c.measured) devices.insert(m.device);
    QStringList headers{tr("Op"), tr("Inputs"), tr("Choice"), tr("Kind"), tr("Recorded ms")};
    for (int d : devices) headers << tr("cuda:%1 ms").arg(d);
    headers << tr("Kiln vs recorded") << tr("Status");
    table_->clear();
    table_->setColumnCount(static_cast<int>(headers.size()));
    table_->setHorizontalHeaderLabels(headers);
    table_->horizontalHeaderItem(static_cast<int>(headers.size()) - 2)
        ->setToolTip(tr("Kiln's time / the time recorded in the cache - 1, per GPU that measured the choice"));
    int rows = 0;
    for (const auto& op : rep.ops) rows += static_cast<int>(op.choices.size());
    table_->setRowCount(rows);
    int r = 0;
    for (const auto& op : rep.ops)
        for (const auto& c : op.choices) {
            int col = 0;
            auto put = [&](const QString& text) { table_->setItem(r, col++, cell(text)); };
            put(QString::fromStdString(op.op));
            put(QString::fromStdString(op.inputs));
            put(QString::fromStdString(retune::display_name(c)));
            put(QString::fromUtf8(retune::choice_kind_name(c.kind)));
            put(ms(c.recorded_ms));
            QStringList status, against;
            for (int d : devices) {
                const retune::Measurement* found = nullptr;
                for (const auto& m : c.measured)
                    if (m.device == d) found = &m;
                put(found ? ms(found->ms) : QString());
                if (!found) continue;
                if (auto dev = retune::deviation_from_recorded(c, *found))
                    against << (devices.size() > 1 ? QStringLiteral("cuda:%1 ").arg(d) : QString()) +
                                   percent(*dev, true);
                if (found->status != "ok")
                    status << QStringLiteral("cuda:%1 %2: %3")
                                  .arg(d)
                                  .arg(QString::fromStdString(found->status), QString::fromStdString(found->why));
            }
            if (!c.runnable) status << tr("not runnable: %1").arg(QString::fromStdString(c.why));
            put(against.join(QStringLiteral("; ")));
            put(status.isEmpty() ? tr("ok") : status.join(QStringLiteral("; ")));
            ++r;
        }
    table_->resizeColumnsToContents();
    showProgress();
    showSummary({});
    showHandback();
}

void RetuneDialog::showSummary(const QString& failure) {
    const RetuneResults& r = controller_->results();
    QStringList lines;
    if (!failure.isEmpty()) {
        // kiln-cli's error is core's: for no GPU, retune::no_gpu_error, its hint the no-GPU workflow.
        const Error noGpu = retune::no_gpu_error("");
        const QString hint = QString::fromStdString(noGpu.hint);
        QString why = failure;
        if (why.startsWith(QLatin1String("kiln-cli: "))) why.remove(0, 10);
        if (why.endsWith(QStringLiteral(" (") + hint + QLatin1Char(')'))) why.chop(hint.size() + 3);
        lines << tr("Nothing was measured: %1").arg(why);
        if (failure.contains(QString::fromStdString(noGpu.message))) {
            lines << sentence(noGpu.hint) + QLatin1Char('.');
            lines << tr(
                "In Kiln: open that retune.json with Open results…; the buttons below then hand it to torch "
                "(nothing is written before a click).");
        }
    } else if (r.nothingMeasured) {
        lines << sentence(r.nothingMeasured->message);
        if (!r.nothingMeasured->hint.empty()) lines << sentence(r.nothingMeasured->hint) + QLatin1Char('.');
    }
    if (r.error.isEmpty() && !r.nothingMeasured && r.progress.measured > 0) {
        const std::string& stat = r.report.statistic;
        lines << (stat.empty() ? tr("Kiln's times: this report names no statistic (a run before Kiln timed as torch "
                                    "2.11 does: the median of its timed runs).")
                               : tr("Kiln's times (%1): %2. The recorded times are torch's own.")
                                     .arg(QString::fromStdString(stat),
                                          QString::fromStdString(retune::statistic_description(stat))));
        const auto& a = r.agreement;
        lines << (a.compared == 0
                      ? tr("Kiln against recorded: no choice was both recorded and measured ok.")
                      : tr("Kiln against recorded: median |Kiln/recorded - 1| %1 (signed %2); %3 of %4 choices "
                           "within 3 %, %5 within 10 %.")
                            .arg(percent(a.median_abs_deviation, false), percent(a.median_deviation, true))
                            .arg(a.within_3_percent)
                            .arg(a.compared)
                            .arg(a.within_10_percent));
        if (auto note = retune::agreement_note(a); !note.empty())
            lines << QString::fromStdString(note) + QLatin1Char('.');
        if (!r.handbackError.isEmpty()) {
            lines << tr("Hand-back: this report cannot be handed back: %1").arg(r.handbackError);
        } else {
            const auto& plan = r.handback;
            std::set<std::string> kinds;
            for (const auto& d : r.report.devices) kinds.insert(d.name);
            QString line = tr("Hand-back: %1 of %2 ops%3 will be handed back; %4 choices will be written as Infinity")
                               .arg(plan.selection.ops.size())
                               .arg(plan.decided())
                               .arg(kinds.size() > 1 ? tr(" (per GPU kind)") : QString())
                               .arg(plan.infinite.size());
            if (!plan.infinite.empty()) line += tr(" (as torch writes a choice that fails)");
            if (!plan.selection.skipped.empty())
                line += tr("; %1 left out (torch would benchmark them again)").arg(plan.selection.skipped.size());
            line += plan.selection.ops.empty() ? tr(": the buttons below would write nothing.") : tr(".");
            if (!plan.infinite.empty() || !plan.selection.skipped.empty())
                line += tr(" The Hand-back tab says why for each.");
            lines << line;
            // --each-device: one winner per op agreed across the GPUs that each measured every choice.
            int agreed = 0, differed = 0;
            for (const auto& op : plan.selection.ops) {
                if (op.agreed_from.size() < 2) continue;
                ++agreed;
                differed += op.devices_differed();
            }
            if (agreed)
                lines << tr("Agreed across GPUs: %1 ops measured on every GPU; %2. The GPUs' own picks differed on "
                            "%3 (the Hand-back tab shows both times).")
                             .arg(agreed)
                             .arg(QString::fromStdString(handback::agreed_rule_text()))
                             .arg(differed);
        }
    }
    summary_->setText(lines.join(QLatin1Char('\n')));
    summary_->setVisible(!lines.isEmpty());
}

void RetuneDialog::showHandback() {
    const RetuneResults& r = controller_->results();
    const auto& plan = r.handback;
    // The report's ops by the hand-back's label (MeasuredOp::label), for the choices' names.
    std::map<std::string, const retune::RetuneOp*> byLabel;
    for (const auto& op : r.report.ops) byLabel[op.op + " " + op.inputs + " " + op.precision] = &op;
    handbackTable_->clear();
    handbackTable_->setColumnCount(5);
    // The why first: an op's inputs key is long, so it goes last.
    handbackTable_->setHorizontalHeaderLabels({tr("Hand-back"), tr("Choice"), tr("Why"), tr("GPU"), tr("Op")});
    // Where a GPU's own pick was faster there than the agreed one: both, on that GPU.
    struct Disagreement {
        const handback::MeasuredOp* op;
        handback::MeasuredOp::Disagreement on;
    };
    std::vector<Disagreement> disagreements;
    for (const auto& op : plan.selection.ops)
        for (const auto& on : op.disagreements()) disagreements.push_back({&op, on});
    handbackTable_->setRowCount(
        static_cast<int>(plan.infinite.size() + plan.selection.skipped.size() + disagreements.size()));
    int row = 0;
    for (const auto& d : disagreements) {
        const auto& op = *d.op;
        const auto* agreed = op.winner();
        const auto* own = d.on.own;
        auto it = byLabel.find(op.label());
        auto shown = [&](const std::string& name) {
            return QString::fromStdString(it == byLabel.end() ? name : retune::display_name(*it->second, name));
        };
        handbackTable_->setItem(row, 0, cell(tr("agreed")));
        handbackTable_->setItem(row, 1, cell(shown(agreed->name), QString::fromStdString(agreed->name)));
        handbackTable_->setItem(
            row, 2,
            cell(tr("cuda:%1's own pick %2 took %3 ms there, the agreed one %4 ms (%5); every GPU runs the agreed one")
                     .arg(op.agreed_from[d.on.k])
                     .arg(shown(own->name))
                     .arg(own->device_ms[d.on.k], 0, 'f', 5)
                     .arg(agreed->device_ms[d.on.k], 0, 'f', 5)
                     .arg(percent(agreed->device_ms[d.on.k] / own->device_ms[d.on.k] - 1, true))));
        handbackTable_->setItem(row, 3, cell(QString::fromStdString(op.device_name)));
        handbackTable_->setItem(row, 4, cell(QString::fromStdString(op.label())));
        ++row;
    }
    for (const auto& i : plan.infinite) {
        auto op = byLabel.find(i.op);
        const QString name =
            QString::fromStdString(op == byLabel.end() ? i.choice : retune::display_name(*op->second, i.choice));
        handbackTable_->setItem(row, 0, cell(tr("Infinity")));
        handbackTable_->setItem(row, 1, cell(name, QString::fromStdString(i.choice)));
        handbackTable_->setItem(row, 2, cell(QString::fromStdString(i.why)));
        handbackTable_->setItem(row, 3, cell(QString::fromStdString(i.device)));
        handbackTable_->setItem(row, 4, cell(QString::fromStdString(i.op)));
        ++row;
    }
    for (const auto& s : plan.selection.skipped) {
        handbackTable_->setItem(row, 0, cell(tr("left out")));
        handbackTable_->setItem(row, 1, cell(QString()));
        handbackTable_->setItem(row, 2, cell(QString::fromStdString(s.why)));
        handbackTable_->setItem(row, 3, cell(QString::fromStdString(s.device_name)));
        handbackTable_->setItem(row, 4, cell(QString::fromStdString(s.label)));
        ++row;
    }
    handbackTable_->resizeColumnsToContents();
    tabs_->setTabText(1, row ? tr("Hand-back (%1)").arg(row) : tr("Hand-back"));
}

}  // namespace kiln::ui
