#pragma once
// Read-only highlighting for what a cache holds: Python (output code, Triton kernels), C++/CUDA,
// and Triton's intermediate forms (PTX, TTIR/TTGIR, LLVM IR). Rules are regexes per language;
// Python triple-quoted strings span blocks (block state 1 = inside """, 2 = inside ''').
// Highlighting is incremental: a timer colours kBlocksPerTick lines at a time, so a large module
// shows at once and never holds the UI thread for long.
#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>
#include <QTimer>
#include <QVector>

namespace kiln::ui {

enum class SourceLanguage { plain, python, cpp, ptx, mlir, llvm, json };

// From a file name (".py", ".cpp", ".cu", ".ptx", ".ttir", ".ttgir", ".llir", ".json", ...).
SourceLanguage languageForFile(const QString& fileName);

class SyntaxHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    SyntaxHighlighter(QTextDocument* doc, SourceLanguage lang, bool dark);
    SourceLanguage language() const { return lang_; }
    static constexpr int kBlocksPerTick = 200;
    bool finished() const { return !tick_.isActive(); }

protected:
    void highlightBlock(const QString& text) override;

private:
    struct Rule {
        QRegularExpression re;
        QTextCharFormat format;
        int group = 0;  // which capture group to colour
    };
    void addRule(const QString& pattern, const QTextCharFormat& fmt, int group = 0);
    void buildRules(bool dark);
    void highlightTripleQuotes(const QString& text);
    void highlightNextChunk();

    SourceLanguage lang_;
    QVector<Rule> rules_;
    QTextCharFormat string_;
    QTextCharFormat comment_;
    int ready_ = 0;  // blocks below this number are coloured; the rest wait for the timer
    QTimer tick_;
};

}  // namespace kiln::ui
