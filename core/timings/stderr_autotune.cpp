#include "timings/stderr_autotune.hpp"

#include <cmath>
#include <cstdlib>
#include <optional>
#include <regex>
#include <sstream>

#include "timings/py_literal.hpp"
#include "timings/text_file.hpp"
#include "util/json_get.hpp"

namespace kiln::timings {
namespace {

const std::regex& header_re() {
    static const std::regex r(R"(^AUTOTUNE (\w+)\((.*)\)\s*$)");
    return r;
}

std::vector<std::string> split_list(const std::string& s) {
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
            for (size_t i = 0; i < current->sizes.size(); ++i)
                inputs += (i ? ", " : "") + current->sizes[i] + (i < dtypes.size() ? " " + dtypes[i] : "");
            current->inputs = inputs;
        }
        dtypes.clear();
        pick_best(*current);
        ops.push_back(std::move(*current));
        current.reset();
    }

    void failure(const std::smatch& m) {
        Choice c;
        std::string module = trim(m[3].str());
        std::filesystem::path mp(module);
        c.name = m[2].str() + ":" + mp.stem().string();
        c.error = trim(m[1].str());
        c.params = py_kwargs(m[4].str());
        c.module_path = module;  // as logged: the path on the machine that ran it
        pending_failures.push_back(std::move(c));
    }

    void line(const std::string& l, std::istringstream& in) {
        static const std::regex choice(
            R"(^  (\S+) ([0-9.eE+-]+|inf|nan) ms (?:([0-9.]+)%|<DIVIDED BY ZERO ERROR>) ?(.*)$)");
        static const std::regex closing(R"(^(\w+) AUTOTUNE benchmarking takes)");
        static const std::regex failed(R"(\] Exception (.*) for benchmark choice (\w+)\(([^,]+), (.*)\)\s*$)");
        std::smatch m;
        if (l.rfind("Autotune Choices Stats:", 0) == 0) {
            close();
            std::string next;
            if (std::getline(in, next)) pending_stats = nlohmann::ordered_json::parse(next, nullptr, false);
            if (pending_stats.is_discarded()) pending_stats = nullptr;
        } else if (std::regex_match(l, m, header_re())) {
            close();
            Op op;
            op.op = m[1];
            op.sizes = split_list(m[2]);
            op.inputs = m[2];
            op.source = origin;
            current = std::move(op);
        } else if (current && l.rfind("strides: ", 0) == 0) {
            // kept for the human form only through dtypes; strides can be symbolic here
        } else if (current && l.rfind("dtypes: ", 0) == 0) {
            for (auto d : split_list(l.substr(8))) dtypes.push_back(d.rfind("torch.", 0) == 0 ? d.substr(6) : d);
        } else if (current && std::regex_match(l, m, choice)) {
            Choice c;
            c.name = m[1];
            double ms = std::strtod(m[2].str().c_str(), nullptr);
            if (std::isfinite(ms)) c.ms = ms;
            else c.error = "benchmark returned " + m[2].str();
            c.ms_rounded = true;  // "{result:.4f}"
            if (m[3].matched) c.logged_pct = std::strtod(m[3].str().c_str(), nullptr);
            c.params = py_kwargs(m[4].str());
            current->choices.push_back(std::move(c));
        } else if (current && std::regex_search(l, closing)) {
            close();
        } else if (std::regex_search(l, m, failed)) {
            failure(m);
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
