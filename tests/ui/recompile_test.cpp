// Recompiling a code-cache C++ artifact through the core code cache: forced rebuilds, compiler
// output on failure, and the sidecar history shown by the dialog.
#include <QDir>
#include <QFile>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "codecache/code_cache.hpp"
#include "ui/runs/recompile_dialog.hpp"
#include "ui/runs/recompile_job.hpp"
#include "ui_test_support.hpp"

using namespace kiln::ui;

namespace {
QString writeSource(const QTemporaryDir& root, const char* code) {
    kiln::codecache::CodeCache cache(root.path().toStdString());
    auto w = cache.write(code, "cpp");
    return w.ok() ? QString::fromStdString(w->path.string()) : QString();
}
}  // namespace

class RecompileTest : public QObject {
    Q_OBJECT
private slots:
    void forcedRebuildKeepsHistory() {
        QTemporaryDir root;
        const QString src = writeSource(root, "extern \"C\" int kiln_add(int a, int b) { return a + b; }\n");
        QVERIFY(!src.isEmpty());
        RecompileRequest req{src, {}, false};
        auto first = recompileArtifact(req);
        QVERIFY2(first.ok, qPrintable(first.compilerOutput));
        QVERIFY(!first.hit);
        QVERIFY(QFileInfo(first.outputPath).size() > 0);
        auto cached = recompileArtifact(req);
        QVERIFY(cached.ok && cached.hit);
        req.force = true;
        auto forced = recompileArtifact(req);
        QVERIFY2(forced.ok, qPrintable(forced.compilerOutput));
        QVERIFY(!forced.hit);
        QCOMPARE(forced.outputPath, first.outputPath);
        const auto history = readBuildHistory(forced.outputPath);
        QCOMPARE(history.size(), 2);
        QVERIFY(history[0].current);
        QVERIFY(!history[1].current);
        QVERIFY(history[0].command.contains(QStringLiteral("-O3")));
        // Flags are part of the key: a new artifact with a history of its own.
        req.flags = {QStringLiteral("-O1")};
        auto other = recompileArtifact(req);
        QVERIFY(other.ok);
        QVERIFY(other.outputPath != first.outputPath);
        QCOMPARE(readBuildHistory(other.outputPath).size(), 1);
    }

    void compilerErrorIsShown() {
        QTemporaryDir root;
        const QString src = writeSource(root, "int broken( { return; }\n");
        auto r = recompileArtifact({src, {}, true});
        QVERIFY(!r.ok);
        QVERIFY2(r.compilerOutput.contains(QStringLiteral("error")), qPrintable(r.compilerOutput));
    }

    void dialogShowsOutputAndHistory() {
        QTemporaryDir root;
        const QString src = writeSource(root, "extern \"C\" int kiln_mul(int a, int b) { return a * b; }\n");
        RecompileDialog dlg(src, nullptr);
        QSignalSpy spy(&dlg, &RecompileDialog::rebuilt);
        dlg.rebuild();
        QVERIFY(test::waitFor([&] { return spy.count() == 1; }, 120000));
        QVERIFY(spy.at(0).at(0).toBool());
        dlg.rebuild();
        QVERIFY(test::waitFor([&] { return spy.count() == 2; }, 120000));
        QCOMPARE(dlg.history()->rowCount(), 2);
        QVERIFY(dlg.history()->item(0, 0)->text().contains(QStringLiteral("current")));
        QVERIFY(!dlg.output()->toPlainText().isEmpty());
    }
};

QTEST_MAIN(RecompileTest)
#include "recompile_test.moc"
