#pragma once
// "New tuning session": pick a spec (the shipped examples are listed), devices (detected GPUs and
// the CPU), worker processes or in-process, strategy and budget; run it through the
// LauncherController with a progress bar and a live chart; cancel; failed choices show why.
#include <QDialog>

#include "ui/runs/launcher_controller.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QRadioButton;
class QSpinBox;

namespace kiln::ui {

class ChoiceBarChart;

class LauncherDialog : public QDialog {
    Q_OBJECT
public:
    explicit LauncherDialog(const QString& cacheRoot, QWidget* parent = nullptr);

    // resources/examples/*.json wherever this build or installation keeps them.
    static QStringList exampleSpecs();
    LaunchRequest request() const;
    LauncherController* controller() const { return controller_; }
    ChoiceBarChart* chart() const { return chart_; }
    QComboBox* specBox() const { return spec_; }

public slots:
    void run();

signals:
    void sessionFinished(const QString& sessionLog);

private:
    void onUpdated();
    void onFinished(bool ok, const QString& message);

    QString cacheRoot_;
    LauncherController* controller_;
    QComboBox* spec_;
    QListWidget* devices_;
    QRadioButton* workers_;
    QRadioButton* inProcess_;
    QComboBox* strategy_;
    QSpinBox* budget_;
    QDoubleSpinBox* seconds_;
    QProgressBar* progress_;
    ChoiceBarChart* chart_;
    QLabel* status_;
    QPushButton* run_;
    QPushButton* cancel_;
};

}  // namespace kiln::ui
