#pragma once
// Kiln's one expression evaluator. A guard expression (`guards_expr` of a graph entry,
// docs/inductor-cache-format.md §5) or a tuning-spec restriction (`BLOCK_M * BLOCK_K <= 8192`) is
// parsed once into a compact tree and evaluated many times with Python's semantics: exact 128-bit
// integers (an overflow is an error, never a wrapped answer), floor `//` and `%`, `**` with a
// negative exponent giving a float. Nothing is ever run as Python: the grammar is a small subset,
// anything else is a parse error.
//
// Symbols: in guards `L['t<N>']` is positional slot N (torch names the graph's SymInt inputs t0,
// t1, ...) and other names get the slots after the highest N, in order of first use; in
// restrictions a bare name is a symbol, slots in order of first use. bind() orders named values.
//
// Left-associative chains (`a + b - c`, `a * b // c`) are one n-ary node, so a chain of any length
// is evaluated and compiled by a loop; every other kind of nesting is capped at 200 levels.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "guards/bytecode.hpp"
#include "guards/number.hpp"
#include "util/result.hpp"

namespace kiln::guards {

enum class Dialect : std::uint8_t {
    guard,        // what torch prints: symbols are L['name'], no '/' (torch writes IntTrueDiv)
    restriction,  // tuning specs: bare names, '/' true division, also && || ! and true/false
};

enum class NodeOp : std::uint8_t {
    int_lit,    // a = index into ints
    big_lit,    // an integer literal beyond 128 bits: evaluating it reports overflow
    float_lit,  // a = index into floats
    bool_lit,   // a = 0/1
    symbol,     // a = slot
    neg,
    pos,
    not_,   // a = operand
    pow,    // a, b = operands (right-associative: nests)
    arith,  // lists[a..a+b) operands, step_ops[a+1..a+b) operators
    and_,
    or_,      // lists[a..a+b) operands (short-circuit chain)
    compare,  // lists[a..a+b) operands, cmp_ops[a..a+b-1) operators
    call,     // fn; lists[a..a+b) arguments
};

// The operators of an `arith` chain, applied left to right.
enum class StepOp : std::uint8_t { add, sub, mul, floordiv, mod, truediv };

enum class Fn : std::uint8_t {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Mod,
    PythonMod,
    FloorDiv,
    CleanDiv,
    CeilDiv,
    IntTrueDiv,
    FloatTrueDiv,
    Max,
    Min,
    Abs,
    math_floor,
    math_ceil,
    sym_max,
    sym_min,
};

struct Node {
    NodeOp op = NodeOp::int_lit;
    Fn fn = Fn::Eq;
    std::uint32_t a = 0;
    std::uint32_t b = 0;
    std::uint32_t begin = 0;  // source span [begin, end), for messages
    std::uint32_t end = 0;
};

// The outcome of checking one set of sizes; `failing` names the first top-level conjunct that
// does not hold, with the values it saw, e.g. "L['t0'] <= 64 (L['t0'] = 100)".
struct Verdict {
    bool pass = false;
    std::optional<std::string> failing;
    std::optional<std::size_t> failing_index;  // which conjunct (0-based)
};

// {"pass", "failing": text or null} (kiln-cli guards --expr --json).
nlohmann::ordered_json to_json(const Verdict& verdict);

class Expr {
public:
    static Result<Expr> parse(std::string_view source, Dialect dialect = Dialect::guard);

    const std::string& source() const { return source_; }
    Dialect dialect() const { return dialect_; }
    // One name per slot ("t0", "t1", ...); the values passed to evaluate() follow this order.
    const std::vector<std::string>& symbols() const { return symbols_; }
    bool uses_slot(std::size_t slot) const { return slot < used_.size() && used_[slot]; }
    // The source text of each top-level `and` operand (one when the expression is no conjunction).
    std::vector<std::string> conjuncts() const;

    // Truthiness of the expression, as torch's `bool(eval(...))`. Errors: a referenced slot without a
    // value, overflow beyond 128 bits, division by zero.
    Result<bool> evaluate(std::span<const std::int64_t> values) const;
    // The value itself (Python's answer, exactly), for tools and tests; always the tree.
    Result<Number> value(std::span<const std::int64_t> values) const;
    // Like evaluate, and on failure says which conjunct failed and with which values.
    Result<Verdict> check(std::span<const std::int64_t> values) const;
    // Orders named values ({"t0": 8, "x": 3}) by slot; names the first missing symbol.
    Result<std::vector<std::int64_t>> bind(const std::map<std::string, std::int64_t>& named) const;

    // The tree, for tools that render it.
    const std::vector<Node>& nodes() const { return nodes_; }
    std::uint32_t root() const { return root_; }
    std::string_view text(const Node& n) const { return std::string_view(source_).substr(n.begin, n.end - n.begin); }
    i128 int_literal(std::uint32_t i) const { return ints_[i]; }
    std::uint32_t list_item(std::uint32_t i) const { return lists_[i]; }
    CmpOp cmp_op(std::uint32_t i) const { return cmp_ops_[i]; }
    StepOp step_op(std::uint32_t i) const { return step_ops_[i]; }
    // The text of an `arith` chain up to and including operand `step` ("a + b" of "a + b - c").
    std::string_view step_text(const Node& chain, std::uint32_t step) const;
    // Whether the int64 fast path applies (see bytecode.hpp).
    bool has_fast_path() const { return program_.has_value(); }
    // Where errors say they come from: "guards_expr", or "restriction '<source>'".
    std::string error_context() const;

private:
    friend class Parser;
    friend class Evaluator;
    Status check_arity(std::span<const std::int64_t> values) const;
    Error missing_symbol(std::size_t slot) const;
    std::string describe_values(std::uint32_t node, std::span<const std::int64_t> values) const;

    std::string source_;
    Dialect dialect_ = Dialect::guard;
    std::vector<Node> nodes_;
    std::vector<i128> ints_;
    std::vector<double> floats_;
    std::vector<std::uint32_t> lists_;
    std::vector<CmpOp> cmp_ops_;    // parallel to lists_ for compare chains
    std::vector<StepOp> step_ops_;  // parallel to lists_ for arith chains
    std::vector<std::string> symbols_;
    std::vector<bool> used_;
    std::vector<std::uint32_t> conjuncts_;  // top-level `and` operands (node indices)
    std::uint32_t root_ = 0;
    std::optional<Program> program_;
};

}  // namespace kiln::guards
