#pragma once
// Which cache to open at start-up: the command line, else Inductor's own default root
// ($TORCHINDUCTOR_CACHE_DIR, else <tmpdir>/torchinductor_<user>), else the bundled sample cache.
#include <QString>

#include <memory>

namespace kiln::bundle {
struct RootOrBlob;
}

namespace kiln::ui {

struct RootChoice {
    QString path;
    bool isSample = false;  // the bundled sample cache: the window shows a banner saying so
    QString reason;         // why this root (shown in the status bar)
};

// Inductor's default root as torch computes it (core: frontend::default_cache_root); it may not exist.
QString inductorDefaultRoot();
// The bundled sample cache: next to an installed binary (../share/kiln/sample-cache) or in the
// source tree this binary was built from. Empty if neither exists.
QString sampleCacheRoot();
// A root or a Mega-Cache blob file (both open as a cache; which one is known once it is opened).
RootChoice chooseStartupRoot(const QString& commandLineRoot);

// A cache the window opens, as every kiln-cli command opens one (frontend::open_cache, with its
// error texts): a directory held open, or a Mega-Cache blob unpacked into a private temporary root
// that goes away with the last reference. Reads the file (a blob's header, all of it), so it runs on
// the JobRunner, never on the UI thread; the window gets the outcome as a value.
struct OpenedCacheOutcome {
    QString path;  // as given
    bool isSample = false;
    std::shared_ptr<const bundle::RootOrBlob> opened;  // null on error
    QString error;
};
OpenedCacheOutcome openCacheOffUiThread(const QString& path, bool isSample = false);

}  // namespace kiln::ui
