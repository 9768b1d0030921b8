#pragma once
// The values a guard expression computes with, and Python's arithmetic on them. Integers are
// 128-bit with every operation checked: guards multiply a few sizes (each < 2**63), so 128 bits
// hold what torch prints, and anything beyond is reported as overflow instead of wrapping.
#include <cstdint>
#include <string>

namespace kiln::guards {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;
inline constexpr i128 kI128Max = static_cast<i128>((u128{1} << 127) - 1);
inline constexpr i128 kI128Min = -kI128Max - 1;

enum class NumberKind : std::uint8_t { Int, Float, Bool };

struct Number {
    NumberKind kind = NumberKind::Int;
    i128 i = 0;      // Int and Bool (0/1): Python's bool is an int
    double f = 0.0;  // Float

    static Number of_int(i128 v) { return {NumberKind::Int, v, 0.0}; }
    static Number of_float(double v) { return {NumberKind::Float, 0, v}; }
    static Number of_bool(bool v) { return {NumberKind::Bool, v ? 1 : 0, 0.0}; }

    bool is_float() const { return kind == NumberKind::Float; }
    double as_double() const { return is_float() ? f : static_cast<double>(i); }
    bool truthy() const { return is_float() ? f != 0.0 : i != 0; }
};

// Python's repr(): True/False, decimal ints, shortest round-trip floats ("2.0", "1e+16").
std::string repr(const Number& v);
std::string int_to_string(i128 v);

// Why an operation produced no value; the evaluator turns it into an Error naming the node.
enum class ArithError : std::uint8_t { none, overflow, zero_division, domain, float_range };

// Python semantics: `//` and `%` round towards minus infinity, `%` takes the divisor's sign,
// int ** negative int is a float. Each returns ArithError::none on success.
ArithError py_add(const Number& a, const Number& b, Number& out);
ArithError py_sub(const Number& a, const Number& b, Number& out);
ArithError py_mul(const Number& a, const Number& b, Number& out);
ArithError py_floordiv(const Number& a, const Number& b, Number& out);
ArithError py_mod(const Number& a, const Number& b, Number& out);
ArithError py_pow(const Number& a, const Number& b, Number& out);
ArithError py_truediv(const Number& a, const Number& b, Number& out);
ArithError py_neg(const Number& a, Number& out);

enum class CmpOp : std::uint8_t { lt, le, gt, ge, eq, ne };
bool py_compare(CmpOp op, const Number& a, const Number& b);

}  // namespace kiln::guards
