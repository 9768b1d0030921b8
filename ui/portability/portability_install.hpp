#pragma once
// Installs the Portability view in the main window: a workspace tab that follows the open cache
// (a root or a Mega-Cache blob), verdict marks in the cache browser after each check, and a click on
// an entry selecting it in the browser (a double click also shows the Cache tab).
namespace kiln::ui {

class ViewHost;
class PortabilityPanel;

PortabilityPanel* installPortabilityView(ViewHost& w);

}  // namespace kiln::ui
