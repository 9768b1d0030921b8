#pragma once
// "Re-tune on this machine…" in the Autotune view: choose ops and GPUs, run the cache's own
// choices there (RetuneController), watch one bar per device fill as choices finish, then read
// each choice's recorded time beside its measured time per device, with its status and why.
// Above the tables, what the report means (RetuneResults, core's values): which statistic Kiln's
// times are, how they compare with the times recorded in the cache, and what the hand-back buttons
// will hand to torch (ops complete, choices written as Infinity and why, ops left out and why), or
// why nothing was measured (no GPU here: the no-GPU workflow). Cancel stops the run. The run's
// session logs are ordinary Kiln session logs: the Autotune view and Compare devices read them once
// the view reloads (finishedRun).
#include <QDialog>
#include <QMap>

#include "ui/runs/retune_controller.hpp"

class QCheckBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QTabWidget;
class QVBoxLayout;

namespace kiln::ui {

class HandbackBar;
class JobRunner;

class RetuneDialog : public QDialog {
    Q_OBJECT
public:
    // `opened`: the cache root as the window opened it (a run follows its progress beneath it); `jobs`
    // reads reports off the UI thread (it outlives the dialog).
    RetuneDialog(std::shared_ptr<const bundle::RootOrBlob> opened, JobRunner* jobs, QWidget* parent = nullptr);
    RetuneController* controller() const { return controller_; }
    QTableWidget* table() const { return table_; }
    // The Infinity choices and the ops left out of a hand-back, each with why.
    QTableWidget* handbackTable() const { return handbackTable_; }
    QString run();  // starts with the dialog's fields; error text or empty
    // Shows a report saved from `kiln-cli retune --json`, read on the job runner: reportShown says
    // when. False (nothing started) while a run is in progress.
    bool loadReportFile(const QString& path);
    QStringList deviceBars() const { return bars_.keys(); }
    int barValue(const QString& device) const;
    QString statusText() const;
    // The report's meaning: statistic, Kiln against recorded, the hand-back, or why nothing was measured.
    QString summaryText() const;
    // Hand the finished re-tune to torch (issue 31): enabled once a run finished or a report loaded.
    HandbackBar* handback() const { return handback_; }

signals:
    void finishedRun();                      // a run ended: its session logs are on disk
    void reportShown(const QString& error);  // a report opened with loadReportFile is shown (or why not)

private:
    void showProgress();
    void showReport();
    void showSummary(const QString& failure);
    void showHandback();

    QString root_;
    std::shared_ptr<const bundle::RootOrBlob> opened_;
    RetuneController* controller_;
    QLineEdit* op_;
    QLineEdit* devices_;
    QCheckBox* eachDevice_;
    QPushButton* start_;
    QPushButton* cancel_;
    QPushButton* load_;
    QLabel* status_;
    QLabel* summary_;
    QVBoxLayout* barsLayout_;
    QMap<QString, QProgressBar*> bars_;
    QTabWidget* tabs_;
    QTableWidget* table_;
    QTableWidget* handbackTable_;
    HandbackBar* handback_;
};

}  // namespace kiln::ui
