// Evaluation of a parsed expression: a walk over the compact tree (recursive only where the source
// nests, which the parser caps; chains are loops). Errors (overflow, division by zero) are
// recorded once and turned into an Error naming the sub-expression afterwards, so the hot path
// carries no Result per node.
#include <algorithm>
#include <cmath>

#include "guards/expr.hpp"

namespace kiln::guards {

class Evaluator {
public:
    Evaluator(const Expr& e, const std::int64_t* values) : e_(e), v_(values) {}

    Number eval(std::uint32_t idx) {
        const Node& n = e_.nodes_[idx];
        switch (n.op) {
            case NodeOp::int_lit: return Number::of_int(e_.ints_[n.a]);
            case NodeOp::float_lit: return Number::of_float(e_.floats_[n.a]);
            case NodeOp::bool_lit: return Number::of_bool(n.a != 0);
            case NodeOp::symbol: return Number::of_int(v_[n.a]);
            case NodeOp::big_lit: return fail(ArithError::overflow, idx);
            case NodeOp::pos: return eval(n.a);
            case NodeOp::neg: return arith(py_neg(eval(n.a), out_), idx);
            case NodeOp::not_: return Number::of_bool(!eval(n.a).truthy());
            case NodeOp::pow: return binary(py_pow, n, idx);
            case NodeOp::arith: {
                Number acc = eval(e_.lists_[n.a]);
                for (std::uint32_t k = 1; k < n.b; ++k) {
                    Number rhs = eval(e_.lists_[n.a + k]);
                    if (ArithError err = step(e_.step_ops_[n.a + k], acc, rhs, out_); err != ArithError::none)
                        return fail(err, idx, k);
                    acc = out_;
                }
                return acc;
            }
            case NodeOp::and_: {
                Number v;
                for (std::uint32_t k = 0; k < n.b; ++k) {
                    v = eval(e_.lists_[n.a + k]);
                    if (!v.truthy() || err_ != ArithError::none) return v;  // Python returns the falsy operand
                }
                return v;
            }
            case NodeOp::or_: {
                Number v;
                for (std::uint32_t k = 0; k < n.b; ++k) {
                    v = eval(e_.lists_[n.a + k]);
                    if (v.truthy() || err_ != ArithError::none) return v;
                }
                return v;
            }
            case NodeOp::compare: {
                // a < b < c is a < b and b < c, evaluating b once and stopping at the first false.
                Number lhs = eval(e_.lists_[n.a]);
                for (std::uint32_t k = 1; k < n.b; ++k) {
                    Number rhs = eval(e_.lists_[n.a + k]);
                    if (!py_compare(e_.cmp_ops_[n.a + k - 1], lhs, rhs)) return Number::of_bool(false);
                    lhs = rhs;
                }
                return Number::of_bool(true);
            }
            case NodeOp::call: return call(n, idx);
        }
        return {};
    }

    ArithError error() const { return err_; }
    std::uint32_t error_node() const { return err_node_; }
    std::uint32_t error_step() const { return err_step_; }  // within an `arith` chain; 0: the whole node

private:
    static ArithError step(StepOp op, const Number& a, const Number& b, Number& out) {
        switch (op) {
            case StepOp::add: return py_add(a, b, out);
            case StepOp::sub: return py_sub(a, b, out);
            case StepOp::mul: return py_mul(a, b, out);
            case StepOp::floordiv: return py_floordiv(a, b, out);
            case StepOp::mod: return py_mod(a, b, out);
            case StepOp::truediv: return py_truediv(a, b, out);
        }
        return ArithError::none;
    }
    Number fail(ArithError e, std::uint32_t idx, std::uint32_t step = 0) {
        if (err_ == ArithError::none) {
            err_ = e;
            err_node_ = idx;
            err_step_ = step;
        }
        return Number::of_int(0);
    }
    Number arith(ArithError e, std::uint32_t idx) {
        if (e != ArithError::none) return fail(e, idx);
        return out_;
    }
    template <class F>
    Number binary(F f, const Node& n, std::uint32_t idx) {
        Number a = eval(n.a);
        Number b = eval(n.b);
        return arith(f(a, b, out_), idx);
    }
    Number arg(const Node& n, std::uint32_t k) { return eval(e_.lists_[n.a + k]); }

    Number call(const Node& n, std::uint32_t idx) {
        switch (n.fn) {
            case Fn::Eq: return Number::of_bool(py_compare(CmpOp::eq, arg(n, 0), arg(n, 1)));
            case Fn::Ne: return Number::of_bool(py_compare(CmpOp::ne, arg(n, 0), arg(n, 1)));
            case Fn::Lt: return Number::of_bool(py_compare(CmpOp::lt, arg(n, 0), arg(n, 1)));
            case Fn::Le: return Number::of_bool(py_compare(CmpOp::le, arg(n, 0), arg(n, 1)));
            case Fn::Gt: return Number::of_bool(py_compare(CmpOp::gt, arg(n, 0), arg(n, 1)));
            case Fn::Ge: return Number::of_bool(py_compare(CmpOp::ge, arg(n, 0), arg(n, 1)));
            // sympy's Mod on integers takes the divisor's sign, like Python's %.
            case Fn::Mod:
            case Fn::PythonMod: return arith(py_mod(arg(n, 0), arg(n, 1), out_), idx);
            case Fn::FloorDiv:
            case Fn::CleanDiv: return arith(py_floordiv(arg(n, 0), arg(n, 1), out_), idx);
            case Fn::CeilDiv: {
                // -(-a // b), as torch's CeilDiv.
                Number a = arg(n, 0), b = arg(n, 1), na, q;
                if (ArithError e = py_neg(a, na); e != ArithError::none) return fail(e, idx);
                if (ArithError e = py_floordiv(na, b, q); e != ArithError::none) return fail(e, idx);
                return arith(py_neg(q, out_), idx);
            }
            case Fn::IntTrueDiv:
            case Fn::FloatTrueDiv: return arith(py_truediv(arg(n, 0), arg(n, 1), out_), idx);
            case Fn::Max:
            case Fn::sym_max:
            case Fn::Min:
            case Fn::sym_min: {
                bool is_max = n.fn == Fn::Max || n.fn == Fn::sym_max;
                Number best = arg(n, 0);
                for (std::uint32_t k = 1; k < n.b; ++k) {
                    Number v = arg(n, k);
                    if (py_compare(is_max ? CmpOp::gt : CmpOp::lt, v, best)) best = v;
                }
                return best;
            }
            case Fn::Abs: {
                Number a = arg(n, 0);
                if (a.is_float()) return Number::of_float(std::fabs(a.f));
                if (a.i >= 0) return Number::of_int(a.i);
                return arith(py_neg(a, out_), idx);
            }
            case Fn::math_floor:
            case Fn::math_ceil: {
                Number a = arg(n, 0);
                if (!a.is_float()) return Number::of_int(a.i);
                if (!std::isfinite(a.f)) return fail(ArithError::domain, idx);
                double r = n.fn == Fn::math_floor ? std::floor(a.f) : std::ceil(a.f);
                if (std::fabs(r) >= 1.7e38) return fail(ArithError::overflow, idx);
                return Number::of_int(static_cast<i128>(r));
            }
        }
        return {};
    }

    const Expr& e_;
    const std::int64_t* v_;
    Number out_;
    ArithError err_ = ArithError::none;
    std::uint32_t err_node_ = 0;
    std::uint32_t err_step_ = 0;
};

namespace {

Error arith_error(const Expr& e, const Evaluator& ev) {
    const Node& n = e.nodes()[ev.error_node()];
    std::string sub(ev.error_step() > 0 ? e.step_text(n, ev.error_step()) : e.text(n));
    ArithError err = ev.error();
    switch (err) {
        case ArithError::zero_division:
            return make_error(Errc::invalid_argument, "division by zero in '" + sub + "'", e.error_context());
        case ArithError::domain:
            return make_error(Errc::invalid_argument, "math domain error in '" + sub + "'", e.error_context());
        case ArithError::float_range:
            return make_error(Errc::limit, "float result out of range in '" + sub + "'", e.error_context());
        default:
            return make_error(Errc::limit, "integer overflow in '" + sub + "': the value exceeds 128 bits",
                              e.error_context(), "Kiln evaluates with 128-bit integers; Python's would be unbounded");
    }
}

}  // namespace

std::string_view Expr::step_text(const Node& chain, std::uint32_t step) const {
    if (step + 1 >= chain.b) return text(chain);  // the whole chain, parentheses included
    std::uint32_t begin = nodes_[lists_[chain.a]].begin, end = nodes_[lists_[chain.a + step]].end;
    return std::string_view(source_).substr(begin, end - begin);
}

std::string Expr::error_context() const {
    return dialect_ == Dialect::restriction ? "restriction '" + source_ + "'" : "guards_expr";
}

Error Expr::missing_symbol(std::size_t slot) const {
    if (dialect_ == Dialect::restriction)
        return make_error(Errc::not_found, "unknown name '" + symbols_[slot] + "'", error_context(),
                          "restrictions may use the spec's parameters and constants");
    return make_error(Errc::not_found, "missing symbol L['" + symbols_[slot] + "']", "guards_expr");
}

Status Expr::check_arity(std::span<const std::int64_t> values) const {
    if (values.size() >= symbols_.size()) return ok_status();
    for (std::size_t s = values.size(); s < symbols_.size(); ++s) {
        if (!used_[s]) continue;
        if (dialect_ == Dialect::restriction) return missing_symbol(s);
        std::string order;
        for (auto& n : symbols_) order += (order.empty() ? "" : ",") + n;
        return make_error(Errc::not_found,
                          "missing symbol L['" + symbols_[s] + "']: the guard needs " +
                              std::to_string(symbols_.size()) + " value(s), " + std::to_string(values.size()) +
                              " given",
                          "guards_expr", "pass one size per symbol, in order: " + order);
    }
    return ok_status();
}

Result<bool> Expr::evaluate(std::span<const std::int64_t> values) const {
    if (values.size() < symbols_.size()) KILN_CHECK(check_arity(values));
    if (program_) {
        FastResult f = run_program(*program_, values.data());
        if (f != FastResult::bail) return f == FastResult::true_;
    }
    // The tree: exact 128-bit values, and the error that made the fast path bail.
    Evaluator ev(*this, values.data());
    bool r = ev.eval(root_).truthy();
    if (ev.error() != ArithError::none) return arith_error(*this, ev);
    return r;
}

Result<Number> Expr::value(std::span<const std::int64_t> values) const {
    if (values.size() < symbols_.size()) KILN_CHECK(check_arity(values));
    Evaluator ev(*this, values.data());
    Number v = ev.eval(root_);
    if (ev.error() != ArithError::none) return arith_error(*this, ev);
    return v;
}

Result<Verdict> Expr::check(std::span<const std::int64_t> values) const {
    KILN_CHECK(check_arity(values));
    Evaluator ev(*this, values.data());
    Verdict v;
    for (std::size_t k = 0; k < conjuncts_.size(); ++k) {
        bool holds = ev.eval(conjuncts_[k]).truthy();
        if (ev.error() != ArithError::none) return arith_error(*this, ev);
        if (!holds) {
            std::string text(this->text(nodes_[conjuncts_[k]]));
            std::string seen = describe_values(conjuncts_[k], values);
            v.failing = seen.empty() ? text : text + " (" + seen + ")";
            v.failing_index = k;
            return v;
        }
    }
    v.pass = true;
    return v;
}

// "L['t0'] = 100" for the symbols of a conjunct, plus the value of each computed operand of a
// comparison ("L['t1']*L['t0'] = 4294967296"), so a user sees why the bound failed.
std::string Expr::describe_values(std::uint32_t node, std::span<const std::int64_t> values) const {
    std::vector<std::uint32_t> shown;
    std::string out;
    auto add = [&](std::string item) { out += (out.empty() ? "" : ", ") + item; };
    std::vector<std::uint32_t> computed;
    const Node& top = nodes_[node];
    if (top.op == NodeOp::compare) {
        for (std::uint32_t k = 0; k < top.b; ++k) {
            std::uint32_t operand = lists_[top.a + k];
            NodeOp op = nodes_[operand].op;
            if (op != NodeOp::int_lit && op != NodeOp::symbol && op != NodeOp::float_lit && op != NodeOp::bool_lit)
                computed.push_back(operand);
        }
    }
    // Symbols in source order, once each.
    std::vector<std::uint32_t> syms;
    for (std::uint32_t i = 0; i < nodes_.size(); ++i) {
        const Node& n = nodes_[i];
        if (n.op == NodeOp::symbol && n.begin >= top.begin && n.end <= top.end) syms.push_back(i);
    }
    std::sort(syms.begin(), syms.end(), [&](auto x, auto y) { return nodes_[x].begin < nodes_[y].begin; });
    for (std::uint32_t s : syms) {
        std::uint32_t slot = nodes_[s].a;
        bool dup = false;
        for (std::uint32_t p : shown) dup |= nodes_[p].a == slot;
        if (dup) continue;
        shown.push_back(s);
        add("L['" + symbols_[slot] + "'] = " + std::to_string(values[slot]));
    }
    for (std::uint32_t c : computed) {
        Evaluator ev(*this, values.data());
        Number v = ev.eval(c);
        if (ev.error() == ArithError::none) add(std::string(text(nodes_[c])) + " = " + repr(v));
    }
    return out;
}

Result<std::vector<std::int64_t>> Expr::bind(const std::map<std::string, std::int64_t>& named) const {
    std::vector<std::int64_t> out(symbols_.size(), 0);
    for (std::size_t s = 0; s < symbols_.size(); ++s) {
        auto it = named.find(symbols_[s]);
        if (it != named.end()) {
            out[s] = it->second;
        } else if (used_[s]) {
            return missing_symbol(s);
        }
    }
    return out;
}

nlohmann::ordered_json to_json(const Verdict& v) {
    return {{"pass", v.pass}, {"failing", v.failing ? nlohmann::ordered_json(*v.failing) : nlohmann::ordered_json()}};
}

std::vector<std::string> Expr::conjuncts() const {
    std::vector<std::string> out;
    for (std::uint32_t c : conjuncts_) out.emplace_back(text(nodes_[c]));
    return out;
}

}  // namespace kiln::guards
