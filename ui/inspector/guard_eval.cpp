#include "inspector/guard_eval.hpp"

#include <QDir>

#include <map>
#include <optional>

#include "guards/expr.hpp"
#include "inductor/graph_entry.hpp"
#include "jobs/job_control.hpp"

namespace kiln::ui {

namespace {

struct LoadedEntry {
    QString file;
    std::optional<std::string> expr;  // nullopt: no guards
    std::optional<guards::Expr> parsed;
    QString error;
};

// The entries of a key dir in torch's lookup order: sorted names, dot files skipped (§5).
std::vector<LoadedEntry> loadKeyDir(const QString& keyDir, JobControl& ctl, QString& error) {
    std::vector<LoadedEntry> out;
    QDir dir(keyDir);
    if (!dir.exists()) {
        error = QObject::tr("%1: no such key dir").arg(keyDir);
        return out;
    }
    const QStringList names = dir.entryList(QDir::Files | QDir::NoDotAndDotDot, QDir::Name);  // QDir::Hidden off: skips ".x"
    QStringList sorted = names;
    std::sort(sorted.begin(), sorted.end(), [](const QString& a, const QString& b) { return a.toUtf8() < b.toUtf8(); });
    for (const QString& name : sorted) {
        if (ctl.cancelled()) break;
        LoadedEntry e;
        e.file = name;
        auto entry = inductor::load_graph_entry(dir.filePath(name).toStdString());
        if (!entry) {
            e.error = QString::fromStdString(entry.error().str());
        } else if ((e.expr = entry->guards_expr())) {
            auto parsed = guards::Expr::parse(*e.expr);
            if (parsed) e.parsed = std::move(parsed).value();
            else e.error = QString::fromStdString(parsed.error().str());
        }
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace

GuardSymbols loadGuardSymbols(const QString& keyDir, JobControl& ctl) {
    GuardSymbols out;
    out.keyDir = keyDir;
    const auto entries = loadKeyDir(keyDir, ctl, out.error);
    std::map<std::string, int> order;  // t0, t1, ... by slot; other names after
    for (const auto& e : entries) {
        if (!e.parsed) continue;
        const auto& syms = e.parsed->symbols();
        for (std::size_t i = 0; i < syms.size(); ++i)
            if (e.parsed->uses_slot(i) || syms[i].rfind("t", 0) == 0) order.emplace(syms[i], static_cast<int>(order.size()));
    }
    std::vector<std::pair<std::string, int>> v(order.begin(), order.end());
    auto slot = [](const std::string& s) {
        return s.size() > 1 && s[0] == 't' && s.find_first_not_of("0123456789", 1) == std::string::npos ? std::stoi(s.substr(1)) : 1 << 30;
    };
    std::sort(v.begin(), v.end(), [&](const auto& a, const auto& b) {
        return slot(a.first) != slot(b.first) ? slot(a.first) < slot(b.first) : a.second < b.second;
    });
    for (const auto& [name, _] : v) out.symbols << QString::fromStdString(name);
    return out;
}

GuardOutcome evaluateGuards(const QString& keyDir, const QVector<qint64>& values, JobControl& ctl) {
    GuardOutcome out;
    out.keyDir = keyDir;
    out.values = values;
    const GuardSymbols syms = loadGuardSymbols(keyDir, ctl);
    std::map<std::string, std::int64_t> named;
    for (qsizetype i = 0; i < syms.symbols.size() && i < values.size(); ++i) named[syms.symbols[i].toStdString()] = values[i];
    const auto entries = loadKeyDir(keyDir, ctl, out.error);
    int holding = 0;
    for (const auto& e : entries) {
        GuardRow row;
        row.file = e.file;
        row.error = e.error;
        if (e.expr) row.expr = QString::fromStdString(*e.expr);
        if (e.error.isEmpty()) {
            if (!e.parsed) {
                row.pass = true;  // no guards: a hit
            } else {
                auto bound = e.parsed->bind(named);
                auto verdict = bound ? e.parsed->check(*bound) : Result<guards::Verdict>(bound.error());
                if (!verdict) row.error = QString::fromStdString(verdict.error().str());
                else {
                    row.pass = verdict->pass;
                    if (verdict->failing) row.failing = QString::fromStdString(*verdict->failing);
                }
            }
        }
        if (row.pass) {
            ++holding;
            if (out.served.isEmpty()) out.served = row.file;
        }
        out.rows.push_back(std::move(row));
    }
    out.ambiguous = holding > 1;
    return out;
}

}  // namespace kiln::ui
