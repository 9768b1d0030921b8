// kiln: the desktop application. A thin main(): arguments, then the main window.
#include <QApplication>
#include <QCommandLineParser>

#include <cstdio>
#include <cstring>

#include "app/screenshot_tour.hpp"
#include "main_window.hpp"
#include "timings_install.hpp"
#include "version_info.hpp"
#ifdef KILN_HAVE_REMOTE
#include "remote_install.hpp"
#endif

int main(int argc, char** argv) {
    // --version needs no display: answer before Qt opens a platform plugin.
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--version") == 0 || std::strcmp(argv[i], "-v") == 0) {
            std::printf("%s\n", kiln::cli::version_report("kiln", qVersion()).c_str());
            return 0;
        }
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Kiln"));
    QApplication::setOrganizationName(QStringLiteral("Kiln"));

    QCommandLineParser cli;
    cli.setApplicationDescription(QStringLiteral("Inspector and tuner for torch.compile caches"));
    cli.addHelpOption();
    cli.addPositionalArgument(QStringLiteral("ROOT"),
                              QStringLiteral("Cache folder (default: $TORCHINDUCTOR_CACHE_DIR, else "
                                             "/tmp/torchinductor_<user>, else the bundled sample cache)"));
    const QCommandLineOption select(QStringLiteral("select"), QStringLiteral("Select this artifact once scanned."),
                                    QStringLiteral("PATH"));
    const QCommandLineOption shots(QStringLiteral("screenshots"),
                                   QStringLiteral("Save the window with each tab into DIR as PNG files, then exit."),
                                   QStringLiteral("DIR"));
    const QCommandLineOption diffWith(QStringLiteral("diff-with"),
                                      QStringLiteral("With --screenshots: diff the selected entry with PATH."),
                                      QStringLiteral("PATH"));
    const QCommandLineOption sizes(QStringLiteral("sizes"),
                                   QStringLiteral("With --screenshots: values typed into the Guards tab (t0,t1,...)."),
                                   QStringLiteral("N,..."));
    const QCommandLineOption prefix(QStringLiteral("prefix"), QStringLiteral("With --screenshots: file name prefix."),
                                    QStringLiteral("TEXT"));
    cli.addOptions({select, shots, diffWith, sizes, prefix});
    cli.process(app);

    kiln::ui::MainWindow w;
    kiln::ui::installAutotuneViews(w);  // Autotune, Compare devices, Compile times tabs; Tune menu
#ifdef KILN_HAVE_REMOTE
    kiln::ui::installRemoteSource(w);  // the Redis source: a dock beside the cache browser
#endif
    const QStringList args = cli.positionalArguments();
    w.openStartupRoot(args.isEmpty() ? QString() : args.front());
    if (cli.isSet(shots)) {
        w.resize(1400, 860);
        w.show();
        kiln::ui::TourOptions opt{cli.value(shots), cli.value(select), cli.value(diffWith), {}, cli.value(prefix)};
        for (const QString& v : cli.value(sizes).split(QLatin1Char(','), Qt::SkipEmptyParts)) opt.sizes << v.toLongLong();
        return kiln::ui::runScreenshotTour(w, opt);
    }
    if (cli.isSet(select)) w.selectWhenScanned(cli.value(select));
    w.show();
    return app.exec();
}
