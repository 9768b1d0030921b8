// kiln: the desktop application. A thin main(): arguments, then the main window.
#include <QApplication>
#include <QCommandLineParser>

#include "main_window.hpp"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Kiln"));
    QApplication::setOrganizationName(QStringLiteral("Kiln"));

    QCommandLineParser cli;
    cli.setApplicationDescription(QStringLiteral("Inspector and tuner for torch.compile caches"));
    cli.addHelpOption();
    cli.addPositionalArgument(QStringLiteral("ROOT"),
                              QStringLiteral("Cache folder (default: $TORCHINDUCTOR_CACHE_DIR, else "
                                             "/tmp/torchinductor_<user>, else the bundled sample cache)"));
    cli.process(app);

    kiln::ui::MainWindow w;
    const QStringList args = cli.positionalArguments();
    w.openStartupRoot(args.isEmpty() ? QString() : args.front());
    w.show();
    return app.exec();
}
