#pragma once
// "Re-tune on this machine…" in the Autotune view: choose ops and GPUs, run the cache's own
// choices there (RetuneController), watch one bar per device fill as choices finish, then read
// each choice's recorded time beside its measured time per device, with its status and why.
// Cancel stops the run. The run's session logs are ordinary Kiln session logs: the Autotune view
// and Compare devices read them once the view reloads (finishedRun).
#include <QDialog>
#include <QMap>

#include "ui/runs/retune_controller.hpp"

class QCheckBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QVBoxLayout;

namespace kiln::ui {

class HandbackBar;

class RetuneDialog : public QDialog {
    Q_OBJECT
public:
    RetuneDialog(const QString& cacheRoot, QWidget* parent = nullptr);
    RetuneController* controller() const { return controller_; }
    QTableWidget* table() const { return table_; }
    QString run();  // starts with the dialog's fields; error text or empty
    // Shows a report saved from `kiln-cli retune --json`; error text or empty.
    QString loadReportFile(const QString& path);
    QStringList deviceBars() const { return bars_.keys(); }
    int barValue(const QString& device) const;
    // Hand the finished re-tune to torch (issue 31): enabled once a run finished or a report loaded.
    HandbackBar* handback() const { return handback_; }

signals:
    void finishedRun();  // a run ended: its session logs are on disk

private:
    void showProgress();
    void showReport();

    QString root_;
    RetuneController* controller_;
    QLineEdit* op_;
    QLineEdit* devices_;
    QCheckBox* eachDevice_;
    QPushButton* start_;
    QPushButton* cancel_;
    QPushButton* load_;
    QLabel* status_;
    QVBoxLayout* barsLayout_;
    QMap<QString, QProgressBar*> bars_;
    QTableWidget* table_;
    HandbackBar* handback_;
};

}  // namespace kiln::ui
