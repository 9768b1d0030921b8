#include "ui/remote/remote_inspect.hpp"

#include <QDir>
#include <QFile>

#include "remote/entry_source.hpp"
#include "remote/remote_graph.hpp"
#include "remote/remote_key.hpp"
#include "ui/inspector/summary_html.hpp"
#include "ui/jobs/job_control.hpp"

namespace kiln::ui {
namespace {

bool writeFile(const QString& path, const QByteArray& bytes, QString* error) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(bytes) != bytes.size()) {
        *error = QObject::tr("cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

}  // namespace

Inspection inspectRemoteEntry(const QString& url, const QString& redisKey, const QString& scratchDir, JobControl& ctl) {
    Inspection out;
    auto ep = remote::parse_redis_url(url.toStdString());
    out.path = ep ? QString::fromStdString(remote::remote_origin(*ep, redisKey.toStdString())) : redisKey;
    auto entry = remote::load_remote_value(url.toStdString() + "/" + redisKey.toStdString());
    if (!entry) {
        out.error = QString::fromStdString(entry.error().str());
        return out;
    }
    if (ctl.cancelled()) return out;
    const QString key = QString::fromStdString(entry->key.empty() ? "value" : entry->key);
    // Redis keys may hold '/', which must not become directories.
    QString safeKey = key;
    safeKey.replace(QLatin1Char('/'), QLatin1Char('_'));

    CacheNode node;
    node.kind = CacheNode::Kind::file;
    node.name = key;
    node.key = key;
    QString file;
    QString error;
    if (entry->state == remote::RemoteState::graph) {
        node.category =
            entry->cache_id == remote::kAutogradCacheId ? inductor::Category::aotautograd : inductor::Category::fxgraph;
        const QString dir = QDir(scratchDir).filePath(safeKey);
        QDir().mkpath(dir);
        file = QDir(dir).filePath(QStringLiteral("remote-entry"));
        node.bytes = entry->pickle.size();
        if (!writeFile(file, QByteArray::fromStdString(entry->pickle), &error)) {
            out.error = error;
            return out;
        }
    } else if (entry->state == remote::RemoteState::json) {
        node.category = inductor::Category::best_config;
        file = QDir(scratchDir).filePath(safeKey + QStringLiteral(".json"));
        node.bytes = entry->json.dump(2).size();
        if (!writeFile(file, QByteArray::fromStdString(entry->json.dump(2)), &error)) {
            out.error = error;
            return out;
        }
    } else {
        out.node = node;
        out.error = entry->problem.empty()
                        ? QObject::tr("%1: %2 value")
                              .arg(redisKey, QString::fromLatin1(remote::remote_state_name(entry->state)))
                        : QString::fromStdString(entry->problem);
        return out;
    }
    node.path = file;
    const QString origin = out.path;
    InspectRequest req{file, node, scratchDir, nullptr, nullptr};
    out = inspectArtifact(req, ctl);
    // Show where it lives, not the scratch copy: the path and the summary name the remote origin.
    out.path = origin;
    if (out.error.isEmpty()) {
        InspectRequest shown = req;
        shown.node.path = origin;
        out.node.path = origin;
        out.summaryHtml = summaryHtml(shown, out);
    }
    return out;
}

}  // namespace kiln::ui
