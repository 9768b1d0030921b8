// Evaluation of a parsed guard: a recursive walk over the compact tree. Errors (overflow, division
// by zero) are recorded once and turned into an Error naming the sub-expression afterwards, so the
// hot path carries no Result per node.
#include <algorithm>
#include <cmath>

#include "guards/expr.hpp"

namespace kiln::guards {

class Evaluator {
public:
    Evaluator(const Expr& e, const std::int64_t* values) : e_(e), v_(values) {}

    Value eval(std::uint32_t idx) {
        const Node& n = e_.nodes_[idx];
        switch (n.op) {
            case Op::int_lit: return Value::of_int(e_.ints_[n.a]);
            case Op::float_lit: return Value::of_float(e_.floats_[n.a]);
            case Op::bool_lit: return Value::of_bool(n.a != 0);
            case Op::symbol: return Value::of_int(v_[n.a]);
            case Op::big_lit: return fail(ArithError::overflow, idx);
            case Op::pos: return eval(n.a);
            case Op::neg: return arith(py_neg(eval(n.a), out_), idx);
            case Op::not_: return Value::of_bool(!eval(n.a).truthy());
            case Op::add: return binary(py_add, n, idx);
            case Op::sub: return binary(py_sub, n, idx);
            case Op::mul: return binary(py_mul, n, idx);
            case Op::floordiv: return binary(py_floordiv, n, idx);
            case Op::mod: return binary(py_mod, n, idx);
            case Op::pow: return binary(py_pow, n, idx);
            case Op::and_: {
                Value v;
                for (std::uint32_t k = 0; k < n.b; ++k) {
                    v = eval(e_.lists_[n.a + k]);
                    if (!v.truthy() || err_ != ArithError::none) return v;  // Python returns the falsy operand
                }
                return v;
            }
            case Op::or_: {
                Value v;
                for (std::uint32_t k = 0; k < n.b; ++k) {
                    v = eval(e_.lists_[n.a + k]);
                    if (v.truthy() || err_ != ArithError::none) return v;
                }
                return v;
            }
            case Op::compare: {
                // a < b < c is a < b and b < c, evaluating b once and stopping at the first false.
                Value lhs = eval(e_.lists_[n.a]);
                for (std::uint32_t k = 1; k < n.b; ++k) {
                    Value rhs = eval(e_.lists_[n.a + k]);
                    if (!py_compare(e_.cmp_ops_[n.a + k - 1], lhs, rhs)) return Value::of_bool(false);
                    lhs = rhs;
                }
                return Value::of_bool(true);
            }
            case Op::call: return call(n, idx);
        }
        return {};
    }

    ArithError error() const { return err_; }
    std::uint32_t error_node() const { return err_node_; }

private:
    Value fail(ArithError e, std::uint32_t idx) {
        if (err_ == ArithError::none) {
            err_ = e;
            err_node_ = idx;
        }
        return Value::of_int(0);
    }
    Value arith(ArithError e, std::uint32_t idx) {
        if (e != ArithError::none) return fail(e, idx);
        return out_;
    }
    template <class F>
    Value binary(F f, const Node& n, std::uint32_t idx) {
        Value a = eval(n.a);
        Value b = eval(n.b);
        return arith(f(a, b, out_), idx);
    }
    Value arg(const Node& n, std::uint32_t k) { return eval(e_.lists_[n.a + k]); }

    Value call(const Node& n, std::uint32_t idx) {
        switch (n.fn) {
            case Fn::Eq: return Value::of_bool(py_compare(CmpOp::eq, arg(n, 0), arg(n, 1)));
            case Fn::Ne: return Value::of_bool(py_compare(CmpOp::ne, arg(n, 0), arg(n, 1)));
            case Fn::Lt: return Value::of_bool(py_compare(CmpOp::lt, arg(n, 0), arg(n, 1)));
            case Fn::Le: return Value::of_bool(py_compare(CmpOp::le, arg(n, 0), arg(n, 1)));
            case Fn::Gt: return Value::of_bool(py_compare(CmpOp::gt, arg(n, 0), arg(n, 1)));
            case Fn::Ge: return Value::of_bool(py_compare(CmpOp::ge, arg(n, 0), arg(n, 1)));
            // sympy's Mod on integers takes the divisor's sign, like Python's %.
            case Fn::Mod:
            case Fn::PythonMod: return arith(py_mod(arg(n, 0), arg(n, 1), out_), idx);
            case Fn::FloorDiv:
            case Fn::CleanDiv: return arith(py_floordiv(arg(n, 0), arg(n, 1), out_), idx);
            case Fn::CeilDiv: {
                // -(-a // b), as torch's CeilDiv.
                Value a = arg(n, 0), b = arg(n, 1), na, q;
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
                Value best = arg(n, 0);
                for (std::uint32_t k = 1; k < n.b; ++k) {
                    Value v = arg(n, k);
                    if (py_compare(is_max ? CmpOp::gt : CmpOp::lt, v, best)) best = v;
                }
                return best;
            }
            case Fn::Abs: {
                Value a = arg(n, 0);
                if (a.is_float()) return Value::of_float(std::fabs(a.f));
                if (a.i >= 0) return Value::of_int(a.i);
                return arith(py_neg(a, out_), idx);
            }
            case Fn::math_floor:
            case Fn::math_ceil: {
                Value a = arg(n, 0);
                if (!a.is_float()) return Value::of_int(a.i);
                if (!std::isfinite(a.f)) return fail(ArithError::domain, idx);
                double r = n.fn == Fn::math_floor ? std::floor(a.f) : std::ceil(a.f);
                if (std::fabs(r) >= 1.7e38) return fail(ArithError::overflow, idx);
                return Value::of_int(static_cast<i128>(r));
            }
        }
        return {};
    }

    const Expr& e_;
    const std::int64_t* v_;
    Value out_;
    ArithError err_ = ArithError::none;
    std::uint32_t err_node_ = 0;
};

namespace {

Error arith_error(const Expr& e, ArithError err, std::uint32_t node) {
    std::string sub(e.text(e.nodes()[node]));
    switch (err) {
        case ArithError::zero_division:
            return make_error(Errc::invalid_argument, "division by zero in '" + sub + "'", "guards_expr");
        case ArithError::domain:
            return make_error(Errc::invalid_argument, "math domain error in '" + sub + "'", "guards_expr");
        default:
            return make_error(Errc::limit, "integer overflow in '" + sub + "': the value exceeds 128 bits", "guards_expr",
                              "Kiln evaluates guards with 128-bit integers; Python's would be unbounded");
    }
}

}  // namespace

Status Expr::check_arity(std::span<const std::int64_t> values) const {
    if (values.size() >= symbols_.size()) return ok_status();
    for (std::size_t s = values.size(); s < symbols_.size(); ++s) {
        if (used_[s])
            return make_error(Errc::not_found,
                              "missing symbol L['" + symbols_[s] + "']: the guard needs " + std::to_string(symbols_.size()) +
                                  " value(s), " + std::to_string(values.size()) + " given",
                              "guards_expr", "pass one size per symbol, in order: " + [&] {
                                  std::string s2;
                                  for (auto& n : symbols_) s2 += (s2.empty() ? "" : ",") + n;
                                  return s2;
                              }());
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
    if (ev.error() != ArithError::none) return arith_error(*this, ev.error(), ev.error_node());
    return r;
}

Result<Verdict> Expr::check(std::span<const std::int64_t> values) const {
    KILN_CHECK(check_arity(values));
    Evaluator ev(*this, values.data());
    Verdict v;
    for (std::size_t k = 0; k < conjuncts_.size(); ++k) {
        bool holds = ev.eval(conjuncts_[k]).truthy();
        if (ev.error() != ArithError::none) return arith_error(*this, ev.error(), ev.error_node());
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
    if (top.op == Op::compare) {
        for (std::uint32_t k = 0; k < top.b; ++k) {
            std::uint32_t operand = lists_[top.a + k];
            Op op = nodes_[operand].op;
            if (op != Op::int_lit && op != Op::symbol && op != Op::float_lit && op != Op::bool_lit) computed.push_back(operand);
        }
    }
    // Symbols in source order, once each.
    std::vector<std::uint32_t> syms;
    for (std::uint32_t i = 0; i < nodes_.size(); ++i) {
        const Node& n = nodes_[i];
        if (n.op == Op::symbol && n.begin >= top.begin && n.end <= top.end) syms.push_back(i);
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
        Value v = ev.eval(c);
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
            return make_error(Errc::not_found, "missing symbol L['" + symbols_[s] + "']", "guards_expr");
        }
    }
    return out;
}

std::vector<std::string> Expr::conjuncts() const {
    std::vector<std::string> out;
    for (std::uint32_t c : conjuncts_) out.emplace_back(text(nodes_[c]));
    return out;
}

}  // namespace kiln::guards
