#include "ui/runs/recompile_job.hpp"

#include <QDir>
#include <QFileInfo>

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

QVector<BuildHistoryEntry> readBuildHistory(const QString& artifactPath) {
    QVector<BuildHistoryEntry> out;
    auto records = codecache::read_build_history(artifactPath.toStdString());
    if (!records) return out;
    for (const auto& r : *records) {
        BuildHistoryEntry e;
        e.time = QString::fromStdString(r.time);
        e.command = QString::fromStdString(r.command);
        e.compilerVersion = QString::fromStdString(r.compiler_version);
        e.durationS = r.duration_s;
        e.exitCode = r.exit_code;
        e.size = static_cast<qint64>(r.size);
        e.current = out.isEmpty();
        out << e;
    }
    return out;
}

}  // namespace kiln::ui
