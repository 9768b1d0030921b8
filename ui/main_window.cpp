#include "main_window.hpp"

#include <QListWidget>
#include <QStatusBar>

namespace kiln::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(QStringLiteral("Kiln"));
    list_ = new QListWidget(this);
    setCentralWidget(list_);
    resize(1100, 700);
}

void MainWindow::openRoot(const QString& root) {
    setWindowTitle(QStringLiteral("Kiln — %1").arg(root));
    statusBar()->showMessage(root);
}

}  // namespace kiln::ui
