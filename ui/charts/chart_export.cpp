#include "ui/charts/chart_export.hpp"

#include <qcustomplot.h>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QSvgGenerator>
#include <QToolBar>

namespace kiln::ui {

QString plotFileFilter() { return QObject::tr("Images (*.png *.pdf *.svg)"); }
QString dataFileFilter() { return QObject::tr("Data (*.csv *.json)"); }

static QString exportSvg(QCustomPlot* plot, const QString& path, int w, int h) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(QSize(w, h));
    svg.setViewBox(QRect(0, 0, w, h));
    svg.setTitle(plot->objectName());
    QCPPainter painter;
    if (!painter.begin(&svg)) return QObject::tr("cannot write %1").arg(path);
    plot->toPainter(&painter, w, h);
    painter.end();
    return {};
}

QString exportPlot(QCustomPlot* plot, const QString& path, int width, int height) {
    // A plot that was never laid out (hidden tab, export from a script) still has its tiny default
    // size: export it at a readable one instead.
    const bool laidOut = plot->width() >= 200 && plot->height() >= 150;
    const int w = width > 0 ? width : laidOut ? plot->width() : 1000;
    const int h = height > 0 ? height : laidOut ? plot->height() : 600;
    const QString suffix = QFileInfo(path).suffix().toLower();
    bool ok = false;
    if (suffix == QLatin1String("png")) ok = plot->savePng(path, w, h);
    else if (suffix == QLatin1String("pdf")) ok = plot->savePdf(path, w, h);
    else if (suffix == QLatin1String("svg")) return exportSvg(plot, path, w, h);
    else return QObject::tr("unknown image format '%1' (use .png, .pdf or .svg)").arg(suffix);
    if (!ok) return QObject::tr("could not write %1").arg(path);
    return {};
}

void addExportActions(QToolBar* bar, QLabel* status, const QString& baseName, ExportTo chart, ExportTo data) {
    auto ask = [status](const QString& title, const QString& name, const QString& filter, const ExportTo& write) {
        const QString path = QFileDialog::getSaveFileName(status->window(), title, name, filter);
        if (path.isEmpty()) return;
        const QString err = write(path);
        status->setText(err.isEmpty() ? QObject::tr("Wrote %1").arg(path) : err);
    };
    bar->addAction(QObject::tr("Export chart…"), status, [=] {
        ask(QObject::tr("Export chart"), baseName + QStringLiteral(".png"), plotFileFilter(), chart);
    });
    bar->addAction(QObject::tr("Export data…"), status,
                   [=] { ask(QObject::tr("Export data"), baseName + QStringLiteral(".csv"), dataFileFilter(), data); });
}

}  // namespace kiln::ui
