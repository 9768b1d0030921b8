// The evict dry run's summary: totals per category and what the .best_config files cost to redo.
#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "inductor/evict.hpp"
#include "util/regular_file.hpp"

namespace kiln::inductor {

std::vector<CategoryTotal> totals_by_category(const EvictReport& report) {
    std::map<Category, CategoryTotal> by;
    for (const auto& g : report.removed) {
        auto& t = by[g.category];
        t.category = g.category;
        ++t.groups;
        t.bytes += g.bytes;
    }
    std::vector<CategoryTotal> out;
    for (const auto& [c, t] : by) out.push_back(t);
    std::stable_sort(out.begin(), out.end(), [](const CategoryTotal& a, const CategoryTotal& b) {
        return a.bytes != b.bytes ? a.bytes > b.bytes : a.groups > b.groups;
    });
    return out;
}

BestConfigLoss best_config_loss(const EvictReport& report) {
    BestConfigLoss loss;
    for (const auto& g : report.removed)
        for (const auto& path : g.best_configs) {
            ++loss.files;
            // A file that does not read or parse still goes; only its time is unknown.
            auto text = read_regular_file(path, 1 << 20);
            if (!text) continue;
            auto j = nlohmann::json::parse(*text, nullptr, false);
            if (!j.is_object()) continue;
            if (auto c = j.find("found_by_coordesc"); c != j.end() && c->is_boolean() && c->get<bool>())
                ++loss.by_coordesc;
            if (auto t = j.find("time_taken_ms"); t != j.end() && t->is_number_integer() && *t >= 0) {
                ++loss.with_time;
                loss.recorded_ms += t->get<std::int64_t>();
            }
        }
    return loss;
}

}  // namespace kiln::inductor
