#pragma once
// Renders the main window with each inspector tab showing into PNG files, for the README
// (`kiln --screenshots DIR [--select PATH] [--diff-with PATH] [--sizes N,...] [--portability-target T] ROOT`;
// ROOT may be a Mega-Cache blob, shown as the cache it would load).
// Runs offscreen too (QT_QPA_PLATFORM=offscreen): it grabs widgets, not the screen.
#include <QString>
#include <QVector>

namespace kiln::ui {

class MainWindow;

struct TourOptions {
    QString outDir;
    QString select;             // an artifact to select (default: the first graph entry)
    QString diffWith;           // with `select`, shown in the Diff tab
    QVector<qint64> sizes;      // typed into the Guards tab's fields
    QString prefix;             // file name prefix, e.g. "two-" for a second tour
    QString portabilityTarget;  // the Portability view checked against it, its first miss selected
};

// Returns 0 when every picture was written; prints what it wrote.
int runScreenshotTour(MainWindow& w, const TourOptions& opt);

}  // namespace kiln::ui
