// Recursive-descent parser for guard expressions and restrictions, following Python's precedence:
// or < and < not < comparisons (chained) < + - < * / // % < unary - + < ** < calls, names, ( ).
// Chains of one precedence level (or, and, comparisons, + -, * / // %) are parsed by loops into
// one n-ary node; the recursion that remains (parentheses, unary operators, **, calls) is capped.
#include <algorithm>
#include <array>
#include <charconv>
#include <utility>

#include "guards/expr.hpp"
#include "guards/lexer.hpp"

namespace kiln::guards {

namespace {

constexpr int kMaxDepth = 200;  // deeper nesting is no guard torch prints; keeps the stack bounded

struct FnSpec {
    const char* name;  // as written in the source
    Fn fn;
    int min_args;
    int max_args;  // -1: any
};
constexpr std::array<FnSpec, 20> kFns{{
    {"Eq", Fn::Eq, 2, 2},
    {"Ne", Fn::Ne, 2, 2},
    {"Lt", Fn::Lt, 2, 2},
    {"Le", Fn::Le, 2, 2},
    {"Gt", Fn::Gt, 2, 2},
    {"Ge", Fn::Ge, 2, 2},
    {"Mod", Fn::Mod, 2, 2},
    {"PythonMod", Fn::PythonMod, 2, 2},
    {"FloorDiv", Fn::FloorDiv, 2, 2},
    {"CleanDiv", Fn::CleanDiv, 2, 2},
    {"CeilDiv", Fn::CeilDiv, 2, 2},
    {"IntTrueDiv", Fn::IntTrueDiv, 2, 2},
    {"FloatTrueDiv", Fn::FloatTrueDiv, 2, 2},
    {"Max", Fn::Max, 1, -1},
    {"Min", Fn::Min, 1, -1},
    {"Abs", Fn::Abs, 1, 1},
    {"math.floor", Fn::math_floor, 1, 1},
    {"math.ceil", Fn::math_ceil, 1, 1},
    {"torch.sym_max", Fn::sym_max, 2, 2},
    {"torch.sym_min", Fn::sym_min, 2, 2},
}};

const FnSpec* find_fn(std::string_view name) {
    for (const auto& f : kFns)
        if (name == f.name) return &f;
    return nullptr;
}

// Built with append: GCC 12 warns falsely (-Wrestrict) on `"'" + std::string`.
std::string quoted(std::string_view s) { return std::string("'").append(s).append("'"); }

std::string known_calls() {
    std::string s;
    for (const auto& f : kFns) s += (s.empty() ? "" : ", ") + std::string(f.name);
    return s;
}

}  // namespace

class Parser {
public:
    Parser(Expr& e, std::vector<Token> toks) : e_(e), toks_(std::move(toks)) {}

    bool restriction() const { return e_.dialect_ == Dialect::restriction; }

    Result<std::uint32_t> parse_all() {
        KILN_TRY(std::uint32_t root, parse_or());
        if (peek().kind != Tok::end) return unexpected("after a complete expression");
        return root;
    }

    std::vector<std::pair<std::string, std::uint32_t>> symbol_uses;  // name, node

private:
    const Token& peek(std::size_t k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
    const Token& next() { return toks_[std::min(pos_++, toks_.size() - 1)]; }
    bool is_keyword(std::string_view kw, std::size_t k = 0) const {
        return peek(k).kind == Tok::name && peek(k).text == kw;
    }

    Error error_at(std::string msg, std::uint32_t offset, std::string hint = {}) const {
        return make_error(Errc::parse, std::move(msg) + " at column " + std::to_string(offset + 1), "guards_expr",
                          std::move(hint));
    }
    Error unexpected(std::string_view where) const {
        const Token& t = peek();
        std::string what = t.kind == Tok::end ? "end of expression"
                                              : quoted(std::string_view(e_.source_).substr(t.begin, t.end - t.begin));
        return error_at("unexpected " + what + " " + std::string(where), t.begin);
    }
    Status expect(Tok kind, std::string_view where) {
        if (peek().kind != kind)
            return unexpected(std::string("(expected ") + tok_name(kind) + " " + std::string(where) + ")");
        ++pos_;
        return ok_status();
    }

    std::uint32_t add(Node n) {
        e_.nodes_.push_back(n);
        return static_cast<std::uint32_t>(e_.nodes_.size() - 1);
    }
    std::uint32_t add_list(const std::vector<std::uint32_t>& items) {
        auto first = static_cast<std::uint32_t>(e_.lists_.size());
        e_.lists_.insert(e_.lists_.end(), items.begin(), items.end());
        e_.cmp_ops_.resize(e_.lists_.size(), CmpOp::eq);
        e_.step_ops_.resize(e_.lists_.size(), StepOp::add);
        return first;
    }
    std::uint32_t begin_of(std::uint32_t n) const { return e_.nodes_[n].begin; }
    std::uint32_t end_of(std::uint32_t n) const { return e_.nodes_[n].end; }

    Status enter() {
        if (++depth_ > kMaxDepth)
            return make_error(Errc::limit,
                              "expression nested deeper than " + std::to_string(kMaxDepth) + " levels at column " +
                                  std::to_string(peek().begin + 1),
                              "guards_expr");
        return ok_status();
    }

    // Shared by `and`/`or`: an n-ary short-circuit chain (`alias`: && or ||, restrictions only).
    template <class Sub>
    Result<std::uint32_t> parse_chain(std::string_view kw, Tok alias, NodeOp op, Sub sub) {
        KILN_TRY(std::uint32_t first, sub());
        auto at_operator = [&] { return is_keyword(kw) || peek().kind == alias; };
        if (!at_operator()) return first;
        std::vector<std::uint32_t> items{first};
        while (at_operator()) {
            ++pos_;
            KILN_TRY(std::uint32_t rhs, sub());
            items.push_back(rhs);
        }
        std::uint32_t at = add_list(items);
        return add(
            Node{op, Fn::Eq, at, static_cast<std::uint32_t>(items.size()), begin_of(first), end_of(items.back())});
    }

    Result<std::uint32_t> parse_or() {
        KILN_CHECK(enter());
        auto r = parse_chain("or", Tok::or_or, NodeOp::or_, [this] { return parse_and(); });
        --depth_;
        return r;
    }
    Result<std::uint32_t> parse_and() {
        return parse_chain("and", Tok::and_and, NodeOp::and_, [this] { return parse_not(); });
    }

    Result<std::uint32_t> parse_not() {
        if (is_keyword("not") || peek().kind == Tok::bang) {
            std::uint32_t start = next().begin;
            KILN_CHECK(enter());
            KILN_TRY(std::uint32_t operand, parse_not());
            --depth_;
            return add(Node{NodeOp::not_, Fn::Eq, operand, 0, start, end_of(operand)});
        }
        return parse_comparison();
    }

    static bool cmp_of(Tok t, CmpOp& op) {
        switch (t) {
            case Tok::lt: op = CmpOp::lt; return true;
            case Tok::le: op = CmpOp::le; return true;
            case Tok::gt: op = CmpOp::gt; return true;
            case Tok::ge: op = CmpOp::ge; return true;
            case Tok::eq: op = CmpOp::eq; return true;
            case Tok::ne: op = CmpOp::ne; return true;
            default: return false;
        }
    }

    Result<std::uint32_t> parse_comparison() {
        KILN_TRY(std::uint32_t first, parse_arith());
        CmpOp op;
        if (is_keyword("is") || is_keyword("in"))
            return error_at("operator '" + peek().text + "' is not supported", peek().begin);
        if (!cmp_of(peek().kind, op)) return first;
        std::vector<std::uint32_t> operands{first};
        std::vector<CmpOp> ops;
        while (cmp_of(peek().kind, op)) {
            ++pos_;
            KILN_TRY(std::uint32_t rhs, parse_arith());
            operands.push_back(rhs);
            ops.push_back(op);
        }
        std::uint32_t at = add_list(operands);
        for (std::size_t k = 0; k < ops.size(); ++k) e_.cmp_ops_[at + k] = ops[k];
        return add(Node{NodeOp::compare, Fn::Eq, at, static_cast<std::uint32_t>(operands.size()), begin_of(first),
                        end_of(operands.back())});
    }

    // One precedence level of left-associative operators as an n-ary `arith` node: a loop, so a
    // chain of 60,000 terms costs no stack. `step` maps a token to its operator (false: not ours).
    template <class Sub, class Step>
    Result<std::uint32_t> parse_arith_chain(Sub sub, Step step) {
        KILN_TRY(std::uint32_t first, sub());
        StepOp op = StepOp::add;  // set by step() before use; GCC 13 cannot see it
        KILN_TRY(bool more, step(peek().kind, op));
        if (!more) return first;
        std::vector<std::uint32_t> operands{first};
        std::vector<StepOp> ops{StepOp::add};  // operand 0 has no operator
        while (more) {
            ++pos_;
            ops.push_back(op);
            KILN_TRY(std::uint32_t rhs, sub());
            operands.push_back(rhs);
            KILN_TRY(more, step(peek().kind, op));
        }
        std::uint32_t at = add_list(operands);
        for (std::size_t k = 0; k < ops.size(); ++k) e_.step_ops_[at + k] = ops[k];
        return add(Node{NodeOp::arith, Fn::Eq, at, static_cast<std::uint32_t>(operands.size()), begin_of(first),
                        end_of(operands.back())});
    }

    Result<std::uint32_t> parse_arith() {
        return parse_arith_chain([this] { return parse_term(); },
                                 [](Tok t, StepOp& op) -> Result<bool> {
                                     if (t != Tok::plus && t != Tok::minus) return false;
                                     op = t == Tok::plus ? StepOp::add : StepOp::sub;
                                     return true;
                                 });
    }

    Result<std::uint32_t> parse_term() {
        return parse_arith_chain([this] { return parse_unary(); },
                                 [this](Tok t, StepOp& op) -> Result<bool> {
                                     switch (t) {
                                         case Tok::star: op = StepOp::mul; return true;
                                         case Tok::dslash: op = StepOp::floordiv; return true;
                                         case Tok::percent: op = StepOp::mod; return true;
                                         case Tok::slash:
                                             if (!restriction())
                                                 return error_at(
                                                     "true division '/' is not supported", peek().begin,
                                                     "guards use '//' (floor division) or IntTrueDiv/FloatTrueDiv");
                                             op = StepOp::truediv;
                                             return true;
                                         default: return false;
                                     }
                                 });
    }

    Result<std::uint32_t> parse_unary() {
        if (peek().kind == Tok::minus || peek().kind == Tok::plus) {
            const Token& t = next();
            NodeOp op = t.kind == Tok::minus ? NodeOp::neg : NodeOp::pos;
            std::uint32_t start = t.begin;
            KILN_CHECK(enter());
            KILN_TRY(std::uint32_t operand, parse_unary());
            --depth_;
            return add(Node{op, Fn::Eq, operand, 0, start, end_of(operand)});
        }
        return parse_power();
    }

    Result<std::uint32_t> parse_power() {
        KILN_TRY(std::uint32_t base, parse_primary());
        if (peek().kind != Tok::dstar) return base;
        ++pos_;
        KILN_CHECK(enter());
        KILN_TRY(std::uint32_t exp, parse_unary());  // right-associative; 2**-1 is allowed
        --depth_;
        return add(Node{NodeOp::pow, Fn::Eq, base, exp, begin_of(base), end_of(exp)});
    }

    Result<std::uint32_t> parse_primary() {
        const Token& t = peek();
        switch (t.kind) {
            case Tok::integer: return parse_int(next());
            case Tok::floating: {
                const Token& f = next();
                double v = 0;
                auto res = std::from_chars(f.text.data(), f.text.data() + f.text.size(), v);
                if (res.ec != std::errc() && res.ec != std::errc::result_out_of_range)
                    return error_at("malformed float literal '" + f.text + "'", f.begin);
                e_.floats_.push_back(v);
                return add(Node{NodeOp::float_lit, Fn::Eq, static_cast<std::uint32_t>(e_.floats_.size() - 1), 0,
                                f.begin, f.end});
            }
            case Tok::lparen: {
                std::uint32_t open = next().begin;
                KILN_TRY(std::uint32_t inner, parse_or());
                if (peek().kind != Tok::rparen)
                    return unexpected("(expected ')' to close '(' at column " + std::to_string(open + 1) + ")");
                std::uint32_t close = next().end;
                // Widen the span so messages quote the parentheses too.
                Node n = e_.nodes_[inner];
                n.begin = open;
                n.end = close;
                e_.nodes_[inner] = n;
                return inner;
            }
            case Tok::name: return parse_name();
            default:
                return unexpected(restriction() ? "(expected a number, a name, a call or '(')"
                                                : "(expected a number, L['name'], a call or '(')");
        }
    }

    Result<std::uint32_t> parse_int(const Token& t) {
        i128 v = 0;
        bool big = false;
        for (char c : t.text) {
            if (__builtin_mul_overflow(v, i128{10}, &v) || __builtin_add_overflow(v, i128{c - '0'}, &v)) {
                big = true;
                break;
            }
        }
        if (big) return add(Node{NodeOp::big_lit, Fn::Eq, 0, 0, t.begin, t.end});
        e_.ints_.push_back(v);
        return add(Node{NodeOp::int_lit, Fn::Eq, static_cast<std::uint32_t>(e_.ints_.size() - 1), 0, t.begin, t.end});
    }

    Result<std::uint32_t> parse_name() {
        const Token& first = next();
        bool lower_bool = restriction() && (first.text == "true" || first.text == "false");
        if (first.text == "True" || first.text == "False" || lower_bool)
            return add(Node{NodeOp::bool_lit, Fn::Eq, first.text == "True" || first.text == "true" ? 1u : 0u, 0,
                            first.begin, first.end});
        if (first.text == "L" && peek().kind == Tok::lbracket) return parse_symbol(first);
        if (is_reserved(first.text)) return error_at("unexpected '" + first.text + "'", first.begin);
        std::string dotted = first.text;
        std::uint32_t end = first.end;
        while (peek().kind == Tok::dot && peek(1).kind == Tok::name) {
            ++pos_;
            dotted += "." + peek().text;
            end = next().end;
        }
        if (peek().kind != Tok::lparen) {
            if (peek().kind == Tok::dot)
                return error_at("attribute access on '" + dotted + "' is not supported", peek().begin);
            if (restriction() && dotted == first.text) return add_symbol(first.text, first.begin, first.end);
            return error_at("unknown name '" + dotted + "'", first.begin,
                            restriction() ? "" : "guards refer to inputs as L['t0'], L['t1'], ...");
        }
        const FnSpec* spec = find_fn(dotted);
        if (!spec)
            return error_at("unknown function '" + dotted + "'", first.begin, "supported calls: " + known_calls());
        ++pos_;  // '('
        std::vector<std::uint32_t> args;
        if (peek().kind != Tok::rparen) {
            for (;;) {
                KILN_CHECK(enter());
                KILN_TRY(std::uint32_t a, parse_or());
                --depth_;
                args.push_back(a);
                if (peek().kind != Tok::comma) break;
                ++pos_;
                if (peek().kind == Tok::rparen) break;  // trailing comma, as Python allows
            }
        }
        if (peek().kind != Tok::rparen) return unexpected("(expected ',' or ')' in the call of " + dotted + ")");
        end = next().end;
        int n = static_cast<int>(args.size());
        if (n < spec->min_args || (spec->max_args >= 0 && n > spec->max_args)) {
            std::string want =
                spec->max_args < 0 ? "at least " + std::to_string(spec->min_args) : std::to_string(spec->min_args);
            return error_at(dotted + "() takes " + want + " argument(s), got " + std::to_string(n), first.begin);
        }
        std::uint32_t at = add_list(args);
        return add(Node{NodeOp::call, spec->fn, at, static_cast<std::uint32_t>(n), first.begin, end});
    }

    Result<std::uint32_t> parse_symbol(const Token& l) {
        ++pos_;  // '['
        if (peek().kind != Tok::string) return unexpected("(expected a quoted name in L[...])");
        std::string name = next().text;
        if (name.empty()) return error_at("empty symbol name in L['']", l.begin);
        KILN_CHECK(expect(Tok::rbracket, "to close L["));
        return add_symbol(std::move(name), l.begin, toks_[pos_ - 1].end);
    }

    std::uint32_t add_symbol(std::string name, std::uint32_t begin, std::uint32_t end) {
        std::uint32_t n = add(Node{NodeOp::symbol, Fn::Eq, 0, 0, begin, end});
        symbol_uses.emplace_back(std::move(name), n);
        return n;
    }

    // Python keywords never name a value (`1 if x else 2`, `None` are outside the grammar).
    static bool is_reserved(std::string_view name) {
        for (const char* kw : {"and", "or", "not", "in", "is", "if", "else", "lambda", "None", "for"})
            if (name == kw) return true;
        return false;
    }

    Expr& e_;
    std::vector<Token> toks_;
    std::size_t pos_ = 0;
    int depth_ = 0;
};

namespace {

constexpr long kMaxSymbolIndex = 4096;

// "t12" -> 12; anything else -> -1. One rule for every length: t<digits> is a slot, however many
// digits (t4294967297 is above the limit like t4097, not a name that lands in slot 0 after a 32-bit
// truncation or a length cut-off); "t01" is a name (torch never prints a leading zero).
long positional_index(const std::string& name) {
    if (name.size() < 2 || name[0] != 't') return -1;
    long v = 0;
    for (std::size_t i = 1; i < name.size(); ++i) {
        if (name[i] < '0' || name[i] > '9') return -1;
        if (v <= kMaxSymbolIndex) v = v * 10 + (name[i] - '0');  // saturates just above the limit
    }
    if (name.size() > 2 && name[1] == '0') return -1;  // "t01" is a name, not slot 1
    return v;
}

}  // namespace

Result<Expr> Expr::parse(std::string_view source, Dialect dialect) {
    if (source.size() > (1u << 24))
        return make_error(Errc::limit, "guard expression longer than 16 MiB", "guards_expr");
    Expr e;
    e.source_ = std::string(source);
    e.dialect_ = dialect;
    auto toks = tokenize(e.source_, dialect == Dialect::restriction);
    if (!toks.ok()) {
        if (dialect == Dialect::restriction) toks.error().context = e.error_context();
        return std::move(toks.error());
    }
    if (toks->size() == 1) return make_error(Errc::parse, "empty guard expression", e.error_context());
    Parser p(e, std::move(toks).value());
    auto root = p.parse_all();
    if (!root.ok()) {
        if (dialect == Dialect::restriction) root.error().context = e.error_context();
        return std::move(root.error());
    }
    e.root_ = *root;

    // Slots: in guards t<N> is N; other names follow the highest N, in order of first use.
    auto positional = [&](const std::string& name) { return dialect == Dialect::guard ? positional_index(name) : -1; };
    long max_pos = -1;
    for (auto& [name, node] : p.symbol_uses) {
        if (positional(name) > kMaxSymbolIndex)
            return make_error(Errc::limit,
                              "symbol index above t" + std::to_string(kMaxSymbolIndex) + ": L['" + name + "']",
                              "guards_expr");
        max_pos = std::max(max_pos, positional(name));
    }
    for (long i = 0; i <= max_pos; ++i) e.symbols_.push_back(std::string("t").append(std::to_string(i)));
    e.used_.assign(e.symbols_.size(), false);
    for (auto& [name, node] : p.symbol_uses) {
        long idx = positional(name);
        if (idx < 0) {
            auto it = std::find(e.symbols_.begin() + (max_pos + 1), e.symbols_.end(), name);
            idx = it - e.symbols_.begin();
            if (it == e.symbols_.end()) {
                e.symbols_.push_back(name);
                e.used_.push_back(false);
            }
        }
        e.nodes_[node].a = static_cast<std::uint32_t>(idx);
        e.used_[idx] = true;
    }

    const Node& r = e.nodes_[e.root_];
    if (r.op == NodeOp::and_) {
        for (std::uint32_t k = 0; k < r.b; ++k) e.conjuncts_.push_back(e.lists_[r.a + k]);
    } else {
        e.conjuncts_.push_back(e.root_);
    }
    e.program_ = compile_program(e);
    return e;
}

}  // namespace kiln::guards
