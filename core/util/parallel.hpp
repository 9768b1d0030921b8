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

}  // namespace kiln
