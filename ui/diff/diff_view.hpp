#pragma once
// The Diff workspace tab: pick two entries (or an entry and a cache miss from a TORCH_TRACE log),
// see the key components that changed side by side and a line diff of the graph code.
#include <QWidget>

#include <functional>

#include "ui/diff/entry_diff.hpp"

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;
class QTableWidget;

namespace kiln::ui {

class DiffLinesModel;
class JobRunner;

class DiffView : public QWidget {
    Q_OBJECT
public:
    DiffView(JobRunner* jobs, QWidget* parent = nullptr);
    void setRoot(const QString& root) { root_ = root; }
    void setSideA(const QString& spec);
    void setSideB(const QString& spec);
    // Where "Use selection" takes a path from (the cache browser).
    void setSelectionProvider(std::function<QString()> provider) { selection_ = std::move(provider); }
    void setSourceFontSize(int pt);
    void compare();
    // Reads the cache events of a TORCH_TRACE log (file or directory) into the event picker.
    void loadTrace(const QString& path);
    // The loaded log's cache events: the first that names `key` (a miss first), or -1.
    int traceEventOf(const QString& key) const;
    // Event `i` of the loaded log becomes side B, shown in the picker as if chosen there.
    void pickTraceEvent(int i);

    const DiffOutcome& outcome() const { return outcome_; }
    QTableWidget* changesTable() const { return changes_; }

signals:
    void compared();
    void traceLoaded();

private:
    void showOutcome(DiffOutcome o);
    QWidget* sideRow(const QString& label, QLineEdit* edit);

    JobRunner* jobs_;
    QString root_;
    std::function<QString()> selection_;
    QLineEdit* a_;
    QLineEdit* b_;
    QComboBox* events_;
    QLabel* summary_;
    QTableWidget* changes_;
    QTableView* linesView_;
    DiffLinesModel* lines_;
    DiffOutcome outcome_;
    TraceEvents trace_;
};

}  // namespace kiln::ui
