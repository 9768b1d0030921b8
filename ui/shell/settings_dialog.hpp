#pragma once
#include <QDialog>

class QCheckBox;
class QComboBox;
class QSpinBox;

namespace kiln::ui {

class Settings;

// Theme, source font size, and watching the cache for changes; written to Settings on OK.
class SettingsDialog : public QDialog {
    Q_OBJECT
public:
    SettingsDialog(Settings& settings, QWidget* parent = nullptr);
    void accept() override;

private:
    Settings& settings_;
    QComboBox* theme_;
    QSpinBox* fontSize_;
    QCheckBox* watch_;
    QSpinBox* coalesce_;
};

}  // namespace kiln::ui
