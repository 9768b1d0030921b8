#pragma once
// A line diff for side-by-side display (LCS by dynamic programming over the lines that differ
// after trimming the common prefix and suffix; graph code is a few hundred lines at most).
#include <QString>
#include <QStringList>
#include <QVector>

namespace kiln::ui {

struct DiffLine {
    enum class Kind { same, removed, added, changed };
    Kind kind = Kind::same;
    int lineA = 0;  // 1-based, 0 when absent on that side
    int lineB = 0;
    QString a;
    QString b;
};

// Pairs removed and added runs side by side as `changed` rows.
QVector<DiffLine> sideBySideDiff(const QStringList& a, const QStringList& b);

}  // namespace kiln::ui
