#pragma once
// Restriction expressions of a tuning spec, over integer parameters: `BLOCK_M * BLOCK_N <= 16384`,
// `M % BLOCK_M == 0 and THREADS >= 32`. Python-like: + - * // / % ** comparisons (chained),
// and/or/not (also && || !), parentheses, integer literals, True/False. Integers only (64-bit).
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "util/result.hpp"

namespace kiln::autotune {

using Bindings = std::map<std::string, std::int64_t>;

class Expr {
public:
    struct Node;
    static Result<Expr> parse(const std::string& text);
    Result<std::int64_t> eval(const Bindings& vars) const;
    const std::string& text() const { return text_; }

private:
    std::string text_;
    std::shared_ptr<const Node> root_;
};

}  // namespace kiln::autotune
