#pragma once
// Adds the autotune views to the main window through its extension point (addPanel): the
// "Autotune" table/chart tab, "Compare devices" and "Compile times", and the Tune menu. They follow
// the open root. What runs for minutes (ui/runs: sessions, re-tunes, the hand-back bar) the shell
// joins to them (ui/shell/tune_runs_install.hpp).
class QMenu;

namespace kiln::ui {

class ViewHost;
class TimingsPanel;
class AutotuneComparePanel;
class TimingsCompilePanel;

struct AutotuneViews {
    TimingsPanel* timings = nullptr;
    AutotuneComparePanel* compare = nullptr;
    TimingsCompilePanel* compileTimes = nullptr;
    QMenu* menu = nullptr;  // the Tune menu (the shell and other tools add their entries: Compare ranks…)
};

AutotuneViews installAutotuneViews(ViewHost& window);

}  // namespace kiln::ui
