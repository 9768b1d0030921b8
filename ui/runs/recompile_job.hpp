#pragma once
// Recompiling a code-cache artifact (C++ or CUDA source) with chosen flags through the core code
// cache, and reading its build history from the sidecar. No widgets: the dialog and tests share it.
#include <QString>
#include <QStringList>
#include <QVector>

namespace kiln::ui {

struct RecompileRequest {
    QString sourcePath;  // <root>/<xx>/<key>.cpp or .cu
    QStringList flags;   // extra compiler flags (part of the key: new flags, new artifact)
    bool force = true;   // rebuild even when the artifact exists; the old record goes to history
    QString outExt = QStringLiteral("so");
};

struct RecompileResult {
    bool ok = false;
    bool hit = false;  // nothing ran: the artifact existed and force was off
    double seconds = 0;
    QString outputPath;
    QString command;
    QString compilerOutput;  // the compiler's stdout+stderr, or the error text on failure
};

struct BuildHistoryEntry {
    QString time, command, compilerVersion;
    double durationS = 0;
    int exitCode = 0;
    qint64 size = 0;
    bool current = false;  // the latest build (the sidecar's top level)
};

// Runs on a worker thread (it compiles); the code cache root is the source's grandparent folder.
RecompileResult recompileArtifact(const RecompileRequest& request);
// Newest first: the current record, then its history.
QVector<BuildHistoryEntry> readBuildHistory(const QString& artifactPath);

}  // namespace kiln::ui
