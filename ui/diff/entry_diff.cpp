#include "ui/diff/entry_diff.hpp"

#include <QFileInfo>

#include <map>

#include "frontend/entry_ref.hpp"
#include "inductor/debug_lines.hpp"
#include "inductor/key_diff.hpp"
#include "trace/compile_timeline.hpp"
#include "trace/trace_log.hpp"
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
        // Values as the Key components tab shows them: what is not text escaped, never mojibake.
        out.changed.push_back({qstr(c.component), qstr(inductor::component_value_text(c.a).text),
                               qstr(inductor::component_value_text(c.b).text)});
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
    auto events = trace::read_trace_logs(logFileOrDir.toStdString());
    if (!events) {
        out.error = qstr(events.error().str());
        return out;
    }
    // The frame each event's compile compiled (dynamo_start's co_name, file and line), by log and line:
    // a key alone does not say which function it is.
    std::map<std::pair<std::string, std::size_t>, std::string> frames;
    if (auto timeline = trace::read_compile_timeline(logFileOrDir.toStdString()); timeline.ok())
        for (const auto& p : timeline->processes)
            for (const auto& c : p.compiles) {
                const std::string frame = trace::FrameRef{c.function, c.file, c.line}.label();
                if (frame.empty()) continue;
                for (const auto& e : c.events) frames[{p.log, e.line}] = frame;
            }
    std::map<std::string, int> fxIndex;  // per log: LOG#N counts its fx_graph events, as `kiln-cli misses`
    for (const auto& e : *events) {
        if (e.cache != "fx_graph") continue;
        const int n = fxIndex[e.log]++;
        if (e.components.empty()) continue;  // only keys with components can be compared
        TraceEvent t;
        t.miss = e.state == "miss";
        auto frame = frames.find({e.log, e.line});
        t.function = frame == frames.end() ? QString() : qstr(frame->second);
        t.label = QStringLiteral("[%1] %2%3 %4 (%5:%6)")
                      .arg(qstr(e.compile_id), t.function.isEmpty() ? QString() : t.function + QStringLiteral("  "),
                           qstr(e.artifact), qstr(e.key).left(12), QFileInfo(qstr(e.log)).fileName())
                      .arg(e.line);
        t.spec = QStringLiteral("%1#%2").arg(qstr(e.log)).arg(n);
        t.key = qstr(e.key);
        out.events.push_back(std::move(t));
    }
    return out;
}

}  // namespace kiln::ui
