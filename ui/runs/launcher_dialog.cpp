#include "ui/runs/launcher_dialog.hpp"

#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "cuda/driver.hpp"
#include "ui/charts/choice_bar_chart.hpp"

namespace kiln::ui {

QStringList LauncherDialog::exampleSpecs() {
    const QString app = QCoreApplication::applicationDirPath();
    QStringList dirs{app + QStringLiteral("/../share/kiln/examples"), app + QStringLiteral("/../../resources/examples"),
                     app + QStringLiteral("/../resources/examples")};
    const QString src = qEnvironmentVariable("KILN_SOURCE_DIR");
    if (!src.isEmpty()) dirs.prepend(src + QStringLiteral("/resources/examples"));
    for (const QString& d : dirs) {
        QDir dir(d);
        const QStringList specs = dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
        if (specs.isEmpty()) continue;
        QStringList out;
        for (const QString& s : specs) out << dir.absoluteFilePath(s);
        return out;
    }
    return {};
}

LauncherDialog::LauncherDialog(const QString& cacheRoot, QWidget* parent)
    : QDialog(parent),
      cacheRoot_(cacheRoot),
      controller_(new LauncherController(this)),
      spec_(new QComboBox(this)),
      devices_(new QListWidget(this)),
      workers_(new QRadioButton(tr("One worker process per device"), this)),
      inProcess_(new QRadioButton(tr("In-process (a crashing kernel ends the session)"), this)),
      strategy_(new QComboBox(this)),
      budget_(new QSpinBox(this)),
      seconds_(new QDoubleSpinBox(this)),
      progress_(new QProgressBar(this)),
      chart_(new ChoiceBarChart(this)),
      status_(new QLabel(this)),
      run_(new QPushButton(tr("Run"), this)),
      cancel_(new QPushButton(tr("Cancel session"), this)) {
    setWindowTitle(tr("New tuning session"));
    for (const QString& s : exampleSpecs()) spec_->addItem(QFileInfo(s).fileName(), s);
    auto* browse = new QPushButton(tr("Browse…"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Tuning spec"), QString(), tr("Specs (*.json)"));
        if (f.isEmpty()) return;
        spec_->addItem(QFileInfo(f).fileName(), f);
        spec_->setCurrentIndex(spec_->count() - 1);
    });
    auto* specRow = new QHBoxLayout;
    specRow->addWidget(spec_, 1);
    specRow->addWidget(browse);

    // Devices: the CPU and every GPU the driver reports (checked ones are passed as --devices).
    auto addDevice = [this](const QString& label, const QString& id, bool checked) {
        auto* item = new QListWidgetItem(label, devices_);
        item->setData(Qt::UserRole, id);
        item->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
    };
    const auto cuda = cuda::driver_info();
    addDevice(tr("CPU"), QStringLiteral("cpu"), cuda.device_count == 0);
    for (int i = 0; i < cuda.device_count; ++i) addDevice(tr("GPU %1 (cuda:%1)").arg(i), QString::number(i), i == 0);
    devices_->setMaximumHeight(90);
    workers_->setChecked(true);

    strategy_->addItem(tr("As in the spec"), QString());
    strategy_->addItem(tr("Exhaustive"), QStringLiteral("exhaustive"));
    strategy_->addItem(tr("Random"), QStringLiteral("random"));
    budget_->setRange(0, 100000);
    budget_->setSpecialValueText(tr("all"));
    seconds_->setRange(0, 86400);
    seconds_->setSpecialValueText(tr("none"));
    seconds_->setSuffix(tr(" s"));

    auto* form = new QFormLayout;
    form->addRow(tr("Spec"), specRow);
    form->addRow(tr("Devices"), devices_);
    form->addRow(tr("Benchmark in"), workers_);
    form->addRow(QString(), inProcess_);
    form->addRow(tr("Strategy"), strategy_);
    form->addRow(tr("Budget (choices)"), budget_);
    form->addRow(tr("Time budget"), seconds_);
    form->addRow(tr("Results go to"), new QLabel(cacheRoot_.isEmpty() ? tr("(no cache open)") : cacheRoot_, this));

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(progress_, 1);
    buttons->addWidget(run_);
    buttons->addWidget(cancel_);
    auto* close = new QPushButton(tr("Close"), this);
    buttons->addWidget(close);
    cancel_->setEnabled(false);
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* lay = new QVBoxLayout(this);
    lay->addLayout(form);
    lay->addWidget(chart_, 1);
    lay->addWidget(status_);
    lay->addLayout(buttons);
    resize(900, 760);

    connect(run_, &QPushButton::clicked, this, &LauncherDialog::run);
    connect(cancel_, &QPushButton::clicked, controller_, &LauncherController::cancel);
    connect(close, &QPushButton::clicked, this, &QDialog::reject);
    connect(controller_, &LauncherController::updated, this, &LauncherDialog::onUpdated);
    connect(controller_, &LauncherController::progress, this, [this](int done, int total) {
        progress_->setRange(0, std::max(total, 1));
        progress_->setValue(done);
    });
    connect(controller_, &LauncherController::finished, this, &LauncherDialog::onFinished);
}

LaunchRequest LauncherDialog::request() const {
    LaunchRequest r;
    r.specPath = spec_->currentData().toString();
    QStringList ids;
    for (int i = 0; i < devices_->count(); ++i)
        if (devices_->item(i)->checkState() == Qt::Checked) ids << devices_->item(i)->data(Qt::UserRole).toString();
    // The engine takes "cpu" or GPU ordinals; with the CPU and GPUs both ticked, the GPUs win.
    if (ids.size() > 1) ids.removeAll(QStringLiteral("cpu"));
    r.devices = ids.join(QLatin1Char(','));
    r.inProcess = inProcess_->isChecked();
    r.strategy = strategy_->currentData().toString();
    r.budget = budget_->value();
    r.seconds = seconds_->value();
    r.cacheRoot = cacheRoot_;
    return r;
}

void LauncherDialog::run() {
    chart_->clear();
    progress_->setRange(0, 0);  // busy until the session log says how many choices
    const QString err = controller_->start(request());
    if (!err.isEmpty()) {
        progress_->setRange(0, 1);
        status_->setText(err);
        return;
    }
    status_->setText(tr("Running; session log %1").arg(controller_->sessionLogPath()));
    run_->setEnabled(false);
    cancel_->setEnabled(true);
}

void LauncherDialog::onUpdated() {
    auto set = controller_->timings();
    if (set && !set->ops.empty()) chart_->setOp(set->ops.front());
}

void LauncherDialog::onFinished(bool ok, const QString& message) {
    run_->setEnabled(true);
    cancel_->setEnabled(false);
    if (progress_->maximum() == 0) progress_->setRange(0, 1);
    status_->setText(ok ? message : tr("Session failed: %1").arg(message));
    if (ok) emit sessionFinished(controller_->sessionLogPath());
}

}  // namespace kiln::ui
