#pragma once
// "Compare ranks…" (Tune menu): where the ranks (or machines) of one job disagree, as `kiln-cli ranks
// DIR... --agree` reports it. Pick the rank folders (each a cache root, or a folder holding inductor/,
// stderr*.log and trace/), Compare reads and compares them off the UI thread (JobRunner; Cancel
// stops between ranks); the summary names the groups (GPU kind, timing-cache system, torch version)
// and the ranks that could not be read. "Differences" is the tree of divergent ops (every rank's
// winner and times), `.best_config`s and graph keys / output code, each with whether it changes
// numerics or only speed; "Agree" previews one agreed choice per op by the chosen rule, and can write
// it into every rank's own timing cache (`--write`, after a confirmation).
#include <QDialog>
#include <QPointer>

#include <memory>

#include "ui/ranks/ranks_job.hpp"

class QCheckBox;
class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;
class QTabWidget;
class QTableView;
class QTreeView;

namespace kiln::ui {

class AgreementModel;
class JobRunner;
class RanksModel;

class RanksDialog : public QDialog {
    Q_OBJECT
public:
    explicit RanksDialog(JobRunner* jobs, QWidget* parent = nullptr);
    ~RanksDialog() override;

    void setRankDirs(const QStringList& dirs);
    QStringList rankDirs() const;
    // What "Add folder…" adds: `dir` when it is a rank (a cache root or a folder holding one), else each
    // of its subfolders that is one (a job's rank0/ rank1/ ...), in name order.
    void addRankFolder(const QString& dir);
    void compare();  // reads and compares the listed folders (off the UI thread)
    void cancel();   // stops a comparison between two ranks
    bool isComparing() const { return comparing_; }
    void setRule(ranks::AgreeRule rule);  // agrees the compared ranks again by `rule`
    ranks::AgreeRule rule() const;
    void showGroup(int group);  // a group of the report (ranks of one kind) in both views
    // `kiln-cli ranks --agree --write`: asks first unless `confirm` is false (tests); then compares again.
    void writeAgreed(bool confirm = true);

    const RanksOutcome& outcome() const { return outcome_; }
    RanksModel* model() const { return model_; }
    AgreementModel* agreementModel() const { return agreement_; }
    QTreeView* treeView() const { return tree_; }
    QTabWidget* tabs() const { return tabs_; }
    QString summaryText() const;
    QString agreementText() const;

signals:
    void compared(const kiln::ui::RanksOutcome& outcome);  // after every comparison (error, cancel or report)
    void agreed();                                         // the agreement by a new rule is shown
    void written(const kiln::ui::RanksWriteOutcome& outcome);

private:
    void addFolder();
    void removeSelected();
    void showOutcome(RanksOutcome out);
    void showAgreement();
    void updateButtons();

    QPointer<JobRunner> jobs_;  // the window's runner may die first (a member, before its children)
    QString channel_;           // this dialog's job channel: another dialog's work never cancels it
    RanksOutcome outcome_;
    bool comparing_ = false;
    bool writing_ = false;
    QString writeNote_;  // what the last write wrote, shown beside the comparison that follows it
    QListWidget* dirs_;
    QPushButton* add_;
    QPushButton* remove_;
    QPushButton* compare_;
    QPushButton* cancel_;
    QLabel* status_;
    QLabel* summary_;
    QComboBox* group_;
    QLabel* legend_;
    QTabWidget* tabs_;
    RanksModel* model_;
    QTreeView* tree_;
    QComboBox* rule_;
    QCheckBox* showAll_;
    QLabel* agreementLabel_;
    AgreementModel* agreement_;
    QTableView* agreementView_;
    QPushButton* write_;
};

}  // namespace kiln::ui
