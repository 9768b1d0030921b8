#pragma once
// Adds the Compile timeline tab to the main window: it follows the open root, and an event's key
// selects that entry in the cache browser.
namespace kiln::ui {

class ViewHost;
class TimelinePanel;

TimelinePanel* installTimelineView(ViewHost& window);

}  // namespace kiln::ui
