#pragma once
// "Recompile…" on a code-cache artifact: rebuild its C++/CUDA source with chosen flags (forced),
// then show the compiler's output, the duration and the artifact's build history (sidecar).
#include <QDialog>

#include "ui/runs/recompile_job.hpp"

class QCheckBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;

namespace kiln::ui {

class JobRunner;

class RecompileDialog : public QDialog {
    Q_OBJECT
public:
    RecompileDialog(const QString& sourcePath, JobRunner* jobs, QWidget* parent = nullptr);
    QPlainTextEdit* output() const { return output_; }
    QTableWidget* history() const { return history_; }
    QString artifactPath() const { return artifact_; }

public slots:
    void rebuild();

signals:
    void rebuilt(bool ok);

private:
    void showHistory();

    QString source_;
    QString artifact_;
    JobRunner* jobs_;
    QLineEdit* flags_;
    QCheckBox* force_;
    QPushButton* run_;
    QLabel* status_;
    QPlainTextEdit* output_;
    QTableWidget* history_;
};

}  // namespace kiln::ui
