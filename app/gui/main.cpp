// kiln: the desktop application. A thin main(): arguments, then the main window.
#include <QApplication>

#include "main_window.hpp"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Kiln"));
    QApplication::setOrganizationName(QStringLiteral("Kiln"));
    kiln::ui::MainWindow w;
    if (argc > 1) w.openRoot(QString::fromLocal8Bit(argv[1]));
    w.show();
    return app.exec();
}
