#pragma once
// "Where the compile time went" at the top of the Compile timeline tab: for the process chosen (by
// default the one with the most avoidable seconds), its headline ("this process spent S compiling;
// A would go with X ..."), each compile as a bar split into its phases (PhaseBarChart: the cause on
// hover), a side panel with the clicked phase's cause and fix (the process's avoidable costs until
// one is clicked), and the table of compiles and phases (StartupModel).
#include <QWidget>

#include <memory>

#include "startup/startup_report.hpp"

class QComboBox;
class QLabel;
class QTextBrowser;
class QTreeView;

namespace kiln::ui {

class PhaseBarChart;
class StartupModel;

class StartupView : public QWidget {
    Q_OBJECT
public:
    explicit StartupView(QWidget* parent = nullptr);
    void setReport(std::shared_ptr<const startup::StartupReport> report, const QString& emptyText = {});
    std::shared_ptr<const startup::StartupReport> report() const { return report_; }
    void selectProcess(int index);
    int currentProcess() const;
    // Shows the cause and fix of a compile's phase in the side panel (what a click on the bar does).
    void showPhase(int compile, const QString& phase);

    PhaseBarChart* chart() const { return chart_; }
    StartupModel* model() const { return model_; }
    QTextBrowser* sidePanel() const { return side_; }
    QLabel* headline() const { return headline_; }
    QComboBox* processes() const { return processes_; }

    // The process whose avoidable seconds are the most (the first when none has any).
    static int biggestAvoidable(const startup::StartupReport& r);

private:
    void showAvoidable();

    std::shared_ptr<const startup::StartupReport> report_;
    QLabel* headline_;
    QComboBox* processes_;
    PhaseBarChart* chart_;
    QTextBrowser* side_;
    StartupModel* model_;
    QTreeView* table_;
};

}  // namespace kiln::ui
