#pragma once
// Exporting a chart: PNG, PDF or SVG by the file's suffix (QCustomPlot renders the first two;
// SVG goes through QSvgGenerator with the same painter).
#include <QString>

#include <functional>

class QCustomPlot;
class QLabel;
class QToolBar;

namespace kiln::ui {

// Returns an error message, empty on success. `width`/`height` 0: the plot's current size.
QString exportPlot(QCustomPlot* plot, const QString& path, int width = 0, int height = 0);
// "Images (*.png *.pdf *.svg)" and "Data (*.csv *.json)" for file dialogs.
QString plotFileFilter();
QString dataFileFilter();

// A chart panel's "Export chart…" and "Export data…" on `bar`: each asks for a file (offering
// `baseName`.png / .csv), writes it through `chart` / `data` (path -> error message, empty on
// success) and says in `status` what it wrote or why not.
using ExportTo = std::function<QString(const QString& path)>;
void addExportActions(QToolBar* bar, QLabel* status, const QString& baseName, ExportTo chart, ExportTo data);

}  // namespace kiln::ui
