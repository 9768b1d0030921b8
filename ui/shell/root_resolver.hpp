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
// A root or a Mega-Cache blob file (both open as a cache).
RootChoice chooseStartupRoot(const QString& commandLineRoot);

// A Mega-Cache blob file (torch.compiler.save_cache_artifacts): the window opens it like a root.
bool isMegaCacheBlob(const QString& path);
// A blob unpacked into a private temporary root (frontend::open_cache, the route every kiln-cli
// command takes, with its error texts; the directory goes away with the last reference). Runs off
// the UI thread.
struct OpenedBlob {
    QString blobPath;
    std::shared_ptr<const bundle::RootOrBlob> opened;  // null on error
    QString error;
};
OpenedBlob unpackBlob(const QString& blobPath);

}  // namespace kiln::ui
