#pragma once
// Which cache to open at start-up: the command line, else Inductor's own default root
// ($TORCHINDUCTOR_CACHE_DIR, else <tmpdir>/torchinductor_<user>), else the bundled sample cache.
#include <QString>

namespace kiln::ui {

struct RootChoice {
    QString path;
    bool isSample = false;  // the bundled sample cache: the window shows a banner saying so
    QString reason;         // why this root (shown in the status bar)
};

// Inductor's default root as torch computes it (core: inductor/roots.hpp); it may not exist.
QString inductorDefaultRoot();
// The bundled sample cache: next to an installed binary (../share/kiln/sample-cache) or in the
// source tree this binary was built from. Empty if neither exists.
QString sampleCacheRoot();
RootChoice chooseStartupRoot(const QString& commandLineRoot);

}  // namespace kiln::ui
