#include "ui/runs/handback_bar.hpp"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace kiln::ui {

HandbackBar::HandbackBar(QWidget* parent) : QWidget(parent) {
    open_ = new QPushButton(tr("Open re-tune result…"), this);
    open_->setToolTip(tr("A saved `kiln-cli retune ROOT --json` of the open cache root"));
    write_ = new QPushButton(tr("Write timing cache"), this);
    write_->setToolTip(
        tr("Write the measured times into ROOT/cache/<this GPU's system hash>, where torch looks "
           "before autotuning (complete ops only; others' ops kept)"));
    publish_ = new QPushButton(tr("Publish to Redis…"), this);
    publish_->setToolTip(tr("Publish each complete op to a Redis server for other machines of this GPU kind"));
    pin_ = new QPushButton(tr("Save lookup table…"), this);
    pin_->setToolTip(tr("Save an Inductor lookup table pinning each op's measured winner (a new file)"));
    status_ =
        new QLabel(tr("A finished re-tune can be handed to torch here. Nothing is written until you click."), this);
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(open_);
    buttons->addWidget(write_);
    buttons->addWidget(publish_);
    buttons->addWidget(pin_);
    buttons->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(buttons);
    layout->addWidget(status_);
#ifndef KILN_HAVE_REMOTE
    publish_->setVisible(false);
#endif
    askRedisUrl = [this] {
        return QInputDialog::getText(this, tr("Publish to Redis"), tr("Redis server (redis://host:port/db):"),
                                     QLineEdit::Normal, QStringLiteral("redis://127.0.0.1:6379/0"));
    };
    askTablePath = [this] {
        return QFileDialog::getSaveFileName(this, tr("Save lookup table"), QString(), tr("JSON (*.json)"), nullptr,
                                            QFileDialog::DontConfirmOverwrite);
    };
    askRunPath = [this] {
        return QFileDialog::getOpenFileName(this, tr("Open re-tune result"), QString(), tr("JSON (*.json)"));
    };
    connect(open_, &QPushButton::clicked, this, &HandbackBar::openRun);
    connect(write_, &QPushButton::clicked, this, &HandbackBar::writeTimingCache);
    connect(publish_, &QPushButton::clicked, this, &HandbackBar::publishToRedis);
    connect(pin_, &QPushButton::clicked, this, &HandbackBar::saveLookupTable);
    connect(&process_, &CliProcess::finished, this, &HandbackBar::onFinished);
    setBusy(false);
}

void HandbackBar::setRun(const QString& root, const QString& runJson) {
    root_ = root;
    run_ = runJson;
    setBusy(false);
    status_->setText(tr("Re-tune of %1 finished: hand it to torch with one of the buttons.").arg(root));
}

QString HandbackBar::statusText() const { return status_->text(); }

void HandbackBar::setBusy(bool busy) {
    const bool ready = !busy && !run_.isEmpty();
    open_->setEnabled(!busy);
    write_->setEnabled(ready);
    publish_->setEnabled(ready);
    pin_->setEnabled(ready);
}

void HandbackBar::openRun() {
    const QString path = askRunPath ? askRunPath() : QString();
    if (path.isEmpty()) return;
    if (windowRoot_.isEmpty()) {
        status_->setText(tr("Open a cache root first: the re-tune's Triton modules and timing cache live there."));
        return;
    }
    setRun(windowRoot_, path);
}

void HandbackBar::writeTimingCache() { run({QStringLiteral("--write")}, tr("Writing the timing cache")); }

void HandbackBar::publishToRedis() {
    const QString url = askRedisUrl ? askRedisUrl().trimmed() : QString();
    if (url.isEmpty()) return;
    run({QStringLiteral("--publish"), url}, tr("Publishing to %1").arg(url));
}

void HandbackBar::saveLookupTable() {
    const QString path = askTablePath ? askTablePath() : QString();
    if (path.isEmpty()) return;
    run({QStringLiteral("--pin"), path}, tr("Saving the lookup table"));
}

void HandbackBar::run(const QStringList& flags, const QString& what) {
    if (run_.isEmpty() || process_.isRunning()) return;
    what_ = what;
    QStringList args{QStringLiteral("handback"), root_, QStringLiteral("--from"), run_};
    args += flags;
    const QString err = process_.start(cli_, args);
    if (!err.isEmpty()) {
        status_->setText(tr("%1 failed: %2").arg(what, err));
        emit finished(false, err);
        return;
    }
    setBusy(true);
    status_->setText(what + QStringLiteral("…"));
}

void HandbackBar::onFinished(int exitCode, QProcess::ExitStatus status) {
    setBusy(false);
    if (exitCode != 0 || status != QProcess::NormalExit) {
        const QString why = process_.failureReason(exitCode, status);
        status_->setText(tr("%1 failed, nothing was written: %2").arg(what_, why));
        emit finished(false, why);
        return;
    }
    const QString summary = handbackSummary(process_.output());
    status_->setText(summary);
    emit finished(true, summary);
}

QString handbackSummary(const QString& out) {
    QStringList keep;
    bool pinned = false;  // the lines under "pinned N op(s) into FILE:" name each op, its device and winner
    for (const QString& l : out.split(QLatin1Char('\n'))) {
        if (l.startsWith(QLatin1String("wrote ")) || l.startsWith(QLatin1String("published ")) ||
            l.startsWith(QLatin1String("  for ")) || l.startsWith(QLatin1String("  not "))) {
            keep << l.trimmed();
            pinned = false;
        } else if (l.startsWith(QLatin1String("pinned "))) {
            keep << l.trimmed();
            pinned = true;
        } else if (pinned && l.startsWith(QLatin1String("  "))) {
            keep << l.trimmed();
        } else {
            pinned = false;
        }
    }
    return keep.isEmpty() ? out.trimmed() : keep.join(QLatin1Char('\n'));
}

}  // namespace kiln::ui
