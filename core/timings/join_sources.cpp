#include "timings/join_sources.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <map>

namespace kiln::timings {
namespace {

bool all_digits(std::string_view s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// Sizes a source states as numbers ("512x512"), not symbols ("s97xs52").
bool concrete(const std::vector<std::string>& sizes) {
    return !sizes.empty() && std::all_of(sizes.begin(), sizes.end(), [](const std::string& s) {
        return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c)) || c == 'x';
        });
    });
}

// "512x512 float16, 512x512 float16" -> {"float16", "float16"}; {} when any input has none.
std::vector<std::string> dtypes_of(const std::string& inputs) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < inputs.size() && out.size() < 256) {
        std::size_t comma = inputs.find(',', start);
        std::string part = inputs.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        while (!part.empty() && part.front() == ' ') part.erase(part.begin());
        std::size_t sp = part.find(' ');
        if (sp == std::string::npos) return {};
        std::size_t end = part.find(' ', sp + 1);  // "8x8 float16 strides 1x8": the dtype alone
        out.push_back(part.substr(sp + 1, end == std::string::npos ? std::string::npos : end - sp - 1));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

bool conflict(const std::string& a, const std::string& b) { return !a.empty() && !b.empty() && a != b; }

// How readable a name is to the user: what torch printed in the AUTOTUNE table first, the timing
// cache's `<template>-<module key>` next (it names the module), Kiln's own `triton#4` last.
int name_rank(SourceKind kind, const std::string& name) {
    switch (kind) {
        case SourceKind::stderr_log: return name.find(':') == std::string::npos ? 0 : 3;
        case SourceKind::timing_cache: return 1;
        case SourceKind::session_log: return 2;
        case SourceKind::mm_log: return 4;
        default: return 5;
    }
}

int display_rank(const Choice& c) {
    for (const auto& s : c.seen_in)
        if (s.name == c.name) return name_rank(s.kind, s.name);
    return 5;
}

// The same benchmark's number: equal, or equal once rounded to the 4 decimals a table prints.
bool times_agree(const Choice& a, const Choice& b) {
    double tol = (a.ms_rounded || b.ms_rounded) ? 0.5e-4 + 1e-12 : 1e-9 * std::max(std::fabs(*a.ms), std::fabs(*b.ms));
    return std::fabs(*a.ms - *b.ms) <= tol;
}

// For each choice of `b`, the index of the same choice in `a` (-1: none); each used once, ties go
// to the closest time.
std::vector<int> match_choices(const Op& a, const Op& b) {
    std::vector<int> out(b.choices.size(), -1);
    std::vector<bool> taken(a.choices.size(), false);
    for (std::size_t j = 0; j < b.choices.size(); ++j) {
        const Choice& c = b.choices[j];
        double best_gap = INFINITY;
        for (std::size_t i = 0; i < a.choices.size(); ++i) {
            if (taken[i] || !same_choice(a.choices[i], c)) continue;
            double gap = valid_time(a.choices[i].ms) && valid_time(c.ms) ? std::fabs(*a.choices[i].ms - *c.ms) : 1e300;
            if (out[j] < 0 || gap < best_gap) {
                out[j] = static_cast<int>(i);
                best_gap = gap;
            }
        }
        if (out[j] >= 0) taken[static_cast<std::size_t>(out[j])] = true;
    }
    return out;
}

bool from_mm_log(const Op& op) { return !op.mm_log_key.empty(); }
bool mm_family(const std::string& op) { return op.find("mm") != std::string::npos; }

// Same name, or an mm log's unnamed record and an op of the mm family whose (M, K, N) it is.
bool same_op_name(const Op& a, const Op& b) {
    if (from_mm_log(a) && from_mm_log(b)) return a.mm_log_key == b.mm_log_key;
    if (from_mm_log(a) || from_mm_log(b)) {
        const Op& log = from_mm_log(a) ? a : b;
        const Op& named = from_mm_log(a) ? b : a;
        if (!mm_family(named.op)) return false;
        // A dynamic graph's record is symbolic ("s97"): only its numbers must agree, the times decide.
        const auto key = mm_log_key_of(named);
        if (key.size() != log.mm_log_key.size()) return false;
        for (std::size_t i = 0; i < key.size(); ++i)
            if (all_digits(log.mm_log_key[i]) && log.mm_log_key[i] != key[i]) return false;
        return true;
    }
    return a.op == b.op;
}

// One file's two ops are two autotunings (a stderr log of one process prints a table per key, and the
// same sizes come twice when the layouts differ): an op never absorbs a second op of a source it has.
bool has_source(const Op& a, const std::string& source) {
    return a.source == source || std::find(a.also_from.begin(), a.also_from.end(), source) != a.also_from.end();
}

// Whether `b` is the op `a` describes (see the header), and if so which choices are whose.
std::optional<std::vector<int>> joins(const Op& a, const Op& b) {
    if (!same_op_name(a, b) || conflict(a.precision, b.precision) || conflict(a.device, b.device)) return std::nullopt;
    if (has_source(a, b.source)) return std::nullopt;
    // Torch keys an autotuning by layout too: the same sizes with other strides are another op.
    if (!a.strides.empty() && !b.strides.empty() && a.strides != b.strides) return std::nullopt;
    const bool sized = concrete(a.sizes) && concrete(b.sizes);
    if (sized && a.sizes != b.sizes) return std::nullopt;
    auto da = dtypes_of(a.inputs), db = dtypes_of(b.inputs);
    if (!da.empty() && !db.empty() && da != db) return std::nullopt;
    const bool same_device = !a.device.empty() && a.device == b.device;
    if (!(same_device && sized)) {
        // Only the times can tell: a cheap look first (b's winner's time among a's), then every pair.
        const Choice* bb = find_choice(b, b.best);
        if (!bb || !std::any_of(a.choices.begin(), a.choices.end(),
                                [&](const Choice& c) { return valid_time(c.ms) && times_agree(c, *bb); }))
            return std::nullopt;
    }
    auto match = match_choices(a, b);
    int agree = 0, disagree = 0, timed = 0;
    for (std::size_t j = 0; j < match.size(); ++j) {
        if (!valid_time(b.choices[j].ms)) continue;
        ++timed;
        if (match[j] < 0) continue;
        const Choice& ac = a.choices[static_cast<std::size_t>(match[j])];
        if (!valid_time(ac.ms)) continue;
        (times_agree(ac, b.choices[j]) ? agree : disagree)++;
    }
    if (same_device && sized) return match;  // a rerun on the same device: its times may differ
    if (agree == 0 || disagree > 0 || agree * 2 < timed) return std::nullopt;
    return match;
}

void merge_choice(Choice& a, Choice b) {
    if (name_rank(b.seen_in.front().kind, b.name) < display_rank(a)) a.name = b.name;
    if ((!a.ms && b.ms) || (a.ms_rounded && valid_time(b.ms) && !b.ms_rounded)) {
        a.ms = b.ms;
        a.ms_rounded = b.ms_rounded;
    }
    if (a.ms) a.error.clear();
    else if (a.error.empty()) a.error = b.error;
    if (!a.logged_pct) a.logged_pct = b.logged_pct;
    if (b.params->is_object())
        for (auto it = b.params->begin(); it != b.params->end(); ++it)
            if (!a.params->contains(it.key())) a.params.edit()[it.key()] = it.value();
    if (a.module_path->empty()) a.module_path = b.module_path;
    for (auto& s : b.seen_in) a.seen_in.push_back(std::move(s));
    // The other names, in the sources' order (timing cache, mm log, stderr table).
    a.aliases.clear();
    for (const auto& s : a.seen_in)
        if (s.name != a.name && std::find(a.aliases.begin(), a.aliases.end(), s.name) == a.aliases.end())
            a.aliases.push_back(s.name);
}

void merge_op(Op& a, Op b, const std::vector<int>& match) {
    if (b.source != a.source && std::find(a.also_from.begin(), a.also_from.end(), b.source) == a.also_from.end())
        a.also_from.push_back(b.source);
    if (from_mm_log(a) && !from_mm_log(b)) {  // the named op says what the mm log's record was
        a.op = b.op;
        a.inputs = b.inputs;
        a.sizes = b.sizes;
        a.strides = b.strides;
    }
    a.mm_log_key.clear();
    if (a.strides.empty()) a.strides = b.strides;
    if (a.device.empty()) a.device = b.device;
    if (a.precision.empty()) a.precision = b.precision;
    if (dtypes_of(a.inputs).empty() && !dtypes_of(b.inputs).empty()) a.inputs = b.inputs;
    if (!concrete(a.sizes) && concrete(b.sizes)) a.sizes = b.sizes;
    for (std::size_t j = 0; j < b.choices.size(); ++j) {
        if (match[j] >= 0) merge_choice(a.choices[static_cast<std::size_t>(match[j])], std::move(b.choices[j]));
        else a.choices.push_back(std::move(b.choices[j]));
    }
    pick_best(a);
}

bool joinable(const Op& op) { return !is_per_kernel_config(op) && op.op != "kernel_perf" && !op.choices.empty(); }

}  // namespace

ChoiceKind choice_kind(const std::string& name) {
    ChoiceKind k;
    if (name == "cublas") return k;  // mm log: the extern kernel, unnamed
    if (name.rfind("triton#", 0) == 0) {
        k.is_template = true;
        return k;
    }
    if (auto colon = name.find(':'); colon != std::string::npos) {  // a failed stderr choice: Caller:<module>
        k.is_template = name.find("Template") < colon;
        k.known_kind = k.is_template || name.find("Extern") < colon;
        k.module_key = name.substr(colon + 1);
        return k;
    }
    std::string stem = name;
    if (auto dash = name.find('-'); dash != std::string::npos) {
        stem = name.substr(0, dash);
        k.module_key = name.substr(dash + 1);
    } else if (auto us = name.rfind('_');
               us != std::string::npos && all_digits(std::string_view(name).substr(us + 1))) {
        stem = name.substr(0, us);  // stderr: triton_mm_<n>, n counting every template choice of the process
    }
    k.family = stem;
    k.is_template = stem.rfind("triton_", 0) == 0;
    return k;
}

bool same_choice(const Choice& a, const Choice& b) {
    const ChoiceKind ka = choice_kind(a.name), kb = choice_kind(b.name);
    if (ka.known_kind && kb.known_kind && ka.is_template != kb.is_template) return false;
    if (!ka.module_key.empty() && !kb.module_key.empty()) return ka.module_key == kb.module_key;
    if (conflict(ka.family, kb.family)) return false;
    const bool tmpl = ka.is_template || kb.is_template;
    if (!a.params->is_object() || !b.params->is_object()) return !tmpl;
    int common = 0;
    for (auto it = a.params->begin(); it != a.params->end(); ++it) {
        auto other = b.params->find(it.key());
        if (other == b.params->end()) continue;
        if (other->dump() != it.value().dump()) return false;
        ++common;
    }
    return common > 0 || !tmpl;
}

// The ops of one name already in the output, indexed so that a sized op is only tried against the ops
// of its sizes and those with none: `joins` refuses two different concrete sizes at once, and a
// timing cache holds one op per inputs key (150,000 under "mm" made this loop quadratic: issue 42 #15).
struct JoinCandidates {
    std::vector<std::size_t> all, unsized;                                  // indices in `out`, in order
    std::map<std::vector<std::string>, std::vector<std::size_t>> by_sizes;  // concrete when added: stay so
};

// Adds out[i] (`op`) to its name's candidates, keeping each list in index order.
void index_op(JoinCandidates& c, const Op& op, std::size_t i) {
    auto put = [i](std::vector<std::size_t>& v) { v.insert(std::lower_bound(v.begin(), v.end(), i), i); };
    put(c.all);
    if (concrete(op.sizes)) put(c.by_sizes[op.sizes]);
    else put(c.unsized);
}

void join_sources(TimingSet& set, JoinSourcesWork* work) {
    std::map<std::string, SourceKind> kind_of;
    for (const auto& s : set.sources) kind_of.emplace(s.path, s.kind);
    std::vector<Op> out;
    std::map<std::string, JoinCandidates> by_name;  // op name -> its ops in out
    out.reserve(set.ops.size());
    std::vector<std::size_t> merged_order;
    for (auto& op : set.ops) {
        auto k = kind_of.find(op.source);
        const SourceKind kind = k == kind_of.end() ? SourceKind::timing_cache : k->second;
        for (auto& c : op.choices)
            if (c.seen_in.empty()) c.seen_in.push_back({kind, op.source, c.name, c.ms});
        if (!joinable(op)) {
            out.push_back(std::move(op));
            continue;
        }
        // Candidates, in the order they came: the ops of the name that can be of these sizes (see
        // JoinCandidates); an mm log's record (no name, no sizes) is tried against every op of the mm
        // family, and a named op of that family against the records not yet joined.
        merged_order.clear();
        auto add = [&](const std::vector<std::size_t>& v) {
            merged_order.insert(merged_order.end(), v.begin(), v.end());
        };
        if (from_mm_log(op)) {
            for (const auto& [name, c] : by_name)
                if (mm_family(name)) add(c.all);
        } else {
            auto& cands = by_name[op.op];
            if (concrete(op.sizes)) {
                if (auto sized = cands.by_sizes.find(op.sizes); sized != cands.by_sizes.end()) add(sized->second);
                add(cands.unsized);
            } else {
                add(cands.all);
            }
            if (mm_family(op.op) && op.op != "mm_family")
                if (auto logs = by_name.find("mm_family"); logs != by_name.end()) add(logs->second.all);
        }
        std::sort(merged_order.begin(), merged_order.end());
        merged_order.erase(std::unique(merged_order.begin(), merged_order.end()), merged_order.end());
        bool merged = false;
        for (std::size_t i : merged_order) {
            if (work) ++work->pairs_tried;
            if (auto match = joins(out[i], op)) {
                const std::string before = out[i].op;
                merge_op(out[i], std::move(op), *match);
                if (out[i].op != before) {  // an mm log's record now has its op's name (and sizes)
                    auto& old = by_name[before];
                    for (auto* v : {&old.all, &old.unsized}) v->erase(std::remove(v->begin(), v->end(), i), v->end());
                    index_op(by_name[out[i].op], out[i], i);
                }
                merged = true;
                break;
            }
        }
        if (merged) continue;
        index_op(by_name[op.op], op, out.size());
        out.push_back(std::move(op));
    }
    set.ops = std::move(out);
}

}  // namespace kiln::timings
