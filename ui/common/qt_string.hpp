#pragma once
// Text from core (std::string / std::string_view, UTF-8) as a QString: the one conversion the views
// use (QString::fromStdString is the same for a std::string; this also takes views and literals), and
// the one way they write seconds.
#include <QString>

#include <string_view>

namespace kiln::ui {

inline QString qstr(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

// The same, escaped for the rich-text (HTML) views.
inline QString htmlText(std::string_view s) { return qstr(s).toHtmlEscaped(); }
inline QString htmlText(const QString& s) { return s.toHtmlEscaped(); }

// Seconds as every view writes them: "0.25 s", "47.7 s", "2 min 5 s".
inline QString formatSeconds(double s) {
    if (s < 10) return QStringLiteral("%1 s").arg(s, 0, 'f', 2);
    if (s < 120) return QStringLiteral("%1 s").arg(s, 0, 'f', 1);
    return QStringLiteral("%1 min %2 s").arg(int(s / 60)).arg(int(s) % 60);
}

}  // namespace kiln::ui
