#pragma once
// Errors as values: every fallible core function returns Result<T>. An Error says what went
// wrong, where (context: path, offset, key), and, when known, how to fix it (hint).
#include <cassert>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace kiln {

enum class Errc {
    generic,
    io,         // a system call failed
    not_found,  // a path, key or symbol does not exist
    parse,      // malformed input
    limit,      // input exceeds a configured limit
    invalid_argument,
    unsupported,
    timeout,
    cancelled,
    busy,         // held by another process (locks)
    external,     // an external tool (compiler, worker, server) failed
    unavailable,  // what the work needs is missing: a tool (python, nvcc), the CUDA driver, a field
};

struct Error {
    Errc code = Errc::generic;
    std::string message;
    std::string context;
    std::string hint;

    // "context: message (hint)" -- the one-line form used by the CLI and the GUI.
    std::string str() const;

    Error&& with_context(std::string outer) &&;
    Error&& with_hint(std::string h) &&;
};

inline Error make_error(Errc code, std::string message, std::string context = {}, std::string hint = {}) {
    return Error{code, std::move(message), std::move(context), std::move(hint)};
}
// errno-based I/O error for `what` on `path`.
Error io_error(const std::string& what, const std::string& path, int err);

template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}
    Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}
    template <class U, std::enable_if_t<std::is_constructible_v<T, U&&> && !std::is_same_v<std::decay_t<U>, T> &&
                                            !std::is_same_v<std::decay_t<U>, Error>,
                                        int> = 0>
    Result(U&& u) : v_(std::in_place_index<0>, T(std::forward<U>(u))) {}

    bool ok() const { return v_.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & {
        assert(ok());
        return std::get<0>(v_);
    }
    const T& value() const& {
        assert(ok());
        return std::get<0>(v_);
    }
    T&& value() && {
        assert(ok());
        return std::get<0>(std::move(v_));
    }
    T value_or(T fallback) const { return ok() ? std::get<0>(v_) : std::move(fallback); }

    const Error& error() const {
        assert(!ok());
        return std::get<1>(v_);
    }
    Error& error() {
        assert(!ok());
        return std::get<1>(v_);
    }

    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

private:
    std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
public:
    Result() = default;
    Result(Error error) : err_(std::move(error)), ok_(false) {}
    bool ok() const { return ok_; }
    explicit operator bool() const { return ok_; }
    const Error& error() const {
        assert(!ok_);
        return err_;
    }
    Error& error() {
        assert(!ok_);
        return err_;
    }

private:
    Error err_;
    bool ok_ = true;
};

using Status = Result<void>;
inline Status ok_status() { return {}; }

}  // namespace kiln

#define KILN_CONCAT_INNER(a, b) a##b
#define KILN_CONCAT(a, b) KILN_CONCAT_INNER(a, b)

// KILN_TRY(auto x, expr): bind the value or return the error from the enclosing function.
#define KILN_TRY_IMPL(tmp, decl, expr)            \
    auto tmp = (expr);                            \
    if (!tmp.ok()) return std::move(tmp.error()); \
    decl = std::move(tmp).value()
#define KILN_TRY(decl, expr) KILN_TRY_IMPL(KILN_CONCAT(kiln_try_, __LINE__), decl, expr)

// KILN_CHECK(status_expr): return the error of a Status-returning call.
#define KILN_CHECK(expr)                                              \
    do {                                                              \
        auto kiln_check_ = (expr);                                    \
        if (!kiln_check_.ok()) return std::move(kiln_check_.error()); \
    } while (0)
