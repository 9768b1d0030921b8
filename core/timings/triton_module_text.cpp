#include "timings/triton_module_text.hpp"

#include "util/text_scan.hpp"

namespace kiln::timings {

std::optional<JitKernel> find_jit_kernel(std::string_view text) {
    using namespace scan;
    constexpr std::string_view jit = "@triton.jit";
    for (std::size_t at = text.find(jit); at != std::string_view::npos; at = text.find(jit, at + 1)) {
        // \s*\n: the run of spaces after the decorator ends in a newline ("def" is no space, so the
        // run is taken whole).
        const std::size_t run = at + jit.size();
        const std::size_t def = skip_spaces(text, run);
        if (def == run || text[def - 1] != '\n' || !has_at(text, def, "def")) continue;
        const std::size_t name = skip_spaces(text, def + 3);
        if (name == def + 3) continue;  // \s+
        const std::size_t name_end = skip_word(text, name);
        if (name_end == name || !has_at(text, skip_spaces(text, name_end), "(")) continue;
        return JitKernel{at, std::string(text.substr(name, name_end - name))};
    }
    return std::nullopt;
}

std::vector<std::pair<std::string, std::int64_t>> launch_arguments(std::string_view head) {
    using namespace scan;
    std::vector<std::pair<std::string, std::int64_t>> out;
    std::size_t pos = 0;
    for (std::size_t nl = head.find('\n', pos); nl != std::string_view::npos; nl = head.find('\n', pos)) {
        // \s* after the newline is taken whole (the name is no space): every newline inside the run
        // leads to the same place, so a miss skips the run.
        const std::size_t name = skip_spaces(head, nl + 1);
        pos = name;
        std::size_t name_end = name;
        for (std::string_view n : {"num_stages", "num_warps"})
            if (has_at(head, name, n)) name_end = name + n.size();
        if (name_end == name) continue;
        const std::size_t eq = skip_spaces(head, name_end);
        if (!has_at(head, eq, "=")) continue;
        const std::size_t digits = skip_spaces(head, eq + 1);
        const std::size_t digits_end = skip_digits(head, digits);
        if (digits_end == digits || !has_at(head, skip_spaces(head, digits_end), ",")) continue;
        pos = skip_spaces(head, digits_end) + 1;
        if (auto v = decimal_value(head.substr(digits, digits_end - digits)))
            out.emplace_back(std::string(head.substr(name, name_end - name)), *v);
    }
    return out;
}

}  // namespace kiln::timings
