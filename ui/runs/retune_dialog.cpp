#include "ui/runs/retune_dialog.hpp"

#include <QCheckBox>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <set>

#include "retune/recorded_compare.hpp"
#include "ui/tuning/handback_bar.hpp"

namespace kiln::ui {

namespace {
QString ms(const std::optional<double>& v) { return v ? QString::number(*v, 'f', 4) : QStringLiteral("—"); }
}  // namespace

RetuneDialog::RetuneDialog(const QString& cacheRoot, QWidget* parent)
    : QDialog(parent), root_(cacheRoot), controller_(new RetuneController(this)) {
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
    table_ = new QTableWidget(this);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSortingEnabled(false);
    layout->addWidget(table_, 1);
    handback_ = new HandbackBar(this);
    layout->addWidget(handback_);
    resize(900, 600);

    connect(start_, &QPushButton::clicked, this, [this] {
        if (QString err = run(); !err.isEmpty()) status_->setText(err);
    });
    connect(cancel_, &QPushButton::clicked, controller_, &RetuneController::cancel);
    connect(load_, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open kiln-cli retune --json output"), QString(),
                                                          tr("JSON (*.json);;All files (*)"));
        if (path.isEmpty()) return;
        if (QString err = loadReportFile(path); !err.isEmpty()) status_->setText(err);
    });
    connect(controller_, &RetuneController::progressChanged, this, &RetuneDialog::showProgress);
    connect(controller_, &RetuneController::finished, this, [this](bool ok, const QString& message) {
        start_->setEnabled(true);
        cancel_->setEnabled(false);
        // The report's progress line first: "0 of 0 choices measured" must not hide why a run failed
        // (kiln-cli's error, core's words: no GPU here and what to do instead).
        showReport();
        if (!ok) status_->setText(tr("Re-tune failed: %1").arg(message));
        // The run's report, saved beside its session logs, is what the hand-back buttons read.
        if (!controller_->report().devices.empty()) {
            const QString dir = root_ + QStringLiteral("/kiln/retune");
            const QString path = dir + QStringLiteral("/run-") +
                                 QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss")) +
                                 QStringLiteral(".json");
            QFile f(path);
            if (QDir().mkpath(dir) && f.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
                f.write(QByteArray::fromStdString(retune::to_json(controller_->report()).dump())) >= 0 && f.flush())
                handback_->setRun(root_, path);
        }
        emit finishedRun();
    });
}

QString RetuneDialog::run() {
    RetuneRequest r;
    r.cacheRoot = root_;
    r.op = op_->text().trimmed();
    r.devices = devices_->text().trimmed();
    r.eachDevice = eachDevice_->isChecked();
    QString err = controller_->start(r);
    if (!err.isEmpty()) return err;
    start_->setEnabled(false);
    cancel_->setEnabled(true);
    status_->setText(tr("Starting one worker per GPU…"));
    table_->clear();
    table_->setRowCount(0);
    return {};
}

int RetuneDialog::barValue(const QString& device) const {
    auto* bar = bars_.value(device);
    return bar ? bar->value() : -1;
}

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
    status_->setText(tr("%1 of %2 choices measured, %3 failed").arg(p.measured).arg(p.planned).arg(p.failed));
}

void RetuneDialog::showReport() {
    const auto& rep = controller_->report();
    std::set<int> devices;
    for (const auto& op : rep.ops)
        for (const auto& c : op.choices)
            for (const auto& m : c.measured) devices.insert(m.device);
    QStringList headers{tr("Op"), tr("Inputs"), tr("Choice"), tr("Kind"), tr("Recorded ms")};
    for (int d : devices) headers << tr("cuda:%1 ms").arg(d);
    headers << tr("Status");
    table_->clear();
    table_->setColumnCount(static_cast<int>(headers.size()));
    table_->setHorizontalHeaderLabels(headers);
    int rows = 0;
    for (const auto& op : rep.ops) rows += static_cast<int>(op.choices.size());
    table_->setRowCount(rows);
    int r = 0;
    for (const auto& op : rep.ops)
        for (const auto& c : op.choices) {
            int col = 0;
            auto put = [&](const QString& text) { table_->setItem(r, col++, new QTableWidgetItem(text)); };
            put(QString::fromStdString(op.op));
            put(QString::fromStdString(op.inputs));
            put(QString::fromStdString(retune::display_name(c)));
            put(QString::fromUtf8(retune::choice_kind_name(c.kind)));
            put(ms(c.recorded_ms));
            QStringList status;
            for (int d : devices) {
                const retune::Measurement* found = nullptr;
                for (const auto& m : c.measured)
                    if (m.device == d) found = &m;
                put(found ? ms(found->ms) : QString());
                if (found && found->status != "ok")
                    status << QStringLiteral("cuda:%1 %2: %3")
                                  .arg(d)
                                  .arg(QString::fromStdString(found->status), QString::fromStdString(found->why));
            }
            if (!c.runnable) status << tr("not runnable: %1").arg(QString::fromStdString(c.why));
            put(status.isEmpty() ? tr("ok") : status.join(QStringLiteral("; ")));
            ++r;
        }
    table_->resizeColumnsToContents();
    showProgress();
}

QString RetuneDialog::loadReportFile(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return tr("cannot read %1").arg(path);
    QString err = controller_->loadReport(f.readAll());
    if (err.isEmpty() && !controller_->report().devices.empty()) handback_->setRun(root_, path);
    if (err.isEmpty()) showReport();
    return err;
}

}  // namespace kiln::ui
