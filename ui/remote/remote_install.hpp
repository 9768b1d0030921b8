#pragma once
// Adds the Redis source to the main window through its extension point (addPanel): a dock beside
// the cache browser whose entries open in the same inspector, with the same tabs.
namespace kiln::ui {

class ViewHost;
class RemotePanel;

RemotePanel* installRemoteSource(ViewHost& window);

}  // namespace kiln::ui
