#include "diff/line_diff.hpp"

#include <vector>

namespace kiln::ui {

namespace {

constexpr qsizetype kMaxCells = 25'000'000;  // beyond this, fall back to "all changed" for the middle

void flushRun(QVector<DiffLine>& out, QVector<DiffLine>& removed, QVector<DiffLine>& added) {
    const qsizetype n = std::max(removed.size(), added.size());
    for (qsizetype i = 0; i < n; ++i) {
        DiffLine d;
        if (i < removed.size() && i < added.size()) {
            d = removed[i];
            d.kind = DiffLine::Kind::changed;
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

QVector<DiffLine> sideBySideDiff(const QStringList& a, const QStringList& b) {
    qsizetype pre = 0;
    while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
    qsizetype suf = 0;
    while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) ++suf;
    const qsizetype n = a.size() - pre - suf, m = b.size() - pre - suf;

    QVector<DiffLine> out;
    for (qsizetype i = 0; i < pre; ++i)
        out.push_back({DiffLine::Kind::same, int(i + 1), int(i + 1), a[i], b[i]});

    QVector<DiffLine> removed, added;
    auto rem = [&](qsizetype i) { removed.push_back({DiffLine::Kind::removed, int(pre + i + 1), 0, a[pre + i], {}}); };
    auto add = [&](qsizetype j) { added.push_back({DiffLine::Kind::added, 0, int(pre + j + 1), {}, b[pre + j]}); };
    if (n * m <= kMaxCells) {
        // lcs[i][j]: LCS length of a[pre+i..] and b[pre+j..]
        std::vector<std::vector<int>> lcs(static_cast<std::size_t>(n + 1), std::vector<int>(static_cast<std::size_t>(m + 1), 0));
        for (qsizetype i = n - 1; i >= 0; --i)
            for (qsizetype j = m - 1; j >= 0; --j)
                lcs[i][j] = a[pre + i] == b[pre + j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
        qsizetype i = 0, j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && a[pre + i] == b[pre + j]) {
                flushRun(out, removed, added);
                out.push_back({DiffLine::Kind::same, int(pre + i + 1), int(pre + j + 1), a[pre + i], b[pre + j]});
                ++i, ++j;
            } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
                add(j++);
            } else {
                rem(i++);
            }
        }
    } else {
        for (qsizetype i = 0; i < n; ++i) rem(i);
        for (qsizetype j = 0; j < m; ++j) add(j);
    }
    flushRun(out, removed, added);
    for (qsizetype k = 0; k < suf; ++k) {
        const qsizetype ia = a.size() - suf + k, ib = b.size() - suf + k;
        out.push_back({DiffLine::Kind::same, int(ia + 1), int(ib + 1), a[ia], b[ib]});
    }
    return out;
}

}  // namespace kiln::ui
