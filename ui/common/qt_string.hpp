#pragma once
// Text from core (std::string / std::string_view, UTF-8) as a QString: the one conversion the views
// use (QString::fromStdString is the same for a std::string; this also takes views and literals).
#include <QString>

#include <string_view>

namespace kiln::ui {

inline QString qstr(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

// The same, escaped for the rich-text (HTML) views.
inline QString htmlText(std::string_view s) { return qstr(s).toHtmlEscaped(); }
inline QString htmlText(const QString& s) { return s.toHtmlEscaped(); }

}  // namespace kiln::ui
