#pragma once
// Joins the Autotune views (ui/tuning) with the work that runs for minutes (ui/runs): the hand-back
// bar below the Autotune results, the New tuning session and Re-tune dialogs its buttons open (the
// shared read of the root's timings read again when they end), and the Tune menu's entries for them
// and for Recompile and Re-benchmark of what the inspector shows. Here in the shell, the one place
// that knows both features: neither includes the other.
namespace kiln::ui {

class ViewHost;
struct AutotuneViews;

void installTuneRuns(ViewHost& window, const AutotuneViews& views);

}  // namespace kiln::ui
