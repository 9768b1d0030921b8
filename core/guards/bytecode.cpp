#include "guards/bytecode.hpp"

#include "guards/expr.hpp"

namespace kiln::guards {

namespace {

constexpr std::uint32_t kMaxStack = 64;

class Compiler {
public:
    explicit Compiler(const Expr& e) : e_(e) {}

    bool emit_node(std::uint32_t idx) {
        const Node& n = e_.nodes()[idx];
        switch (n.op) {
            case NodeOp::int_lit: {
                i128 v = e_.int_literal(n.a);
                if (v > INT64_MAX || v < INT64_MIN) return false;
                return push(Code::push_const, static_cast<std::int64_t>(v));
            }
            case NodeOp::bool_lit: return push(Code::push_const, n.a);
            case NodeOp::symbol: return push(Code::push_sym, n.a);
            case NodeOp::big_lit:
            case NodeOp::float_lit: return false;
            case NodeOp::pos: return emit_node(n.a);
            case NodeOp::neg: return emit_node(n.a) && op(Code::neg, 0);
            case NodeOp::not_: return emit_node(n.a) && op(Code::not_, 0);
            case NodeOp::pow: return binary(n, Code::pow);
            case NodeOp::arith: return arith(n);
            case NodeOp::and_: return chain(n, Code::jump_if_false_or_pop);
            case NodeOp::or_: return chain(n, Code::jump_if_true_or_pop);
            case NodeOp::compare: return compare(n);
            case NodeOp::call: return call(n);
        }
        return false;
    }

    Program finish() {
        out_.code.push_back({Code::ret, 0});
        return std::move(out_);
    }

private:
    bool push(Code c, std::int64_t arg) {
        out_.code.push_back({c, arg});
        if (++depth_ > out_.max_stack) out_.max_stack = depth_;
        return depth_ <= kMaxStack;
    }
    // An operator taking `pops` + 1 operands and leaving one.
    bool op(Code c, std::uint32_t pops) {
        out_.code.push_back({c, 0});
        depth_ -= pops;
        return true;
    }
    bool binary(const Node& n, Code c) { return emit_node(n.a) && emit_node(n.b) && op(c, 1); }

    // a + b - c as a, b, add, c, sub: the chain's loop, never a recursion per operand.
    bool arith(const Node& n) {
        if (!emit_node(list(n, 0))) return false;
        for (std::uint32_t k = 1; k < n.b; ++k) {
            Code c;
            switch (e_.step_op(n.a + k)) {
                case StepOp::add: c = Code::add; break;
                case StepOp::sub: c = Code::sub; break;
                case StepOp::mul: c = Code::mul; break;
                case StepOp::floordiv: c = Code::floordiv; break;
                case StepOp::mod: c = Code::mod; break;
                default: return false;  // true division: a float, the tree's
            }
            if (!emit_node(list(n, k)) || !op(c, 1)) return false;
        }
        return true;
    }
    std::uint32_t list(const Node& n, std::uint32_t k) const { return e_.list_item(n.a + k); }

    bool chain(const Node& n, Code jump) {
        std::vector<std::size_t> fixups;
        for (std::uint32_t k = 0; k < n.b; ++k) {
            if (!emit_node(list(n, k))) return false;
            if (k + 1 < n.b) {
                fixups.push_back(out_.code.size());
                op(jump, 1);  // on the fall-through path the value is popped
            }
        }
        for (std::size_t f : fixups) out_.code[f].arg = static_cast<std::int64_t>(out_.code.size());
        return true;
    }

    static Code cmp_code(CmpOp c) {
        switch (c) {
            case CmpOp::lt: return Code::lt;
            case CmpOp::le: return Code::le;
            case CmpOp::gt: return Code::gt;
            case CmpOp::ge: return Code::ge;
            case CmpOp::eq: return Code::eq;
            case CmpOp::ne: return Code::ne;
        }
        return Code::eq;
    }

    // a < b < c as (a < b) and (b < c): operands have no side effects, so evaluating b twice is exact.
    bool compare(const Node& n) {
        std::vector<std::size_t> fixups;
        for (std::uint32_t k = 0; k + 1 < n.b; ++k) {
            if (!emit_node(list(n, k)) || !emit_node(list(n, k + 1))) return false;
            op(cmp_code(e_.cmp_op(n.a + k)), 1);
            if (k + 2 < n.b) {
                fixups.push_back(out_.code.size());
                op(Code::jump_if_false_or_pop, 1);
            }
        }
        for (std::size_t f : fixups) out_.code[f].arg = static_cast<std::int64_t>(out_.code.size());
        return true;
    }

    bool call(const Node& n) {
        auto args2 = [&](Code c) { return emit_node(list(n, 0)) && emit_node(list(n, 1)) && op(c, 1); };
        switch (n.fn) {
            case Fn::Eq: return args2(Code::eq);
            case Fn::Ne: return args2(Code::ne);
            case Fn::Lt: return args2(Code::lt);
            case Fn::Le: return args2(Code::le);
            case Fn::Gt: return args2(Code::gt);
            case Fn::Ge: return args2(Code::ge);
            case Fn::Mod:
            case Fn::PythonMod: return args2(Code::mod);
            case Fn::FloorDiv:
            case Fn::CleanDiv: return args2(Code::floordiv);
            case Fn::CeilDiv:  // -(-a // b)
                return emit_node(list(n, 0)) && op(Code::neg, 0) && emit_node(list(n, 1)) && op(Code::floordiv, 1) &&
                       op(Code::neg, 0);
            case Fn::sym_max: return args2(Code::max);
            case Fn::sym_min: return args2(Code::min);
            case Fn::Max:
            case Fn::Min: {
                if (!emit_node(list(n, 0))) return false;
                for (std::uint32_t k = 1; k < n.b; ++k)
                    if (!emit_node(list(n, k)) || !op(n.fn == Fn::Max ? Code::max : Code::min, 1)) return false;
                return true;
            }
            case Fn::Abs: return emit_node(list(n, 0)) && op(Code::abs, 0);
            default: return false;  // true division and floor/ceil of floats
        }
    }

    const Expr& e_;
    Program out_;
    std::uint32_t depth_ = 0;
};

}  // namespace

std::optional<Program> compile_program(const Expr& e) {
    Compiler c(e);
    if (!c.emit_node(e.root())) return std::nullopt;
    Program p = c.finish();
    if (p.max_stack > kMaxStack) return std::nullopt;
    return p;
}

FastResult run_program(const Program& p, const std::int64_t* values) {
    std::int64_t stack[kMaxStack];
    std::int64_t* sp = stack;  // points past the top
    const Instr* code = p.code.data();
    for (std::size_t pc = 0;; ++pc) {
        const Instr& in = code[pc];
        switch (in.op) {
            case Code::push_const: *sp++ = in.arg; break;
            case Code::push_sym: *sp++ = values[in.arg]; break;
            case Code::add:
                --sp;
                if (__builtin_add_overflow(sp[-1], sp[0], &sp[-1])) return FastResult::bail;
                break;
            case Code::sub:
                --sp;
                if (__builtin_sub_overflow(sp[-1], sp[0], &sp[-1])) return FastResult::bail;
                break;
            case Code::mul:
                --sp;
                if (__builtin_mul_overflow(sp[-1], sp[0], &sp[-1])) return FastResult::bail;
                break;
            case Code::floordiv:
            case Code::mod: {
                --sp;
                std::int64_t a = sp[-1], b = sp[0];
                if (b == 0 || (b == -1 && a == INT64_MIN)) return FastResult::bail;
                std::int64_t q = a / b, r = a % b;
                if (r != 0 && ((r < 0) != (b < 0))) --q, r += b;  // round towards minus infinity
                sp[-1] = in.op == Code::floordiv ? q : r;
                break;
            }
            case Code::pow: {
                --sp;
                std::int64_t base = sp[-1], e = sp[0], r = 1;
                if (e < 0) return FastResult::bail;  // a float result: the tree handles it
                while (e > 0) {
                    if ((e & 1) && __builtin_mul_overflow(r, base, &r)) return FastResult::bail;
                    e >>= 1;
                    if (e > 0 && __builtin_mul_overflow(base, base, &base)) return FastResult::bail;
                }
                sp[-1] = r;
                break;
            }
            case Code::neg:
                if (sp[-1] == INT64_MIN) return FastResult::bail;
                sp[-1] = -sp[-1];
                break;
            case Code::abs:
                if (sp[-1] == INT64_MIN) return FastResult::bail;
                if (sp[-1] < 0) sp[-1] = -sp[-1];
                break;
            case Code::max:
                --sp;
                if (sp[0] > sp[-1]) sp[-1] = sp[0];
                break;
            case Code::min:
                --sp;
                if (sp[0] < sp[-1]) sp[-1] = sp[0];
                break;
            case Code::not_: sp[-1] = sp[-1] == 0; break;
            case Code::lt:
                --sp;
                sp[-1] = sp[-1] < sp[0];
                break;
            case Code::le:
                --sp;
                sp[-1] = sp[-1] <= sp[0];
                break;
            case Code::gt:
                --sp;
                sp[-1] = sp[-1] > sp[0];
                break;
            case Code::ge:
                --sp;
                sp[-1] = sp[-1] >= sp[0];
                break;
            case Code::eq:
                --sp;
                sp[-1] = sp[-1] == sp[0];
                break;
            case Code::ne:
                --sp;
                sp[-1] = sp[-1] != sp[0];
                break;
            case Code::jump_if_false_or_pop:
                if (sp[-1] == 0) pc = static_cast<std::size_t>(in.arg) - 1;
                else --sp;
                break;
            case Code::jump_if_true_or_pop:
                if (sp[-1] != 0) pc = static_cast<std::size_t>(in.arg) - 1;
                else --sp;
                break;
            case Code::ret: return sp[-1] != 0 ? FastResult::true_ : FastResult::false_;
        }
    }
}

}  // namespace kiln::guards
