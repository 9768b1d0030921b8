#include "diff/entry_diff.hpp"

#include <QFileInfo>
#include <QHash>

#include "inductor/graph_entry.hpp"
#include "inspector/inspection.hpp"
#include "jobs/job_control.hpp"

namespace kiln::ui {

namespace {

struct Side {
    QVector<KeyComponent> components;
    QString error;
};

Side loadSide(const QString& spec) {
    Side s;
    auto entry = inductor::load_graph_entry(spec.toStdString());
    if (!entry) {
        s.error = QString::fromStdString(entry.error().str());
        return s;
    }
    s.components = parseDebugLines(entry->debug_lines());
    if (s.components.isEmpty()) s.error = QObject::tr("%1: the entry has no _fx_graph_cache_debug_lines").arg(spec);
    return s;
}

// Components align by name; a name seen twice keeps its first value (torch never repeats one).
QHash<QString, const KeyComponent*> byName(const QVector<KeyComponent>& v, QStringList& order) {
    QHash<QString, const KeyComponent*> m;
    for (const auto& c : v)
        if (!m.contains(c.name)) {
            m.insert(c.name, &c);
            order << c.name;
        }
    return m;
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
    QStringList orderA, orderB;
    const auto ma = byName(sa.components, orderA);
    const auto mb = byName(sb.components, orderB);
    for (const QString& name : orderA) {
        const auto* ca = ma.value(name);
        const auto* cb = mb.value(name);
        if (!cb) out.onlyA << name;
        else if (ca->hash != cb->hash) out.changed.push_back({name, ca->value, cb->value});
        else ++out.same;
    }
    for (const QString& name : orderB)
        if (!ma.contains(name)) out.onlyB << name;
    for (const auto& c : out.changed)
        if (c.component == QLatin1String("gm"))
            out.gmLines = sideBySideDiff(c.a.split(QLatin1Char('\n')), c.b.split(QLatin1Char('\n')));
    return out;
}

}  // namespace kiln::ui
