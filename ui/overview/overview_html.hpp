#pragma once
// The Overview as HTML for a QTextBrowser: every number from overview::Overview (the same functions
// the CLI prints), every colour from the palette, every item a link to its view:
//   kiln-path:<file or dir>     select it in the cache browser
//   kiln-category:<name>        select that category in the cache browser
//   kiln-view:<tab title>       switch to that workspace tab ("Compile times", "Compile timeline")
//   kiln-op:<index>             the Autotune tab on that op (collect_timings' index)
//   kiln-action:open            File › Open
#include <QPalette>
#include <QString>

#include "overview/overview.hpp"

namespace kiln::ui {

// Sections still `pending` say so ("computing …") instead of showing zeros.
QString overviewHtml(const overview::Overview& o, const QPalette& palette,
                     const overview::SectionsPending& pending = {});

// While the scan runs: the root and what the scan found so far.
QString scanningHtml(const QString& root, std::uint64_t files, std::uint64_t bytes, const QPalette& palette);

// No cache to show: where Kiln looked, and how to open one.
QString noCacheHtml(const QString& reason, const QPalette& palette);

}  // namespace kiln::ui
