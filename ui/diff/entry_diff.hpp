#pragma once
// "Why do these two keys differ?": the components of two graph entries' cache keys (or of a
// TORCH_TRACE cache event) aligned by name by the core, plus a line diff of the graph code (gm).
#include <QString>
#include <QStringList>
#include <QVector>

#include "ui/diff/line_diff.hpp"

namespace kiln::ui {

class JobControl;

struct ComponentChange {
    QString component;
    QString a;
    QString b;
};

struct DiffOutcome {
    QString a, b;  // what was compared, as given
    QVector<ComponentChange> changed;
    QStringList onlyA, onlyB;
    int same = 0;
    QVector<SideBySideLine> gmLines;  // side by side; empty when gm did not change
    QString error;
};

// A cache event read from a TORCH_TRACE log, offered as one side of a diff.
struct TraceEvent {
    QString label;     // "[0/1] h (gen_inductor_cache.py:71)  fx_graph_cache_miss fswe3w… (LOG:LINE)"
    QString function;  // the compiled frame, "h (gen_inductor_cache.py:71)"; "" when the log does not say
    QString spec;      // its entry reference, LOG#N (frontend/entry_ref.hpp)
    QString key;       // the FX graph key the event names
    bool miss = false;
};

struct TraceEvents {
    QString path;
    QVector<TraceEvent> events;
    QString error;
};

// `a` and `b` are entry references, as `kiln-cli diff` takes them (frontend/entry_ref.hpp).
DiffOutcome diffArtifacts(const QString& a, const QString& b, JobControl& ctl);
// Every FX graph cache event of a log (or of the logs in a directory).
TraceEvents loadTraceEvents(const QString& logFileOrDir, JobControl& ctl);

}  // namespace kiln::ui
