#include "portability/portability_install.hpp"

#include <QTabWidget>
#include <QTableView>

#include "browser/cache_browser.hpp"
#include "browser/cache_tree_model.hpp"
#include "portability/portability_panel.hpp"
#include "portability/verdict_model.hpp"
#include "portability/verdict_style.hpp"
#include "shell/main_window.hpp"

namespace kiln::ui {

namespace {

using portability::Verdict;

int severity(Verdict v) { return v == Verdict::miss ? 2 : v == Verdict::unknown ? 1 : 0; }

// Every judged item's path, and a graph entry's key dir (its worst verdict), marked with its colour.
QHash<QString, PathMark> verdictMarks(const PortabilityOutcome& out) {
    QHash<QString, PathMark> marks;
    if (!out.report) return marks;
    const QString target = QString::fromStdString(out.report->target.label());
    QHash<QString, Verdict> worst;
    for (const auto& item : out.report->items) {
        const QString path = itemAbsolutePath(out.root, item);
        worst.insert(path, item.assessment.verdict);
        if (item.kind == portability::ItemKind::fx_graph || item.kind == portability::ItemKind::aot_autograd) {
            const QString keyDir = path.section(QLatin1Char('/'), 0, -2);
            if (!worst.contains(keyDir) || severity(item.assessment.verdict) > severity(worst[keyDir]))
                worst.insert(keyDir, item.assessment.verdict);
        }
    }
    for (auto it = worst.cbegin(); it != worst.cend(); ++it)
        marks.insert(it.key(), {verdictColor(it.value(), false), verdictColor(it.value(), true),
                                QObject::tr("Portability on %1: %2 (%3)")
                                    .arg(target,
                                         QString::fromUtf8(portability::verdict_name(it.value()).data(),
                                                           qsizetype(portability::verdict_name(it.value()).size())),
                                         verdictTitle(it.value()))});
    return marks;
}

}  // namespace

PortabilityPanel* installPortabilityView(MainWindow& w) {
    auto* panel = new PortabilityPanel(w.jobs(), [&w] { return w.openedRoot(); });
    w.addPanel(panel, QObject::tr("Portability"));
    QObject::connect(&w, &MainWindow::rootChanged, panel, [&w, panel] {
        panel->clear();
        w.browser()->model()->setMarks({});
    });
    QObject::connect(panel, &PortabilityPanel::checked, &w,
                     [&w](const PortabilityOutcome& out) { w.browser()->model()->setMarks(verdictMarks(out)); });
    QObject::connect(panel, &PortabilityPanel::entryActivated, &w,
                     [&w](const QString& path) { w.browser()->selectPath(path); });
    QObject::connect(panel->verdictView(), &QTableView::doubleClicked, &w, [&w](const QModelIndex& i) {
        if (w.browser()->selectPath(i.data(VerdictModel::AbsolutePathRole).toString())) w.showCacheTab();
    });
    return panel;
}

}  // namespace kiln::ui
