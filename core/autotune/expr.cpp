#include "autotune/expr.hpp"

#include <cctype>
#include <vector>

namespace kiln::autotune {

struct Expr::Node {
    enum Kind { Num, Var, Unary, Binary, Compare } kind = Num;
    std::int64_t value = 0;
    std::string name;  // variable name or operator
    std::vector<std::shared_ptr<const Node>> kids;
    std::vector<std::string> ops;  // for chained comparisons
};

namespace {

using NodeP = std::shared_ptr<const Expr::Node>;

struct Parser {
    const std::string& s;
    size_t pos = 0;
    std::string error;

    void skip() { while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos; }
    bool word(const char* w) {
        skip();
        size_t n = std::char_traits<char>::length(w);
        if (s.compare(pos, n, w) != 0) return false;
        if (std::isalnum(static_cast<unsigned char>(w[0]))) {
            size_t end = pos + n;
            if (end < s.size() && (std::isalnum(static_cast<unsigned char>(s[end])) || s[end] == '_')) return false;
        }
        pos += n;
        return true;
    }
    NodeP fail(const std::string& msg) {
        if (error.empty()) error = msg + " at offset " + std::to_string(pos);
        return nullptr;
    }
    static NodeP make(Expr::Node n) { return std::make_shared<const Expr::Node>(std::move(n)); }
    static NodeP bin(const std::string& op, NodeP a, NodeP b) {
        if (!a || !b) return nullptr;  // the failing side has recorded the error
        Expr::Node n;
        n.kind = Expr::Node::Binary;
        n.name = op;
        n.kids = {std::move(a), std::move(b)};
        return make(std::move(n));
    }

    NodeP parse_or() {
        NodeP l = parse_and();
        while (l && (word("or") || word("||"))) l = bin("or", l, parse_and());
        return l;
    }
    NodeP parse_and() {
        NodeP l = parse_not();
        while (l && (word("and") || word("&&"))) l = bin("and", l, parse_not());
        return l;
    }
    NodeP parse_not() {
        skip();
        if (word("not") || (pos < s.size() && s[pos] == '!' && (pos + 1 >= s.size() || s[pos + 1] != '=') && ++pos)) {
            NodeP k = parse_not();
            if (!k) return nullptr;
            Expr::Node n;
            n.kind = Expr::Node::Unary;
            n.name = "not";
            n.kids = {k};
            return make(std::move(n));
        }
        return parse_compare();
    }
    NodeP parse_compare() {
        NodeP first = parse_sum();
        if (!first) return nullptr;
        Expr::Node n;
        n.kind = Expr::Node::Compare;
        n.kids.push_back(first);
        for (;;) {
            std::string op;
            for (const char* c : {"<=", ">=", "==", "!=", "<", ">"})
                if (word(c)) { op = c; break; }
            if (op.empty()) break;
            NodeP r = parse_sum();
            if (!r) return nullptr;
            n.ops.push_back(op);
            n.kids.push_back(r);
        }
        if (n.ops.empty()) return first;
        return make(std::move(n));
    }
    NodeP parse_sum() {
        NodeP l = parse_product();
        while (l) {
            if (word("+")) l = bin("+", l, parse_product());
            else if (word("-")) l = bin("-", l, parse_product());
            else break;
        }
        return l;
    }
    NodeP parse_product() {
        NodeP l = parse_unary();
        while (l) {
            skip();
            if (s.compare(pos, 2, "**") == 0) break;  // handled by parse_power
            if (word("//")) l = bin("//", l, parse_unary());
            else if (word("*")) l = bin("*", l, parse_unary());
            else if (word("/")) l = bin("//", l, parse_unary());  // integers only: floor division
            else if (word("%")) l = bin("%", l, parse_unary());
            else break;
        }
        return l;
    }
    NodeP parse_unary() {
        if (word("-")) {
            NodeP k = parse_unary();
            return k ? bin("-", make(Expr::Node{}), k) : nullptr;
        }
        if (word("+")) return parse_unary();
        return parse_power();
    }
    NodeP parse_power() {
        NodeP base = parse_atom();
        if (base && word("**")) return bin("**", base, parse_unary());
        return base;
    }
    NodeP parse_atom() {
        skip();
        if (pos >= s.size()) return fail("unexpected end of expression");
        char c = s[pos];
        if (c == '(') {
            ++pos;
            NodeP e = parse_or();
            if (e && !word(")")) return fail("expected ')'");
            return e;
        }
        if (std::isdigit(static_cast<unsigned char>(c))) {
            Expr::Node n;
            while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) n.value = n.value * 10 + (s[pos++] - '0');
            return make(std::move(n));
        }
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            size_t start = pos;
            while (pos < s.size() && (std::isalnum(static_cast<unsigned char>(s[pos])) || s[pos] == '_')) ++pos;
            std::string name = s.substr(start, pos - start);
            Expr::Node n;
            if (name == "True" || name == "true") n.value = 1;
            else if (name == "False" || name == "false") n.value = 0;
            else { n.kind = Expr::Node::Var; n.name = name; }
            return make(std::move(n));
        }
        return fail(std::string("unexpected character '") + c + "'");
    }
};

Result<std::int64_t> eval_node(const Expr::Node& n, const Bindings& vars) {
    using K = Expr::Node;
    switch (n.kind) {
        case K::Num: return n.value;
        case K::Var: {
            auto it = vars.find(n.name);
            if (it == vars.end()) return make_error(Errc::invalid_argument, "unknown name '" + n.name + "'");
            return it->second;
        }
        case K::Unary: {
            KILN_TRY(auto v, eval_node(*n.kids[0], vars));
            return std::int64_t{v == 0};
        }
        case K::Compare: {
            KILN_TRY(auto left, eval_node(*n.kids[0], vars));
            for (size_t i = 0; i < n.ops.size(); ++i) {
                KILN_TRY(auto right, eval_node(*n.kids[i + 1], vars));
                const std::string& op = n.ops[i];
                bool ok = op == "<" ? left < right : op == "<=" ? left <= right : op == ">" ? left > right
                        : op == ">=" ? left >= right : op == "==" ? left == right : left != right;
                if (!ok) return std::int64_t{0};
                left = right;
            }
            return std::int64_t{1};
        }
        case K::Binary: {
            KILN_TRY(auto a, eval_node(*n.kids[0], vars));
            if (n.name == "and" && a == 0) return std::int64_t{0};
            if (n.name == "or" && a != 0) return std::int64_t{1};
            KILN_TRY(auto b, eval_node(*n.kids[1], vars));
            if (n.name == "and" || n.name == "or") return std::int64_t{b != 0};
            if (n.name == "+") return a + b;
            if (n.name == "-") return a - b;
            if (n.name == "*") return a * b;
            if (n.name == "**") {
                std::int64_t r = 1;
                for (std::int64_t i = 0; i < b; ++i) r *= a;
                return r;
            }
            if (b == 0) return make_error(Errc::invalid_argument, "division by zero");
            // Python's floor semantics for // and %.
            std::int64_t q = a / b, r = a % b;
            if (r != 0 && ((r < 0) != (b < 0))) { --q; r += b; }
            return n.name == "%" ? r : q;
        }
    }
    return make_error(Errc::generic, "bad expression node");
}

}  // namespace

Result<Expr> Expr::parse(const std::string& text) {
    Parser p{text, 0, {}};
    NodeP root = p.parse_or();
    p.skip();
    if (root && p.pos != text.size()) root = p.fail("unexpected trailing text");
    if (!root) return make_error(Errc::parse, p.error, text);
    Expr e;
    e.text_ = text;
    e.root_ = root;
    return e;
}

Result<std::int64_t> Expr::eval(const Bindings& vars) const {
    auto r = eval_node(*root_, vars);
    if (!r.ok()) return std::move(r.error()).with_context(text_);
    return r;
}

}  // namespace kiln::autotune
