#pragma once
// Adds the autotune views to the main window through its extension point (addPanel): the
// "Autotune" table/chart tab, "Compare devices" and "Compile times". They follow the open root.
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
    QMenu* menu = nullptr;  // the Tune menu (other tools add their entries: Compare ranks…)
};

AutotuneViews installAutotuneViews(ViewHost& window);

}  // namespace kiln::ui
