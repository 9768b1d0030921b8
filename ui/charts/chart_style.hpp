#pragma once
// Charts drawn from the palette: background, axes, grid, tick and axis labels, titles and legend
// take the palette's roles (Base, Text, Mid), series colours come from ThemeColors, and both follow
// a theme change while the chart is open.
#include <functional>

class QCustomPlot;
class QPalette;

namespace kiln::ui {

// Paints `plot`'s frame (everything but the series) from `p`.
void stylePlot(QCustomPlot* plot, const QPalette& p);
// stylePlot now and on every palette change, then `recolourSeries` (may be empty) and a replot.
void followPalette(QCustomPlot* plot, std::function<void()> recolourSeries = {});

}  // namespace kiln::ui
