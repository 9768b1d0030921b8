#pragma once
// Typed access to the user's settings (QSettings, organisation "Kiln"): one place for every key.
#include <QByteArray>
#include <QSettings>
#include <QString>
#include <QStringList>

#include "ui/theme/palette.hpp"

namespace kiln::ui {

class Settings {
public:
    static constexpr int kMaxRecent = 10;

    QStringList recentRoots() const;
    void addRecentRoot(const QString& root);  // most recent first, deduplicated, capped
    void clearRecentRoots();

    Theme theme() const;
    void setTheme(Theme t);

    int sourceFontSize() const;  // points; 0 = the system's fixed font size
    void setSourceFontSize(int pt);

    bool watchForChanges() const;
    void setWatchForChanges(bool on);
    int coalesceMs() const;  // how long the watcher waits for a burst of writes to settle
    void setCoalesceMs(int ms);

    QByteArray windowGeometry() const;
    QByteArray windowState() const;
    void saveWindow(const QByteArray& geometry, const QByteArray& state);

private:
    mutable QSettings s_;
};

}  // namespace kiln::ui
