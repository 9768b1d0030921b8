#pragma once
// The Summary tab's page, built off the UI thread. Links use two schemes the inspector handles:
// `kiln-path:<absolute path>` selects that artifact, `kiln-filter:<text>` filters the tree.
#include <QString>

namespace kiln::ui {

struct InspectRequest;
struct Inspection;

QString summaryHtml(const InspectRequest& req, const Inspection& ins);
// Whether summaryHtml(req, ins) joins kernels, and without the root's timings (req.timings null): the
// window makes it again once they are read.
bool kernelsAwaitTimings(const InspectRequest& req, const Inspection& ins);

}  // namespace kiln::ui
