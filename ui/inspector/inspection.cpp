#include "ui/inspector/inspection.hpp"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>

#include "inductor/debug_lines.hpp"
#include "ui/common/qt_string.hpp"
#include "ui/inspector/summary_html.hpp"
#include "ui/jobs/job_control.hpp"

namespace kiln::ui {

namespace {

constexpr qint64 kMaxRawBytes = 256LL << 20;  // beyond this the Raw tab shows the first part only

bool looksLikeText(const QByteArray& bytes) {
    const qsizetype n = std::min<qsizetype>(bytes.size(), 8192);
    for (qsizetype i = 0; i < n; ++i)
        if (bytes[i] == '\0') return false;
    return true;
}

bool isGraphEntry(inductor::Category c) {
    return c == inductor::Category::fxgraph || c == inductor::Category::aotautograd;
}

// The file a group's Source tab shows: a Triton dir's Python source (else its TTIR), a module's main file.
QString sourceFileOfGroup(const InspectRequest& req) {
    if (!req.tree) return {};
    const int gi = req.tree->findPath(req.path);
    if (gi < 0) return {};
    QString best;
    int bestRank = 99;
    for (int r = 0; r < req.tree->childCount(gi); ++r) {
        const QString p = req.tree->path(req.tree->child(gi, r));
        const QString ext = QFileInfo(p).suffix();
        const int rank = ext == "source"               ? 0
                         : ext == "py"                 ? 0
                         : ext == "cpp" || ext == "cu" ? 1
                         : ext == "ttir"               ? 2
                                                       : 99;
        if (rank < bestRank) {
            bestRank = rank;
            best = p;
        }
    }
    return best;
}

void loadEntry(const InspectRequest& req, Inspection& out, JobControl& ctl) {
    auto bytes = pickle::load_file(req.path.toStdString());
    if (!bytes) {
        out.error = QString::fromStdString(bytes.error().str());
        return;
    }
    auto buffer = std::move(bytes).value();
    ctl.setProgress(1, 4);
    auto entry = inductor::decode_graph_entry(buffer);
    if (ctl.cancelled()) return;
    ctl.setProgress(2, 4);
    // The opcode listing reads the bytes again, without values; it also lists a broken pickle's prefix.
    Error disErr;
    auto ops = pickle::disassemble_prefix(buffer->bytes(), &disErr);
    out.ops = std::make_shared<const std::vector<pickle::DisassembledOp>>(std::move(ops));
    if (!disErr.message.empty()) out.opsError = QString::fromStdString(disErr.str());
    if (ctl.cancelled()) return;
    ctl.setProgress(3, 4);
    if (!entry) {
        out.error = QString::fromStdString(entry.error().str());
        return;
    }
    out.entry = std::move(entry).value();
    if (auto src = out.entry->source_code()) {
        out.hasSource = true;
        out.sourceText = qstr(*src);
        out.sourceLanguage = SourceLanguage::python;
        out.sourceTitle = QObject::tr("Output code (source_code of the entry)");
    }
    out.components = toKeyComponents(out.entry->debug_lines(), &out.error);
}

void loadFile(const QString& path, Inspection& out) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        out.error = QObject::tr("%1: cannot open (%2)").arg(path, f.errorString());
        return;
    }
    out.rawBytes = f.read(kMaxRawBytes);
    out.rawIsText = looksLikeText(out.rawBytes);
}

}  // namespace

QVector<KeyComponentRow> toKeyComponents(const std::vector<std::string>& lines, QString* error) {
    QVector<KeyComponentRow> out;
    auto parsed = inductor::parse_debug_lines(lines);
    if (!parsed) {
        if (error) *error = QString::fromStdString(parsed.error().str());
        return out;
    }
    out.reserve(static_cast<qsizetype>(parsed->size()));
    for (const auto& c : *parsed) {
        const inductor::ComponentText v = inductor::component_value_text(c.value);
        out.push_back(
            {QString::fromStdString(c.hash), QString::fromStdString(c.name), QString::fromStdString(v.text), v.binary});
    }
    return out;
}

Inspection inspectArtifact(const InspectRequest& req, JobControl& ctl) {
    QElapsedTimer timer;
    timer.start();
    Inspection out;
    out.path = req.path;
    out.node = req.node;
    const auto cat = req.node.category;
    const bool isFile = req.node.kind == CacheNode::Kind::file;

    if (isFile && isGraphEntry(cat)) {
        loadEntry(req, out, ctl);
        out.keyDir = QFileInfo(req.path).path();
    } else if (isFile) {
        loadFile(req.path, out);
        if (out.rawIsText && out.error.isEmpty()) {
            out.hasSource = true;
            out.sourceText = QString::fromUtf8(out.rawBytes);
            out.sourceLanguage = languageForFile(req.path);
            if (cat == inductor::Category::autotune_local_cache) out.sourceLanguage = SourceLanguage::json;
            out.sourceTitle = QFileInfo(req.path).fileName();
        }
    } else if (req.node.kind == CacheNode::Kind::group) {
        if (req.node.groupKind == inductor::GroupKind::key_dir) out.keyDir = req.path;
        const QString src = sourceFileOfGroup(req);
        if (!src.isEmpty()) {
            Inspection file;
            loadFile(src, file);
            if (file.rawIsText && file.error.isEmpty()) {
                out.hasSource = true;
                out.sourceText = QString::fromUtf8(file.rawBytes);
                out.sourceLanguage = languageForFile(src);
                out.sourceTitle = QFileInfo(src).fileName();
            }
        }
    }
    if (ctl.cancelled()) return out;
    out.summaryHtml = summaryHtml(req, out);
    out.kernelsAwaitTimings = kernelsAwaitTimings(req, out);
    out.elapsedMs = timer.elapsed();
    ctl.setProgress(4, 4);
    return out;
}

}  // namespace kiln::ui
