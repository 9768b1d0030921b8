#include "ui/charts/chart_table.hpp"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace kiln::ui {

static QString csvField(const QString& s) {
    if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) && !s.contains(QLatin1Char('\n'))) return s;
    QString q = s;
    q.replace(QLatin1String("\""), QLatin1String("\"\""));
    return QLatin1Char('"') + q + QLatin1Char('"');
}

QString toCsv(const ChartTable& t) {
    QString out;
    auto line = [&](const QStringList& cells) {
        QStringList f;
        for (const auto& c : cells) f << csvField(c);
        out += f.join(QLatin1Char(',')) + QLatin1String("\r\n");
    };
    line(t.header);
    for (const auto& r : t.rows) line(r);
    return out;
}

QByteArray toJson(const ChartTable& t) {
    QJsonArray rows;
    for (const auto& r : t.rows) {
        QJsonObject o;
        for (int i = 0; i < t.header.size() && i < r.size(); ++i) {
            bool ok = false;
            double d = r[i].toDouble(&ok);
            o.insert(t.header[i], ok ? QJsonValue(d) : QJsonValue(r[i]));
        }
        rows.append(o);
    }
    QJsonObject root{{QStringLiteral("title"), t.title},
                     {QStringLiteral("columns"), QJsonArray::fromStringList(t.header)},
                     {QStringLiteral("rows"), rows}};
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

QString writeChartTable(const ChartTable& t, const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    QByteArray bytes;
    if (suffix == QLatin1String("csv")) bytes = toCsv(t).toUtf8();
    else if (suffix == QLatin1String("json")) bytes = toJson(t);
    else return QObject::tr("unknown data format '%1' (use .csv or .json)").arg(suffix);
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return f.errorString();
    f.write(bytes);
    if (!f.commit()) return f.errorString();
    return {};
}

}  // namespace kiln::ui
