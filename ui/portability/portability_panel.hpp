#pragma once
// The Portability view: "will this cache hit there?" for the open cache (a root or a Mega-Cache
// blob). Choose the target (this machine; a fingerprint file, graph entry or blob; a cache root or
// TORCH_TRACE dir), Check runs `kiln-cli portable`'s core calls off the UI thread; the summary in
// words comes first, then the chart, the verdict of every item and the selected one's components.
#include <QWidget>

#include <functional>
#include <memory>

#include "ui/portability/portability_job.hpp"

class QLabel;
class QPushButton;
class QRadioButton;
class QTableView;

namespace kiln::ui {

class DifferenceModel;
class JobRunner;
class PortabilityChart;
class VerdictModel;

class PortabilityPanel : public QWidget {
    Q_OBJECT
public:
    using RootProvider = std::function<std::shared_ptr<const bundle::RootOrBlob>()>;
    PortabilityPanel(JobRunner* jobs, RootProvider root, QWidget* parent = nullptr);

    void setTarget(const PortabilityTarget& target);
    PortabilityTarget target() const { return target_; }
    void check();             // runs the assessment (channel "portability")
    void clear();             // the open cache changed: the old verdicts no longer apply
    bool selectRow(int row);  // shows that item's components

    const PortabilityOutcome& outcome() const { return outcome_; }
    VerdictModel* verdicts() const { return verdicts_; }
    DifferenceModel* differences() const { return differences_; }
    PortabilityChart* chart() const { return chart_; }
    QTableView* verdictView() const { return verdictView_; }
    QString summaryText() const;

signals:
    void checked(const kiln::ui::PortabilityOutcome& outcome);  // after every run (error or report)
    void entryActivated(const QString& absolutePath);           // a row clicked: show it in the browser

private:
    void chooseFile();
    void chooseFolder();
    void showOutcome(PortabilityOutcome out);
    void onRowChanged(int row);

    JobRunner* jobs_;
    RootProvider root_;
    PortabilityTarget target_;
    QString chosenPath_;  // the last file or folder chosen (kept while "This machine" is checked)
    PortabilityOutcome outcome_;
    QRadioButton* thisMachine_;
    QRadioButton* fromPath_;
    QLabel* targetLabel_;
    QPushButton* checkButton_;
    QLabel* summary_;
    QLabel* legend_;
    PortabilityChart* chart_;
    VerdictModel* verdicts_;
    QTableView* verdictView_;
    QLabel* selectedLabel_;
    DifferenceModel* differences_;
    QTableView* differenceView_;
};

}  // namespace kiln::ui
