#pragma once
// The fast path: integer-only guards (what torch prints almost always) compiled to a small stack
// program over int64 with checked arithmetic. It either finishes exactly or bails out (overflow,
// division by zero), and the caller then evaluates the tree with 128-bit values and full error
// reporting. Expressions with floats have no program and always take the tree.
#include <cstdint>
#include <optional>
#include <vector>

namespace kiln::guards {

class Expr;

enum class Code : std::uint8_t {
    push_const,
    push_sym,
    add,
    sub,
    mul,
    floordiv,
    mod,
    pow,
    neg,
    abs,
    max,
    min,
    not_,
    lt,
    le,
    gt,
    ge,
    eq,
    ne,
    jump_if_false_or_pop,
    jump_if_true_or_pop,  // `and` / `or`: keep the deciding value
    ret,
};

struct Instr {
    Code op = Code::ret;
    std::int64_t arg = 0;  // constant, slot, or jump target
};

struct Program {
    std::vector<Instr> code;
    std::uint32_t max_stack = 0;
};

// nullopt when the expression uses something the fast path does not handle (floats, true division,
// math.floor/ceil, literals beyond 64 bits) or nests too deep.
std::optional<Program> compile_program(const Expr& e);

enum class FastResult : std::uint8_t { false_, true_, bail };
FastResult run_program(const Program& p, const std::int64_t* values);

}  // namespace kiln::guards
