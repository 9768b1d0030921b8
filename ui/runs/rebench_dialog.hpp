#pragma once
// "Re-benchmark…" on an output-code module: after the user confirms that this executes the
// module's Python code, run it on the chosen devices and chart the graph's and each kernel's time
// per device beside the times stored in the cache (.kernel_perf, read by a job off the UI thread).
#include <QDialog>

#include "ui/runs/rebench_controller.hpp"

class QCustomPlot;
class QLabel;
class QLineEdit;
class QPushButton;

namespace kiln::ui {

class JobRunner;

class RebenchDialog : public QDialog {
    Q_OBJECT
public:
    // The cache's stored times are read on `jobs`; the chart shows them once storedTimesLoaded().
    RebenchDialog(const QString& modulePath, const QString& cacheRoot, JobRunner* jobs, QWidget* parent = nullptr);
    ~RebenchDialog() override;
    RebenchController* controller() const { return controller_; }
    QCustomPlot* plot() const { return plot_; }
    // Asks first (the module's code runs); returns false when the user declined.
    bool confirmAndRun();
    void showResults();  // redraws the chart from controller()->results() and the stored times
    // Adds results saved from `kiln-cli rebench --json [--kernels]`, read by a job off the UI thread,
    // and redraws; resultsLoaded() tells when (and why not).
    void loadResultsFile(const QString& path);
    QStringList rows() const { return rows_; }  // the chart's rows, top to bottom
    const timings::StoredKernelTimes& storedTimes() const { return stored_; }
    bool storedTimesPending() const { return storedPending_; }  // the read has not come back yet
    QString storedTimesError() const { return storedError_; }   // why the read failed, else empty

signals:
    // The cache's stored times are in storedTimes() and the chart (`error`: why none could be read).
    void storedTimesLoaded(const QString& error);
    // A file given to loadResultsFile() was read and charted (`error`: why not, also in the status).
    void resultsLoaded(const QString& error);

private:
    void loadStoredTimes(const QString& cacheRoot);

    QString module_;
    JobRunner* jobs_;
    QString storedChannel_;
    QString loadChannel_;  // this dialog's job channel: another dialog's read never cancels it
    timings::StoredKernelTimes stored_;
    bool storedPending_ = true;
    QString storedError_;
    QStringList rows_;
    RebenchController* controller_;
    QLineEdit* devices_;
    QPushButton* run_;
    QPushButton* load_;
    QLabel* status_;
    QCustomPlot* plot_;
};

}  // namespace kiln::ui
