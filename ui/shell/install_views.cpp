#include "ui/shell/install_views.hpp"

#include "ui/common/view_host.hpp"
#include "ui/health/health_install.hpp"
#include "ui/portability/portability_install.hpp"
#include "ui/ranks/ranks_install.hpp"
#include "ui/shell/tune_runs_install.hpp"
#include "ui/timeline/timeline_install.hpp"
#ifdef KILN_HAVE_REMOTE
#include "ui/remote/remote_install.hpp"
#endif

namespace kiln::ui {

InstalledViews installAllViews(ViewHost& window) {
    InstalledViews v;
    v.autotune = installAutotuneViews(window);
    installTuneRuns(window, v.autotune);  // before Compare ranks…: the Tune menu's order
    v.compareRanks = installRanksView(window, v.autotune.menu);
    v.timeline = installTimelineView(window);
    v.portability = installPortabilityView(window);
    v.health = installHealthView(window);
#ifdef KILN_HAVE_REMOTE
    v.remote = installRemoteSource(window);
#endif
    return v;
}

}  // namespace kiln::ui
