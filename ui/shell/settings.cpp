#include "ui/shell/settings.hpp"

#include <algorithm>

namespace kiln::ui {

QStringList Settings::recentRoots() const { return s_.value("recent/roots").toStringList(); }

void Settings::addRecentRoot(const QString& root) {
    QStringList list = recentRoots();
    list.removeAll(root);
    list.prepend(root);
    while (list.size() > kMaxRecent) list.removeLast();
    s_.setValue("recent/roots", list);
}

void Settings::clearRecentRoots() { s_.remove("recent/roots"); }

Theme Settings::theme() const {
    const QString t = s_.value("view/theme", "system").toString();
    if (t == "light") return Theme::light;
    if (t == "dark") return Theme::dark;
    return Theme::system;
}

void Settings::setTheme(Theme t) {
    s_.setValue("view/theme", t == Theme::light ? "light" : t == Theme::dark ? "dark" : "system");
}

int Settings::sourceFontSize() const { return std::clamp(s_.value("view/sourceFontSize", 0).toInt(), 0, 72); }
void Settings::setSourceFontSize(int pt) { s_.setValue("view/sourceFontSize", pt); }

bool Settings::watchForChanges() const { return s_.value("cache/watch", true).toBool(); }
void Settings::setWatchForChanges(bool on) { s_.setValue("cache/watch", on); }
int Settings::coalesceMs() const { return std::clamp(s_.value("cache/coalesceMs", 500).toInt(), 50, 60000); }
void Settings::setCoalesceMs(int ms) { s_.setValue("cache/coalesceMs", ms); }

QByteArray Settings::windowGeometry() const { return s_.value("window/geometry").toByteArray(); }
QByteArray Settings::windowState() const { return s_.value("window/state").toByteArray(); }
void Settings::saveWindow(const QByteArray& geometry, const QByteArray& state) {
    s_.setValue("window/geometry", geometry);
    s_.setValue("window/state", state);
}

}  // namespace kiln::ui
