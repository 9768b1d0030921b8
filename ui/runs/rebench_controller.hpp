#pragma once
// Re-benchmarks an Inductor output-code module through `kiln-cli rebench` (one kiln-worker per
// device runs the module's Python): first the whole graph, then each kernel (-k). No widgets.
// Stored timings to compare with: timings::read_stored_kernel_times, read off the UI thread.
#include <QMap>
#include <QObject>
#include <QVector>

#include "timings/stored_kernel_times.hpp"
#include "tuning/rebench.hpp"
#include "ui/runs/cli_process.hpp"

namespace kiln::ui {

struct RebenchTimes {
    QString device;
    bool ok = false;
    QString status;  // "ok" or the failure kind (worker::BenchStatus's name)
    QString reason;
    double graphMs = -1;               // < 0: not measured
    QMap<QString, double> kernelMs;    // kernel name -> ms
    QMap<QString, QString> kernelKey;  // kernel name -> its module's key as -k prints it (10 characters)
};

// Parses `kiln-cli rebench --json` output into `into` (graph or per-kernel results); returns an
// error message, empty on success.
QString parseRebenchJson(const QByteArray& json, QVector<RebenchTimes>& into);
// The same from a report core already read (tuning::read_rebench_report).
void mergeRebenchReport(const tuning::RebenchReport& report, QVector<RebenchTimes>& into);
// The stored time of a re-benchmarked kernel (timings::stored_time_for): by its module key, else
// by name; < 0 when the cache holds none.
double storedTimeFor(const RebenchTimes& d, const QString& kernel, const timings::StoredKernelTimes& stored);

class RebenchController : public QObject {
    Q_OBJECT
public:
    explicit RebenchController(QObject* parent = nullptr);

    // Starts the graph run; the kernel run follows. `cliPath` empty: CliProcess::defaultCliPath().
    QString start(const QString& modulePath, const QString& devices, const QString& cliPath = {});
    void cancel();
    bool isRunning() const { return process_.isRunning(); }
    const QVector<RebenchTimes>& results() const { return results_; }
    // Adds the results of a `kiln-cli rebench --json` run saved earlier (e.g. on a GPU machine, read
    // by tuning::read_rebench_report off the UI thread); returns an error message, empty on success.
    QString loadReport(const tuning::RebenchReport& report);

signals:
    void stageChanged(const QString& stage);
    void finished(bool ok, const QString& message);

private:
    QString runStage(bool kernels);  // an error message, empty when started
    void onFinished(int exitCode, QProcess::ExitStatus status);

    CliProcess process_;
    QString cli_, module_, devices_;
    bool kernels_ = false;
    QVector<RebenchTimes> results_;
};

}  // namespace kiln::ui
