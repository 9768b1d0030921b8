// The window's supporting pieces: start-up root choice, settings, the About box's versions,
// highlighting, the code view's gutter.
#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextDocument>
#include <QtGlobal>

#include <cstdlib>
#include <cstring>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "ui/jobs/release_memory.hpp"
#include "ui/shell/about_dialog.hpp"
#include "ui/shell/root_resolver.hpp"
#include "ui/shell/settings.hpp"
#include "ui/source/code_view.hpp"
#include "ui/source/syntax_highlighter.hpp"
#include "ui_test_support.hpp"

using namespace kiln::ui;

class AppPiecesTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QCoreApplication::setOrganizationName("KilnTest"); }

    // Issue 33: a large block gets pages of its own and gives them back when freed, also after a
    // bigger block was freed (glibc's default then raises its threshold to that size, and the next
    // blocks stay in the heap's arenas: a scan's freed vectors stayed resident beside what followed).
    void largeBlocksGoBackWhenFreed() {
#if defined(__GLIBC__)
        returnLargeBlocksWhenFreed();
        static void* volatile sink = nullptr;  // the blocks escape: the compiler keeps each malloc
        const std::size_t big = std::size_t{8} << 20, mid = kLargeBlockBytes * 4;
        sink = std::malloc(big);
        std::memset(sink, 1, big);
        std::free(sink);
        const std::size_t mappedBefore = mallinfo2().hblkhd;
        sink = std::malloc(mid);
        std::memset(sink, 1, mid);
        QVERIFY2(mallinfo2().hblkhd >= mappedBefore + mid,
                 qPrintable(QStringLiteral("mapped %1 -> %2").arg(mappedBefore).arg(mallinfo2().hblkhd)));
        std::free(sink);
        QCOMPARE(mallinfo2().hblkhd, mappedBefore);  // unmapped: back to the system
#else
        QSKIP("glibc's allocator only (Kiln's platforms all have it)");
#endif
    }

    void startupRootFollowsTorch() {
        QTemporaryDir dir;
        qputenv("TORCHINDUCTOR_CACHE_DIR", dir.path().toUtf8());
        QCOMPARE(inductorDefaultRoot(), dir.path());
        RootChoice c = chooseStartupRoot(QString());
        QCOMPARE(c.path, dir.path());
        QVERIFY(!c.isSample);
        // The command line wins.
        c = chooseStartupRoot(test::twoEntriesRoot());
        QCOMPARE(c.path, QDir::cleanPath(test::twoEntriesRoot()));
        // No cache: the bundled sample when there is one, with the banner flag.
        qputenv("TORCHINDUCTOR_CACHE_DIR", (dir.path() + "/absent").toUtf8());
        c = chooseStartupRoot(QString());
        QCOMPARE(c.isSample, !sampleCacheRoot().isEmpty());
        QCOMPARE(c.path, sampleCacheRoot());
        qunsetenv("TORCHINDUCTOR_CACHE_DIR");
        qputenv("USER", "kilnuser");
        qputenv("LOGNAME", "kilnuser");
        qputenv("TMPDIR", "/var/tmp");
        QCOMPARE(inductorDefaultRoot(), QStringLiteral("/var/tmp/torchinductor_kilnuser"));
    }

    void recentRootsAreCappedAndDeduplicated() {
        Settings s;
        s.clearRecentRoots();
        for (int i = 0; i < 15; ++i) s.addRecentRoot(QStringLiteral("/r%1").arg(i));
        s.addRecentRoot("/r3");
        const QStringList r = s.recentRoots();
        QCOMPARE(r.size(), Settings::kMaxRecent);
        QCOMPARE(r.front(), QStringLiteral("/r3"));
        QCOMPARE(r.count("/r3"), 1);
        s.setTheme(Theme::dark);
        QCOMPARE(int(Settings().theme()), int(Theme::dark));
        s.setTheme(Theme::system);
        s.clearRecentRoots();
    }

    void aboutBoxNamesTheVersions() {
        const QString html = versionReportHtml();
        QVERIFY(html.contains(QString::fromLatin1(qVersion())));
        QVERIFY(html.contains("OpenSSL"));
        QVERIFY(html.contains("CUDA"));
        QVERIFY(html.contains("Kiln"));
    }

    void highlighterColoursKeywordsAndStrings() {
        QTextDocument doc;
        doc.setPlainText("def call(args):\n    x = 'text'  # comment\n    return 42\n");
        SyntaxHighlighter h(&doc, SourceLanguage::python, false);
        h.rehighlight();
        auto formatAt = [&](int block, int col) {
            const QTextBlock b = doc.findBlockByNumber(block);
            for (const auto& r : b.layout()->formats())
                if (col >= r.start && col < r.start + r.length) return r.format;
            return QTextCharFormat();
        };
        QCOMPARE(formatAt(0, 0).fontWeight(), int(QFont::Bold));              // def
        QVERIFY(formatAt(1, 9).foreground() != formatAt(1, 4).foreground());  // 'text' vs x
        QVERIFY(formatAt(1, 17).fontItalic());                                // the comment
        QVERIFY(formatAt(0, 4).foreground().style() != Qt::NoBrush);          // call(
    }

    void codeViewHasAGutterThatGrowsWithLines() {
        CodeView v;
        v.setSource("a\nb\n", SourceLanguage::plain);
        const int small = v.gutterWidth();
        QString many;
        for (int i = 0; i < 100000; ++i) many += "x\n";
        v.setSource(many, SourceLanguage::plain);
        QVERIFY(v.gutterWidth() > small);
        QVERIFY(v.isReadOnly());
    }
};

QTEST_MAIN(AppPiecesTest)
#include "app_pieces_test.moc"
