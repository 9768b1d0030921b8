#include "ui/diff/entry_diff.hpp"

#include <QFileInfo>

#include <map>

#include "frontend/entry_ref.hpp"
#include "inductor/key_diff.hpp"
#include "inductor/trace_log.hpp"
#include "ui/jobs/job_control.hpp"
#ifdef KILN_HAVE_REMOTE
#include "remote/entry_source.hpp"
#include "ui/common/qt_string.hpp"
#endif

namespace kiln::ui {

namespace {

// The entry-reference syntax of `kiln-cli diff` (frontend/entry_ref.hpp), remote entries included.
Result<frontend::KeySide> loadSide(const QString& text) {
    KILN_TRY(auto ref, frontend::parse_entry_ref(text.toStdString()));
#ifdef KILN_HAVE_REMOTE
    return frontend::load_key_side(ref, [](std::string_view url) { return remote::fetch_entry(url); });
#else
    return frontend::load_key_side(ref);
#endif
}

}  // namespace

DiffOutcome diffArtifacts(const QString& a, const QString& b, JobControl& ctl) {
    DiffOutcome out;
    out.a = a;
    out.b = b;
    const auto sa = loadSide(a);
    if (ctl.cancelled()) return out;
    const auto sb = loadSide(b);
    if (!sa || !sb) {
        out.error = qstr(!sa ? sa.error().str() : sb.error().str());
        return out;
    }
    const inductor::ComponentDiff d = inductor::diff_components(sa->components, sb->components);
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
    std::map<std::string, int> fxIndex;  // per log: LOG#N counts its fx_graph events, as `kiln-cli misses`
    for (const auto& e : *events) {
        if (e.cache != "fx_graph") continue;
        const int n = fxIndex[e.log]++;
        if (e.components.empty()) continue;  // only keys with components can be compared
        TraceEvent t;
        t.miss = e.state == "miss";
        t.label =
            QStringLiteral("[%1] %2 %3 (%4:%5)")
                .arg(qstr(e.compile_id), qstr(e.artifact), qstr(e.key).left(12), QFileInfo(qstr(e.log)).fileName())
                .arg(e.line);
        t.spec = QStringLiteral("%1#%2").arg(qstr(e.log)).arg(n);
        out.events.push_back(std::move(t));
    }
    return out;
}

}  // namespace kiln::ui
