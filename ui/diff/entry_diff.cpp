#include "diff/entry_diff.hpp"

#include <QFileInfo>
#include <QRegularExpression>

#include "inductor/graph_entry.hpp"
#include "inductor/key_diff.hpp"
#include "inductor/trace_log.hpp"
#include "jobs/job_control.hpp"

namespace kiln::ui {

namespace {

QString qstr(const std::string& s) { return QString::fromStdString(s); }

// A trace event is named "trace:<log file>:<line of its record>".
const QRegularExpression& traceSpec() {
    static const QRegularExpression re(QStringLiteral("^trace:(.+):(\\d+)$"));
    return re;
}

struct Side {
    std::vector<inductor::KeyComponent> components;
    QString error;
};

Side fromLines(const std::vector<std::string>& lines, const QString& what) {
    Side s;
    if (lines.empty()) {
        s.error = QObject::tr("%1: no key components (no _fx_graph_cache_debug_lines)").arg(what);
        return s;
    }
    auto parsed = inductor::parse_debug_lines(lines);
    if (!parsed) s.error = qstr(parsed.error().str());
    else s.components = std::move(parsed).value();
    return s;
}

Side loadSide(const QString& spec) {
    const auto m = traceSpec().match(spec);
    if (m.hasMatch()) {
        auto events = inductor::read_trace_log(m.captured(1).toStdString());
        if (!events) return Side{{}, qstr(events.error().str())};
        const std::size_t line = m.captured(2).toULongLong();
        for (const auto& e : *events)
            if (e.line == line) return fromLines(e.components, spec);
        return Side{{}, QObject::tr("%1: no cache event at line %2").arg(m.captured(1)).arg(line)};
    }
    auto entry = inductor::load_graph_entry(spec.toStdString());
    if (!entry) return Side{{}, qstr(entry.error().str())};
    return fromLines(entry->debug_lines(), spec);
}

}  // namespace

DiffOutcome diffArtifacts(const QString& a, const QString& b, JobControl& ctl) {
    DiffOutcome out;
    out.a = a;
    out.b = b;
    const Side sa = loadSide(a);
    if (ctl.cancelled()) return out;
    const Side sb = loadSide(b);
    if (!sa.error.isEmpty() || !sb.error.isEmpty()) {
        out.error = !sa.error.isEmpty() ? sa.error : sb.error;
        return out;
    }
    const inductor::ComponentDiff d = inductor::diff_components(sa.components, sb.components);
    for (const auto& c : d.changed) {
        out.changed.push_back({qstr(c.component), qstr(c.a), qstr(c.b)});
        if (c.component == "gm") out.gmLines = sideBySide(inductor::line_diff(c.a, c.b));
    }
    for (const auto& n : d.only_a) out.onlyA << qstr(n);
    for (const auto& n : d.only_b) out.onlyB << qstr(n);
    out.same = static_cast<int>(d.same);
    return out;
}

TraceEvents loadTraceEvents(const QString& logFileOrDir, JobControl&) {
    TraceEvents out;
    out.path = logFileOrDir;
    auto events = inductor::read_trace_logs(logFileOrDir.toStdString());
    if (!events) {
        out.error = qstr(events.error().str());
        return out;
    }
    for (const auto& e : *events) {
        if (e.cache != "fx_graph" || e.components.empty()) continue;  // only FX graph keys can be compared
        TraceEvent t;
        t.miss = e.state == "miss";
        t.label = QStringLiteral("[%1] %2 %3 (%4:%5)")
                      .arg(qstr(e.compile_id), qstr(e.artifact), qstr(e.key).left(12),
                           QFileInfo(qstr(e.log)).fileName())
                      .arg(e.line);
        t.spec = QStringLiteral("trace:%1:%2").arg(qstr(e.log)).arg(e.line);
        out.events.push_back(std::move(t));
    }
    return out;
}

}  // namespace kiln::ui
