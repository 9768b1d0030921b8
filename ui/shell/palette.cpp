#include "shell/palette.hpp"

#include <QApplication>
#include <QStyle>
#include <QStyleFactory>

namespace kiln::ui {

namespace {

QPalette darkPalette() {
    QPalette p;
    const QColor window(45, 45, 48), base(30, 30, 30), text(220, 220, 220), disabled(150, 150, 150);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Link, QColor(110, 175, 240));  // WCAG contrast >= 4.5 on Base and Window
    p.setColor(QPalette::LinkVisited, QColor(190, 150, 240));
    p.setColor(QPalette::Mid, QColor(90, 90, 90));
    p.setColor(QPalette::ToolTipBase, QColor(70, 60, 30));
    p.setColor(QPalette::Highlight, QColor(38, 79, 120));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::PlaceholderText, disabled);
    for (auto role : {QPalette::Text, QPalette::WindowText, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    return p;
}

}  // namespace

void applyTheme(Theme theme) {
    static const QString platformStyle = QApplication::style()->name();
    static const QPalette platformPalette = QApplication::palette();
    switch (theme) {
        case Theme::system:
            QApplication::setStyle(QStyleFactory::create(platformStyle));
            QApplication::setPalette(platformPalette);
            break;
        case Theme::light:
            QApplication::setStyle(QStyleFactory::create("Fusion"));
            QApplication::setPalette(QApplication::style()->standardPalette());
            break;
        case Theme::dark:
            QApplication::setStyle(QStyleFactory::create("Fusion"));
            QApplication::setPalette(darkPalette());
            break;
    }
}

bool isDarkPalette(const QPalette& p) { return p.color(QPalette::Window).lightness() < 128; }

}  // namespace kiln::ui
