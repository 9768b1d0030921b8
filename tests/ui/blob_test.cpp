// A Mega-Cache blob opened in the desktop app like a cache root, offscreen on the h100h200
// fixture's megacache.bin (written by torch 2.11 on an H200): the browser lists the graph entries
// `kiln-cli bundle ls` lists, an fxgraph entry's Summary, Guards and Key components tabs work, the
// title names the blob (never the temporary root), and the temporary root goes when another root
// is opened and when the window closes.
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QProcess>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTextBrowser>

#include "bundle/blob.hpp"
#include "bundle/temp_root.hpp"
#include "timings/collect.hpp"
#include "ui/browser/cache_browser.hpp"
#include "ui/charts/choice_bars.hpp"
#include "ui/inspector/guards_panel.hpp"
#include "ui/inspector/inspector_widget.hpp"
#include "ui/inspector/key_components_model.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/overview/overview_panel.hpp"
#include "ui/shell/main_window.hpp"
#include "ui/shell/root_resolver.hpp"
#include "ui/tuning/autotune_table_model.hpp"
#include "ui_test_support.hpp"

using namespace kiln::ui;
using kiln::inductor::Category;

namespace {

QString blob() { return test::h100h200Dir() + "/h200/megacache.bin"; }

bool idle(MainWindow& w) { return w.browser()->tree() && !w.jobs()->isBusy(); }

// The directory the blob was unpacked into (<tmp>/kiln-blob-XXXXXX), or empty.
QString tempDirOf(const MainWindow& w) {
    const auto opened = w.openedRoot();
    if (!opened || !opened->is_blob()) return {};
    return QFileInfo(QString::fromStdString(opened->root.string())).absolutePath();
}

}  // namespace

class BlobTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QCoreApplication::setOrganizationName("KilnTest");
        QVERIFY2(QFileInfo(blob()).isFile(), "KILN_FIXTURE_DIR must point at the extracted fixtures");
        QVERIFY(kiln::bundle::is_blob_file(blob().toStdString()));
        QVERIFY(!kiln::bundle::is_blob_file(test::h100Root().toStdString()));
        QCOMPARE(chooseStartupRoot(blob()).path, blob());  // `kiln BLOB`
    }

    void aBlobOpensLikeARoot() {
        MainWindow w;
        w.show();
        w.openRoot(blob());
        QVERIFY(test::waitFor([&] { return idle(w) && w.openedRoot() && w.openedRoot()->is_blob(); }));
        const QString temp = tempDirOf(w);
        QVERIFY(QDir(temp).exists());
        QVERIFY(QFileInfo(temp).fileName().startsWith("kiln-blob-"));
        QCOMPARE(w.blobPath(), blob());
        QVERIFY(w.windowTitle().contains("Mega-Cache blob"));
        QVERIFY(w.windowTitle().contains(blob()));
        QVERIFY(!w.windowTitle().contains(temp));
        auto* banner = w.findChild<QLabel*>("rootBanner");
        QVERIFY(banner && banner->isVisible() && banner->text().contains("Mega-Cache blob"));
        QVERIFY(!banner->text().contains(temp));

        // The graph entries bundle ls lists, each once.
        const QJsonObject ls = test::runCliJson({"bundle", "ls", blob(), "--json"}).object();
        int graphArtifacts = 0;
        for (const auto& a : ls["artifacts"].toArray()) {
            const QString type = a.toObject()["type"].toString();
            if (type == "inductor" || type == "aot_autograd") ++graphArtifacts;
        }
        QCOMPARE(graphArtifacts, 9);  // run_mega.json: 5 inductor, 4 aot_autograd
        const auto tree = w.browser()->tree();
        int graphFiles = 0;
        QString fxEntry;
        for (int i = 0; i < tree->size(); ++i) {
            const auto& n = tree->node(i);
            if (n.kind != CacheNode::Kind::file) continue;
            if (n.category == Category::fxgraph || n.category == Category::aotautograd) ++graphFiles;
            if (n.category == Category::fxgraph && fxEntry.isEmpty()) fxEntry = tree->path(i);
        }
        QCOMPARE(graphFiles, graphArtifacts);

        // An fxgraph entry: Summary, Guards and Key components, decoded as from a cache dir.
        QString shown;
        connect(&w, &MainWindow::inspectionShown, this, [&](const QString& p) { shown = p; });
        QVERIFY(w.browser()->selectPath(fxEntry));
        QVERIFY(test::waitFor([&] { return shown == fxEntry && !w.jobs()->isBusy(); }));
        InspectorWidget* ins = w.inspector();
        QVERIFY(ins->isTabEnabled(InspectorWidget::SummaryTab));
        QVERIFY2(ins->summaryView()->toPlainText().contains("FX graph"), qPrintable(ins->summaryView()->toPlainText()));
        QVERIFY(ins->isTabEnabled(InspectorWidget::GuardsTab));
        QVERIFY(test::waitFor([&] { return ins->guardsPanel()->keyDir() == QFileInfo(fxEntry).absolutePath(); }));
        QVERIFY(ins->isTabEnabled(InspectorWidget::KeyComponentsTab));
        auto* comps = ins->findChild<KeyComponentsModel*>();
        QVERIFY(comps);
        QVERIFY(comps->rowCount() > 50);
        bool hasDevice = false;
        for (int r = 0; r < comps->rowCount(); ++r)
            hasDevice |= comps->index(r, KeyComponentsModel::NameColumn).data().toString() == "system_info[device]";
        QVERIFY(hasDevice);
        test::saveScreenshot(&w, "blob.png");

        // Another root: the temporary root goes.
        w.openRoot(test::twoEntriesRoot());
        QVERIFY(test::waitFor([&] { return idle(w) && w.currentRoot() == test::twoEntriesRoot(); }));
        QVERIFY(w.blobPath().isEmpty());
        QVERIFY(test::waitFor([&] { return !QDir(temp).exists(); }, 10000));
        QVERIFY(!w.windowTitle().contains("Mega-Cache"));
    }

    // What a new user hit on a blob: the Overview said "Autotuned ops: 0", named its frames "(unnamed)" and
    // suggested commands on the temporary folder; the Autotune view listed the blob's .best_config as
    // failed choices with no time. The runs beside the blob name its entries, commands name the blob, and a
    // per-kernel config is shown as what it is.
    void blobViewsNameTheBlobAndItsRuns() {
        MainWindow w;
        w.show();
        w.openRoot(blob());
        QVERIFY(test::waitFor([&] { return idle(w) && w.openedRoot() && w.openedRoot()->is_blob(); }));
        QVERIFY(test::waitFor([&] { return !w.overviewPanel()->isLoading() && !w.jobs()->isBusy(); }, 120000));
        const QString temp = tempDirOf(w);
        const QString text = w.overviewPanel()->view()->toPlainText();
        QVERIFY2(!text.contains(temp), qPrintable(text));
        QVERIFY2(text.contains("kiln-cli portable " + blob() + " --target local"), qPrintable(text));
        QVERIFY2(text.contains("kiln-cli check " + blob()), qPrintable(text));
        QVERIFY2(!text.contains("(unnamed)"), qPrintable(text));
        QVERIFY2(text.contains("(gen_inductor_cache.py:"), qPrintable(text));  // named by h200/trace beside the blob
        QVERIFY2(text.contains("1 per-kernel configs"), qPrintable(text));
        QVERIFY2(text.contains("nothing to evict"), qPrintable(text));

        auto set = kiln::timings::collect_timings({w.currentRoot().toStdString()});
        QVERIFY(set.ok());
        int configs = 0;
        for (const auto& op : set->ops) {
            if (!kiln::timings::is_per_kernel_config(op)) continue;
            ++configs;
            const ChoiceBars bars = choiceBars(op);
            QVERIFY2(bars.failed.isEmpty(), qPrintable(bars.failed.join("; ")));
            QVERIFY2(bars.note.contains("XBLOCK 512") && bars.note.contains("coordinate descent"),
                     qPrintable(bars.note));
        }
        QCOMPARE(configs, 1);
        AutotuneTableModel model;
        model.setTimings(std::make_shared<const kiln::timings::TimingSet>(std::move(*set)));
        const QModelIndex op = model.index(0, 0);
        QVERIFY2(op.data().toString().contains("per-kernel config"), qPrintable(op.data().toString()));
        QCOMPARE(model.index(0, AutotuneTableModel::MsCol, op).data().toString(), QStringLiteral("config"));
    }

    void closingTheWindowRemovesTheTemporaryRoot() {
        QString temp;
        {
            MainWindow w;
            w.show();
            w.openRoot(blob());
            QVERIFY(test::waitFor([&] { return idle(w) && w.openedRoot() && w.openedRoot()->is_blob(); }));
            temp = tempDirOf(w);
            QVERIFY(QDir(temp).exists());
            w.close();
            QVERIFY(test::waitFor([&] { return !QDir(temp).exists(); }, 10000));
        }
        QVERIFY(!QDir(temp).exists());
    }

    void aBrokenBlobIsAClearErrorAndKeepsTheOpenCache() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString broken = dir.filePath("broken.bin");
        MainWindow w;
        w.show();
        w.openRoot(test::twoEntriesRoot());
        QVERIFY(test::waitFor([&] { return idle(w); }));
        // The first 4 KB of the real blob: the header says blob, the groups are cut short.
        QFile in(blob());
        QVERIFY(in.open(QIODevice::ReadOnly));
        QFile out(broken);
        QVERIFY(out.open(QIODevice::WriteOnly));
        QCOMPARE(out.write(in.read(4096)), qint64(4096));
        out.close();
        QVERIFY(kiln::bundle::is_blob_file(broken.toStdString()));
        w.openRoot(broken);
        QVERIFY(test::waitFor([&] { return !w.jobs()->isBusy(); }));
        QCOMPARE(w.currentRoot(), test::twoEntriesRoot());
        QVERIFY(w.blobPath().isEmpty());
        QVERIFY(w.browser()->tree()->size() > 0);
        QVERIFY(w.statusBar()->currentMessage().contains("broken.bin"));
        QVERIFY2(w.inspector()->summaryView()->toPlainText().contains("Cannot open"),
                 qPrintable(w.inspector()->summaryView()->toPlainText()));
        QVERIFY2(w.openError().contains("broken.bin"), qPrintable(w.openError()));
    }

    // `kiln --screenshots DIR BLOB` on a truncated blob waited 60 s, then said "the cache was not
    // scanned in time"; it stops as soon as the blob fails to open, with the blob's own error.
    void theScreenshotTourReportsABrokenBlobsError() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString broken = dir.filePath("broken.bin");
        QFile in(blob());
        QVERIFY(in.open(QIODevice::ReadOnly));
        QFile out(broken);
        QVERIFY(out.open(QIODevice::WriteOnly));
        QCOMPARE(out.write(in.read(4096)), qint64(4096));
        out.close();
        QProcess gui;
        gui.start(qEnvironmentVariable("KILN_GUI"), {QStringLiteral("--screenshots"), dir.filePath("shots"), broken});
        QVERIFY2(gui.waitForFinished(-1), qPrintable(gui.errorString()));
        const QString err = QString::fromUtf8(gui.readAllStandardError());
        QCOMPARE(gui.exitCode(), 1);
        QVERIFY2(err.contains("cannot open " + broken), qPrintable(err));
        QVERIFY2(!err.contains("in time"), qPrintable(err));
    }

    // A root whose path is not UTF-8 (here /tmp/…-\xfe/inductor) cannot be named by the window (Qt
    // decodes the argument to U+FFFD): the tour said "not scanned in time" after 60 s; it says why at once.
    void theScreenshotTourReportsANonUtf8Root() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QProcess gui;
        // Through sh: the \xfe byte cannot be passed as a QString argument.
        gui.start(QStringLiteral("/bin/sh"),
                  {QStringLiteral("-c"),
                   QStringLiteral("r=\"$2/$(printf 'x\\376')\"; mkdir -p \"$r\" && cp -r \"$3\" \"$r/inductor\" && "
                                  "exec \"$0\" --screenshots \"$1\" \"$r/inductor\""),
                   qEnvironmentVariable("KILN_GUI"), dir.filePath("shots"), dir.path(), test::twoEntriesRoot()});
        QVERIFY2(gui.waitForFinished(-1), qPrintable(gui.errorString()));
        const QString err = QString::fromUtf8(gui.readAllStandardError());
        QCOMPARE(gui.exitCode(), 1);
        QVERIFY2(err.contains("not valid UTF-8"), qPrintable(err));
        QVERIFY2(!err.contains("in time"), qPrintable(err));
    }
};

QTEST_MAIN(BlobTest)
#include "blob_test.moc"
