#include "ui/source/code_view.hpp"

#include <QFontDatabase>

#include <QPainter>
#include <QTextBlock>
#include <algorithm>

#include "ui/theme/palette.hpp"

namespace kiln::ui {

class LineNumberGutter : public QWidget {
public:
    explicit LineNumberGutter(CodeView* view) : QWidget(view), view_(view) {}
    QSize sizeHint() const override { return {view_->gutterWidth(), 0}; }

protected:
    void paintEvent(QPaintEvent* e) override { view_->paintGutter(e); }

private:
    CodeView* view_;
};

CodeView::CodeView(QWidget* parent) : QPlainTextEdit(parent), gutter_(new LineNumberGutter(this)) {
    setReadOnly(true);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    setFontPointSize(0);
    connect(this, &QPlainTextEdit::blockCountChanged, this, [this] { setViewportMargins(gutterWidth(), 0, 0, 0); });
    connect(this, &QPlainTextEdit::updateRequest, this, &CodeView::updateGutter);
    setViewportMargins(gutterWidth(), 0, 0, 0);
}

void CodeView::setSource(const QString& text, SourceLanguage lang) {
    // Detach the old highlighter first so setPlainText does not highlight with stale rules.
    delete highlighter_;
    highlighter_ = nullptr;
    lang_ = lang;
    setPlainText(text);
    if (lang != SourceLanguage::plain) highlighter_ = new SyntaxHighlighter(document(), lang, isDarkPalette(palette()));
}

void CodeView::setFontPointSize(int pt) {
    QFont f = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (pt > 0) f.setPointSize(pt);
    setFont(f);
    setViewportMargins(gutterWidth(), 0, 0, 0);
}

int CodeView::gutterWidth() const {
    int digits = 1;
    for (int n = std::max(1, blockCount()); n >= 10; n /= 10) ++digits;
    return 12 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * std::max(digits, 3);
}

void CodeView::resizeEvent(QResizeEvent* e) {
    QPlainTextEdit::resizeEvent(e);
    const QRect cr = contentsRect();
    gutter_->setGeometry(QRect(cr.left(), cr.top(), gutterWidth(), cr.height()));
}

void CodeView::changeEvent(QEvent* e) {
    QPlainTextEdit::changeEvent(e);
    // A theme switch re-colours: rebuild the highlighter for the new palette.
    if (e->type() == QEvent::PaletteChange && highlighter_) {
        delete highlighter_;
        highlighter_ = new SyntaxHighlighter(document(), lang_, isDarkPalette(palette()));
    }
}

void CodeView::updateGutter(const QRect& rect, int dy) {
    if (dy) gutter_->scroll(0, dy);
    else gutter_->update(0, rect.y(), gutter_->width(), rect.height());
}

void CodeView::paintGutter(QPaintEvent* e) {
    QPainter p(gutter_);
    const QPalette pal = palette();
    p.fillRect(e->rect(), pal.color(QPalette::AlternateBase));
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.setFont(font());
    QTextBlock block = firstVisibleBlock();
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    const int lineH = fontMetrics().height();
    while (block.isValid() && top <= e->rect().bottom()) {
        const int bottom = top + qRound(blockBoundingRect(block).height());
        if (block.isVisible() && bottom >= e->rect().top())
            p.drawText(0, top, gutter_->width() - 6, lineH, Qt::AlignRight, QString::number(block.blockNumber() + 1));
        block = block.next();
        top = bottom;
    }
}

}  // namespace kiln::ui
