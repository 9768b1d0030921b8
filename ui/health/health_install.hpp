#pragma once
// Adds the Health view to the main window through its extension point (addPanel): it checks the
// open root, shows a selected problem's file in the browser, and rescans after quarantine/restore.
namespace kiln::ui {

class ViewHost;
class HealthPanel;

HealthPanel* installHealthView(ViewHost& window);

}  // namespace kiln::ui
