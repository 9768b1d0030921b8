#pragma once
// The status bar's permanent part: what is running (with a progress bar and a Cancel button)
// and the cache's totals, like `kiln-cli stats` prints them.
#include <QWidget>

class QLabel;
class QProgressBar;
class QToolButton;

namespace kiln::ui {

struct CacheTree;

class StatusPanel : public QWidget {
    Q_OBJECT
public:
    explicit StatusPanel(QWidget* parent = nullptr);
    void setProgress(const QString& label, qint64 done, qint64 total);
    void setBusy(bool busy);
    void setTotals(const CacheTree& tree);
    QString totalsText() const;

signals:
    void cancelRequested();

private:
    QLabel* label_;
    QProgressBar* bar_;
    QToolButton* cancel_;
    QLabel* totals_;
};

}  // namespace kiln::ui
