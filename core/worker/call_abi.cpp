// Calling a kernel whose arity is known only at run time: every argument is a pointer or an
// integer, so each travels as one 64-bit integer (System V / AArch64 alike).
#include <array>
#include <utility>

#include "worker/executor.hpp"

namespace kiln::worker {
namespace {

template <size_t... I>
std::uint64_t call_n(void* fn, const std::uint64_t* a, std::index_sequence<I...>) {
    using F = std::uint64_t (*)(decltype((void)I, std::uint64_t{})...);
    return reinterpret_cast<F>(fn)(a[I]...);
}

template <size_t N>
std::uint64_t call_fixed(void* fn, const std::uint64_t* a) {
    return call_n(fn, a, std::make_index_sequence<N>{});
}

template <size_t... N>
constexpr auto make_table(std::index_sequence<N...>) {
    return std::array<std::uint64_t (*)(void*, const std::uint64_t*), sizeof...(N)>{&call_fixed<N>...};
}

constexpr size_t kMaxArgs = 24;

}  // namespace

Result<std::uint64_t> call_with_u64_args(void* fn, const std::vector<std::uint64_t>& args) {
    static constexpr auto table = make_table(std::make_index_sequence<kMaxArgs + 1>{});
    if (args.size() > kMaxArgs)
        return make_error(Errc::limit,
                          "kernel takes " + std::to_string(args.size()) + " arguments; at most 24 are supported");
    return table[args.size()](fn, args.data());
}

}  // namespace kiln::worker
