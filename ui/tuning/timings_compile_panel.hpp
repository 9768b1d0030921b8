#pragma once
// "Compile times" tab: follows the open cache root; reads every graph entry's compile time and
// the cache's size by category in the background, charts them, and exports chart or data.
#include <QWidget>

class QLabel;

namespace kiln::ui {

class CompileTimeChart;
class JobRunner;

class TimingsCompilePanel : public QWidget {
    Q_OBJECT
public:
    explicit TimingsCompilePanel(JobRunner* jobs, QWidget* parent = nullptr);
    void loadRoot(const QString& root);
    CompileTimeChart* chart() const { return chart_; }
    bool isLoading() const;

public slots:
    void exportChartDialog();
    void exportDataDialog();

signals:
    void loaded(int graphs);

private:
    JobRunner* jobs_;
    CompileTimeChart* chart_;
    QLabel* status_;
};

}  // namespace kiln::ui
