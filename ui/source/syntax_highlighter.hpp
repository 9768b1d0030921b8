#pragma once
// Read-only highlighting for what a cache holds: Python (output code, Triton kernels), C++/CUDA,
// and Triton's intermediate forms (PTX, TTIR/TTGIR, LLVM IR). Rules are regexes per language;
// Python triple-quoted strings span blocks (block state 1 = inside """, 2 = inside ''').
#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>
#include <QVector>

namespace kiln::ui {

enum class SourceLanguage { plain, python, cpp, ptx, mlir, llvm, json };

// From a file name (".py", ".cpp", ".cu", ".ptx", ".ttir", ".ttgir", ".llir", ".json", ...).
SourceLanguage languageForFile(const QString& fileName);
QString languageName(SourceLanguage lang);

class SyntaxHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    SyntaxHighlighter(QTextDocument* doc, SourceLanguage lang, bool dark);
    SourceLanguage language() const { return lang_; }

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

    SourceLanguage lang_;
    QVector<Rule> rules_;
    QTextCharFormat string_;
    QTextCharFormat comment_;
};

}  // namespace kiln::ui
