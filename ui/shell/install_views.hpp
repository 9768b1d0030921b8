#pragma once
// Every feature view the application has, installed into one window: what `kiln` and
// bench/scale/gui_open open, so both show the same window. Each installer takes the window's
// narrow interface (common/view_host.hpp); the shell, the roof, is the one place that knows them all.
#include "ui/tuning/timings_install.hpp"

class QAction;

namespace kiln::ui {

class HealthPanel;
class PortabilityPanel;
class RemotePanel;
class TimelinePanel;
class ViewHost;

struct InstalledViews {
    AutotuneViews autotune;                   // Autotune, Compare devices, Compile times tabs; Tune menu
    QAction* compareRanks = nullptr;          // Tune › Compare ranks… (the Ranks dialog)
    TimelinePanel* timeline = nullptr;        // Compile timeline tab
    PortabilityPanel* portability = nullptr;  // Portability tab; verdict colours in the browser
    HealthPanel* health = nullptr;            // Health: check, quarantine, restore
    RemotePanel* remote = nullptr;            // the Redis source, a dock (nullptr: built without hiredis)
};

InstalledViews installAllViews(ViewHost& window);

}  // namespace kiln::ui
