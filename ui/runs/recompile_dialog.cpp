#include "ui/runs/recompile_dialog.hpp"

#include <QCheckBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "ui/jobs/job_runner.hpp"

namespace kiln::ui {

RecompileDialog::RecompileDialog(const QString& sourcePath, JobRunner* jobs, QWidget* parent)
    : QDialog(parent),
      source_(sourcePath),
      jobs_(jobs ? jobs : new JobRunner(this)),
      flags_(new QLineEdit(this)),
      force_(new QCheckBox(tr("Rebuild even if it is cached (the old build record is kept as history)"), this)),
      run_(new QPushButton(tr("Recompile"), this)),
      status_(new QLabel(this)),
      output_(new QPlainTextEdit(this)),
      history_(new QTableWidget(0, 5, this)) {
    setWindowTitle(tr("Recompile %1").arg(QFileInfo(sourcePath).fileName()));
    // The artifact beside the source (Inductor's layout): <key>.so.
    artifact_ = QFileInfo(sourcePath).absolutePath() + QLatin1Char('/') + QFileInfo(sourcePath).completeBaseName() +
                QStringLiteral(".so");
    force_->setChecked(true);
    flags_->setPlaceholderText(tr("extra flags, e.g. -O2 -DNDEBUG (they change the key: a new artifact)"));
    output_->setReadOnly(true);
    output_->setPlaceholderText(tr("compiler output"));
    history_->setHorizontalHeaderLabels({tr("Time"), tr("Duration"), tr("Exit"), tr("Size"), tr("Command")});
    history_->horizontalHeader()->setStretchLastSection(true);
    history_->verticalHeader()->hide();
    history_->setEditTriggers(QAbstractItemView::NoEditTriggers);

    auto* form = new QFormLayout;
    form->addRow(tr("Source"), new QLabel(sourcePath, this));
    form->addRow(tr("Flags"), flags_);
    form->addRow(QString(), force_);
    auto* lay = new QVBoxLayout(this);
    lay->addLayout(form);
    lay->addWidget(run_);
    lay->addWidget(status_);
    lay->addWidget(output_, 1);
    lay->addWidget(new QLabel(tr("Build history (sidecar)"), this));
    lay->addWidget(history_, 1);
    resize(900, 640);
    connect(run_, &QPushButton::clicked, this, &RecompileDialog::rebuild);
    showHistory();
}

void RecompileDialog::rebuild() {
    RecompileRequest req;
    req.sourcePath = source_;
    req.flags = flags_->text().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    req.force = force_->isChecked();
    run_->setEnabled(false);
    status_->setText(tr("Compiling…"));
    jobs_->start(
        QStringLiteral("recompile"), tr("Recompiling"), [req](JobControl&) { return recompileArtifact(req); },
        [this](RecompileResult r) {
            run_->setEnabled(true);
            if (r.ok) {
                artifact_ = r.outputPath;
                status_->setText(r.hit ? tr("Cached: nothing to compile (%1)").arg(r.outputPath)
                                       : tr("Built %1 in %2 s").arg(r.outputPath).arg(r.seconds, 0, 'f', 2));
            } else {
                status_->setText(tr("Compilation failed"));
            }
            output_->setPlainText(r.compilerOutput.isEmpty() && r.ok ? tr("(the compiler printed nothing)")
                                                                     : r.compilerOutput);
            showHistory();
            emit rebuilt(r.ok);
        });
}

void RecompileDialog::showHistory() {
    const auto entries = readBuildHistory(artifact_);
    history_->setRowCount(entries.size());
    for (int i = 0; i < entries.size(); ++i) {
        const auto& e = entries[i];
        const QStringList cells{e.time + (e.current ? tr(" (current)") : QString()),
                                QStringLiteral("%1 s").arg(e.durationS, 0, 'f', 2), QString::number(e.exitCode),
                                QString::number(e.size), e.command};
        for (int c = 0; c < cells.size(); ++c) history_->setItem(i, c, new QTableWidgetItem(cells[c]));
    }
}

}  // namespace kiln::ui
