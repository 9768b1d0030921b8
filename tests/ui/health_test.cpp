// The Health view on a scratch copy of a fixture: its model under QAbstractItemModelTester, the
// problems it shows, quarantine (healthy afterwards) and restore (the same bytes back); in the main
// window, one check of the window's scan shared by the Overview's count and the view.
#include <QAbstractItemModelTester>
#include <QCryptographicHash>
#include <QDirIterator>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "frontend/open_cache.hpp"
#include "health/check.hpp"
#include "ui/browser/cache_browser.hpp"
#include "ui/health/health_install.hpp"
#include "ui/health/health_panel.hpp"
#include "ui/health/scan_health.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/overview/overview_panel.hpp"
#include "ui/shell/main_window.hpp"
#include "ui_test_support.hpp"

using namespace kiln::ui;

namespace {

// sha256 of every file under root, the quarantine folder left out.
QMap<QString, QByteArray> digestTree(const QString& root) {
    QMap<QString, QByteArray> out;
    QDirIterator it(root, QDir::Files | QDir::Hidden | QDir::NoSymLinks, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QString rel = QDir(root).relativeFilePath(path);
        if (rel.startsWith(QStringLiteral(".kiln-quarantine"))) continue;
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly)) continue;
        out[rel] = QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
    }
    return out;
}

bool copyTree(const QString& from, const QString& to);

// A copy of the two-entries fixture with two problems: a temporary left two hours ago, a lock whose key is gone
// (as old, and held by nobody).
bool brokenCopy(const QString& root) {
    if (!copyTree(test::twoEntriesRoot(), root)) return false;
    QFile temp(root + QStringLiteral("/.77.78.tmp"));
    if (!temp.open(QIODevice::WriteOnly)) return false;
    temp.write("partial");
    temp.flush();
    if (!temp.setFileTime(QDateTime::currentDateTime().addSecs(-7200), QFileDevice::FileModificationTime)) return false;
    QDir().mkpath(root + QStringLiteral("/locks"));
    QFile lock(root + QStringLiteral("/locks/c") + QString(51, QLatin1Char('q')) + QStringLiteral(".lock"));
    return lock.open(QIODevice::WriteOnly) &&
           lock.setFileTime(QDateTime::currentDateTime().addSecs(-7200), QFileDevice::FileModificationTime);
}

bool copyTree(const QString& from, const QString& to) {
    QDirIterator it(from, QDir::Files | QDir::Hidden | QDir::NoSymLinks, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QString target = to + QLatin1Char('/') + QDir(from).relativeFilePath(path);
        QDir().mkpath(QFileInfo(target).path());
        if (!QFile::copy(path, target)) return false;
    }
    return true;
}

// A shown window with the Health view, and a broken copy of the H100 fixture (two problems) to open.
struct HealthWindow {
    QTemporaryDir scratch;
    QString root = scratch.path() + QStringLiteral("/cache");
    MainWindow w;
    HealthPanel* panel = installHealthView(w);
    QSignalSpy computed{w.overviewPanel(), &OverviewPanel::computed};
    QSignalSpy viewUpdated{panel, &HealthPanel::updated};
    bool ready() {
        if (!scratch.isValid() || !brokenCopy(root)) return false;
        w.resize(1000, 700);
        w.show();
        return true;
    }
};

}  // namespace

class HealthTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QCoreApplication::setOrganizationName("KilnTest");  // keep the user's settings out of it
    }

    void selectingAnEntryShowsItInTheCacheTab() {
        // The view reaches the window through ViewHost; a selected entry shows in the Cache tab (the
        // installer used to switch to the first tab, which is the Overview).
        HealthWindow hw;
        QVERIFY(hw.ready());
        hw.w.openRoot(hw.root);
        QVERIFY(hw.computed.wait(60000));
        QDirIterator it(hw.root, {QStringLiteral("*.py")}, QDir::Files, QDirIterator::Subdirectories);
        QVERIFY(it.hasNext());
        const QString path = it.next();
        QTRY_VERIFY_WITH_TIMEOUT(hw.w.browser()->tree() && hw.w.browser()->tree()->findPath(path) > 0, 30000);
        QVERIFY(hw.w.showView(QStringLiteral("Health")));
        emit hw.panel->entrySelected(path);
        QCOMPARE(hw.w.workspace()->tabText(hw.w.workspace()->currentIndex()), QStringLiteral("Cache"));
    }

    void openingTheWindowChecksOnceForTheOverviewAndTheView() {
        HealthWindow hw;
        QVERIFY(hw.ready());
        hw.w.openRoot(hw.root);
        QVERIFY(hw.computed.wait(60000));
        const auto overview = hw.w.overviewPanel()->overview();
        QVERIFY(overview);
        QVERIFY(overview->health.error.empty());
        QCOMPARE(overview->health.problems, std::size_t(2));
        // The view behind its tab already holds the Overview's report; showing it checks nothing again.
        QTRY_COMPARE_WITH_TIMEOUT(hw.viewUpdated.size(), 1, 10000);
        QVERIFY(hw.w.showView(QStringLiteral("Health")));
        QTest::qWait(200);
        QCOMPARE(hw.w.jobs()->startedCount(QLatin1String(ScanHealth::kChannel)), quint64(1));
        QCOMPARE(hw.w.jobs()->startedCount(QStringLiteral("health")), quint64(0));  // the view ran none of its own
        QCOMPARE(hw.panel->model()->problemCount(), int(overview->health.problems));
        QCOMPARE(hw.panel->model()->report(), hw.w.scanHealth()->result()->report);  // one report, shared
        QCOMPARE(hw.viewUpdated.size(), 1);
    }

    void theViewShownFirstAsksForTheSameCheck() {
        HealthWindow hw;
        QVERIFY(hw.ready());
        QVERIFY(hw.w.showView(QStringLiteral("Health")));
        hw.w.openRoot(hw.root);
        QVERIFY(hw.viewUpdated.wait(60000));
        QCOMPARE(hw.panel->model()->problemCount(), 2);
        if (hw.computed.isEmpty()) QVERIFY(hw.computed.wait(60000));
        QCOMPARE(hw.w.overviewPanel()->overview()->health.problems, std::size_t(2));
        QCOMPARE(hw.w.jobs()->startedCount(QLatin1String(ScanHealth::kChannel)), quint64(1));
        QCOMPARE(hw.w.jobs()->startedCount(QStringLiteral("health")), quint64(0));
    }

    void quarantineAndRestoreThroughTheView() {
        QTemporaryDir scratch;
        QVERIFY(scratch.isValid());
        const QString root = scratch.path() + QStringLiteral("/cache");
        QVERIFY(copyTree(test::twoEntriesRoot(), root));
        // Two problems: a temporary left two hours ago and a lock, as old and unheld, whose key is gone.
        const QString temp = root + QStringLiteral("/.77.78.tmp");
        {
            QFile f(temp);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("partial");
            f.flush();
            QVERIFY(f.setFileTime(QDateTime::currentDateTime().addSecs(-7200), QFileDevice::FileModificationTime));
        }
        QDir().mkpath(root + QStringLiteral("/locks"));
        QFile lock(root + QStringLiteral("/locks/c") + QString(51, QLatin1Char('q')) + QStringLiteral(".lock"));
        QVERIFY(lock.open(QIODevice::WriteOnly));
        QVERIFY(lock.setFileTime(QDateTime::currentDateTime().addSecs(-7200), QFileDevice::FileModificationTime));
        lock.close();
        const auto before = digestTree(root);

        JobRunner jobs;
        HealthPanel panel(&jobs);
        QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy updated(&panel, &HealthPanel::updated);
        panel.setRoot(root);
        QVERIFY(updated.wait(60000));
        QCOMPARE(updated.last().at(0).toInt(), 2);
        QCOMPARE(panel.model()->problemCount(), 2);
        QCOMPARE(panel.model()->rowCount(), 2);  // stale_temp and orphan_lock, one row each
        // The Overview's count comes from the same core function.
        auto opened = kiln::frontend::open_cache(std::filesystem::path(root.toStdString()));
        QVERIFY(opened.ok());
        QCOMPARE(kiln::health::count_problems(opened->opened()).value(), std::size_t(2));
        const QModelIndex first = panel.model()->index(0, 0, panel.model()->index(0, 0));
        QVERIFY(!first.data(HealthModel::WhyRole).toString().isEmpty());
        QVERIFY(first.data(HealthModel::PathRole).toString().startsWith(root));

        panel.quarantine();
        QVERIFY(updated.wait(60000));
        QCOMPARE(updated.last().at(0).toInt(), 0);
        QCOMPARE(panel.model()->rowCount(), 0);
        QVERIFY(!QFile::exists(temp));
        QCOMPARE(panel.quarantineIds().size(), 1);

        panel.restore(panel.quarantineIds().front());
        QVERIFY(updated.wait(60000));
        QCOMPARE(updated.last().at(0).toInt(), 2);
        QVERIFY(panel.quarantineIds().isEmpty());
        QCOMPARE(digestTree(root), before);
        test::saveScreenshot(&panel, QStringLiteral("health.png"));
    }
};

QTEST_MAIN(HealthTest)
#include "health_test.moc"
