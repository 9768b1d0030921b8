#pragma once
// Adds "Compare ranks…" to a feature menu (the Tune menu): it opens a RanksDialog on the window's
// job runner. The dialog does not follow the open cache: it reads the rank folders the user picks.
class QAction;
class QMenu;

namespace kiln::ui {

class ViewHost;

QAction* installRanksView(ViewHost& window, QMenu* menu);

}  // namespace kiln::ui
