#pragma once
#include <QMainWindow>

class QListWidget;

namespace kiln::ui {

// The application's main window. (The full browser comes with the desktop-app issue.)
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    void openRoot(const QString& root);

private:
    QListWidget* list_ = nullptr;
};

}  // namespace kiln::ui
