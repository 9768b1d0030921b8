#pragma once
// The Guards tab: one field per symbol (t0 … tn) of the selected key dir; every entry shows
// pass/fail and its failing conjunct; the entry torch would serve is highlighted and an
// ambiguous choice (several entries hold) is said in words.
#include <QWidget>

#include "ui/inspector/guard_eval.hpp"

class QFormLayout;
class QLabel;
class QLineEdit;
class QTableWidget;

namespace kiln::ui {

class JobRunner;

class GuardsPanel : public QWidget {
    Q_OBJECT
public:
    GuardsPanel(JobRunner* jobs, QWidget* parent = nullptr);
    // The key dir whose entries are checked; `selectedEntry` (a file name) is marked.
    void setKeyDir(const QString& keyDir, const QString& selectedEntry = {});
    QString keyDir() const { return keyDir_; }

    QStringList symbols() const { return symbols_.symbols; }
    QLineEdit* field(const QString& symbol) const;
    const GuardOutcome& outcome() const { return outcome_; }
    QTableWidget* table() const { return table_; }
    QString verdictText() const;

signals:
    void symbolsLoaded();
    void outcomeChanged();

private:
    void onSymbols(GuardSymbols s);
    void evaluate();
    void showOutcome(GuardOutcome o);

    JobRunner* jobs_;
    QString keyDir_;
    QString selectedEntry_;
    GuardSymbols symbols_;
    GuardOutcome outcome_;
    QWidget* fieldsBox_;
    QFormLayout* fields_;
    QVector<QLineEdit*> edits_;
    QLabel* verdict_;
    QTableWidget* table_;
};

}  // namespace kiln::ui
