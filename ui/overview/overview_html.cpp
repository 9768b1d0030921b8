#include "ui/overview/overview_html.hpp"

#include <QFileInfo>

#include "inductor/stats.hpp"
#include "ui/common/qt_string.hpp"

namespace kiln::ui {

namespace {

QString bytes(std::uint64_t b) { return QString::fromStdString(inductor::format_bytes(b)); }
QString link(const QString& href, const QString& text) {
    return QStringLiteral("<a href=\"%1\">%2</a>").arg(href.toHtmlEscaped(), text);
}
QString pathLink(const std::string& path, const QString& text) {
    return link(QStringLiteral("kiln-path:") + QString::fromStdString(path), text);
}

// Muted text and rules in the palette's own colours (dark and light alike).
struct Colors {
    QString muted, rule;
    explicit Colors(const QPalette& p)
        : muted(p.color(QPalette::PlaceholderText).name()), rule(p.color(QPalette::Mid).name()) {}
};

QString tableStart() { return QStringLiteral("<table cellspacing=0 cellpadding=3>"); }
QString th(const QString& t, bool right = false) {
    return QStringLiteral("<th align=%1>%2</th>").arg(right ? "right" : "left", t);
}
QString td(const QString& t, bool right = false) {
    return QStringLiteral("<td align=%1>%2</td>").arg(right ? "right" : "left", t);
}

QString cacheSection(const overview::Overview& o) {
    QString h = QStringLiteral("<h3>What the cache holds</h3>");
    h += tableStart() + "<tr>" + th(QObject::tr("Category")) + th(QObject::tr("Files"), true) +
         th(QObject::tr("Size"), true) + "</tr>";
    for (std::size_t i = 0; i < inductor::kCategoryCount; ++i) {
        const auto& c = o.stats.categories[i];
        if (c.files == 0) continue;
        const QString name = QString::fromLatin1(inductor::category_name(static_cast<inductor::Category>(i)));
        h += "<tr>" + td(link("kiln-category:" + name, name)) + td(QString::number(c.files), true) +
             td(bytes(c.bytes), true) + "</tr>";
    }
    h += "<tr>" + td(QObject::tr("<b>total</b>")) + td(QString::number(o.stats.total_files), true) +
         td("<b>" + bytes(o.stats.total_bytes) + "</b>", true) + "</tr></table>";
    return h;
}

QString entryName(const overview::GraphEntryRow& e) {
    return e.name.empty() ? QObject::tr("(unnamed) %1…").arg(htmlText(e.key.substr(0, 10))) : htmlText(e.name);
}

QString entriesSection(const overview::Overview& o, const Colors& c) {
    constexpr std::size_t kShown = 12;
    QString h =
        QObject::tr("<h3>Graph entries: %1 FX graph, %2 AOTAutograd</h3>").arg(o.entries.size()).arg(o.aot_entries);
    const auto slow = overview::slowest_compiles(o, 3);
    if (!slow.empty()) {
        QStringList parts;
        for (const auto& e : slow)
            parts << pathLink(e.path, entryName(e)) + " " + formatSeconds(double(*e.compile_ns) / 1e9);
        h += QObject::tr("<p><b>Slowest compiles:</b> %1 (%2)</p>")
                 .arg(parts.join(QStringLiteral(", ")),
                      link("kiln-view:Compile times", QObject::tr("all compile times")));
    }
    if (o.entries.empty()) return h + QObject::tr("<p>No FX graph entries.</p>");
    h += tableStart() + "<tr>" + th(QObject::tr("Compiled frame")) + th(QObject::tr("Compile time"), true) +
         th(QObject::tr("Key")) + "</tr>";
    for (std::size_t i = 0; i < o.entries.size() && i < kShown; ++i) {
        const auto& e = o.entries[i];
        h += "<tr>" + td(pathLink(e.path, entryName(e))) +
             td(e.compile_ns ? formatSeconds(double(*e.compile_ns) / 1e9) : QStringLiteral("–"), true) +
             td(QStringLiteral("<span style=\"color:%1\"><code>%2…</code></span>")
                    .arg(c.muted, htmlText(e.key.substr(0, 12)))) +
             "</tr>";
    }
    h += "</table>";
    if (o.entries.size() > kShown)
        h += QObject::tr("<p>… and %1 more in the %2.</p>")
                 .arg(o.entries.size() - kShown)
                 .arg(link("kiln-category:fxgraph", QObject::tr("cache browser")));
    if (!o.entry_errors.empty())
        h += QObject::tr("<p>%1 entries could not be decoded; the first: %2</p>")
                 .arg(o.entry_errors.size())
                 .arg(htmlText(o.entry_errors.front()));
    return h;
}

// What commands name: the blob the user opened, never its temporary unpacked copy.
QString opened(const overview::Overview& o) { return htmlText(o.blob.empty() ? o.root : o.blob); }

QString opsSection(const overview::Overview& o) {
    constexpr std::size_t kShown = 20;  // a shared cache holds thousands: the rest are in the Autotune view
    QString h = QObject::tr("<h3>Autotuned ops: %1</h3>").arg(o.ops.size());
    if (o.ops.empty() && o.kernel_configs > 0)
        return h + QObject::tr(
                       "<p>No benchmark of choices here, but <b>%1 per-kernel configs</b> (<code>.best_config</code>: "
                       "the config autotuning or coordinate descent settled on for one kernel)%2. They are listed in "
                       "the %3 view.</p>")
                       .arg(o.kernel_configs)
                       .arg(o.blob.empty() ? QString()
                                           : QObject::tr("; a Mega-Cache blob carries autotuning only so, the timing "
                                                         "caches stay on the machine that tuned"))
                       .arg(link("kiln-view:Autotune", QObject::tr("Autotune")));
    if (o.ops.empty())
        return h + QObject::tr(
                       "<p>No autotuning results under this root (%1 timing sources). Run max-autotune, or "
                       "open the %2 view to add timing files.</p>")
                       .arg(o.timing_sources)
                       .arg(link("kiln-view:Autotune", QObject::tr("Autotune")));
    h += tableStart() + "<tr>" + th(QObject::tr("Op")) + th(QObject::tr("Inputs")) + th(QObject::tr("Device")) +
         th(QObject::tr("Winner")) + th(QObject::tr("Time"), true) + th(QObject::tr("Next best"), true) + "</tr>";
    for (std::size_t i = 0; i < o.ops.size() && i < kShown; ++i) {
        const auto& op = o.ops[i];
        QString margin = QStringLiteral("–");
        if (op.best_ms && op.runner_up_ms && *op.best_ms > 0)
            margin = QObject::tr("%1× slower").arg(*op.runner_up_ms / *op.best_ms, 0, 'f', 2);
        h += "<tr>" + td(link(QStringLiteral("kiln-op:%1").arg(op.op_index), htmlText(op.op))) +
             td(htmlText(op.inputs)) + td(htmlText(op.device)) +
             td(QStringLiteral("<b>%1</b>").arg(htmlText(op.winner_name))) +
             td(op.best_ms ? QStringLiteral("%1 ms").arg(*op.best_ms, 0, 'f', 4) : QStringLiteral("–"), true) +
             td(margin, true) + "</tr>";
    }
    h += "</table>";
    if (o.ops.size() > kShown)
        h += QObject::tr("<p>… and %1 more in the %2 view.</p>")
                 .arg(o.ops.size() - kShown)
                 .arg(link("kiln-view:Autotune", QObject::tr("Autotune")));
    return h;
}

QString pendingSection(const QString& title, const QString& what, const Colors& c) {
    return QStringLiteral("<h3>%1</h3><p style=\"color:%2\">%3</p>").arg(title, c.muted, what);
}

QString portabilitySection(const overview::Overview& o) {
    const auto& p = o.portability;
    QString h = QObject::tr("<h3>Will it hit here?</h3>");
    if (!p.error.empty()) return h + QObject::tr("<p>Not assessed: %1</p>").arg(htmlText(p.error));
    h += QObject::tr("<p><b>%1 of %2 graph entries can hit here</b> (%3).</p>")
             .arg(p.hit)
             .arg(p.graph_entries)
             .arg(htmlText(p.target));
    if (p.miss) h += QObject::tr("<p>%1 would miss. ").arg(p.miss);
    else h += QStringLiteral("<p>");
    if (p.unknown) h += QObject::tr("%1 cannot be told without torch. ").arg(p.unknown);
    if (!p.lines.empty()) h += htmlText(p.lines.front());
    h += QObject::tr("</p><p>The whole answer: <code>kiln-cli portable %1 --target local</code></p>").arg(opened(o));
    return h;
}

QString evictSection(const overview::Overview& o) {
    const auto& e = o.evict;
    QString h = QObject::tr("<h3>Space</h3>");
    if (!o.blob.empty())
        return h + QObject::tr(
                       "<p>A Mega-Cache blob: nothing to evict (<code>kiln-cli evict</code> trims a cache "
                       "root; the blob is %1).</p>")
                       .arg(bytes(static_cast<std::uint64_t>(QFileInfo(QString::fromStdString(o.blob)).size())));
    if (!e.error.empty()) return h + QObject::tr("<p>Eviction not assessed: %1</p>").arg(htmlText(e.error));
    if (e.groups == 0)
        return h + QObject::tr(
                       "<p>Every group was used within 30 days: <code>kiln-cli evict %1</code> would free "
                       "nothing.</p>")
                       .arg(htmlText(e.limit));
    return h + QObject::tr(
                   "<p><code>kiln-cli evict %1</code> would free <b>%2</b> of %3 (%4 groups unused for 30 "
                   "days).</p>")
                   .arg(htmlText(e.limit), bytes(e.freed_bytes), bytes(e.bytes_before))
                   .arg(e.groups);
}

QString healthSection(const overview::Overview& o) {
    const auto& hl = o.health;
    QString h = QObject::tr("<h3>Health</h3>");
    if (!hl.error.empty()) return h + QObject::tr("<p>Not checked: %1</p>").arg(htmlText(hl.error));
    if (hl.problems == 0)
        return h + QObject::tr(
                       "<p>No problems: <code>kiln-cli check %1</code> finds every entry, kernel and library "
                       "intact.</p>")
                       .arg(opened(o));
    return h + QObject::tr("<p><b>%1 problems</b> found by <code>kiln-cli check %2</code>. %3</p>")
                   .arg(hl.problems)
                   .arg(opened(o))
                   .arg(link("kiln-view:Health", QObject::tr("Open the Health view to see and quarantine them")));
}

// The first thing to fix about startup: the biggest avoidable compile cost of the logs beside the root.
QString startupSection(const overview::Overview& o) {
    const auto& g = o.startup;
    if (!g.computed) return {};
    QString h = QObject::tr("<h3>Slow start</h3>");
    if (!g.error.empty())
        return h + QObject::tr("<p>The TORCH_TRACE logs could not be read: %1</p>").arg(htmlText(g.error));
    if (g.what.empty())
        return h + QObject::tr("<p><b>%1</b> spent %2 compiling; nothing the trace shows would remove it. %3</p>")
                       .arg(htmlText(g.process), formatSeconds(g.compile_seconds),
                            link("kiln-view:Compile timeline", QObject::tr("Where the time went")));
    return h +
           QObject::tr(
               "<p><b>Biggest avoidable cost: %1</b> of the %2 <b>%3</b> spent compiling: %4.<br>"
               "%5<i>Fix:</i> %6<br>%7</p>")
               .arg(formatSeconds(g.seconds), formatSeconds(g.compile_seconds), htmlText(g.process), htmlText(g.what),
                    g.inferred.empty() ? QString() : QObject::tr("<i>Inferred:</i> %1<br>").arg(htmlText(g.inferred)),
                    htmlText(g.fix), link("kiln-view:Compile timeline", QObject::tr("Where the time went")));
}

QString traceSection(const overview::Overview& o) {
    QString h = QObject::tr("<h3>Compile timeline</h3>");
    if (o.trace_dirs.empty())
        return h + QObject::tr(
                       "<p>No TORCH_TRACE logs beside this cache. Run torch with <code>TORCH_TRACE=DIR</code> "
                       "and keep DIR next to the cache root (as <code>trace/</code>) to see each compile, hit "
                       "or miss, and the time the cache saved.</p>");
    QStringList dirs;
    for (const auto& d : o.trace_dirs) dirs << QStringLiteral("<code>%1</code>").arg(htmlText(d));
    return h + QObject::tr("<p>TORCH_TRACE logs beside the cache: %1. %2</p>")
                   .arg(dirs.join(QStringLiteral(", ")),
                        link("kiln-view:Compile timeline", QObject::tr("Open the timeline")));
}

}  // namespace

QString overviewHtml(const overview::Overview& o, const QPalette& palette, const overview::SectionsPending& pending) {
    const Colors c(palette);
    QString h = QObject::tr("<h2>%1</h2><p style=\"color:%2\">%3 · %4 files · %5</p>")
                    .arg(QFileInfo(QString::fromStdString(o.blob.empty() ? o.root : o.blob)).fileName().toHtmlEscaped(),
                         c.muted, opened(o))
                    .arg(o.stats.total_files)
                    .arg(bytes(o.stats.total_bytes));
    h += startupSection(o);  // the first screen names the biggest avoidable cost
    h += pending.entries ? pendingSection(QObject::tr("Graph entries"), QObject::tr("Reading the graph entries …"), c)
                         : entriesSection(o, c);
    h += pending.ops ? pendingSection(QObject::tr("Autotuned ops"), QObject::tr("Reading the timings …"), c)
                     : opsSection(o);
    h += pending.portability ? pendingSection(QObject::tr("Will it hit here?"),
                                              QObject::tr("Comparing the entries with this machine …"), c)
                             : portabilitySection(o);
    h += pending.evict ? pendingSection(QObject::tr("Space"), QObject::tr("Planning eviction …"), c) : evictSection(o);
    h += pending.health ? pendingSection(QObject::tr("Health"), QObject::tr("Checking the cache …"), c)
                        : healthSection(o);
    h += traceSection(o);
    h += cacheSection(o);
    return h;
}

QString scanningHtml(const QString& root, std::uint64_t files, std::uint64_t bytes_so_far, const QPalette& palette) {
    const Colors c(palette);
    return QObject::tr(
               "<h2>%1</h2><p style=\"color:%2\">%3</p><p><b>Scanning …</b> %4 files, %5 so far.</p>"
               "<p style=\"color:%2\">The statistics show when the scan ends; the other sections follow "
               "as they are computed.</p>")
        .arg(QFileInfo(root).fileName().toHtmlEscaped(), c.muted, root.toHtmlEscaped())
        .arg(files)
        .arg(bytes(bytes_so_far));
}

QString noCacheHtml(const QString& reason, const QPalette& palette) {
    const Colors c(palette);
    return QObject::tr(
               "<h2>No cache to show</h2><p>%1</p>"
               "<p>Kiln looks at the folder given on the command line, then "
               "<code>$TORCHINDUCTOR_CACHE_DIR</code>, then <code>/tmp/torchinductor_&lt;user&gt;</code>.</p>"
               "<p><b>%2</b> (Ctrl+O), drop a cache folder on this window, or start Kiln with "
               "<code>kiln ROOT</code>.</p><p style=\"color:%3\">A cache root holds <code>fxgraph/</code>, "
               "<code>aotautograd/</code>, <code>triton/</code> …</p>")
        .arg(reason.toHtmlEscaped(), link(QStringLiteral("kiln-action:open"), QObject::tr("Open a cache folder…")),
             c.muted);
}

}  // namespace kiln::ui
