#pragma once
// The hand-back actions of a finished re-tune (issue 31): "Write timing cache", "Publish to
// Redis…" and "Save lookup table…". Each runs `kiln-cli handback ROOT --from RUN.json …` (a
// CliProcess: the core's rules, the same as the CLI's) only when clicked, then says what it wrote
// where and for which device, from the CLI's own report. Nothing is written without a click.
#include <QString>
#include <QWidget>

#include <functional>

#include "ui/runs/cli_process.hpp"

class QLabel;
class QPushButton;

namespace kiln::ui {

class HandbackBar : public QWidget {
    Q_OBJECT
public:
    explicit HandbackBar(QWidget* parent = nullptr);

    // A finished re-tune: its cache root and its saved `retune --json`. Enables the buttons.
    void setRun(const QString& root, const QString& runJson);
    // The window's cache root, for a saved re-tune opened with "Open re-tune result…".
    void setRoot(const QString& root) { windowRoot_ = root; }
    void setCliPath(const QString& cli) { cli_ = cli; }
    // How the actions ask (tests replace the dialogs): a Redis URL, a new file's path ("": cancelled).
    std::function<QString()> askRedisUrl;
    std::function<QString()> askTablePath;
    std::function<QString()> askRunPath;  // a saved `kiln-cli retune --json`

    QPushButton* writeButton() const { return write_; }
    QPushButton* publishButton() const { return publish_; }
    QPushButton* pinButton() const { return pin_; }
    QString statusText() const;
    bool isRunning() const { return process_.isRunning(); }

public slots:
    void writeTimingCache();
    void publishToRedis();
    void saveLookupTable();
    void openRun();

signals:
    void finished(bool ok, const QString& message);

private:
    void run(const QStringList& flags, const QString& what);
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void setBusy(bool busy);

    CliProcess process_;
    QString cli_, root_, run_, what_, windowRoot_;
    QPushButton *open_, *write_, *publish_, *pin_;
    QLabel* status_;
};

// The lines of `kiln-cli handback`'s report that say what was written where (for the status).
QString handbackSummary(const QString& cliOutput);

}  // namespace kiln::ui
