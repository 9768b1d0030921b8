#pragma once
// Exporting a chart: PNG, PDF or SVG by the file's suffix (QCustomPlot renders the first two;
// SVG goes through QSvgGenerator with the same painter).
#include <QString>

class QCustomPlot;

namespace kiln::ui {

// Returns an error message, empty on success. `width`/`height` 0: the plot's current size.
QString exportPlot(QCustomPlot* plot, const QString& path, int width = 0, int height = 0);
// "Images (*.png *.pdf *.svg)" and "Data (*.csv *.json)" for file dialogs.
QString plotFileFilter();
QString dataFileFilter();

}  // namespace kiln::ui
