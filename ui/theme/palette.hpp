#pragma once
// Light/dark: follow the platform by default; a forced choice uses Fusion with a matching palette.
// Every colour Kiln draws with comes from here: QPalette's roles, plus ThemeColors for what
// QPalette has no role for (chart series, diff backgrounds, syntax, error text), each chosen for the
// palette's lightness so it reads on that palette's Base and Window (WCAG contrast >= 4.5 for text).
#include <QColor>
#include <QPalette>
#include <QString>

namespace kiln::ui {

enum class Theme { system, light, dark };  // Settings::theme(): follow the platform, or forced

void applyTheme(Theme theme);
// True when the palette has a dark window background.
bool isDarkPalette(const QPalette& p);

struct ThemeColors {
    QColor error;                                // error text ("cannot read ..."), a miss
    QColor ok, warning;                          // a hit, an unknown (portability verdicts)
    QColor series[6];                            // chart series: blue, orange, green, purple, red, grey
    QColor winner;                               // the fastest choice's bar (the green series)
    QColor diffRemoved, diffAdded, diffChanged;  // diff line backgrounds (Text reads on them)
    QColor keyword, type, number, call, decorator, string, comment;  // syntax highlighting
};
// The colours for `p` (the application's palette by default), or for a dark or light one.
const ThemeColors& themeColors(const QPalette& p);
const ThemeColors& themeColorsFor(bool dark);
const ThemeColors& themeColors();
// The k-th of a categorical series (neighbours differ most; Tableau 10, then more), lighter on a dark
// palette; k past the table: a hue from `seed`. `restColor`: the grey of "the rest" (unexplained time).
QColor categoryColor(int k, uint seed, const QPalette& p);
QColor restColor(const QPalette& p);
// `text` as HTML in the error colour (escaped).
QString errorHtml(const QString& text);

}  // namespace kiln::ui
