#include "ui/inspector/summary_html.hpp"

#include <QDateTime>
#include <QFileInfo>
#include <QUrl>

#include <nlohmann/json.hpp>

#include "timings/graph_kernels.hpp"
#include "ui/browser/cache_tree_model.hpp"
#include "ui/common/qt_string.hpp"
#include "ui/inspector/inspection.hpp"
#include "ui/theme/palette.hpp"
#include "util/python_json.hpp"

namespace kiln::ui {

namespace {

QString pathLink(const QString& path, const QString& text) {
    return QStringLiteral("<a href=\"kiln-path:%1\">%2</a>")
        .arg(QString::fromUtf8(QUrl::toPercentEncoding(path)), htmlText(text));
}
QString filterLink(const QString& text, const QString& label) {
    return QStringLiteral("<a href=\"kiln-filter:%1\">%2</a>")
        .arg(QString::fromUtf8(QUrl::toPercentEncoding(text)), htmlText(label));
}

// A key becomes a link when the tree holds its artifact (module file or key dir).
QString keyLink(const InspectRequest& req, const QString& key, const QStringList& candidates) {
    if (req.tree)
        for (const QString& c : candidates)
            if (req.tree->findPath(c) >= 0) return pathLink(c, key);
    return QStringLiteral("<code>%1</code>").arg(htmlText(key));
}

QString moduleCandidates(const QString& root, const QString& key, QStringList& out) {
    if (key.size() > 3)
        for (const char* ext : {".py", ".cpp", ".so"}) out << root + "/" + key.mid(1, 2) + "/" + key + ext;
    return key;
}

struct Table {
    QString html = QStringLiteral("<table cellspacing=\"2\" cellpadding=\"3\">");
    void row(const QString& k, const QString& v) {
        html += QStringLiteral("<tr><td valign=\"top\"><b>%1</b></td><td>%2</td></tr>").arg(htmlText(k), v);
    }
    QString done() { return html + QStringLiteral("</table>"); }
};

QString joinInts(const std::vector<std::int64_t>& v) {
    QStringList s;
    for (auto x : v) s << QString::number(x);
    return s.join(QStringLiteral(", "));
}
QString joinStrs(const std::vector<std::string>& v) {
    QStringList s;
    for (const auto& x : v) s << htmlText(x);
    return s.join(QStringLiteral(", "));
}

void kernelsSummary(const InspectRequest& req, const inductor::GraphEntry& e, Table& t);

void entrySummary(const InspectRequest& req, const inductor::GraphEntry& e, Table& t) {
    t.row(QObject::tr("Type"), htmlText(e.type()));
    if (auto k = e.fx_graph_cache_key())
        t.row(QObject::tr("FX graph key"), QStringLiteral("<code>%1</code>").arg(htmlText(*k)));
    if (auto k = e.cache_key()) {
        QStringList c;
        const QString key = moduleCandidates(req.root, QString::fromStdString(*k), c);
        t.row(QObject::tr("Output code"), keyLink(req, key, c));
    }
    for (const auto& [label, key] : {std::pair{QObject::tr("Forward graph"), e.forward_fx_key()},
                                     std::pair{QObject::tr("Backward graph"), e.backward_fx_key()}}) {
        if (!key) continue;
        const QString k = QString::fromStdString(*key);
        t.row(label, keyLink(req, k, {req.root + "/fxgraph/" + k.mid(1, 2) + "/" + k}));
    }
    if (auto ns = e.time_taken_ns())
        t.row(QObject::tr("Compile time"), QObject::tr("%1 ms").arg(double(*ns) / 1e6, 0, 'f', 1));
    const auto types = e.device_types();
    if (!types.empty())
        t.row(QObject::tr("Devices"), joinStrs(types) + QStringLiteral(" [%1]").arg(joinInts(e.device_idxs())));
    if (e.is_fx_graph()) {
        const auto g = e.guards_expr();
        t.row(QObject::tr("Guards"),
              g ? QStringLiteral("<code>%1</code>").arg(htmlText(*g)) : QObject::tr("none (always a hit)"));
        const auto mi = e.mutated_inputs();
        t.row(QObject::tr("Mutated inputs"),
              mi.empty() ? QObject::tr("none")
                         : joinStrs(mi) + QStringLiteral(" (indices %1)").arg(joinInts(e.mutated_input_idxs())));
        QStringList strides;
        for (const auto& s : e.output_strides()) {
            if (!s) {
                strides << QStringLiteral("None");
                continue;
            }
            QStringList parts;
            for (const auto& x : *s) parts << htmlText(x);
            strides << QStringLiteral("(%1)").arg(parts.join(QStringLiteral(", ")));
        }
        if (!strides.isEmpty()) t.row(QObject::tr("Output strides"), strides.join(QStringLiteral("<br>")));
        QStringList counters;
        for (const auto& [name, n] : e.counter_deltas())
            counters << QStringLiteral("%1 = %2").arg(htmlText(name)).arg(n);
        if (!counters.isEmpty()) t.row(QObject::tr("Counters"), counters.join(QStringLiteral("<br>")));
        const auto consts = e.constant_names();
        if (!consts.empty()) t.row(QObject::tr("Constants"), joinStrs(consts));
        QStringList kernels;
        for (const auto& k : e.triton_bundle()) {
            // The bundled kernel's Triton dir (triton/<device>/<hash>) when the cache holds it.
            const QString hash = QString::fromStdString(k.kernel_hash);
            const QString dir = req.root + QStringLiteral("/triton/%1/").arg(k.device.value_or(0)) + hash;
            const QString where = req.tree && req.tree->findPath(dir) >= 0
                                      ? pathLink(dir, hash.left(12) + QStringLiteral("…"))
                                      : filterLink(hash, hash.left(12) + QStringLiteral("…"));
            kernels << QStringLiteral("%1 — %2, %3 files, %4")
                           .arg(filterLink(QString::fromStdString(k.name), QString::fromStdString(k.name)), where,
                                QString::number(k.files.size()), formatBytes(k.total_bytes()));
        }
        if (!kernels.isEmpty()) t.row(QObject::tr("Bundled kernels"), kernels.join(QStringLiteral("<br>")));
        if (req.opened) kernelsSummary(req, e, t);
    }
    QStringList fields;
    for (const auto& f : e.field_names()) fields << htmlText(f);
    t.row(QObject::tr("Fields (%1)").arg(fields.size()),
          QStringLiteral("<small>%1</small>").arg(fields.join(QStringLiteral(", "))));
}

// The kernels the output code launches, joined to their modules, .best_config and autotune rows
// (timings::graph_kernels: the same join as `kiln-cli show --kernels`). The autotune rows come from the
// root's timings the window read once (req.timings); without them yet, the rest of the join is shown.
void kernelsSummary(const InspectRequest& req, const inductor::GraphEntry& e, Table& t) {
    const inductor::OpenedRoot root = req.opened->opened();  // read through its descriptor (issue 44)
    auto ks = timings::graph_kernels(root, e, req.timings.get());
    if (!ks.ok()) {
        t.row(QObject::tr("Kernels launched"), htmlText(ks.error().str()));
        return;
    }
    QStringList rows;
    for (const auto& k : ks->kernels) {
        const QString name = QString::fromStdString(k.ref.name);
        QString line = QStringLiteral("%1 <small>%2 ×%3</small>")
                           .arg(filterLink(name, name), htmlText(std::string(inductor::kernel_kind_name(k.ref.kind))))
                           .arg(k.ref.launches);
        if (!k.module_path.empty()) {
            const QString m = QString::fromStdString(k.module_path);
            line += QStringLiteral(" — ") + pathLink(m, QFileInfo(m).fileName().left(12) + QStringLiteral("…"));
        }
        if (!k.best_config_path.empty()) {
            nlohmann::ordered_json c = k.best_config;
            const bool coordesc = c.value("found_by_coordesc", false);
            for (const char* drop : {"found_by_coordesc", "time_taken_ms", "configs_hash", "triton_cache_hash"})
                c.erase(drop);
            line += QStringLiteral("<br>&nbsp;&nbsp;%1 %2 (%3)")
                        .arg(pathLink(QString::fromStdString(k.best_config_path), QStringLiteral(".best_config")),
                             htmlText(timings::params_text(c)),
                             coordesc ? QObject::tr("coordinate descent") : QObject::tr("autotuning"));
        }
        if (!k.fused_ops.empty()) {
            QStringList ops;
            for (const auto& o : k.fused_ops) ops << htmlText(o);
            line += QObject::tr("<br>&nbsp;&nbsp;epilogue fused into the template: %1").arg(ops.join(", "));
        }
        if (k.autotune)  // the sentence every front end says; the timing cache's name (its hash) as a detail
            line += QStringLiteral("<br>&nbsp;&nbsp;%1<br>&nbsp;&nbsp;<small>%2 <code>%3</code></small>")
                        .arg(htmlText(timings::describe_autotune(k)), QObject::tr("its name in the timing cache:"),
                             htmlText(k.autotune->choice));
        rows << line;
    }
    if (!req.timings && !rows.isEmpty())
        rows << QStringLiteral("<small>%1</small>")
                    .arg(QObject::tr("Autotune rows follow once the root's timings are read."));
    t.row(QObject::tr("Kernels launched (%1)").arg(ks->kernels.size()), rows.join(QStringLiteral("<br>")));
}

void jsonSummary(const QByteArray& bytes, Table& t) {
    // A cache file nested 100000 deep must not crash dump()'s recursion (issue 16.6): no summary.
    if (kiln::json_nesting_depth(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size()))) >
        kiln::kMaxJsonDepth)
        return;
    const auto j = nlohmann::json::parse(bytes.constBegin(), bytes.constEnd(), nullptr, false);
    if (j.is_discarded() || !j.is_object()) return;
    for (const auto& [k, v] : j.items()) {
        std::string text = v.is_string() ? v.get<std::string>() : v.dump();
        if (text.size() > 300) text = text.substr(0, 300) + "…";
        t.row(QString::fromStdString(k), QStringLiteral("<code>%1</code>").arg(htmlText(text)));
    }
}

}  // namespace

bool kernelsAwaitTimings(const InspectRequest& req, const Inspection& ins) {
    return req.opened && !req.timings && ins.entry && ins.entry->is_fx_graph();
}

QString summaryHtml(const InspectRequest& req, const Inspection& ins) {
    const CacheNode& n = req.node;
    QString html = QStringLiteral("<h3>%1</h3>")
                       .arg(htmlText(n.kind == CacheNode::Kind::category ? n.name : QFileInfo(n.path).fileName()));
    Table t;
    t.row(QObject::tr("Category"), htmlText(categoryTitle(n.category)));
    if (!n.path.isEmpty())
        t.row(QObject::tr("Path"),
              QStringLiteral("<code>%1</code>").arg(htmlText(req.shownPath.isEmpty() ? n.path : req.shownPath)));
    if (!n.key.isEmpty()) t.row(QObject::tr("Key"), QStringLiteral("<code>%1</code>").arg(htmlText(n.key)));
    t.row(QObject::tr("Size"), QStringLiteral("%1 (%2 bytes)").arg(formatBytes(n.bytes)).arg(n.bytes));
    if (n.kind != CacheNode::Kind::file) t.row(QObject::tr("Files"), QString::number(n.files));
    if (n.lastUseNs)
        t.row(QObject::tr("Last used"), QDateTime::fromMSecsSinceEpoch(n.lastUseNs / 1'000'000).toString(Qt::ISODate));
    if (ins.entry) entrySummary(req, *ins.entry, t);
    else if (ins.rawIsText &&
             (n.category == inductor::Category::best_config || ins.path.endsWith(QLatin1String(".json"))))
        jsonSummary(ins.rawBytes, t);
    else if (n.category == inductor::Category::kernel_perf && ins.rawIsText)
        t.row(QObject::tr("Kernel time"),
              QObject::tr("%1 ms").arg(htmlText(QString::fromUtf8(ins.rawBytes).trimmed())));
    if (n.kind == CacheNode::Kind::group && req.tree) {
        const CacheTree& tree = *req.tree;
        const int gi = tree.findPath(n.path);
        QStringList files;
        if (gi >= 0)
            for (int r = 0; r < tree.childCount(gi); ++r) {
                const int c = tree.child(gi, r);
                files << QStringLiteral("%1 (%2)").arg(pathLink(tree.path(c), tree.name(c)),
                                                       formatBytes(tree.bytes(c)));
            }
        if (!files.isEmpty()) t.row(QObject::tr("Contents"), files.join(QStringLiteral("<br>")));
    }
    html += t.done();
    if (!ins.error.isEmpty())
        html += QStringLiteral("<p style=\"color:%1\"><b>%2</b> %3</p>")
                    .arg(themeColors().error.name(), QObject::tr("Error:"), htmlText(ins.error));
    return html;
}

}  // namespace kiln::ui
