#include "timings/stderr_autotune.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include "timings/py_literal.hpp"
#include "timings/text_file.hpp"
#include "util/json_get.hpp"
#include "util/text_scan.hpp"

namespace kiln::timings {
namespace {

// `^AUTOTUNE (\w+)\((.*)\)\s*$`: the op and its argument text ('.' takes neither '\r' nor '\n').
struct AutotuneHeader {
    std::string_view op, args;
};
std::optional<AutotuneHeader> autotune_header(std::string_view l) {
    using namespace scan;
    constexpr std::size_t op = 9;  // "AUTOTUNE "
    const std::size_t op_end = skip_word(l, op);
    if (!has_at(l, 0, "AUTOTUNE ") || op_end == op || !has_at(l, op_end, "(")) return std::nullopt;
    const std::string_view t = trim_end(l);  // the greedy (.*) ends at the last ')', spaces after it
    if (t.size() < op_end + 2 || t.back() != ')') return std::nullopt;
    const std::string_view args = t.substr(op_end + 1, t.size() - op_end - 2);
    if (args.find_first_of("\r\n") != std::string_view::npos) return std::nullopt;
    return AutotuneHeader{l.substr(op, op_end - op), args};
}

// `^  (\S+) ([0-9.eE+-]+|inf|nan) ms (?:([0-9.]+)%|<DIVIDED BY ZERO ERROR>) ?(.*)$`: one table row.
struct ChoiceRow {
    std::string_view name, ms;
    std::optional<std::string_view> pct;
    std::string_view params;
};
std::optional<ChoiceRow> choice_row(std::string_view l) {
    using namespace scan;
    const std::size_t name_end = skip_while(l, 2, [](char c) { return !is_space(c); });
    if (!has_at(l, 0, "  ") || name_end == 2 || !has_at(l, name_end, " ")) return std::nullopt;
    const std::size_t ms = name_end + 1;
    std::size_t ms_end = skip_while(
        l, ms, [](char c) { return is_digit(c) || std::string_view(".eE+-").find(c) != std::string_view::npos; });
    if (ms_end == ms && (has_at(l, ms, "inf") || has_at(l, ms, "nan"))) ms_end = ms + 3;
    if (ms_end == ms || !has_at(l, ms_end, " ms ")) return std::nullopt;
    ChoiceRow row{l.substr(2, name_end - 2), l.substr(ms, ms_end - ms), std::nullopt, {}};
    std::size_t at = ms_end + 4;
    const std::size_t pct_end = skip_while(l, at, [](char c) { return is_digit(c) || c == '.'; });
    if (pct_end > at && has_at(l, pct_end, "%")) {
        row.pct = l.substr(at, pct_end - at);
        at = pct_end + 1;
    } else if (has_at(l, at, "<DIVIDED BY ZERO ERROR>")) {
        at += 23;
    } else {
        return std::nullopt;
    }
    if (has_at(l, at, " ")) ++at;
    row.params = l.substr(at);
    if (row.params.find_first_of("\r\n") != std::string_view::npos) return std::nullopt;
    return row;
}

// `^(\w+) AUTOTUNE benchmarking takes`: the line that ends a table.
bool table_end(std::string_view l) {
    const std::size_t end = scan::skip_word(l, 0);
    return end > 0 && scan::has_at(l, end, " AUTOTUNE benchmarking takes");
}

// `\] Exception (.*) for benchmark choice (\w+)\(([^,]+), (.*)\)\s*$`, searched in a line: a failed
// choice. As the regex finds it: the first "] Exception " (or the first after a line break, which '.'
// does not cross, when the one before it finds nothing), then the last " for benchmark choice " after it
// whose tail matches, that tail's module ending at its first comma.
struct FailedChoice {
    std::string_view reason, caller, module, params;
};
std::optional<FailedChoice> failed_choice(std::string_view l) {
    using namespace scan;
    constexpr std::string_view exc = "] Exception ", choice = " for benchmark choice ";
    const std::string_view t = trim_end(l);
    if (t.empty() || t.back() != ')' || l.find(exc) == std::string_view::npos) return std::nullopt;
    const std::size_t close = t.size() - 1;
    const std::size_t last_break = l.find_last_of("\r\n", close);  // the params, (.*), come after it
    // Every " for benchmark choice " whose tail matches, from the last, in one backward pass: each
    // one's first comma is found from the next one's (a caller's \w+ never reaches the next one).
    std::vector<std::pair<std::size_t, FailedChoice>> tails;
    std::size_t comma_from = std::string_view::npos, comma = std::string_view::npos;
    for (std::size_t f = l.rfind(choice, close); f != std::string_view::npos;
         f = f == 0 ? std::string_view::npos : l.rfind(choice, f - 1)) {
        const std::size_t caller = f + choice.size();
        const std::size_t caller_end = skip_word(l, caller);
        if (caller_end == caller || !has_at(l, caller_end, "(")) continue;
        const std::size_t module = caller_end + 1;
        if (comma_from == std::string_view::npos || module > comma_from) {
            comma = l.find(',', module);
        } else if (const std::size_t c = l.substr(0, comma_from).find(',', module); c != std::string_view::npos) {
            comma = c;
        }
        comma_from = module;
        if (comma == std::string_view::npos || comma == module || !has_at(l, comma, ", ") || comma + 2 > close ||
            (last_break != std::string_view::npos && last_break >= comma + 2))
            continue;
        tails.emplace_back(f, FailedChoice{{},
                                           l.substr(caller, caller_end - caller),
                                           l.substr(module, comma - module),
                                           l.substr(comma + 2, close - comma - 2)});
    }
    for (std::size_t s = l.find(exc); s != std::string_view::npos;) {
        const std::size_t reason = s + exc.size();
        const std::size_t brk = l.find_first_of("\r\n", reason);  // the reason, (.*), ends before it
        // The last tail before the break (tails are in descending order).
        auto i = std::partition_point(tails.begin(), tails.end(), [&](const auto& tail) {
            return brk != std::string_view::npos && tail.first > brk;
        });
        if (i != tails.end() && i->first >= reason) {
            FailedChoice out = i->second;
            out.reason = l.substr(reason, i->first - reason);
            return out;
        }
        if (brk == std::string_view::npos) break;
        // The next start past the break: one before it would only see a part of these tails.
        s = l.find(exc, brk - exc.size() + 1);
    }
    return std::nullopt;
}

std::vector<std::string> split_list(std::string_view s) {
    auto parts = split_top_level(s, ',');
    if (parts.size() == 1 && parts[0].empty()) parts.clear();
    return parts;
}

struct Parser {
    std::string origin;
    std::vector<Op> ops;
    std::optional<Op> current;
    std::vector<Choice> pending_failures;
    nlohmann::ordered_json pending_stats;
    std::vector<std::string> dtypes;

    void close() {
        if (!current) return;
        // The stats line carries the winners' times unrounded; prefer them to the table's 4 digits.
        if (pending_stats.is_object()) {
            for (auto [kernel, time] :
                 {std::pair{"best_kernel", "best_time"}, {"best_triton_kernel", "best_triton_time"}}) {
                auto k = pending_stats.find(kernel);
                auto t = pending_stats.find(time);
                // A time that is negative, NaN or no number keeps the table's (util/json_get).
                if (k == pending_stats.end() || t == pending_stats.end() || !k->is_string() ||
                    !json_get::time_ms(*t, {}).ok())
                    continue;
                for (auto& c : current->choices)
                    if (c.name == k->get<std::string>()) {
                        c.ms = t->get<double>();
                        c.ms_rounded = false;
                    }
            }
        }
        pending_stats = nullptr;
        for (auto& f : pending_failures) current->choices.push_back(std::move(f));
        pending_failures.clear();
        if (!dtypes.empty()) {
            std::string inputs;
            for (size_t i = 0; i < current->sizes.size(); ++i) {
                inputs += (i ? ", " : "") + current->sizes[i] + (i < dtypes.size() ? " " + dtypes[i] : "");
                // As the timing cache's op says it (describe_inputs): a transposed operand is another op.
                if (i < current->strides.size() && !row_major(current->sizes[i], current->strides[i]))
                    inputs += " strides " + current->strides[i];
            }
            current->inputs = inputs;
        }
        dtypes.clear();
        pick_best(*current);
        ops.push_back(std::move(*current));
        current.reset();
    }

    void failure(const FailedChoice& f) {
        Choice c;
        std::string module = trim(f.module);
        std::filesystem::path mp(module);
        c.name = std::string(f.caller) + ":" + mp.stem().string();
        c.error = trim(f.reason);
        c.params = py_kwargs(f.params);
        c.module_path = module;  // as logged: the path on the machine that ran it
        pending_failures.push_back(std::move(c));
    }

    void line(const std::string& l, std::istringstream& in) {
        if (l.rfind("Autotune Choices Stats:", 0) == 0) {
            close();
            std::string next;
            if (std::getline(in, next)) pending_stats = nlohmann::ordered_json::parse(next, nullptr, false);
            if (pending_stats.is_discarded()) pending_stats = nullptr;
        } else if (auto header = autotune_header(l)) {
            close();
            Op op;
            op.op = header->op;
            op.sizes = split_list(header->args);
            op.inputs = header->args;
            op.source = origin;
            current = std::move(op);
        } else if (current && l.rfind("strides: ", 0) == 0) {
            // "[65536, 256, 1], [16384, 64, 1]": torch keys an autotuning by layout, so two tables of the
            // same sizes are told apart here. Symbolic strides (dynamic shapes) are left out.
            std::vector<std::string> strides;
            for (const auto& part : split_top_level(l.substr(9), ',')) {
                std::string t = trim(part);
                if (t.size() < 2 || t.front() != '[' || t.back() != ']') break;
                std::string dims;
                for (const auto& d : split_top_level(std::string_view(t).substr(1, t.size() - 2), ','))
                    dims += (dims.empty() ? "" : "x") + trim(d);
                if (dims.find_first_not_of("0123456789x") != std::string::npos) break;
                strides.push_back(dims);
            }
            if (strides.size() == current->sizes.size()) current->strides = std::move(strides);
        } else if (current && l.rfind("dtypes: ", 0) == 0) {
            for (auto d : split_list(l.substr(8))) dtypes.push_back(d.rfind("torch.", 0) == 0 ? d.substr(6) : d);
        } else if (auto row = current ? choice_row(l) : std::nullopt) {
            Choice c;
            c.name = row->name;
            const std::string ms_text(row->ms);
            double ms = std::strtod(ms_text.c_str(), nullptr);
            if (std::isfinite(ms)) c.ms = ms;
            else c.error = "benchmark returned " + ms_text;
            c.ms_rounded = true;  // "{result:.4f}"
            if (row->pct) c.logged_pct = std::strtod(std::string(*row->pct).c_str(), nullptr);
            c.params = py_kwargs(row->params);
            current->choices.push_back(std::move(c));
        } else if (current && table_end(l)) {
            close();
        } else if (auto failed = failed_choice(l)) {
            failure(*failed);
        }
    }
};

}  // namespace

bool looks_like_stderr_autotune(const std::string& text) {
    return text.find("\nAUTOTUNE ") != std::string::npos || text.rfind("AUTOTUNE ", 0) == 0;
}

std::vector<Op> parse_stderr_autotune(const std::string& text, const std::string& origin) {
    Parser p;
    p.origin = origin;
    std::istringstream in(text);
    std::string l;
    while (std::getline(in, l)) {
        if (!l.empty() && l.back() == '\r') l.pop_back();
        p.line(l, in);
    }
    p.close();
    return std::move(p.ops);
}

Result<std::vector<Op>> read_stderr_autotune(const std::filesystem::path& path) {
    KILN_TRY(std::string text, read_text_file(path, 256u << 20));
    return parse_stderr_autotune(text, path.string());
}

}  // namespace kiln::timings
