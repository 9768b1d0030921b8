#include "ui/diff/line_diff.hpp"

#include "inductor/key_diff.hpp"
#include "ui/common/qt_string.hpp"

namespace kiln::ui {

namespace {

void flushRun(QVector<SideBySideLine>& out, QVector<SideBySideLine>& removed, QVector<SideBySideLine>& added) {
    const qsizetype n = std::max(removed.size(), added.size());
    for (qsizetype i = 0; i < n; ++i) {
        SideBySideLine d;
        if (i < removed.size() && i < added.size()) {
            d = removed[i];
            d.kind = SideBySideLine::Kind::changed;
            d.lineB = added[i].lineB;
            d.b = added[i].b;
        } else {
            d = i < removed.size() ? removed[i] : added[i];
        }
        out.push_back(d);
    }
    removed.clear();
    added.clear();
}

}  // namespace

QVector<SideBySideLine> sideBySide(const std::vector<inductor::DiffLine>& lines) {
    QVector<SideBySideLine> out, removed, added;
    int la = 0, lb = 0;
    for (const auto& l : lines) {
        switch (l.op) {
            case inductor::LineOp::same:
                flushRun(out, removed, added);
                ++la, ++lb;
                out.push_back({SideBySideLine::Kind::same, la, lb, qstr(l.text), qstr(l.text)});
                break;
            case inductor::LineOp::removed:
                removed.push_back({SideBySideLine::Kind::removed, ++la, 0, qstr(l.text), {}});
                break;
            case inductor::LineOp::added:
                added.push_back({SideBySideLine::Kind::added, 0, ++lb, {}, qstr(l.text)});
                break;
        }
    }
    flushRun(out, removed, added);
    return out;
}

QVector<SideBySideLine> sideBySideDiff(const QString& a, const QString& b) {
    return sideBySide(inductor::line_diff(a.toStdString(), b.toStdString()));
}

}  // namespace kiln::ui
