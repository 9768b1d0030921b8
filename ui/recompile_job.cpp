#include "recompile_job.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <fstream>
#include <sstream>

#include "codecache/build_record.hpp"
#include "codecache/code_cache.hpp"

namespace kiln::ui {

RecompileResult recompileArtifact(const RecompileRequest& req) {
    RecompileResult out;
    const QFileInfo src(req.sourcePath);
    std::ifstream in(src.absoluteFilePath().toStdString(), std::ios::binary);
    if (!in) {
        out.compilerOutput = QObject::tr("cannot read %1").arg(req.sourcePath);
        return out;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    codecache::CompileRequest cr;
    cr.source = ss.str();
    cr.lang = src.suffix() == QLatin1String("cu") ? codecache::Lang::Cuda : codecache::Lang::Cpp;
    cr.out_ext = req.outExt.toStdString();
    for (const QString& f : req.flags) cr.flags.push_back(f.toStdString());
    cr.force = req.force;
    codecache::CodeCache cache(QDir::cleanPath(src.absolutePath() + QStringLiteral("/..")).toStdString());
    auto r = cache.compile(cr);
    if (!r.ok()) {
        out.compilerOutput = QString::fromStdString(r.error().str());
        return out;
    }
    out.ok = true;
    out.hit = r->hit;
    out.seconds = r->seconds;
    out.outputPath = QFileInfo(QString::fromStdString(r->output_path.string())).absoluteFilePath();
    out.command = QString::fromStdString(r->command);
    out.compilerOutput = QString::fromStdString(r->compiler_output);
    return out;
}

static BuildHistoryEntry entryOf(const QJsonObject& o, bool current) {
    BuildHistoryEntry e;
    e.time = o.value(QStringLiteral("time")).toString();
    e.command = o.value(QStringLiteral("command")).toString();
    e.compilerVersion = o.value(QStringLiteral("compiler_version")).toString();
    e.durationS = o.value(QStringLiteral("duration_s")).toDouble();
    e.exitCode = o.value(QStringLiteral("exit_code")).toInt();
    e.size = o.value(QStringLiteral("size")).toInteger();
    e.current = current;
    return e;
}

QVector<BuildHistoryEntry> readBuildHistory(const QString& artifactPath) {
    QVector<BuildHistoryEntry> out;
    QFile f(QString::fromStdString(codecache::sidecar_path(artifactPath.toStdString()).string()));
    if (!f.open(QIODevice::ReadOnly)) return out;
    const QJsonObject top = QJsonDocument::fromJson(f.readAll()).object();
    if (top.isEmpty()) return out;
    out << entryOf(top, true);
    const QJsonArray history = top.value(QStringLiteral("history")).toArray();
    for (auto it = history.end(); it != history.begin();) out << entryOf((*--it).toObject(), false);  // newest first
    return out;
}

}  // namespace kiln::ui
