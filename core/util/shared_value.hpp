#pragma once
// An immutable value whose copies share one object; a copy costs a reference count, and `edit()`
// copies only when another holder shares it. A timing cache names the same few kernel modules in
// thousands of choices: each choice's parameters and module path are one such shared value, not a
// copy (issue 44: ~25 MB of a million-file cache's open).
#include <concepts>
#include <memory>
#include <type_traits>
#include <utility>

namespace kiln {

template <class T>
class Shared {
public:
    Shared() : p_(fallback()) {}  // T{}, one object for every default-made holder
    // Made as a T is made from the same argument, in parentheses (a string literal, a JSON value):
    // `Shared<json>{x}` holds x itself, where `json{x}` would be the array [x].
    template <class U>
    requires(!std::same_as<std::remove_cvref_t<U>, Shared> && std::constructible_from<T, U&&>) Shared(U&& value)
        : p_(std::make_shared<T>(std::forward<U>(value))) {}  // NOLINT: converts as T

    const T& get() const { return *p_; }
    operator const T&() const { return *p_; }  // NOLINT: reads as the value it holds
    const T& operator*() const { return *p_; }
    const T* operator->() const { return p_.get(); }
    template <class K>
    decltype(auto) operator[](K&& key) const {
        return std::as_const(*p_)[std::forward<K>(key)];
    }

    // A value of this holder's own, to change in place.
    T& edit() {
        if (p_.use_count() != 1) p_ = std::make_shared<T>(*p_);
        return *p_;
    }
    friend bool operator==(const Shared& a, const Shared& b) { return a.p_ == b.p_ || *a.p_ == *b.p_; }
    template <class U>
    requires(!std::same_as<U, Shared> && requires(const T& t, const U& u) { t == u; }) friend bool operator==(
        const Shared& a, const U& b) {
        return *a.p_ == b;
    }

private:
    static const std::shared_ptr<T>& fallback() {
        static const std::shared_ptr<T> value = std::make_shared<T>();
        return value;
    }
    std::shared_ptr<T> p_;  // never null
};

// nlohmann's hook (found by ADL): a shared value is written as the value it holds, also inside
// braced JSON lists, where a conversion operator alone would turn {"key", value} into an array.
template <class Json, class T>
void to_json(Json& j, const Shared<T>& v) {
    j = v.get();
}

}  // namespace kiln
