#include "ui/ranks/ranks_install.hpp"

#include <QAction>
#include <QMenu>

#include "ui/common/view_host.hpp"
#include "ui/ranks/ranks_dialog.hpp"

namespace kiln::ui {

QAction* installRanksView(ViewHost& w, QMenu* menu) {
    auto* action = menu->addAction(QObject::tr("Compare ranks…"));
    action->setObjectName(QStringLiteral("compareRanksAction"));
    action->setToolTip(QObject::tr("Where the ranks (or machines) of one job disagree, and one agreed choice per op"));
    QObject::connect(action, &QAction::triggered, w.hostWidget(), [&w] {
        auto* dlg = new RanksDialog(w.jobs(), w.hostWidget());
        dlg->setAttribute(Qt::WA_DeleteOnClose);
        dlg->show();
    });
    return action;
}

}  // namespace kiln::ui
