#pragma once
// Light/dark: follow the platform by default; a forced choice uses Fusion with a matching palette.
#include <QPalette>

#include "shell/settings.hpp"

namespace kiln::ui {

void applyTheme(Theme theme);
// True when the application's current palette has a dark window background.
bool isDarkPalette(const QPalette& p);

}  // namespace kiln::ui
