#pragma once
// "Re-benchmark…" on an output-code module: after the user confirms that this executes the
// module's Python code, run it on the chosen devices and chart the graph's and each kernel's time
// per device beside the times stored in the cache (.kernel_perf).
#include <QDialog>

#include "runs/rebench_controller.hpp"

class QCustomPlot;
class QLabel;
class QLineEdit;
class QPushButton;

namespace kiln::ui {

class RebenchDialog : public QDialog {
    Q_OBJECT
public:
    RebenchDialog(const QString& modulePath, const QString& cacheRoot, QWidget* parent = nullptr);
    RebenchController* controller() const { return controller_; }
    QCustomPlot* plot() const { return plot_; }
    // Asks first (the module's code runs); returns false when the user declined.
    bool confirmAndRun();
    void showResults();  // redraws the chart from controller()->results() and the stored times
    // Adds results saved from `kiln-cli rebench --json [--kernels]` and redraws; error text or empty.
    QString loadResultsFile(const QString& path);
    QStringList rows() const { return rows_; }  // the chart's rows, top to bottom

private:
    QString module_;
    StoredKernelTimes stored_;
    QStringList rows_;
    RebenchController* controller_;
    QLineEdit* devices_;
    QPushButton* run_;
    QPushButton* load_;
    QLabel* status_;
    QCustomPlot* plot_;
};

}  // namespace kiln::ui
