#include "ui/portability/portability_install.hpp"

#include <QTabWidget>
#include <QTableView>

#include "ui/browser/cache_browser.hpp"
#include "ui/browser/cache_tree_model.hpp"
#include "ui/common/view_host.hpp"
#include "ui/portability/portability_panel.hpp"
#include "ui/portability/verdict_model.hpp"
#include "ui/portability/verdict_style.hpp"

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

PortabilityPanel* installPortabilityView(ViewHost& w) {
    auto* panel = new PortabilityPanel(w.jobs(), [&w] { return w.openedRoot(); });
    w.addPanel(panel, QObject::tr("Portability"));
    w.onRootChanged(panel, [&w, panel](const QString&) {
        panel->clear();
        w.browser()->model()->setMarks({});
    });
    QObject::connect(panel, &PortabilityPanel::checked, w.hostWidget(),
                     [&w](const PortabilityOutcome& out) { w.browser()->model()->setMarks(verdictMarks(out)); });
    QObject::connect(panel, &PortabilityPanel::entryActivated, w.hostWidget(),
                     [&w](const QString& path) { w.browser()->selectPath(path); });
    QObject::connect(panel->verdictView(), &QTableView::doubleClicked, w.hostWidget(), [&w](const QModelIndex& i) {
        if (w.browser()->selectPath(i.data(VerdictModel::AbsolutePathRole).toString())) w.showCacheTab();
    });
    return panel;
}

}  // namespace kiln::ui
