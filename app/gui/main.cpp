// kiln: the desktop application. A thin main(): arguments, then the main window.
#include <QApplication>
#include <QCommandLineParser>

#include <cstdio>
#include <cstdlib>

#include "ui/jobs/release_memory.hpp"
#include "ui/shell/install_views.hpp"
#include "ui/shell/main_window.hpp"
#include "ui/shell/screenshot_tour.hpp"
#include "version_info.hpp"

namespace {

struct Options {
    QCommandLineOption select{QStringLiteral("select"), QStringLiteral("Select this artifact once scanned."),
                              QStringLiteral("PATH")};
    QCommandLineOption shots{QStringLiteral("screenshots"),
                             QStringLiteral("Save the window with each tab into DIR as PNG files, then exit."),
                             QStringLiteral("DIR")};
    QCommandLineOption diffWith{QStringLiteral("diff-with"),
                                QStringLiteral("With --screenshots: diff the selected entry with PATH."),
                                QStringLiteral("PATH")};
    QCommandLineOption sizes{QStringLiteral("sizes"),
                             QStringLiteral("With --screenshots: values typed into the Guards tab (t0,t1,...)."),
                             QStringLiteral("N,...")};
    QCommandLineOption prefix{QStringLiteral("prefix"), QStringLiteral("With --screenshots: file name prefix."),
                              QStringLiteral("TEXT")};
    QCommandLineOption portability{QStringLiteral("portability-target"),
                                   QStringLiteral("With --screenshots: check the cache against this target in the "
                                                  "Portability view."),
                                   QStringLiteral("PATH")};
    QCommandLineOption version{{QStringLiteral("v"), QStringLiteral("version")},
                               QStringLiteral("Print Kiln's version and those of Qt, OpenSSL and CUDA, then exit.")};
};

void describe(QCommandLineParser& cli, const Options& o) {
    cli.setApplicationDescription(QStringLiteral("Inspector and tuner for torch.compile caches"));
    cli.addHelpOption();
    cli.addPositionalArgument(QStringLiteral("ROOT"),
                              QStringLiteral("Cache folder or Mega-Cache blob (default: $TORCHINDUCTOR_CACHE_DIR, else "
                                             "/tmp/torchinductor_<user>, else the bundled sample cache)"));
    cli.addOptions({o.select, o.shots, o.diffWith, o.sizes, o.prefix, o.portability, o.version});
}

// --help and --version need no display: answer them before QApplication opens a platform plugin
// (without X, QApplication aborts). Anything else is left to the full parse.
void answerWithoutDisplay(int argc, char** argv) {
    QCoreApplication core(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("kiln"));
    QCommandLineParser cli;
    const Options o;
    describe(cli, o);
    if (!cli.parse(QCoreApplication::arguments())) return;
    if (cli.isSet(QStringLiteral("help"))) {
        std::fputs(qPrintable(cli.helpText()), stdout);
        std::exit(0);
    }
    if (cli.isSet(o.version)) {
        std::printf("%s\n", kiln::cli::version_report("kiln", qVersion()).c_str());
        std::exit(0);
    }
}

}  // namespace

int main(int argc, char** argv) {
    kiln::ui::returnLargeBlocksWhenFreed();  // before any thread: a million-file scan's transients go back at once
    answerWithoutDisplay(argc, argv);
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Kiln"));
    QApplication::setOrganizationName(QStringLiteral("Kiln"));

    QCommandLineParser cli;
    const Options o;
    describe(cli, o);
    cli.process(app);
    const auto& [select, shots, diffWith, sizes, prefix, portability, version] = o;
    (void)version;

    kiln::ui::MainWindow w;
    kiln::ui::installAllViews(w);
    if (!cli.isSet(shots)) w.restoreWindow();  // the tour shoots a first start at a fixed size
    const QStringList args = cli.positionalArguments();
    w.openStartupRoot(args.isEmpty() ? QString() : args.front());
    if (cli.isSet(shots)) {
        w.resize(1400, 860);
        w.show();
        kiln::ui::TourOptions opt{cli.value(shots),  cli.value(select),     cli.value(diffWith), {},
                                  cli.value(prefix), cli.value(portability)};
        for (const QString& v : cli.value(sizes).split(QLatin1Char(','), Qt::SkipEmptyParts))
            opt.sizes << v.toLongLong();
        return kiln::ui::runScreenshotTour(w, opt);
    }
    if (cli.isSet(select)) w.selectWhenScanned(cli.value(select));
    w.show();
    return app.exec();
}
