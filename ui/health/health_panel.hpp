#pragma once
// The Health view: `kiln-cli check` on the open cache (problems by kind, stale entries apart),
// selecting a problem shows its entry, and Quarantine / Restore move the problem groups out of the
// cache and back (core/health; the work runs on the JobRunner's "health" channel).
#include <QWidget>

#include <memory>

#include "ui/health/health_model.hpp"

class QComboBox;
class QLabel;
class QPushButton;
class QTreeView;

namespace kiln::ui {

class JobRunner;
class CacheTree;
class ScanHealth;
struct ScanHealthResult;

class HealthPanel : public QWidget {
    Q_OBJECT
public:
    explicit HealthPanel(JobRunner* jobs, QWidget* parent = nullptr);
    // The window's one check of its scan (shared with the Overview's count): checkTree() shows it.
    void setScanHealth(ScanHealth* shared);
    HealthModel* model() const { return model_; }
    QTreeView* view() const { return view_; }
    QString root() const { return root_; }
    QStringList quarantineIds() const { return quarantines_; }
    QString lastMessage() const { return message_; }

public slots:
    void setRoot(const QString& root);         // and check it
    void setRootQuietly(const QString& root);  // no check until checkTree() or check()
    // The window's scan of the open root: checked without walking the root again (check_scan). With a
    // ScanHealth, its shared report is shown: asked for when the view shows (the Overview asks for it
    // anyway), so opening the window runs one check, not one per view.
    void checkTree(std::shared_ptr<const CacheTree> tree);
    void check();
    void quarantine();  // the problem groups of the last check
    void restore(const QString& id);
    void restoreSelected();  // the quarantine chosen in the combo box

signals:
    void updated(int problems);               // a check (after quarantine/restore too) finished
    void entrySelected(const QString& path);  // a problem activated: the absolute path of its file
    void cacheChanged();                      // quarantine or restore moved files

private:
    enum class Action { check, quarantine, restore };
    void run(Action action, const QString& id = {});
    void refreshButtons();
    void onCurrentChanged(const QModelIndex& index);
    void showShared(const std::shared_ptr<const ScanHealthResult>& result);
    void showOutcome(std::shared_ptr<const health::HealthReport> report);

protected:
    void showEvent(QShowEvent* e) override;  // asks for the shared check the scan is waiting on

private:
    JobRunner* jobs_;
    HealthModel* model_;
    QTreeView* view_;
    QLabel* summary_;
    QLabel* why_;
    QPushButton* check_;
    QPushButton* quarantine_;
    QComboBox* ids_;
    QPushButton* restore_;
    QString root_;
    std::shared_ptr<const CacheTree> tree_;  // set while checkTree() starts its check (no ScanHealth)
    ScanHealth* shared_ = nullptr;
    bool wantsShared_ = false;  // the scan's shared report is what this view should show next
    QStringList quarantines_;
    QString message_;
    bool busy_ = false;
};

}  // namespace kiln::ui
