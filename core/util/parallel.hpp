#pragma once
// The one parallel loop over independent items (entries to decode, files to read): fn(i) for every i
// in [0, n) on up to `threads` threads (this one included), items handed out one at a time so a slow
// item never holds up a fixed share. Each call should write only its own slot. A raised `cancel`
// stops handing out items.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace kiln {

template <class Fn>
void parallel_for(std::size_t n, unsigned threads, const std::atomic<bool>* cancel, Fn&& fn) {
    std::atomic<std::size_t> next{0};
    auto work = [&] {
        for (std::size_t i; (i = next.fetch_add(1)) < n;) {
            if (cancel && cancel->load(std::memory_order_relaxed)) return;
            fn(i);
        }
    };
    unsigned t = static_cast<unsigned>(std::clamp<std::size_t>(std::min<std::size_t>(threads, n), 1, 256));
    std::vector<std::thread> pool;
    for (unsigned k = 1; k < t; ++k) pool.emplace_back(work);
    work();
    for (auto& th : pool) th.join();
}

// std::sort's order on up to `threads` threads: equal slices sorted at once, then merged pairwise (the
// merges of a round at once too). For a large index sorted while the other cores idle (the browser's
// path index, 1.1M entries, on the critical path of opening a cache). `less` must be a strict weak
// order; equal elements may end in any order, as with std::sort.
template <class It, class Less>
void parallel_sort(It first, It last, unsigned threads, Less less) {
    const std::size_t n = static_cast<std::size_t>(last - first);
    std::size_t parts = std::clamp<std::size_t>(threads, 1, 64);
    if (n < 4096 || parts == 1) {
        std::sort(first, last, less);
        return;
    }
    std::vector<std::size_t> bounds;
    for (std::size_t k = 0; k <= parts; ++k) bounds.push_back(n * k / parts);
    parallel_for(parts, threads, nullptr,
                 [&](std::size_t k) { std::sort(first + bounds[k], first + bounds[k + 1], less); });
    while (bounds.size() > 2) {
        std::vector<std::size_t> next;
        const std::size_t merges = (bounds.size() - 1) / 2;
        parallel_for(merges, threads, nullptr, [&](std::size_t m) {
            std::inplace_merge(first + bounds[2 * m], first + bounds[2 * m + 1], first + bounds[2 * m + 2], less);
        });
        for (std::size_t i = 0; i < bounds.size(); i += 2) next.push_back(bounds[i]);
        if (next.back() != bounds.back()) next.push_back(bounds.back());
        bounds = std::move(next);
    }
}

}  // namespace kiln
