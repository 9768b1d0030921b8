// The Redis source of the desktop app against a real redis-server (tests/support/redis_server.hpp)
// filled with the fixture cache in Inductor's remote form: listing, its model, the dock in the main
// window opening a remote entry in the inspector's tabs, and the errors a user meets.
#include <qcustomplot.h>
#include <QAbstractItemModelTester>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>
#include <QTreeView>

#include <memory>
#include <set>

#include "redis_server.hpp"
#include "remote/redis_client.hpp"
#include "remote/redis_url.hpp"
#include "remote/remote_export.hpp"
#include "remote/remote_key.hpp"
#include "ui/inspector/guards_panel.hpp"
#include "ui/inspector/inspector_widget.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/remote/remote_connect_dialog.hpp"
#include "ui/remote/remote_install.hpp"
#include "ui/remote/remote_listing.hpp"
#include "ui/remote/remote_model.hpp"
#include "ui/remote/remote_panel.hpp"
#include "ui/shell/main_window.hpp"
#include "ui/source/code_view.hpp"
#include "ui_test_support.hpp"

using namespace kiln::ui;

class RemoteTest : public QObject {
    Q_OBJECT
    std::unique_ptr<kiln::test::RedisServer> server_;
    std::vector<kiln::remote::RemoteItem> items_;
    std::set<std::string> keys_;

    QString url() const { return QString::fromStdString(server_->url()); }

private slots:
    void initTestCase() {
        server_ = std::make_unique<kiln::test::RedisServer>();
        auto items = kiln::remote::remote_items_from_local(test::h100Root().toStdString());
        QVERIFY2(items.ok(), items.ok() ? "" : items.error().str().c_str());
        items_ = *items;
        for (const auto& it : items_) keys_.insert(it.redis_key);
        auto client = kiln::remote::RedisClient::connect(*kiln::remote::parse_redis_url(server_->url()));
        QVERIFY(client.ok());
        QVERIFY(kiln::remote::publish_items(*client, items_).ok());
    }

    void listingFeedsAModelThatPassesTheTester() {
        JobControl ctl;
        RemoteListing listing = listRemoteCache(url(), ctl);
        QVERIFY2(listing.error.isEmpty(), qPrintable(listing.error));
        QCOMPARE(listing.keys, static_cast<std::uint64_t>(keys_.size()));
        RemoteModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setListing(listing);
        int rows = 0;
        std::set<QString> groups;
        for (int g = 0; g < model.rowCount(); ++g) {
            const QModelIndex gi = model.index(g, 0);
            groups.insert(model.data(gi, RemoteModel::CacheIdRole).toString());
            QCOMPARE(model.data(gi).toString(), QStringLiteral("%1 (%2)")
                                                    .arg(model.data(gi, RemoteModel::CacheIdRole).toString())
                                                    .arg(model.rowCount(gi)));
            rows += model.rowCount(gi);
            for (int r = 0; r < model.rowCount(gi); ++r) {
                const QString state = model.data(model.index(r, RemoteModel::StateColumn, gi)).toString();
                QVERIFY2(state != QStringLiteral("corrupt"), qPrintable(state));  // the fixture is all sound
            }
        }
        QCOMPARE(rows, static_cast<int>(keys_.size()));
        QVERIFY(groups.count(QStringLiteral("fx-graph-v1")));
        QVERIFY(groups.count(QStringLiteral("autograd-experimental")));
    }

    void theDockOpensARemoteEntryInTheInspectorTabs() {
        MainWindow w;
        RemotePanel* panel = installRemoteSource(w);
        QSignalSpy listed(panel, &RemotePanel::listed);
        panel->connectTo(url());
        QVERIFY(test::waitFor([&] { return listed.count() > 0; }));
        QVERIFY(listed.at(0).at(1).toBool());
        QCOMPARE(panel->model()->listing().keys, static_cast<std::uint64_t>(keys_.size()));

        // Activate the first fx-graph-v1 key through the view, as a double-click would.
        QModelIndex target;
        auto* proxy = panel->view()->model();
        for (int g = 0; g < proxy->rowCount() && !target.isValid(); ++g) {
            const QModelIndex gi = proxy->index(g, 0);
            if (proxy->data(gi, RemoteModel::CacheIdRole).toString() == QStringLiteral("fx-graph-v1"))
                target = proxy->index(0, 0, gi);
        }
        QVERIFY(target.isValid());
        const QString redisKey = target.data(RemoteModel::RedisKeyRole).toString();
        QVERIFY(redisKey.startsWith(QStringLiteral("pt2:fx-graph-v1::")));
        QSignalSpy shown(&w, &MainWindow::inspectionShown);
        emit panel->view()->activated(target);
        QVERIFY(test::waitFor(
            [&] { return w.inspector()->sourceView()->toPlainText().contains(QStringLiteral("def call")); }));
        // The summary names the remote origin; the Guards tab works on the remote entry's key dir.
        const QString summary = w.inspector()->summaryView()->toPlainText();
        QVERIFY2(summary.contains(redisKey), qPrintable(summary.left(600)));
        QVERIFY2(summary.contains(QStringLiteral("redis://127.0.0.1:%1/0/").arg(server_->port())),
                 qPrintable(summary.left(600)));
        QVERIFY2(!summary.contains(QStringLiteral("0 bytes (0 bytes)")), "the remote value's size is shown");
        QVERIFY2(!summary.contains(QStringLiteral("remote-entry")), "no scratch path in the summary");
        QVERIFY(w.inspector()->isTabEnabled(InspectorWidget::GuardsTab));
        panel->view()->expandAll();
        panel->view()->setCurrentIndex(target);
        w.resize(1400, 800);
        QTest::qWait(300);  // let the inspector's follow-up jobs (guards) settle before the picture
        test::saveScreenshot(&w, QStringLiteral("redis.png"));
    }

    void wrongPasswordAndNoServerSayWhy() {
        kiln::test::RedisServer locked({"s3cret"});
        JobRunner jobs;
        RemotePanel panel(&jobs);
        QSignalSpy listed(&panel, &RemotePanel::listed);
        panel.connectTo(QStringLiteral("redis://:wrong@127.0.0.1:%1/0").arg(locked.port()));
        QVERIFY(test::waitFor([&] { return listed.count() > 0; }));
        QVERIFY(!listed.at(0).at(1).toBool());
        QCOMPARE(panel.model()->rowCount(), 0);
        QString status;
        for (auto* l : panel.findChildren<QLabel*>()) status += l->text();
        QVERIFY2(
            status.contains(QStringLiteral("AUTH"), Qt::CaseInsensitive) || status.contains(QStringLiteral("password")),
            qPrintable(status));
        QVERIFY2(!status.contains(QStringLiteral("wrong")), "the password must not be shown");

        listed.clear();
        panel.connectTo(QStringLiteral("redis://127.0.0.1:%1/0").arg(kiln::test::free_loopback_port()));
        QVERIFY(test::waitFor([&] { return listed.count() > 0; }));
        QVERIFY(!listed.at(0).at(1).toBool());
    }

    void connectDialogReadsTorchsVariablesAndRefusesTls() {
        qunsetenv("TORCHINDUCTOR_REDIS_URL");
        qputenv("TORCHINDUCTOR_REDIS_HOST", "cache.example");
        qputenv("TORCHINDUCTOR_REDIS_PORT", "6380");
        QCOMPARE(RemoteConnectDialog::urlFromEnvironment(), QStringLiteral("redis://cache.example:6380/0"));
        qputenv("TORCHINDUCTOR_REDIS_URL", "redis://team:7000/1");
        QCOMPARE(RemoteConnectDialog::urlFromEnvironment(),
                 QStringLiteral("redis://team:7000/1"));  // torch's URL wins over HOST/PORT
        qunsetenv("TORCHINDUCTOR_REDIS_URL");
        qunsetenv("TORCHINDUCTOR_REDIS_HOST");
        qunsetenv("TORCHINDUCTOR_REDIS_PORT");

        RemoteConnectDialog dlg(QStringLiteral("rediss://secure:6379"));
        dlg.accept();
        QCOMPARE(dlg.result(), static_cast<int>(QDialog::Rejected));
        QString shown;
        for (auto* l : dlg.findChildren<QLabel*>())
            if (!l->isHidden()) shown += l->text();
        QVERIFY2(shown.contains(QStringLiteral("TLS")), qPrintable(shown));

        // A good URL with the password typed apart: folded into the URL the panel connects with.
        auto edits = dlg.findChildren<QLineEdit*>();
        QCOMPARE(edits.size(), 2);
        edits[0]->setText(QStringLiteral("redis://127.0.0.1:6379/3"));
        edits[1]->setText(QStringLiteral("p@ss"));
        dlg.accept();
        QCOMPARE(dlg.result(), static_cast<int>(QDialog::Accepted));
        auto ep = kiln::remote::parse_redis_url(dlg.url().toStdString());
        QVERIFY(ep.ok());
        QCOMPARE(QString::fromStdString(ep->password), QStringLiteral("p@ss"));
        QCOMPARE(ep->db, 3);
    }
};

QTEST_MAIN(RemoteTest)
#include "remote_test.moc"
