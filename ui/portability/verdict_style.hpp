#pragma once
// How a verdict looks wherever the GUI shows one (the Portability view, its chart, the browser):
// one colour per verdict, a lighter tone on a dark palette so it stays readable, and words that
// say what the colour means (legend and tooltips).
#include <QColor>
#include <QPalette>
#include <QString>

#include "portability/verdict.hpp"

namespace kiln::ui {

QColor verdictColor(portability::Verdict v, bool dark);
QColor verdictColor(portability::Verdict v, const QPalette& palette);  // by the palette's darkness
QString verdictTitle(portability::Verdict v);                          // "would hit" ...
// One line per verdict with a coloured dot, for a legend (rich text).
QString verdictLegendHtml(const QPalette& palette);

}  // namespace kiln::ui
