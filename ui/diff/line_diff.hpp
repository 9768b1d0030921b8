#pragma once
// The core's line diff (inductor/key_diff.hpp) laid out side by side: runs of removed and added
// lines are paired into `changed` rows so the two columns stay aligned.
#include <QString>
#include <QVector>

#include <vector>

namespace kiln::inductor {
struct DiffLine;
}

namespace kiln::ui {

struct SideBySideLine {
    enum class Kind { same, removed, added, changed };
    Kind kind = Kind::same;
    int lineA = 0;  // 1-based, 0 when absent on that side
    int lineB = 0;
    QString a;
    QString b;
};

QVector<SideBySideLine> sideBySide(const std::vector<inductor::DiffLine>& lines);
QVector<SideBySideLine> sideBySideDiff(const QString& a, const QString& b);

}  // namespace kiln::ui
