#include "guards/number.hpp"

#include <charconv>
#include <cmath>

namespace kiln::guards {

std::string int_to_string(i128 v) {
    if (v == 0) return "0";
    bool neg = v < 0;
    // Work with negative numbers so that the minimum value needs no special case.
    char buf[48];
    int n = 0;
    i128 x = neg ? v : -v;
    while (x != 0) {
        buf[n++] = static_cast<char>('0' - static_cast<int>(x % 10));
        x /= 10;
    }
    std::string s = neg ? "-" : "";
    while (n > 0) s.push_back(buf[--n]);
    return s;
}

std::string repr(const Number& v) {
    switch (v.kind) {
        case NumberKind::Bool: return v.i ? "True" : "False";
        case NumberKind::Int: return int_to_string(v.i);
        case NumberKind::Float: break;
    }
    if (std::isnan(v.f)) return "nan";
    if (std::isinf(v.f)) return v.f > 0 ? "inf" : "-inf";
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v.f);
    std::string s(buf, res.ptr);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}

namespace {

bool both_int(const Number& a, const Number& b) { return !a.is_float() && !b.is_float(); }

// Floor division and modulo on integers, rounding towards minus infinity like Python.
void floor_divmod(i128 a, i128 b, i128& q, i128& r) {
    q = a / b;
    r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) {
        q -= 1;
        r += b;
    }
}

double float_mod(double a, double b) {
    double r = std::fmod(a, b);
    if (r != 0.0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

}  // namespace

ArithError py_add(const Number& a, const Number& b, Number& out) {
    if (both_int(a, b)) {
        i128 r;
        if (__builtin_add_overflow(a.i, b.i, &r)) return ArithError::overflow;
        out = Number::of_int(r);
    } else {
        out = Number::of_float(a.as_double() + b.as_double());
    }
    return ArithError::none;
}

ArithError py_sub(const Number& a, const Number& b, Number& out) {
    if (both_int(a, b)) {
        i128 r;
        if (__builtin_sub_overflow(a.i, b.i, &r)) return ArithError::overflow;
        out = Number::of_int(r);
    } else {
        out = Number::of_float(a.as_double() - b.as_double());
    }
    return ArithError::none;
}

ArithError py_mul(const Number& a, const Number& b, Number& out) {
    if (both_int(a, b)) {
        i128 r;
        if (__builtin_mul_overflow(a.i, b.i, &r)) return ArithError::overflow;
        out = Number::of_int(r);
    } else {
        out = Number::of_float(a.as_double() * b.as_double());
    }
    return ArithError::none;
}

ArithError py_neg(const Number& a, Number& out) {
    if (a.is_float()) {
        out = Number::of_float(-a.f);
        return ArithError::none;
    }
    i128 r;
    if (__builtin_sub_overflow(i128{0}, a.i, &r)) return ArithError::overflow;
    out = Number::of_int(r);
    return ArithError::none;
}

ArithError py_floordiv(const Number& a, const Number& b, Number& out) {
    if (both_int(a, b)) {
        if (b.i == 0) return ArithError::zero_division;
        if (b.i == -1 && a.i == kI128Min) return ArithError::overflow;
        i128 q, r;
        floor_divmod(a.i, b.i, q, r);
        out = Number::of_int(q);
    } else {
        double y = b.as_double();
        if (y == 0.0) return ArithError::zero_division;
        out = Number::of_float(std::floor(a.as_double() / y));
    }
    return ArithError::none;
}

ArithError py_mod(const Number& a, const Number& b, Number& out) {
    if (both_int(a, b)) {
        if (b.i == 0) return ArithError::zero_division;
        if (b.i == -1) {
            out = Number::of_int(0);
            return ArithError::none;
        }
        i128 q, r;
        floor_divmod(a.i, b.i, q, r);
        out = Number::of_int(r);
    } else {
        double y = b.as_double();
        if (y == 0.0) return ArithError::zero_division;
        out = Number::of_float(float_mod(a.as_double(), y));
    }
    return ArithError::none;
}

ArithError py_truediv(const Number& a, const Number& b, Number& out) {
    double y = b.as_double();
    if (y == 0.0) return ArithError::zero_division;
    out = Number::of_float(a.as_double() / y);
    return ArithError::none;
}

ArithError py_pow(const Number& a, const Number& b, Number& out) {
    if (!both_int(a, b) || b.i < 0) {
        double x = a.as_double(), y = b.as_double();
        if (x == 0.0 && y < 0) return ArithError::zero_division;  // Python: 0.0 ** -1 raises
        double r = std::pow(x, y);
        if (std::isnan(r) && !std::isnan(x) && !std::isnan(y)) return ArithError::domain;
        if (std::isinf(r) && std::isfinite(x) && std::isfinite(y)) return ArithError::float_range;  // Python raises
        out = Number::of_float(r);
        return ArithError::none;
    }
    i128 base = a.i, result = 1;
    i128 e = b.i;
    while (e > 0) {
        if (e & 1) {
            if (__builtin_mul_overflow(result, base, &result)) return ArithError::overflow;
        }
        e >>= 1;
        if (e > 0 && __builtin_mul_overflow(base, base, &base)) return ArithError::overflow;
    }
    out = Number::of_int(result);
    return ArithError::none;
}

bool py_compare(CmpOp op, const Number& a, const Number& b) {
    int c;
    if (both_int(a, b)) {
        c = a.i < b.i ? -1 : (a.i > b.i ? 1 : 0);
    } else {
        // long double holds every int below 2**64 exactly, so size-vs-float compares are exact.
        long double x = a.is_float() ? a.f : static_cast<long double>(a.i);
        long double y = b.is_float() ? b.f : static_cast<long double>(b.i);
        if (std::isnan(x) || std::isnan(y)) return op == CmpOp::ne;
        c = x < y ? -1 : (x > y ? 1 : 0);
    }
    switch (op) {
        case CmpOp::lt: return c < 0;
        case CmpOp::le: return c <= 0;
        case CmpOp::gt: return c > 0;
        case CmpOp::ge: return c >= 0;
        case CmpOp::eq: return c == 0;
        case CmpOp::ne: return c != 0;
    }
    return false;
}

}  // namespace kiln::guards
