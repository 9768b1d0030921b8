#include "ui/theme/palette.hpp"

#include <iterator>

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

QColor categoryColor(int k, uint seed, const QPalette& p) {
    static const QRgb kColours[] = {
        0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd, 0x8c564b, 0xe377c2, 0x17becf, 0xbcbd22,
        0x7f3c8d, 0x11a579, 0x3969ac, 0xf2b701, 0xe73f74, 0x80ba5a, 0xe68310, 0x008695,
    };
    QColor c =
        k >= 0 && k < int(std::size(kColours)) ? QColor(kColours[k]) : QColor::fromHsl(int(seed % 360), 160, 120);
    return isDarkPalette(p) ? c.lighter(125) : c;
}

QColor restColor(const QPalette& p) { return isDarkPalette(p) ? QColor(110, 110, 110) : QColor(190, 190, 190); }

const ThemeColors& themeColorsFor(bool dark) {
    // Light: dark enough for >= 4.5 on white; dark: light enough for >= 4.5 on the dark Base/Window.
    static const ThemeColors lightColors{QColor(0xb0, 0x30, 0x20),
                                         QColor(0x1b, 0x74, 0x30),
                                         QColor(0x8f, 0x56, 0x00),
                                         {QColor(0x3b, 0x6d, 0xb6), QColor(0xc0, 0x5a, 0x1a), QColor(0x23, 0x86, 0x36),
                                          QColor(0x8e, 0x44, 0xad), QColor(0xb0, 0x30, 0x20), QColor(0x6f, 0x7c, 0x7d)},
                                         QColor(0x23, 0x86, 0x36),
                                         QColor(255, 220, 220),
                                         QColor(215, 250, 215),
                                         QColor(240, 240, 240),
                                         QColor(0, 0, 160),
                                         QColor(0, 110, 110),
                                         QColor(9, 134, 88),
                                         QColor(121, 94, 38),
                                         QColor(175, 0, 219),
                                         QColor(163, 21, 21),
                                         QColor(0, 128, 0)};
    static const ThemeColors darkColors{QColor(0xf0, 0x70, 0x60),
                                        QColor(0x6c, 0xcf, 0x8a),
                                        QColor(0xf0, 0xb8, 0x50),
                                        {QColor(0x6f, 0xa8, 0xf0), QColor(0xf0, 0x9a, 0x5a), QColor(0x4c, 0xc0, 0x68),
                                         QColor(0xc0, 0x90, 0xe8), QColor(0xf0, 0x70, 0x60), QColor(0xa0, 0xa8, 0xaa)},
                                        QColor(0x4c, 0xc0, 0x68),
                                        QColor(90, 30, 30),
                                        QColor(30, 80, 40),
                                        QColor(60, 60, 60),
                                        QColor(86, 156, 214),
                                        QColor(78, 201, 176),
                                        QColor(181, 206, 168),
                                        QColor(220, 220, 170),
                                        QColor(197, 134, 192),
                                        QColor(206, 145, 120),
                                        QColor(106, 153, 85)};
    return dark ? darkColors : lightColors;
}

const ThemeColors& themeColors(const QPalette& p) { return themeColorsFor(isDarkPalette(p)); }

const ThemeColors& themeColors() { return themeColors(QApplication::palette()); }

QString errorHtml(const QString& text) {
    return QStringLiteral("<span style=\"color:%1\">%2</span>").arg(themeColors().error.name(), text.toHtmlEscaped());
}

}  // namespace kiln::ui
