#pragma once
// The data behind a chart, as a plain table: what "Export data" writes (CSV or JSON) and what
// tests compare against the autotune table. Qt Core only.
#include <QString>
#include <QStringList>
#include <QVector>

namespace kiln::ui {

struct ChartTable {
    QString title;
    QStringList header;
    QVector<QStringList> rows;
};

// RFC 4180 CSV: fields with commas, quotes or newlines are quoted, quotes doubled.
QString toCsv(const ChartTable& t);
// {"title": ..., "columns": [...], "rows": [{column: value}]}; numeric-looking cells become numbers.
QByteArray toJson(const ChartTable& t);
// Writes CSV or JSON by the suffix of `path`; returns an error message, empty on success.
QString writeChartTable(const ChartTable& t, const QString& path);

}  // namespace kiln::ui
