#include "ui/inspector/guard_eval.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include "guards/expr.hpp"
#include "inductor/guard_lookup.hpp"
#include "ui/common/qt_string.hpp"
#include "ui/jobs/job_control.hpp"

namespace kiln::ui {

namespace {

// torch names the graph's SymInt inputs t0, t1, ...: order by that index, other names after.
int slotOf(const std::string& s) {
    if (s.size() > 1 && s[0] == 't' && s.size() < 10 && s.find_first_not_of("0123456789", 1) == std::string::npos)
        return std::stoi(s.substr(1));
    return 1 << 30;
}

}  // namespace

GuardSymbols loadGuardSymbols(const QString& keyDir, JobControl& ctl) {
    GuardSymbols out;
    out.keyDir = keyDir;
    auto files = inductor::key_dir_entries(keyDir.toStdString());
    if (!files) {
        out.error = qstr(files.error().str());
        return out;
    }
    std::map<std::string, int> firstSeen;
    for (const auto& f : *files) {
        if (ctl.cancelled()) break;
        auto entry = inductor::load_graph_entry(f);
        if (!entry) {
            out.error = qstr(entry.error().str());
            continue;
        }
        const auto text = entry->guards_expr();
        if (!text) continue;
        auto expr = guards::Expr::parse(*text);
        if (!expr) {
            out.error = qstr(expr.error().str());
            continue;
        }
        for (const auto& s : expr->symbols()) firstSeen.emplace(s, static_cast<int>(firstSeen.size()));
    }
    std::vector<std::pair<std::string, int>> v(firstSeen.begin(), firstSeen.end());
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
        return slotOf(a.first) != slotOf(b.first) ? slotOf(a.first) < slotOf(b.first) : a.second < b.second;
    });
    for (const auto& [name, _] : v) out.symbols << qstr(name);
    return out;
}

GuardOutcome evaluateGuards(const QString& keyDir, const QVector<qint64>& values, JobControl&) {
    GuardOutcome out;
    out.keyDir = keyDir;
    out.values = values;
    const std::vector<std::int64_t> sizes(values.begin(), values.end());
    auto lookup = inductor::lookup_guards(keyDir.toStdString(), sizes);
    if (!lookup) {
        out.error = qstr(lookup.error().str());
        return out;
    }
    for (const auto& e : lookup->entries) {
        GuardRow row;
        row.file = qstr(e.file);
        row.expr = e.guards_expr ? qstr(*e.guards_expr) : QString();
        row.pass = e.pass;
        row.failing = e.failing ? qstr(*e.failing) : QString();
        row.error = e.error ? qstr(*e.error) : QString();  // skipped, as torch skips it
        out.rows.push_back(std::move(row));
    }
    out.served = lookup->served ? qstr(*lookup->served) : QString();
    out.ambiguous = lookup->ambiguous;
    return out;
}

}  // namespace kiln::ui
