#include "ui/source/syntax_highlighter.hpp"

#include <QFileInfo>
#include <QTextBlock>
#include <QTextDocument>

#include "ui/theme/palette.hpp"

namespace kiln::ui {

SourceLanguage languageForFile(const QString& fileName) {
    const QString ext = QFileInfo(fileName).suffix().toLower();
    if (ext == "py" || ext == "source") return SourceLanguage::python;  // Triton's .source is Python
    if (ext == "cpp" || ext == "cc" || ext == "h" || ext == "hpp" || ext == "cu" || ext == "cuh")
        return SourceLanguage::cpp;
    if (ext == "ptx") return SourceLanguage::ptx;
    if (ext == "ttir" || ext == "ttgir" || ext == "mlir") return SourceLanguage::mlir;
    if (ext == "llir" || ext == "ll") return SourceLanguage::llvm;
    if (ext == "json" || ext == "best_config") return SourceLanguage::json;
    return SourceLanguage::plain;
}

namespace {

QTextCharFormat fmt(const QColor& c, bool bold = false, bool italic = false) {
    QTextCharFormat f;
    f.setForeground(c);
    if (bold) f.setFontWeight(QFont::Bold);
    f.setFontItalic(italic);
    return f;
}

QString words(const char* list) {
    return QStringLiteral("\\b(?:%1)\\b").arg(QString::fromLatin1(list).split(' ').join('|'));
}

}  // namespace

SyntaxHighlighter::SyntaxHighlighter(QTextDocument* doc, SourceLanguage lang, bool dark)
    : QSyntaxHighlighter(doc), lang_(lang) {
    buildRules(dark);
    // Attaching to the document re-highlights every block at once (cheap: blocks beyond ready_
    // return early); the timer then colours the rest chunk by chunk.
    ready_ = kBlocksPerTick;
    tick_.setInterval(0);
    connect(&tick_, &QTimer::timeout, this, &SyntaxHighlighter::highlightNextChunk);
    if (doc && doc->blockCount() > ready_) tick_.start();
}

void SyntaxHighlighter::highlightNextChunk() {
    QTextDocument* doc = document();
    if (!doc || ready_ >= doc->blockCount()) {
        tick_.stop();
        return;
    }
    const int from = ready_;
    ready_ += kBlocksPerTick;
    for (QTextBlock b = doc->findBlockByNumber(from); b.isValid() && b.blockNumber() < ready_; b = b.next())
        rehighlightBlock(b);
}

void SyntaxHighlighter::addRule(const QString& pattern, const QTextCharFormat& f, int group) {
    rules_.push_back({QRegularExpression(pattern), f, group});
}

void SyntaxHighlighter::buildRules(bool dark) {
    const ThemeColors& c = themeColorsFor(dark);
    const auto keyword = fmt(c.keyword, true);
    const auto type = fmt(c.type);
    const auto number = fmt(c.number);
    const auto call = fmt(c.call);
    const auto decorator = fmt(c.decorator);
    string_ = fmt(c.string);
    comment_ = fmt(c.comment, false, true);
    const QString num = QStringLiteral("\\b(?:0[xX][0-9a-fA-F]+|\\d+\\.?\\d*(?:[eE][+-]?\\d+)?)\\b");

    switch (lang_) {
        case SourceLanguage::python:
            addRule(words("and as assert async await break class continue def del elif else except finally for "
                          "from global if import in is lambda nonlocal not or pass raise return try while with "
                          "yield None True False"),
                    keyword);
            addRule(QStringLiteral("\\b([A-Za-z_]\\w*)\\s*(?=\\()"), call, 1);
            addRule(QStringLiteral("^\\s*@[\\w.]+"), decorator);
            addRule(num, number);
            addRule(QStringLiteral("[rbfRBF]?'(?:[^'\\\\]|\\\\.)*'|[rbfRBF]?\"(?:[^\"\\\\]|\\\\.)*\""), string_);
            addRule(QStringLiteral("#[^\\n]*"), comment_);
            break;
        case SourceLanguage::cpp:
            addRule(words("auto bool break case char class const constexpr continue default do double else enum "
                          "extern float for if inline int long namespace return short signed sizeof static struct "
                          "switch template typedef typename union unsigned using void volatile while "
                          "__global__ __device__ __host__ __shared__ __restrict__ int64_t int32_t uint32_t uint64_t "
                          "half bfloat16 at"),
                    keyword);
            addRule(QStringLiteral("^\\s*#\\s*\\w+[^\\n]*"), decorator);
            addRule(QStringLiteral("\\b([A-Za-z_]\\w*)\\s*(?=\\()"), call, 1);
            addRule(num, number);
            addRule(QStringLiteral("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)'"), string_);
            addRule(QStringLiteral("//[^\\n]*"), comment_);
            break;
        case SourceLanguage::ptx:
            addRule(QStringLiteral("^\\s*\\.\\w+|\\s\\.(?:reg|param|global|shared|local|const)\\b"), keyword);
            addRule(QStringLiteral("\\b(?:ld|st|mov|add|sub|mul|mad|fma|setp|selp|bra|ret|cvt|bar|shfl|atom|red|"
                                   "and|or|xor|not|shl|shr|div|rem|min|max|ex2|rcp|sqrt|mma|wgmma|cp|ldmatrix)"
                                   "(?:\\.\\w+)*"),
                    call);
            addRule(QStringLiteral("%\\w+"), type);
            addRule(QStringLiteral("^\\$?\\w+:"), decorator);
            addRule(num, number);
            addRule(QStringLiteral("//[^\\n]*"), comment_);
            break;
        case SourceLanguage::mlir:
        case SourceLanguage::llvm:
            addRule(QStringLiteral("\\b(?:tt|arith|scf|cf|math|ttg|ttng|gpu|llvm|nvvm)\\.[\\w.]+"), call);
            addRule(words("module func define declare ret br call load store getelementptr icmp fcmp phi select "
                          "alloca return yield to"),
                    keyword);
            addRule(QStringLiteral("[%@#!][\\w.$-]+"), type);
            addRule(QStringLiteral("\\b(?:[if]\\d+|f16|bf16|tensor|ptr|index|void)\\b"), decorator);
            addRule(num, number);
            addRule(QStringLiteral("\"(?:[^\"\\\\]|\\\\.)*\""), string_);
            addRule(QStringLiteral(";[^\\n]*|//[^\\n]*"), comment_);
            break;
        case SourceLanguage::json:
            addRule(QStringLiteral("\"(?:[^\"\\\\]|\\\\.)*\""), string_);
            addRule(QStringLiteral("(\"(?:[^\"\\\\]|\\\\.)*\")\\s*:"), keyword, 1);
            addRule(num, number);
            addRule(words("true false null"), decorator);
            break;
        case SourceLanguage::plain: break;
    }
}

void SyntaxHighlighter::highlightBlock(const QString& text) {
    if (currentBlock().blockNumber() >= ready_) {
        setCurrentBlockState(previousBlockState());  // carry the string state until coloured
        return;
    }
    for (const Rule& r : rules_) {
        auto it = r.re.globalMatch(text);
        while (it.hasNext()) {
            const auto m = it.next();
            setFormat(m.capturedStart(r.group), m.capturedLength(r.group), r.format);
        }
    }
    if (lang_ == SourceLanguage::python) highlightTripleQuotes(text);
}

void SyntaxHighlighter::highlightTripleQuotes(const QString& text) {
    // """ docstrings are strings. Inductor's output code embeds each Triton kernel as a ''' string:
    // its content is Python worth reading, so only the delimiters are coloured.
    setCurrentBlockState(0);
    int pos = 0;
    int state = previousBlockState() > 0 ? previousBlockState() : 0;
    while (pos <= text.size()) {
        if (state == 0) {
            const int a = text.indexOf(QStringLiteral("\"\"\""), pos);
            const int b = text.indexOf(QStringLiteral("'''"), pos);
            if (a < 0 && b < 0) return;
            const bool dq = a >= 0 && (b < 0 || a < b);
            const int start = dq ? a : b;
            // Skip quotes inside a comment on this line.
            const int hash = text.lastIndexOf('#', start);
            if (hash >= 0 && format(hash) == comment_) return;
            state = dq ? 1 : 2;
            pos = start + 3;
            setFormat(start, 3, string_);
            continue;
        }
        const QString close = state == 1 ? QStringLiteral("\"\"\"") : QStringLiteral("'''");
        const int end = text.indexOf(close, pos);
        const int from = pos == 0 ? 0 : pos;
        if (end < 0) {
            if (state == 1) setFormat(from, text.size() - from, string_);
            setCurrentBlockState(state);
            return;
        }
        if (state == 1) setFormat(from, end + 3 - from, string_);
        else setFormat(end, 3, string_);
        pos = end + 3;
        state = 0;
    }
}

}  // namespace kiln::ui
