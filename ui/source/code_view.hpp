#pragma once
// A read-only source viewer: QPlainTextEdit (lays out lazily, so multi-MB modules open fast) with a
// line-number gutter and a syntax highlighter chosen from the file name.
#include <QPlainTextEdit>

#include "ui/source/syntax_highlighter.hpp"

namespace kiln::ui {

class CodeView : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit CodeView(QWidget* parent = nullptr);

    void setSource(const QString& text, SourceLanguage lang);
    void setFontPointSize(int pt);  // 0 = the system's fixed font
    int gutterWidth() const;
    SourceLanguage language() const { return lang_; }

protected:
    void resizeEvent(QResizeEvent* e) override;
    void changeEvent(QEvent* e) override;

private:
    friend class LineNumberGutter;
    void paintGutter(QPaintEvent* e);
    void updateGutter(const QRect& rect, int dy);

    QWidget* gutter_ = nullptr;
    SyntaxHighlighter* highlighter_ = nullptr;
    SourceLanguage lang_ = SourceLanguage::plain;
};

}  // namespace kiln::ui
