#pragma once
// The Summary tab's page, built off the UI thread. Links use two schemes the inspector handles:
// `kiln-path:<absolute path>` selects that artifact, `kiln-filter:<text>` filters the tree.
#include <QString>

namespace kiln::ui {

struct InspectRequest;
struct Inspection;

QString summaryHtml(const InspectRequest& req, const Inspection& ins);

}  // namespace kiln::ui
