#include "ui/portability/portability_panel.hpp"

#include <QButtonGroup>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QRadioButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "bundle/temp_root.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/portability/difference_model.hpp"
#include "ui/portability/portability_chart.hpp"
#include "ui/portability/verdict_model.hpp"
#include "ui/portability/verdict_style.hpp"

namespace kiln::ui {

namespace {
QTableView* makeTable(QAbstractItemModel* model, QWidget* parent) {
    auto* v = new QTableView(parent);
    v->setModel(model);
    v->setSelectionBehavior(QAbstractItemView::SelectRows);
    v->setSelectionMode(QAbstractItemView::SingleSelection);
    v->setEditTriggers(QAbstractItemView::NoEditTriggers);
    v->verticalHeader()->setVisible(false);
    v->horizontalHeader()->setStretchLastSection(true);
    return v;
}
}  // namespace

PortabilityPanel::PortabilityPanel(JobRunner* jobs, RootProvider root, QWidget* parent)
    : QWidget(parent),
      jobs_(jobs),
      root_(std::move(root)),
      thisMachine_(new QRadioButton(tr("This machine"), this)),
      fromPath_(new QRadioButton(tr("From a file or folder:"), this)),
      targetLabel_(new QLabel(tr("(none chosen)"), this)),
      checkButton_(new QPushButton(tr("Check"), this)),
      summary_(new QLabel(this)),
      legend_(new QLabel(this)),
      chart_(new PortabilityChart(this)),
      verdicts_(new VerdictModel(this)),
      verdictView_(makeTable(verdicts_, this)),
      selectedLabel_(new QLabel(this)),
      differences_(new DifferenceModel(this)),
      differenceView_(makeTable(differences_, this)) {
    auto* group = new QButtonGroup(this);
    group->addButton(thisMachine_);
    group->addButton(fromPath_);
    thisMachine_->setChecked(true);
    thisMachine_->setToolTip(tr("The CUDA driver's devices and, when python3 imports torch, torch's own values"));
    auto* file = new QPushButton(tr("File…"), this);
    file->setToolTip(
        tr("A fingerprint (kiln-cli env --json), a graph entry, a TORCH_TRACE log or a Mega-Cache blob "
           "written on the target"));
    auto* folder = new QPushButton(tr("Folder…"), this);
    folder->setToolTip(tr("A cache root or a TORCH_TRACE directory written on the target"));
    targetLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("<b>Target:</b>"), this));
    top->addWidget(thisMachine_);
    top->addWidget(fromPath_);
    top->addWidget(targetLabel_, 1);
    top->addWidget(file);
    top->addWidget(folder);
    top->addWidget(checkButton_);

    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setText(
        tr("Choose a target and press Check: every graph entry, autotune result and kernel of the open "
           "cache is judged against it, as `kiln-cli portable` does."));
    legend_->setText(verdictLegendHtml(palette()));
    legend_->setToolTip(tr("The same colours mark the entries in the cache browser"));
    chart_->setMinimumHeight(240);

    verdictView_->setObjectName(QStringLiteral("portabilityVerdicts"));
    verdictView_->setWordWrap(false);
    verdictView_->setTextElideMode(Qt::ElideMiddle);  // a key's both ends stay visible
    auto* vh = verdictView_->horizontalHeader();
    vh->setSectionResizeMode(VerdictModel::VerdictColumn, QHeaderView::ResizeToContents);
    vh->setSectionResizeMode(VerdictModel::KindColumn, QHeaderView::Interactive);
    vh->setSectionResizeMode(VerdictModel::PathColumn, QHeaderView::Stretch);
    vh->setSectionResizeMode(VerdictModel::WhyColumn, QHeaderView::Interactive);
    vh->setStretchLastSection(false);
    verdictView_->setColumnWidth(VerdictModel::KindColumn, 85);
    verdictView_->setColumnWidth(VerdictModel::WhyColumn, 200);
    differenceView_->setObjectName(QStringLiteral("portabilityDifferences"));
    differenceView_->setWordWrap(true);  // whole values, wrapped (and in the tooltips)
    auto* dh = differenceView_->horizontalHeader();
    dh->setSectionResizeMode(DifferenceModel::StatusColumn, QHeaderView::ResizeToContents);
    dh->setSectionResizeMode(DifferenceModel::ComponentColumn, QHeaderView::ResizeToContents);
    dh->setSectionResizeMode(DifferenceModel::CachedColumn, QHeaderView::Stretch);
    dh->setSectionResizeMode(DifferenceModel::TargetColumn, QHeaderView::Stretch);
    dh->setStretchLastSection(false);
    differenceView_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    selectedLabel_->setWordWrap(true);
    selectedLabel_->setText(tr("Select an entry to see its components on both sides."));

    auto* details = new QWidget(this);
    auto* dl = new QVBoxLayout(details);
    dl->setContentsMargins(0, 0, 0, 0);
    dl->addWidget(selectedLabel_);
    dl->addWidget(differenceView_, 1);
    auto* lower = new QSplitter(Qt::Horizontal, this);
    lower->addWidget(verdictView_);
    lower->addWidget(details);
    lower->setSizes({560, 680});
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(chart_);
    split->addWidget(lower);
    split->setSizes({280, 360});

    auto* lay = new QVBoxLayout(this);
    lay->addLayout(top);
    lay->addWidget(summary_);
    lay->addWidget(legend_);
    lay->addWidget(split, 1);

    connect(file, &QPushButton::clicked, this, &PortabilityPanel::chooseFile);
    connect(folder, &QPushButton::clicked, this, &PortabilityPanel::chooseFolder);
    connect(checkButton_, &QPushButton::clicked, this, &PortabilityPanel::check);
    connect(thisMachine_, &QRadioButton::toggled, this, [this](bool on) {
        target_ = on ? PortabilityTarget{true, QString()} : PortabilityTarget{false, chosenPath_};
    });
    connect(verdictView_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& cur) { onRowChanged(cur.row()); });
    connect(verdictView_, &QTableView::clicked, this,
            [this](const QModelIndex& i) { emit entryActivated(i.data(VerdictModel::AbsolutePathRole).toString()); });
}

void PortabilityPanel::setTarget(const PortabilityTarget& target) {
    if (!target.thisMachine) {
        chosenPath_ = target.path;
        targetLabel_->setText(target.path);
    }
    target_ = target;
    (target.thisMachine ? thisMachine_ : fromPath_)->setChecked(true);
}

void PortabilityPanel::chooseFile() {
    const QString f = QFileDialog::getOpenFileName(this, tr("Target: a fingerprint, entry, trace log or blob"));
    if (!f.isEmpty()) setTarget({false, f});
}

void PortabilityPanel::chooseFolder() {
    const QString d = QFileDialog::getExistingDirectory(this, tr("Target: a cache root or TORCH_TRACE directory"));
    if (!d.isEmpty()) setTarget({false, d});
}

void PortabilityPanel::clear() {
    jobs_->cancel(QStringLiteral("portability"));
    outcome_ = {};
    verdicts_->setReport(nullptr, QString());
    differences_->setItem(nullptr);
    chart_->setBars({});
    summary_->setText(tr("Press Check to judge the open cache against %1.").arg(target_.describe().toHtmlEscaped()));
}

void PortabilityPanel::check() {
    if (!target_.thisMachine && target_.path.isEmpty()) {
        summary_->setText(tr("Choose a target file or folder first."));
        return;
    }
    summary_->setText(tr("Checking against %1 …").arg(target_.describe().toHtmlEscaped()));
    jobs_->start(
        QStringLiteral("portability"), tr("Portability against %1").arg(target_.describe()),
        [opened = root_(), target = target_](JobControl& ctl) { return runPortability(opened, target, ctl); },
        [this](PortabilityOutcome out) { showOutcome(std::move(out)); });
}

QString PortabilityPanel::summaryText() const { return summary_->text(); }

void PortabilityPanel::showOutcome(PortabilityOutcome out) {
    outcome_ = std::move(out);
    differences_->setItem(nullptr);
    if (!outcome_.report) {
        verdicts_->setReport(nullptr, QString());
        chart_->setBars({});
        summary_->setText(QStringLiteral("<b>%1</b>").arg(outcome_.error.toHtmlEscaped()));
        emit checked(outcome_);
        return;
    }
    const auto& r = *outcome_.report;
    QString html;
    for (std::size_t i = 0; i < r.summary.lines.size(); ++i) {
        const QString line = QString::fromStdString(r.summary.lines[i]).toHtmlEscaped();
        html += i == 0 ? QStringLiteral("<p style='font-size:large'><b>%1</b></p>").arg(line)
                       : QStringLiteral("• %1<br>").arg(line);
    }
    html += tr("<small>cache: %1 · target: %2 · %3 ms</small>")
                .arg(QString::fromStdString(r.root).toHtmlEscaped(),
                     QString::fromStdString(r.target.origin).toHtmlEscaped())
                .arg(outcome_.elapsedMs);
    summary_->setText(html);
    chart_->setBars(portabilityBars(r.summary));
    verdicts_->setReport(outcome_.report, outcome_.root);
    selectedLabel_->setText(tr("Select an entry to see its components on both sides."));
    emit checked(outcome_);
}

bool PortabilityPanel::selectRow(int row) {
    if (row < 0 || row >= verdicts_->rowCount()) return false;
    verdictView_->setCurrentIndex(verdicts_->index(row, VerdictModel::VerdictColumn));
    return true;
}

void PortabilityPanel::onRowChanged(int row) {
    const portability::PortableItem* it = verdicts_->item(row);
    differences_->setItem(it);
    if (!it) return;
    const QString verdict = verdictTitle(it->assessment.verdict);
    selectedLabel_->setText(
        QStringLiteral("<b>%1</b> %2<br><code>%3</code>")
            .arg(QString::fromUtf8(portability::verdict_name(it->assessment.verdict).data(),
                                   qsizetype(portability::verdict_name(it->assessment.verdict).size())),
                 verdict.toHtmlEscaped(), QString::fromStdString(it->path).toHtmlEscaped()));
}

}  // namespace kiln::ui
